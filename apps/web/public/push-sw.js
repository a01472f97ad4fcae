/* Web Push for facilitator replies, imported into the generated service worker (vite.config.ts importScripts).
   The server sends { title, body, url, tag, lang } already in the person's language. */
self.addEventListener("push", (event) => {
  let data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch {
    data = {};
  }
  event.waitUntil(
    (async () => {
      // The open conversation already shows the reply live: no notification over it.
      const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
      if (windows.some((w) => w.visibilityState === "visible" && new URL(w.url).pathname.startsWith("/chats"))) return;
      await self.registration.showNotification(data.title || "Hikaya", {
        body: data.body || "",
        tag: data.tag || "hikaya",
        lang: data.lang || undefined,
        dir: data.lang === "ar" ? "rtl" : "ltr",
        icon: "/icons/icon-192.png",
        badge: "/icons/icon-192.png",
        data: { url: data.url || "/chats" },
      });
    })(),
  );
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = new URL(event.notification.data?.url || "/chats", self.location.origin).href;
  event.waitUntil(
    (async () => {
      const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
      const open = windows.find((w) => new URL(w.url).origin === self.location.origin);
      if (open) {
        await open.focus();
        if ("navigate" in open) await open.navigate(url).catch(() => undefined);
        return;
      }
      await self.clients.openWindow(url);
    })(),
  );
});

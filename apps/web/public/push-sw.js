/* Web Push for facilitator replies (families) and families' messages (operators with no console open), imported
   into the generated service worker (vite.config.ts importScripts). The server sends { title, body, url, tag, lang }
   already in the person's language; a tap opens `url` (/chats, or /admin/inbox/<id>). */
self.addEventListener("push", (event) => {
  let data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch {
    data = {};
  }
  event.waitUntil(
    (async () => {
      // A visible page of the area the push opens (the family's chat; an operator's console, for a push to operators)
      // already shows the message live: no notification over it.
      const url = data.url || "/chats";
      const area = url.startsWith("/admin") ? "/admin" : "/chats";
      const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
      if (windows.some((w) => w.visibilityState === "visible" && new URL(w.url).pathname.startsWith(area))) return;
      await self.registration.showNotification(data.title || "Hikaya", {
        body: data.body || "",
        tag: data.tag || "hikaya",
        lang: data.lang || undefined,
        dir: data.lang === "ar" ? "rtl" : "ltr",
        icon: "/icons/icon-192.png",
        badge: "/icons/icon-192.png",
        data: { url },
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

/**
 * Web Push for facilitator replies: this browser's subscription, made with the server's VAPID key and
 * sent to /api/push/subscription; the service worker (public/push-sw.js) shows the notification.
 */
import { api } from "./api-client.ts";

export type PushState = "unsupported" | "denied" | "off" | "on";

const supported = () =>
  typeof window !== "undefined" && "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;

async function registration(): Promise<ServiceWorkerRegistration | null> {
  if (!supported()) return null;
  return (await navigator.serviceWorker.getRegistration()) ?? null;
}

export async function pushState(): Promise<PushState> {
  const reg = await registration();
  if (!reg) return "unsupported";
  if (Notification.permission === "denied") return "denied";
  return (await reg.pushManager.getSubscription()) ? "on" : "off";
}

const toBytes = (base64url: string) => {
  const raw = atob(
    base64url
      .replace(/-/g, "+")
      .replace(/_/g, "/")
      .padEnd(Math.ceil(base64url.length / 4) * 4, "="),
  );
  return Uint8Array.from(raw, (c) => c.charCodeAt(0));
};

/** Asks for permission (on a tap), subscribes this browser and tells the server. */
export async function turnPushOn(): Promise<PushState> {
  const reg = await registration();
  if (!reg) return "unsupported";
  if ((await Notification.requestPermission()) !== "granted") return "denied";
  const { publicKey } = await api<{ publicKey: string }>("/push/key");
  const subscription =
    (await reg.pushManager.getSubscription()) ??
    (await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: toBytes(publicKey) }));
  const json = subscription.toJSON();
  await api("/push/subscription", { body: { endpoint: json.endpoint, keys: json.keys } });
  return "on";
}

export async function turnPushOff(): Promise<PushState> {
  const reg = await registration();
  const subscription = await reg?.pushManager.getSubscription();
  await api("/push/unsubscribe", { body: subscription ? { endpoint: subscription.endpoint } : {} });
  await subscription?.unsubscribe();
  return reg ? "off" : "unsupported";
}

/**
 * Web Push for facilitator replies: this browser's subscription, made with the server's VAPID key and
 * sent to /api/push/subscription; the service worker (public/push-sw.js) shows the notification.
 */
import { api } from "./api-client.ts";

/** "unanswered": the browser has push but did not answer in time or refused to subscribe (no push service). */
export type PushState = "unsupported" | "denied" | "unanswered" | "off" | "on";

/** How long the browser's push service gets to answer before the switch says it did not. */
export const PUSH_ANSWER_MS = 10_000;

class Unanswered extends Error {}

/** A push call that settles, or fails as Unanswered after PUSH_ANSWER_MS (some browsers never answer). */
function answered<T>(call: Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Unanswered()), PUSH_ANSWER_MS);
    call.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/**
 * A failure of the browser's own push machinery (no push service, a timeout: a DOMException such as AbortError or
 * the timeout) is "unanswered"; the server's errors stay errors for the caller to show.
 */
function browserFailure(error: unknown): PushState {
  if (error instanceof Unanswered || (typeof DOMException !== "undefined" && error instanceof DOMException)) return "unanswered";
  throw error;
}

const supported = () =>
  typeof window !== "undefined" && "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;

async function registration(): Promise<ServiceWorkerRegistration | null> {
  if (!supported()) return null;
  return (await navigator.serviceWorker.getRegistration()) ?? null;
}

export async function pushState(): Promise<PushState> {
  try {
    const reg = await answered(registration());
    if (!reg) return "unsupported";
    if (Notification.permission === "denied") return "denied";
    return (await answered(reg.pushManager.getSubscription())) ? "on" : "off";
  } catch (error) {
    return browserFailure(error);
  }
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
  let subscription: PushSubscription;
  try {
    subscription =
      (await answered(reg.pushManager.getSubscription())) ??
      (await answered(reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: toBytes(publicKey) })));
  } catch (error) {
    return browserFailure(error);
  }
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

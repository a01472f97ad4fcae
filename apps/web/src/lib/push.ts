/**
 * Web Push: this browser's subscription, made with the server's VAPID key and given to the server, which keeps it for
 * a family's replies (/api/push/subscription, the default target) or an operator's alerts (the console's target);
 * the service worker (public/push-sw.js) shows the notification.
 */
import { api } from "./api-client.ts";

/** Where the server keeps a subscription and forgets it again. */
export interface PushTarget {
  save(subscription: { endpoint: string; keys: { p256dh: string; auth: string } }): Promise<unknown>;
  /** null: every one of the person's (the family's "off" when the browser lost its subscription). */
  forget(endpoint: string | null): Promise<unknown>;
}

/** A family's browser: told when the Hikaya team replies. */
const FAMILY: PushTarget = {
  save: (subscription) => api("/push/subscription", { body: subscription }),
  forget: (endpoint) => api("/push/unsubscribe", { body: endpoint ? { endpoint } : {} }),
};

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

const keysOf = (subscription: PushSubscription) => {
  const json = subscription.toJSON();
  return {
    endpoint: json.endpoint ?? subscription.endpoint,
    keys: { p256dh: json.keys?.p256dh ?? "", auth: json.keys?.auth ?? "" },
  };
};

/** Asks for permission (on a tap), subscribes this browser and tells the server. */
export async function turnPushOn(target: PushTarget = FAMILY): Promise<PushState> {
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
  await target.save(keysOf(subscription));
  return "on";
}

export async function turnPushOff(target: PushTarget = FAMILY): Promise<PushState> {
  const reg = await registration();
  const subscription = await reg?.pushManager.getSubscription();
  await target.forget(subscription ? subscription.endpoint : null);
  await subscription?.unsubscribe();
  return reg ? "off" : "unsupported";
}

/** Gives the server this browser's subscription again (its keys, or what goes with it, changed); "off" if none. */
export async function savePushAgain(target: PushTarget): Promise<PushState> {
  try {
    const reg = await answered(registration());
    const subscription = reg ? await answered(reg.pushManager.getSubscription()) : null;
    if (!subscription) return reg ? "off" : "unsupported";
    await target.save(keysOf(subscription));
    return "on";
  } catch (error) {
    return browserFailure(error);
  }
}

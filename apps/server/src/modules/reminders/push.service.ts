import type { PushSubscriptionInput } from "@hikaya/contracts";
import type { AppDeps } from "../../deps.ts";
import { chooseLanguage } from "../auth/texts.ts";
import * as repo from "./reminders.repository.ts";
import { publicUrlOf } from "./scheduler.ts";

type Deps = Pick<AppDeps, "db" | "secrets" | "config">;

interface VapidKeys {
  publicKey: string;
  privateKey: string;
}

/** What a push says when a facilitator replies; the person's language, opening their conversation. */
const REPLY_TEXTS = {
  en: { title: "Hikaya", body: "The Hikaya team replied to you. Tap to read it." },
  ar: { title: "حكاية", body: "ردّ عليك فريق حكاية. اضغط لقراءة الرد." },
} as const;

/** web-push (and its ASN.1 and JWS stack) loads on the first push or key pair, not at start-up. */
const webPush = async () => (await import("web-push")).default;

/** The VAPID key pair, made once and shared by every replica through the secret store. */
export async function vapidKeys(deps: Pick<AppDeps, "secrets">): Promise<VapidKeys> {
  const webpush = await webPush();
  return deps.secrets.getOrCreate<VapidKeys>("vapid-keys", () => webpush.generateVAPIDKeys());
}

/** Push services want a contact: the site when it is served over HTTPS, else a mailbox on our domain. */
const vapidSubject = (config: AppDeps["config"]) => {
  const url = publicUrlOf(config);
  return url.startsWith("https:") ? url : `mailto:push@${config.usernameEmailDomain}`;
};

export async function subscribe(deps: Deps, userId: string, input: PushSubscriptionInput, now = new Date()): Promise<void> {
  await repo.savePushSubscription(deps.db, {
    endpoint: input.endpoint,
    user_id: userId,
    p256dh: input.keys.p256dh,
    auth: input.keys.auth,
    created_at: now.toISOString(),
  });
}

export async function unsubscribe(deps: Deps, userId: string, endpoint?: string): Promise<void> {
  await repo.deletePushSubscriptions(deps.db, userId, endpoint);
}

export interface PushOptions {
  /** An HTTPS agent for the push service (tests trust a local endpoint's certificate with it). */
  agent?: import("node:https").Agent;
}

/**
 * Tells each of the person's browsers that a facilitator replied. A subscription the push service says
 * is gone (404/410) is removed; other failures are left for the next reply. Returns how many were delivered.
 */
export async function notifyReply(deps: Deps, userId: string, options: PushOptions = {}): Promise<number> {
  const subscriptions = await repo.listPushSubscriptions(deps.db, userId);
  if (subscriptions.length === 0) return 0;
  const keys = await vapidKeys(deps);
  const language = chooseLanguage(await repo.findLanguage(deps.db, userId));
  const payload = JSON.stringify({ ...REPLY_TEXTS[language], url: "/chats", tag: "hikaya-reply", lang: language });
  const webpush = await webPush();
  let delivered = 0;
  for (const s of subscriptions) {
    try {
      await webpush.sendNotification({ endpoint: s.endpoint, keys: { p256dh: s.p256dh, auth: s.auth } }, payload, {
        vapidDetails: { subject: vapidSubject(deps.config), ...keys },
        TTL: 24 * 3600,
        urgency: "normal",
        timeout: 10_000,
        ...(options.agent ? { agent: options.agent } : {}),
      });
      delivered++;
    } catch (error) {
      const status = (error as { statusCode?: number }).statusCode;
      if (status === 404 || status === 410) await repo.deletePushSubscriptionByEndpoint(deps.db, s.endpoint);
    }
  }
  return delivered;
}

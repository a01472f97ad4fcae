import type { Language, PushSubscriptionInput } from "@hikaya/contracts";
import type { AppDeps } from "../../deps.ts";
import { AppError } from "../../errors.ts";
import { chooseLanguage } from "../auth/texts.ts";
import { checkPushEndpoint, type EndpointPolicy, PushEndpointRefused, pinnedAgent } from "./push-endpoint.ts";
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

/**
 * Why a subscription was refused, in the person's language (their profile's, else the request's), for a client
 * that shows the server's message. A browser's own subscription never earns these: only a hand-made request does.
 */
const REFUSAL_TEXTS = {
  en: {
    endpoint: "This notification address cannot be used: it must be a push service on the internet, over https.",
    taken: "This notification address is registered to another account.",
  },
  ar: {
    endpoint: "لا يمكن استخدام عنوان الإشعارات هذا: يجب أن يكون خدمة إشعارات على الإنترنت عبر https.",
    taken: "عنوان الإشعارات هذا مسجَّل لحساب آخر.",
  },
} as const satisfies Record<Language, Record<string, string>>;

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

/**
 * Saves a browser's subscription for the person. The endpoint must be an https push service on a public address
 * (else `validation_failed` on `endpoint`), and an endpoint belongs to the account that registered it until that
 * account removes it or the push service says it is gone: another account registering it gets `conflict` and
 * the first keeps it (else anyone who saw an endpoint could take another person's notifications).
 * `requestLanguage` (the request's Accept-Language) words the refusal when the person has not chosen a language.
 */
export async function subscribe(
  deps: Deps,
  userId: string,
  input: PushSubscriptionInput,
  requestLanguage: Language | null = null,
  now = new Date(),
): Promise<void> {
  const texts = async () => REFUSAL_TEXTS[chooseLanguage(await repo.findLanguage(deps.db, userId), requestLanguage)];
  try {
    await checkPushEndpoint(input.endpoint);
  } catch (error) {
    if (!(error instanceof PushEndpointRefused)) throw error;
    throw new AppError("validation_failed", (await texts()).endpoint, {
      field: "endpoint",
      reason: error.reason,
      issues: [{ path: "/endpoint", message: (await texts()).endpoint, reason: error.reason }],
    });
  }
  const saved = await repo.savePushSubscription(deps.db, {
    endpoint: input.endpoint,
    user_id: userId,
    p256dh: input.keys.p256dh,
    auth: input.keys.auth,
    created_at: now.toISOString(),
  });
  if (!saved) throw new AppError("conflict", (await texts()).taken, { field: "endpoint" });
}

export async function unsubscribe(deps: Deps, userId: string, endpoint?: string): Promise<void> {
  await repo.deletePushSubscriptions(deps.db, userId, endpoint);
}

export interface PushOptions extends EndpointPolicy {
  /** A certificate authority to trust besides the system's (tests: their local push service's certificate). */
  ca?: string | Buffer;
}

/**
 * Tells each of the person's browsers that a facilitator replied. Each endpoint is resolved and checked again
 * (it was checked at subscribe, but DNS may now point it inside) and the connection goes to the checked address.
 * A subscription the push service says is gone (404/410), or whose endpoint is no longer a public https address,
 * is removed, as no push can ever reach it; other failures (DNS down, a timeout) are left for the next reply.
 * Returns how many were delivered.
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
    let agent: import("node:https").Agent | undefined;
    try {
      const checked = await checkPushEndpoint(s.endpoint, options);
      agent = pinnedAgent(checked, options.ca);
      await webpush.sendNotification({ endpoint: checked.url.href, keys: { p256dh: s.p256dh, auth: s.auth } }, payload, {
        vapidDetails: { subject: vapidSubject(deps.config), ...keys },
        TTL: 24 * 3600,
        urgency: "normal",
        timeout: 10_000,
        agent,
      });
      delivered++;
    } catch (error) {
      const status = (error as { statusCode?: number }).statusCode;
      const refused = error instanceof PushEndpointRefused && error.reason !== "unresolved";
      if (refused || status === 404 || status === 410) await repo.deletePushSubscriptionByEndpoint(deps.db, s.endpoint);
    } finally {
      agent?.destroy();
    }
  }
  return delivered;
}

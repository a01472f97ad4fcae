import type { Language, PushSubscriptionInput } from "@hikaya/contracts";
import type { AppDeps } from "../../deps.ts";
import { AppError } from "../../errors.ts";
import { chooseLanguage } from "../auth/texts.ts";
import type { PushOptions } from "./push-delivery.ts";
import { checkPushEndpoint, PushEndpointRefused, pinnedAgent } from "./push-endpoint.ts";
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

/** How a subscription is saved: for a family's replies, or for an operator's alerts in the console's language. */
export type SubscriptionUse = { audience: "family" } | { audience: "operator"; language: Language };

/**
 * Saves a browser's subscription for the person. The endpoint must be an https push service on a public address
 * (else `validation_failed` on `endpoint`), and an endpoint belongs to the account that registered it until that
 * account removes it or the push service says it is gone: another account registering it gets `conflict` and
 * the first keeps it (else anyone who saw an endpoint could take another person's notifications).
 * `requestLanguage` (the request's Accept-Language) words the refusal when the person has not chosen a language.
 * `use`: a family's browser (the default) or an operator's (`subscribeOperator`); the same checks either way.
 */
export async function subscribe(
  deps: Deps,
  userId: string,
  input: PushSubscriptionInput,
  requestLanguage: Language | null = null,
  now = new Date(),
  use: SubscriptionUse = { audience: "family" },
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
    audience: use.audience,
    language: use.audience === "operator" ? use.language : null,
  });
  if (!saved) throw new AppError("conflict", (await texts()).taken, { field: "endpoint" });
}

/**
 * An operator's "Notify me on this device": the console's browser, told of families' messages while no console of
 * theirs is open (modules/messages operator-alerts), in `language` (the console's, which also words a refusal).
 * The route lets in operators only; the sender checks the role again before each push.
 */
export async function subscribeOperator(
  deps: Deps,
  userId: string,
  input: PushSubscriptionInput,
  language: Language,
  now = new Date(),
): Promise<void> {
  await subscribe(deps, userId, input, language, now, { audience: "operator", language });
}

export async function unsubscribe(deps: Deps, userId: string, endpoint?: string, audience: repo.PushAudience = "family") {
  await repo.deletePushSubscriptions(deps.db, userId, audience, endpoint);
}

/** What a notification says and opens; the service worker (apps/web/public/push-sw.js) shows it. */
export interface PushMessage {
  title: string;
  body: string;
  /** The same-origin path a tap opens. */
  url: string;
  /** Notifications with one tag replace each other. */
  tag: string;
  lang: Language;
}

type SubscriptionRow = Awaited<ReturnType<typeof repo.listPushSubscriptions>>[number];

/**
 * Sends each subscription its message. Each endpoint is resolved and checked again (it was checked at subscribe,
 * but DNS may now point it inside) and the connection goes to the checked address. A subscription the push service
 * says is gone (404/410), or whose endpoint is no longer a public https address, is removed, as no push can ever
 * reach it; other failures (DNS down, a timeout) are left for the next push. Returns how many were delivered.
 */
async function deliver(
  deps: Deps,
  subscriptions: SubscriptionRow[],
  messageOf: (subscription: SubscriptionRow) => PushMessage,
  options: PushOptions,
): Promise<number> {
  if (subscriptions.length === 0) return 0;
  const keys = await vapidKeys(deps);
  const webpush = await webPush();
  let delivered = 0;
  for (const s of subscriptions) {
    let agent: import("node:https").Agent | undefined;
    try {
      const checked = await checkPushEndpoint(s.endpoint, options);
      agent = pinnedAgent(checked, options.ca);
      const payload = JSON.stringify(messageOf(s));
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

/** Tells each of the person's browsers that a facilitator replied, in their language. Returns how many were delivered. */
export async function notifyReply(deps: Deps, userId: string, options: PushOptions = {}): Promise<number> {
  const subscriptions = await repo.listPushSubscriptions(deps.db, userId, "family");
  if (subscriptions.length === 0) return 0;
  const language = chooseLanguage(await repo.findLanguage(deps.db, userId));
  const message = { ...REPLY_TEXTS[language], url: "/chats", tag: "hikaya-reply", lang: language };
  return deliver(deps, subscriptions, () => message, options);
}

/** Whether an account's app_metadata (JSON text) names a console role. */
function holdsConsoleRole(appMetadata: string): boolean {
  try {
    const role = (JSON.parse(appMetadata) as { role?: unknown }).role;
    return role === "admin" || role === "facilitator";
  } catch {
    return false;
  }
}

/**
 * The operators who turned on "Notify me on this device" and still hold a console role and are not blocked, the most
 * recently subscribed first, at most `limit`; `among`: only these accounts (a conversation's assignee).
 */
export async function operatorsWithPush(
  deps: Pick<AppDeps, "db">,
  options: { among?: readonly string[]; limit: number; now?: Date },
): Promise<string[]> {
  const rows = await repo.listOperatorsWithPush(deps.db, {
    among: options.among,
    limit: options.limit,
    now: (options.now ?? new Date()).toISOString(),
  });
  return rows.filter((r) => holdsConsoleRole(r.app_metadata)).map((r) => r.id);
}

/**
 * Tells an operator's console browsers (each in the language its console had when it subscribed). The caller decided
 * whether this operator should hear of it (presence, coalescing); this checks the role again, so a push never
 * reaches someone who lost the console role after subscribing. Returns how many were delivered.
 */
export async function notifyOperator(
  deps: Deps,
  operatorId: string,
  messageIn: (language: Language) => PushMessage,
  options: PushOptions = {},
): Promise<number> {
  if ((await operatorsWithPush(deps, { among: [operatorId], limit: 1 })).length === 0) return 0;
  const subscriptions = await repo.listPushSubscriptions(deps.db, operatorId, "operator");
  return deliver(deps, subscriptions, (s) => messageIn(chooseLanguage(s.language)), options);
}

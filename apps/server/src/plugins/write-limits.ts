import { createHash } from "node:crypto";
import { FAMILY_VOICE_MAX_BYTES, MAX_RECORDING_BYTES, UPLOAD_LIMITS, VOICE_NOTE_MAX_BYTES } from "@hikaya/contracts";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { AppError, tooManyRequests } from "../errors.ts";
import { FixedWindowCounter, hitStoreFor, type WindowLimit } from "../infrastructure/rate-limit/fixed-window.ts";
import { accessTokenOf } from "../modules/auth/guards.ts";
import { addRouteOnRequest } from "./route-hooks.ts";

/**
 * Every write a visitor or a user can make, with its rate per IP and per account (production values;
 * RATE_LIMIT_FACTOR scales them) and, for upload routes, the largest body the route takes. The table is
 * keyed by the route as Fastify knows it; start-up fails if an entry names no route, so a renamed route
 * cannot silently lose its limit. The README lists these values.
 */
export const WRITE_LIMITS: Record<
  string,
  {
    perIp: WindowLimit;
    perAccount?: WindowLimit;
    /** Counted per value of a route parameter (a share link's token, kept only as a hash in the counter's key). */
    perParam?: { param: string; limit: WindowLimit };
    maxBodyBytes?: number;
  }
> = {
  "POST /api/contactSubmission": { perIp: { limit: 10, windowSeconds: 3600 }, perAccount: { limit: 5, windowSeconds: 3600 } },
  // The contact form posted without scripts (modules/web/form-posts.routes.ts): the same store, the same rate.
  "POST /contact": { perIp: { limit: 10, windowSeconds: 3600 } },
  "POST /api/events": { perIp: { limit: 120, windowSeconds: 60 }, perAccount: { limit: 120, windowSeconds: 60 } },
  "POST /api/message/send": {
    perIp: { limit: 60, windowSeconds: 60 },
    perAccount: { limit: 30, windowSeconds: 60 },
    maxBodyBytes: VOICE_NOTE_MAX_BYTES + 128 * 1024,
  },
  "POST /api/admin/conversations/:userId/messages": {
    perIp: { limit: 120, windowSeconds: 60 },
    perAccount: { limit: 60, windowSeconds: 60 },
    maxBodyBytes: VOICE_NOTE_MAX_BYTES + 128 * 1024,
  },
  "POST /api/story/audio/add": {
    perIp: { limit: 60, windowSeconds: 3600 },
    perAccount: { limit: 30, windowSeconds: 3600 },
    maxBodyBytes: 2 * MAX_RECORDING_BYTES + 128 * 1024,
  },
  // The storyteller typing the words of their own recordings: a save per edit, a few hundred recordings at most.
  "PUT /api/recordings/:id/transcript": {
    perIp: { limit: 240, windowSeconds: 3600 },
    perAccount: { limit: 120, windowSeconds: 3600 },
    maxBodyBytes: 64 * 1024,
  },
  "POST /api/profile/update": {
    perIp: { limit: 60, windowSeconds: 3600 },
    perAccount: { limit: 30, windowSeconds: 3600 },
    maxBodyBytes: 64 * 1024,
  },
  "POST /api/account/preferences": { perIp: { limit: 60, windowSeconds: 3600 }, perAccount: { limit: 30, windowSeconds: 3600 } },
  "POST /api/account/phone": { perIp: { limit: 20, windowSeconds: 3600 }, perAccount: { limit: 10, windowSeconds: 3600 } },
  "POST /api/account/phone/verify": { perIp: { limit: 30, windowSeconds: 3600 }, perAccount: { limit: 15, windowSeconds: 3600 } },
  "POST /api/account/phone/cancel": { perIp: { limit: 30, windowSeconds: 3600 }, perAccount: { limit: 15, windowSeconds: 3600 } },
  "POST /api/account/delete": { perIp: { limit: 20, windowSeconds: 3600 }, perAccount: { limit: 10, windowSeconds: 3600 } },
  // The family's keepsake: saving its choices, sharing it (each share draws QR codes) and turning a link off.
  "PUT /api/keepsake": { perIp: { limit: 60, windowSeconds: 3600 }, perAccount: { limit: 30, windowSeconds: 3600 } },
  "POST /api/keepsake/share": { perIp: { limit: 60, windowSeconds: 3600 }, perAccount: { limit: 30, windowSeconds: 3600 } },
  "POST /api/keepsake/links/:id/revoke": {
    perIp: { limit: 60, windowSeconds: 3600 },
    perAccount: { limit: 30, windowSeconds: 3600 },
  },
  // The storyteller's answers to relatives: showing or hiding their messages, answering a question with a recording.
  "POST /api/family-messages/:id/status": {
    perIp: { limit: 120, windowSeconds: 3600 },
    perAccount: { limit: 60, windowSeconds: 3600 },
  },
  "POST /api/family-messages/:id/answer": {
    perIp: { limit: 60, windowSeconds: 3600 },
    perAccount: { limit: 30, windowSeconds: 3600 },
    maxBodyBytes: MAX_RECORDING_BYTES + 128 * 1024,
  },
  "POST /api/messages/read": { perIp: { limit: 120, windowSeconds: 60 }, perAccount: { limit: 60, windowSeconds: 60 } },
  "POST /api/push/subscription": { perIp: { limit: 30, windowSeconds: 3600 }, perAccount: { limit: 20, windowSeconds: 3600 } },
  "POST /api/push/unsubscribe": { perIp: { limit: 30, windowSeconds: 3600 }, perAccount: { limit: 20, windowSeconds: 3600 } },
  // A relative's reply or question through a share link: counted per address and per link, whoever posts.
  "POST /k/:token/messages": {
    perIp: { limit: 20, windowSeconds: 3600 },
    perParam: { param: "token", limit: { limit: 50, windowSeconds: 3600 } },
    maxBodyBytes: FAMILY_VOICE_MAX_BYTES + 64 * 1024,
  },
  // A visitor's signed stop link, and the SMS provider's webhook (its few addresses carry every reply).
  "POST /api/reminders/stop": { perIp: { limit: 30, windowSeconds: 3600 } },
  "POST /api/reminders/inbound/twilio": { perIp: { limit: 600, windowSeconds: 60 } },
  "POST /api/messages/inbound/whatsapp": { perIp: { limit: 600, windowSeconds: 60 } },
  "POST /api/users/:id/watchStory/:storyId": {
    perIp: { limit: 120, windowSeconds: 3600 },
    perAccount: { limit: 60, windowSeconds: 3600 },
  },
  "POST /api/admin/uploads/:purpose": {
    perIp: { limit: 300, windowSeconds: 3600 },
    perAccount: { limit: 200, windowSeconds: 3600 },
    maxBodyBytes: UPLOAD_LIMITS.video + 128 * 1024,
  },
  "PUT /api/admin/stories/:id/thumbnail": {
    perIp: { limit: 300, windowSeconds: 3600 },
    perAccount: { limit: 200, windowSeconds: 3600 },
    maxBodyBytes: UPLOAD_LIMITS.image + 128 * 1024,
  },
};

declare module "fastify" {
  interface FastifyContextConfig {
    /** Set from WRITE_LIMITS at start-up. */
    writeLimit?: (typeof WRITE_LIMITS)[string];
  }
}

/** The account a request's token names, for counting only: a bad token counts by IP, and its route answers 401. */
async function accountOf(request: FastifyRequest): Promise<string | null> {
  const query = request.query as { access_token?: unknown } | undefined;
  const token = accessTokenOf(request) ?? (typeof query?.access_token === "string" ? query.access_token : null);
  if (!token) return null;
  try {
    return (await request.server.deps.auth.tokens.verify(token)).sub;
  } catch {
    return null;
  }
}

export function installWriteLimits(app: FastifyInstance, factor: number) {
  const counter = new FixedWindowCounter(hitStoreFor(app.deps.database));
  const scaled = (l: WindowLimit): WindowLimit => ({ limit: Math.round(l.limit * factor), windowSeconds: l.windowSeconds });
  const matched = new Set<string>();

  app.addHook("onRoute", (route) => {
    for (const method of [route.method].flat()) {
      const key = `${method} ${route.url}`;
      const limit = WRITE_LIMITS[key];
      if (limit) {
        matched.add(key);
        route.config = { ...(route.config ?? {}), writeLimit: limit };
        addRouteOnRequest(route, limitWrites);
      }
    }
  });
  app.addHook("onReady", async () => {
    const missing = Object.keys(WRITE_LIMITS).filter((k) => !matched.has(k));
    if (missing.length > 0) throw new Error(`Rate limits name routes that do not exist: ${missing.join(", ")}`);
  });

  async function limit(request: FastifyRequest, reply: FastifyReply, rule: (typeof WRITE_LIMITS)[string]) {
    // A declared size over the route's limit is refused before a byte of the body is read, and the connection
    // closed: the body that would follow is not worth reading.
    const declared = Number(request.headers["content-length"] ?? 0);
    if (rule.maxBodyBytes !== undefined && Number.isFinite(declared) && declared > rule.maxBodyBytes) {
      reply.header("connection", "close");
      throw new AppError("payload_too_large", "The request is larger than this route accepts", { limit: rule.maxBodyBytes });
    }
    const route = `${request.method} ${request.routeOptions.url}`;
    const hits = [{ key: `write:${route}:ip:${request.ip}`, limit: scaled(rule.perIp) }];
    const account = rule.perAccount ? await accountOf(request) : null;
    if (rule.perAccount && account) hits.push({ key: `write:${route}:user:${account}`, limit: scaled(rule.perAccount) });
    const value = rule.perParam ? (request.params as Record<string, unknown> | undefined)?.[rule.perParam.param] : undefined;
    if (rule.perParam && typeof value === "string") {
      const digest = createHash("sha256").update(value).digest("base64url");
      hits.push({ key: `write:${route}:${rule.perParam.param}:${digest}`, limit: scaled(rule.perParam.limit) });
    }
    // Both counts at once (in the database, one round trip per write, not two); so a request refused for its address
    // has still been counted against its account, and the other way round.
    const refusal = await counter.hitEach(hits);
    if (refusal) throw tooManyRequests(refusal.retryAfterSeconds);
  }
  // A hook of the limited routes only (addRouteOnRequest). Callback style: a route registered for several methods
  // shares its config, and a method without a limit passes without a promise.
  function limitWrites(request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) {
    const rule = request.routeOptions.config?.writeLimit;
    if (!rule) return done();
    limit(request, reply, rule).then(() => done(), done);
  }
}

import cors from "@fastify/cors";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { AuthService, Caller, RequestMeta } from "./auth.service.ts";
import { AuthError, authErrors } from "./auth-errors.ts";
import { disabledFeatureRoutes, idTokenNotEnabled } from "./gotrue.disabled.ts";
import { accessTokenOf } from "./guards.ts";
import { safeEqual } from "./secrets.ts";
import { languageFromHeader } from "./texts.ts";
import { startUserViewCache } from "./user-view-cache.ts";

/**
 * `/auth/v1`: the paths, bodies, objects and errors of Supabase Auth (GoTrue), so the unmodified
 * `@supabase/supabase-js` client works against this server. Errors leave in Supabase's shapes: legacy
 * `{code, error_code, msg}`, or `{code, message}` when the request carries `X-Supabase-Api-Version`.
 */

const API_VERSION_HEADER = "x-supabase-api-version";
/** Routes Supabase's gateway serves without an API key (links opened from messages, discovery). */
const OPEN_ROUTES = new Set([
  "/verify",
  "/callback",
  "/authorize",
  "/.well-known/jwks.json",
  "/.well-known/oauth-authorization-server",
  "/health",
]);
/** What Supabase's gateway and GoTrue let a browser send, and what supabase-js sends. */
const CORS_ALLOWED_HEADERS = [
  "accept",
  "apikey",
  "authorization",
  "content-type",
  "x-client-info",
  "x-client-ip",
  "x-supabase-api-version",
  "x-retry-count",
  "traceparent",
  "tracestate",
  "baggage",
];

type Body = Record<string, unknown>;

function bodyOf(request: FastifyRequest): Body {
  const body = request.body;
  if (body === undefined || body === null) return {};
  if (typeof body !== "object" || Array.isArray(body))
    throw new AuthError(400, "bad_json", "Could not parse request body as JSON: expected an object");
  return body as Body;
}

const queryOf = (request: FastifyRequest) => (request.query ?? {}) as Record<string, string | undefined>;

function metaOf(request: FastifyRequest): RequestMeta & { origin: string; redirectTo?: string } {
  // Never the Host header: it is the client's to choose, and links built from it could point anywhere.
  const { publicUrl, port } = request.server.deps.config;
  const origin = publicUrl ?? `http://localhost:${port}`;
  const redirectTo = safeRedirect(queryOf(request).redirect_to, origin, request.server.deps.config.publicUrl);
  const userAgent = request.headers["user-agent"];
  return {
    ip: request.ip,
    userAgent: typeof userAgent === "string" ? userAgent : null,
    language: languageFromHeader(request.headers["accept-language"]),
    origin,
    ...(redirectTo ? { redirectTo } : {}),
  };
}

/** Only this site's own origin is a redirect target (no open redirect through our links). */
function safeRedirect(value: string | undefined, origin: string, publicUrl: string | undefined): string | undefined {
  if (!value) return undefined;
  try {
    const url = new URL(value, publicUrl ?? origin);
    const allowed = [origin, ...(publicUrl ? [new URL(publicUrl).origin] : [])];
    return allowed.includes(url.origin) ? url.toString() : undefined;
  } catch {
    return undefined;
  }
}

/** Fastify's own failures (bad JSON, oversized body, wrong content type) in Supabase's terms. */
function toAuthError(error: unknown, request: FastifyRequest): AuthError {
  if (error instanceof AuthError) return error;
  const e = error as FastifyError;
  if (e?.code === "FST_ERR_CTP_INVALID_JSON_BODY" || e?.code === "FST_ERR_CTP_EMPTY_JSON_BODY" || e instanceof SyntaxError)
    return new AuthError(400, "bad_json", `Could not parse request body as JSON: ${e.message}`);
  if (e?.code === "FST_ERR_CTP_BODY_TOO_LARGE") return new AuthError(413, "request_too_large", "Request body is too large");
  if (e?.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE")
    return new AuthError(415, "validation_failed", "Unsupported content type, use application/json");
  if (typeof e?.statusCode === "number" && e.statusCode >= 400 && e.statusCode < 500)
    return new AuthError(e.statusCode, "validation_failed", e.message);
  request.log.error({ err: error }, "auth: unhandled error");
  return new AuthError(500, "unexpected_failure", "Unexpected failure, please check server logs for more information");
}

function sendAuthError(request: FastifyRequest, reply: FastifyReply, error: AuthError) {
  if (error.retryAfterSeconds !== undefined) reply.header("retry-after", String(error.retryAfterSeconds));
  if (error.oauth) return reply.status(400).send({ error: error.errorCode, error_description: error.message });
  const versioned = typeof request.headers[API_VERSION_HEADER] === "string";
  const body = versioned
    ? { code: error.errorCode, message: error.message, ...error.extra }
    : { code: error.status, error_code: error.errorCode, msg: error.message, ...error.extra };
  return reply.status(error.status).send(body);
}

export async function gotrueRoutes(app: FastifyInstance) {
  const service = (): AuthService => app.deps.auth.service;
  const { keys } = app.deps.auth;

  const { corsOrigins } = app.deps.config.auth;
  await app.register(cors, {
    // Supabase's: any origin by default and never credentials (tokens travel in headers, not cookies).
    origin: corsOrigins,
    credentials: false,
    methods: ["GET", "POST", "PUT", "PATCH", "DELETE"],
    allowedHeaders: CORS_ALLOWED_HEADERS,
    exposedHeaders: ["X-Total-Count", "Link", "X-Supabase-Api-Version"],
    maxAge: 86400,
  });

  app.setErrorHandler((error, request, reply) => sendAuthError(request, reply, toAuthError(error, request)));
  // supabase-js sends `Content-Type: application/json` with no body on some DELETE and POST calls.
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (_request, body, done) => {
    const text = typeof body === "string" ? body : body.toString("utf8");
    if (text.trim() === "") return done(null, {});
    try {
      done(null, JSON.parse(text));
    } catch (error) {
      done(new AuthError(400, "bad_json", `Could not parse request body as JSON: ${(error as Error).message}`), undefined);
    }
  });
  app.setNotFoundHandler((request, reply) => sendAuthError(request, reply, new AuthError(404, "not_found", "Not Found")));

  const isOpen = (request: FastifyRequest) =>
    OPEN_ROUTES.has((request.routeOptions.url ?? request.url).replace(/^\/auth\/v1/, "").split("?")[0] ?? "");
  const invalidKey = (reply: FastifyReply) =>
    reply.status(401).send({ message: "Invalid API key", hint: "Double check your Supabase `anon` or `service_role` API key." });
  // Callback style: with the anon or service-role key (nearly every request) it finishes without a promise.
  app.addHook("onRequest", (request, reply, done) => {
    const version = request.headers[API_VERSION_HEADER];
    if (typeof version === "string") {
      if (!/^\d{4}-\d{2}-\d{2}$/.test(version) || Number.isNaN(Date.parse(version)))
        return done(new AuthError(400, "validation_failed", `Invalid ${"X-Supabase-Api-Version"} header`));
      reply.header("X-Supabase-Api-Version", version);
    }
    if (request.method === "OPTIONS" || isOpen(request)) return done();
    const apikey = request.headers.apikey ?? queryOf(request).apikey;
    if (typeof apikey !== "string" || apikey === "")
      return reply
        .status(401)
        .send({ message: "No API key found in request", hint: "No `apikey` request header or url param was found." });
    if (apikey === keys.anonKey || safeEqual(apikey, keys.serviceRoleKey)) return done();
    app.deps.auth.tokens.verifyRoleKey(apikey).then(
      (role) => (role === null ? invalidKey(reply) : done()),
      (error: unknown) => done(error as Error),
    );
  });

  const caller = (request: FastifyRequest): Promise<Caller> => service().sessions.authenticate(accessTokenOf(request));

  /** The service-role key, or an admin person's access token (the console). */
  /** Refuses anyone but the service role or an admin; answers who it was, for the console's audit log. */
  async function requireAdmin(request: FastifyRequest): Promise<{ id: string; email: string | null }> {
    const token = accessTokenOf(request);
    if (!token) throw authErrors.noAuthorization();
    if (safeEqual(token, keys.serviceRoleKey)) return { id: "service_role", email: null };
    const role = await app.deps.auth.tokens.verifyRoleKey(token);
    if (role === "service_role" || role === "supabase_admin") return { id: role, email: null };
    const { claims } = await service().sessions.authenticate(token);
    if (claims.app_metadata?.role !== "admin") throw authErrors.notAdmin();
    // The console's one MFA rule (guards.ts requireSecondFactor): an admin person with a factor acts here at aal2 only.
    if (await service().needsSecondFactor({ userId: claims.sub, sessionId: claims.session_id })) throw authErrors.aal2ForAdmin();
    return { id: claims.sub, email: claims.email || null };
  }

  // ── discovery ──
  app.get("/health", async () => ({
    version: "v2.170.0",
    name: "GoTrue",
    description: "GoTrue is a user registration and authentication API",
  }));

  app.get("/settings", async () => ({
    external: {
      anonymous_users: false,
      apple: false,
      azure: false,
      bitbucket: false,
      discord: false,
      facebook: false,
      figma: false,
      fly: false,
      github: false,
      gitlab: false,
      google: false,
      keycloak: false,
      kakao: false,
      linkedin: false,
      linkedin_oidc: false,
      notion: false,
      spotify: false,
      slack: false,
      slack_oidc: false,
      workos: false,
      twitch: false,
      twitter: false,
      zoom: false,
      email: true,
      phone: true,
    },
    disable_signup: false,
    mailer_autoconfirm: true,
    phone_autoconfirm: true,
    sms_provider: app.deps.config.sms.provider,
    saml_enabled: false,
  }));

  app.get("/.well-known/jwks.json", async (_request, reply) => {
    reply.header("cache-control", "public, max-age=600");
    return keys.jwks;
  });

  // ── accounts and sessions ──
  app.post("/signup", async (request) => service().accounts.signUp(bodyOf(request), metaOf(request)));

  app.post("/token", async (request) => {
    const grant = queryOf(request).grant_type;
    const body = bodyOf(request);
    const meta = metaOf(request);
    switch (grant) {
      case "password":
        return service().accounts.signInWithPassword(body, meta);
      case "refresh_token":
        return service().sessions.refresh(body.refresh_token, meta);
      case "pkce":
        return service().codes.exchangeCode(body.auth_code, body.code_verifier, meta);
      case "id_token":
        return idTokenNotEnabled(body);
      case "web3":
        throw new AuthError(422, "web3_provider_disabled", "Web3 provider is disabled");
      default:
        throw new AuthError(400, "invalid_credentials", "unsupported_grant_type");
    }
  });

  app.post("/otp", async (request) => service().codes.sendOtp(bodyOf(request), metaOf(request)));

  app.post("/verify", async (request) => {
    const { session } = await service().codes.verify(bodyOf(request), metaOf(request));
    return session;
  });

  app.get("/verify", async (request, reply) => {
    const q = queryOf(request);
    const meta = metaOf(request);
    const redirectTo = meta.redirectTo ?? `${app.deps.config.publicUrl ?? meta.origin}/`;
    const location = await service().codes.verifyLink(
      { ...(q.token ? { token: q.token } : {}), ...(q.type ? { type: q.type } : {}), redirectTo },
      meta,
    );
    return reply.redirect(location, 303);
  });

  app.post("/recover", async (request) => {
    await service().codes.recover(bodyOf(request), metaOf(request));
    return {};
  });

  app.post("/resend", async (request) => service().codes.resend(bodyOf(request), metaOf(request)));

  app.get("/reauthenticate", async (request) => {
    await service().codes.reauthenticate(await caller(request), metaOf(request));
    return {};
  });

  const userViews = await startUserViewCache(app.deps, async (userId) => {
    const user = await service().accounts.findUser(userId);
    return user ? service().accounts.viewUntil(user) : null;
  });
  app.addHook("onClose", async () => userViews.stop());
  const sendUserJson = (reply: FastifyReply, json: Buffer) => reply.type("application/json; charset=utf-8").send(json);
  // Not an async handler: the answer from memory is sent without a promise or a microtask turn.
  app.get("/user", (request, reply) => {
    const token = accessTokenOf(request);
    const held = token ? userViews.heldJson(token) : undefined;
    if (held) return sendUserJson(reply, held);
    return userViews.userJson(token).then(async (json) => {
      if (json) return sendUserJson(reply, json);
      return service().accounts.view((await caller(request)).user);
    });
  });

  app.put("/user", async (request) => {
    const who = await caller(request);
    const user = await service().accounts.updateUser(who, bodyOf(request), metaOf(request));
    return service().accounts.view(user);
  });

  app.post("/logout", async (request, reply) => {
    const who = await caller(request);
    await service().sessions.logout(who, queryOf(request).scope ?? "global", metaOf(request));
    return reply.status(204).send();
  });

  disabledFeatureRoutes(app, { caller, requireAdmin });

  // ── MFA ──
  app.post("/factors", async (request) => service().mfa.enrollFactor(await caller(request), bodyOf(request), request.hostname));
  app.post<{ Params: { id: string } }>("/factors/:id/challenge", async (request) =>
    service().mfa.challengeFactor(await caller(request), request.params.id, metaOf(request)),
  );
  app.post<{ Params: { id: string } }>("/factors/:id/verify", async (request) =>
    service().mfa.verifyFactor(await caller(request), request.params.id, bodyOf(request), metaOf(request)),
  );
  app.delete<{ Params: { id: string } }>("/factors/:id", async (request) =>
    service().mfa.unenrollFactor(await caller(request), request.params.id, metaOf(request)),
  );

  // ── admin (service-role key) ──
  app.get("/admin/users", async (request, reply) => {
    await requireAdmin(request);
    const q = queryOf(request);
    const page = Math.max(1, paginationParam(q.page, 1));
    const perPage = Math.min(1000, Math.max(1, paginationParam(q.per_page, 50)));
    const { users: rows, total } = await service().admin.adminListUsers((page - 1) * perPage, perPage);
    const lastPage = Math.max(1, Math.ceil(total / perPage));
    const links = [
      ...(page < lastPage ? [`</admin/users?page=${page + 1}&per_page=${perPage}>; rel="next"`] : []),
      `</admin/users?page=${lastPage}&per_page=${perPage}>; rel="last"`,
    ];
    reply.header("x-total-count", String(total)).header("link", links.join(", "));
    return { users: await service().accounts.views(rows), aud: "authenticated" };
  });
  app.post("/admin/users", async (request) => {
    await requireAdmin(request);
    return service().accounts.view(await service().admin.adminCreateUser(bodyOf(request), metaOf(request)));
  });
  app.get<{ Params: { id: string } }>("/admin/users/:id", async (request) => {
    await requireAdmin(request);
    const user = await service().accounts.findUser(request.params.id);
    if (!user) throw authErrors.userNotFound();
    return service().accounts.view(user);
  });
  app.put<{ Params: { id: string } }>("/admin/users/:id", async (request) => {
    await requireAdmin(request);
    return service().accounts.view(await service().admin.adminUpdateUser(request.params.id, bodyOf(request), metaOf(request)));
  });
  app.delete<{ Params: { id: string } }>("/admin/users/:id", async (request) => {
    const actor = await requireAdmin(request);
    // The same deletion as the person's own and the console's (modules/account registers it): rows, then files.
    await app.deps.auth.accountDeletion.run(request.params.id, metaOf(request), actor);
    return {};
  });
  app.post("/invite", async (request) => {
    await requireAdmin(request);
    const invited = await service().admin.invite(bodyOf(request), metaOf(request));
    return { ...(await service().accounts.view(invited)), invited_at: invited.invitedAt };
  });
  app.get<{ Params: { id: string } }>("/admin/users/:id/factors", async (request) => {
    await requireAdmin(request);
    return service().admin.adminListFactors(request.params.id);
  });
  app.delete<{ Params: { id: string; factorId: string } }>("/admin/users/:id/factors/:factorId", async (request) => {
    await requireAdmin(request);
    return service().admin.adminDeleteFactor(request.params.id, request.params.factorId, metaOf(request));
  });
  app.post("/admin/generate_link", async (request) => {
    await requireAdmin(request);
    const meta = metaOf(request);
    const body = bodyOf(request);
    // supabase-js sends it in the query; GoTrue's API takes it in the body too. Either is held to this site's origin.
    const fromBody = typeof body.redirect_to === "string" ? body.redirect_to : undefined;
    const redirectTo = meta.redirectTo ?? safeRedirect(fromBody, meta.origin, app.deps.config.publicUrl);
    return service().admin.generateLink(body, meta, redirectTo);
  });
}

/** GoTrue reads page and per_page as unsigned integers and names the one it could not read. */
function paginationParam(value: string | undefined, fallback: number): number {
  if (value === undefined || value === "") return fallback;
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value)))
    throw new AuthError(
      400,
      "validation_failed",
      `Bad Pagination Parameters: strconv.ParseUint: parsing "${value}": invalid syntax`,
    );
  return Number(value);
}

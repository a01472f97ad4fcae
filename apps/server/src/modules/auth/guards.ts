import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { AppError, forbidden, unauthorized } from "../../errors.ts";
import { addRouteOnRequest } from "../../plugins/route-hooks.ts";
import type { AccessTokenClaims } from "./access-tokens.ts";

/** Who is asking, once their access token has been verified. */
export interface AuthContext {
  userId: string;
  sessionId: string;
  isAdmin: boolean;
  /** The console role from app_metadata.role: admins do everything, facilitators the inbox and people. */
  operatorRole: OperatorRole | null;
  claims: AccessTokenClaims;
}

/**
 * Who a route lets in, declared on the route (`config: { access }`) and checked in its onRequest hook, before its
 * body is parsed or validated: a visitor gets 401 and a family member 403 from an operator route whatever they
 * sent, never a 400 that tells them what the route expects. `public` routes check no token; `optional` ones take a
 * visitor, but a token sent must be valid; `{ self, or }` lets in the person the route parameter `self` names, or
 * the role `or`. Every /api route outside /api/admin (whose roles are modules/admin/access.ts's) must declare one.
 */
export type RouteAccess = "public" | "optional" | "user" | OperatorRole | { self: string; or: OperatorRole };

declare module "fastify" {
  interface FastifyRequest {
    authContext?: Promise<AuthContext | null>;
    /** What the onRequest checks let this request through as (the require* helpers insist on one). */
    accessChecked?: RouteAccess[];
    /** The operator's second-factor check, once per request however many guards ask. */
    secondFactorChecked?: Promise<void>;
  }
  interface FastifyContextConfig {
    access?: RouteAccess;
  }
  interface FastifyInstance {
    /** Every registered route that declares `config.access`, as "METHOD /url" (the role-matrix test walks them). */
    routeAccess: Map<string, RouteAccess>;
  }
}

/** The access token from `Authorization: Bearer …` or the spec's custom `x-auth-token` header. */
export function accessTokenOf(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (header) {
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (match?.[1]) return match[1];
  }
  const custom = request.headers["x-auth-token"];
  return typeof custom === "string" && custom.length > 0 ? custom : null;
}

export type OperatorRole = "admin" | "facilitator";

export function operatorRoleOf(claims: Pick<AccessTokenClaims, "app_metadata">): OperatorRole | null {
  const role = claims.app_metadata?.role;
  return role === "admin" || role === "facilitator" ? role : null;
}

export function roleAllows(role: OperatorRole | null, needed: OperatorRole): boolean {
  return role === "admin" || (role === "facilitator" && needed === "facilitator");
}

export function isAdminClaims(claims: Pick<AccessTokenClaims, "app_metadata">): boolean {
  return claims.app_metadata?.role === "admin";
}

async function resolve(request: FastifyRequest): Promise<AuthContext | null> {
  const token = accessTokenOf(request);
  return token ? authOfToken(request, token) : null;
}

/** Verifies one access token (from a header, or a stream's `?access_token=`) against a live session. */
export async function authOfToken(request: FastifyRequest, token: string): Promise<AuthContext> {
  const { tokens, sessions } = request.server.deps.auth;
  const claims = await tokens.verify(token);
  if (!(await sessions.isActive(claims.session_id))) throw new AppError("unauthorized", "Session not found");
  return {
    userId: claims.sub,
    sessionId: claims.session_id,
    isAdmin: isAdminClaims(claims),
    operatorRole: operatorRoleOf(claims),
    claims,
  };
}

/** The caller if they sent a valid token, null for a visitor. A bad token is still an error. */
export function optionalUser(request: FastifyRequest): Promise<AuthContext | null> {
  request.authContext ??= resolve(request);
  return request.authContext;
}

/** Marks what the request was let through as; a route's onRequest checks call it once they have passed. */
export function markChecked(request: FastifyRequest, access: RouteAccess): void {
  request.accessChecked = [...(request.accessChecked ?? []), access];
}

const levelOf = (access: RouteAccess) => (typeof access === "string" ? access : "self");

/**
 * A handler's check must repeat one its route declared, so it ran before the body was read: a check found only in a
 * handler is a programming error (500, logged), caught by the first test that calls the route.
 */
function insistDeclared(request: FastifyRequest, ...levels: string[]): void {
  if ((request.accessChecked ?? []).some((access) => levels.includes(levelOf(access)))) return;
  throw new Error(
    `${request.method} ${request.routeOptions.url} checks its caller in the handler: declare config.access (${levels[0]}) on the route`,
  );
}

async function signedIn(request: FastifyRequest): Promise<AuthContext> {
  const auth = await optionalUser(request);
  if (!auth) throw unauthorized("Please log in.");
  return auth;
}

/**
 * One MFA rule for whatever an operator does as an operator: with a verified factor on the account, only a session
 * that passed it (aal2) may, as GoTrue asks for credential changes. The session's level is read live, never only the
 * token's claim (removing a factor drops its sessions to aal1). 403 `mfa_required` with details
 * `{ reason: "insufficient_aal" }`, GoTrue's name. An operator without a factor is unaffected.
 */
export function requireSecondFactor(request: FastifyRequest, auth: AuthContext): Promise<void> {
  request.secondFactorChecked ??= request.server.deps.auth.service.needsSecondFactor(auth).then((needed) => {
    if (needed) throw new AppError("mfa_required", "Verify with your authenticator app first", { reason: "insufficient_aal" });
  });
  return request.secondFactorChecked;
}

/** An admin, at aal2 when they have a factor. */
async function admin(request: FastifyRequest): Promise<AuthContext> {
  const auth = await signedIn(request);
  if (!auth.isAdmin) throw forbidden("Admins only");
  await requireSecondFactor(request, auth);
  return auth;
}

async function operator(request: FastifyRequest): Promise<AuthContext> {
  const auth = await signedIn(request);
  if (!auth.operatorRole) throw forbidden("Operators only");
  await requireSecondFactor(request, auth);
  return auth;
}

/** The person the route names, or the role (at aal2 when that operator has a factor). */
async function selfOr(request: FastifyRequest, userId: string | undefined, role: OperatorRole): Promise<AuthContext> {
  const auth = await signedIn(request);
  if (auth.userId === userId) return auth;
  if (!roleAllows(auth.operatorRole, role)) throw forbidden();
  await requireSecondFactor(request, auth);
  return auth;
}

/** The check `access` stands for; resolves the caller (null for a visitor on a public or optional route). */
async function checkAccess(request: FastifyRequest, access: RouteAccess): Promise<void> {
  if (access === "public") return;
  if (access === "optional") await optionalUser(request);
  else if (access === "user") await signedIn(request);
  else if (access === "facilitator") await operator(request);
  else if (access === "admin") await admin(request);
  else await selfOr(request, (request.params as Record<string, string | undefined>)[access.self], access.or);
  markChecked(request, access);
}

/**
 * Call once on the root instance before any route is registered: gives every route that declares `config.access`
 * its check as an onRequest hook (only those routes pay for it), and stops the server at start-up when an /api
 * route outside /api/admin declares none, so a new route cannot leave the question open.
 */
export function registerRouteAccess(app: FastifyInstance): void {
  const declared = new Map<string, RouteAccess>();
  app.decorate("routeAccess", declared);
  app.addHook("onRoute", (route) => {
    const access = route.config?.access;
    const methods = (Array.isArray(route.method) ? route.method : [route.method]).filter((m) => m !== "HEAD");
    if (access === undefined) {
      const exempt = !route.url.startsWith("/api/") || route.url.startsWith("/api/admin/") || route.url.startsWith("/api/docs");
      if (!exempt) throw new Error(`${methods.join(",")} ${route.url} declares no config.access (modules/auth/guards.ts)`);
      return;
    }
    for (const method of methods) declared.set(`${method} ${route.url}`, access);
    if (access !== "public") addRouteOnRequest(route, accessHook);
  });
  function accessHook(request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) {
    checkAccess(request, request.routeOptions.config.access as RouteAccess).then(() => done(), done);
  }
}

export async function requireUser(request: FastifyRequest): Promise<AuthContext> {
  insistDeclared(request, "user", "facilitator", "admin", "self");
  return signedIn(request);
}

/**
 * A signed-in caller on an `optional` route whose own proof (a signed link) lets a visitor in: the handler asks for
 * the person only when that proof is absent.
 */
export async function requireUserUnlessSigned(request: FastifyRequest): Promise<AuthContext> {
  insistDeclared(request, "optional");
  return signedIn(request);
}

export async function requireAdmin(request: FastifyRequest): Promise<AuthContext> {
  insistDeclared(request, "admin");
  return admin(request);
}

/**
 * Anyone who works in the console (admin or facilitator), at aal2 when they have a factor; what each may do is
 * decided per route in modules/admin/access.ts.
 */
export async function requireOperator(request: FastifyRequest): Promise<AuthContext> {
  insistDeclared(request, "facilitator", "admin");
  return operator(request);
}

/** A user may act on their own record; admins on anyone's (declared `{ self: "<param>", or: "admin" }`). */
export async function requireSelfOrAdmin(request: FastifyRequest, userId: string): Promise<AuthContext> {
  insistDeclared(request, "self", "admin");
  return selfOr(request, userId, "admin");
}

/** A user may read their own record; admins and facilitators anyone's (the console's people pages). */
export async function requireSelfOrOperator(request: FastifyRequest, userId: string): Promise<AuthContext> {
  insistDeclared(request, "self", "facilitator", "admin");
  return selfOr(request, userId, "facilitator");
}

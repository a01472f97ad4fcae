import type { FastifyRequest } from "fastify";
import { AppError, forbidden, unauthorized } from "../../errors.ts";
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

declare module "fastify" {
  interface FastifyRequest {
    authContext?: Promise<AuthContext | null>;
    /** The operator's second-factor check, once per request however many guards ask. */
    secondFactorChecked?: Promise<void>;
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

export async function requireUser(request: FastifyRequest): Promise<AuthContext> {
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

/** An admin; at aal2 when they have a factor (requireSecondFactor). */
export async function requireAdmin(request: FastifyRequest): Promise<AuthContext> {
  const auth = await requireUser(request);
  if (!auth.isAdmin) throw forbidden("Admins only");
  await requireSecondFactor(request, auth);
  return auth;
}

/**
 * Anyone who works in the console (admin or facilitator), at aal2 when they have a factor; what each may do is
 * decided per route in modules/admin/access.ts.
 */
export async function requireOperator(request: FastifyRequest): Promise<AuthContext> {
  const auth = await requireUser(request);
  if (!auth.operatorRole) throw forbidden("Operators only");
  await requireSecondFactor(request, auth);
  return auth;
}

/** A user may act on their own record; admins on anyone's (at aal2 when they have a factor). */
export async function requireSelfOrAdmin(request: FastifyRequest, userId: string): Promise<AuthContext> {
  const auth = await requireUser(request);
  if (auth.userId === userId) return auth;
  if (!auth.isAdmin) throw forbidden();
  await requireSecondFactor(request, auth);
  return auth;
}

/** A user may read their own record; admins and facilitators anyone's (the console's people pages). */
export async function requireSelfOrOperator(request: FastifyRequest, userId: string): Promise<AuthContext> {
  const auth = await requireUser(request);
  if (auth.userId === userId) return auth;
  if (!auth.operatorRole) throw forbidden();
  await requireSecondFactor(request, auth);
  return auth;
}

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

export async function requireAdmin(request: FastifyRequest): Promise<AuthContext> {
  const auth = await requireUser(request);
  if (!auth.isAdmin) throw forbidden("Admins only");
  return auth;
}

/**
 * An admin whose session passed their second factor, when they have one: for what a stolen password alone must not
 * reach (the service-role key). 403 with details `{ reason: "insufficient_aal" }`, as GoTrue names it.
 */
export async function requireAdminAtAal2(request: FastifyRequest): Promise<AuthContext> {
  const auth = await requireAdmin(request);
  if (await request.server.deps.auth.service.needsSecondFactor(auth))
    throw new AppError("forbidden", "Verify your second factor first", { reason: "insufficient_aal" });
  return auth;
}

/** Anyone who works in the console (admin or facilitator); what each may do is decided per route in modules/admin/access.ts. */
export async function requireOperator(request: FastifyRequest): Promise<AuthContext> {
  const auth = await requireUser(request);
  if (!auth.operatorRole) throw forbidden("Operators only");
  return auth;
}

/** A user may act on their own record; admins on anyone's. */
export async function requireSelfOrAdmin(request: FastifyRequest, userId: string): Promise<AuthContext> {
  const auth = await requireUser(request);
  if (auth.userId !== userId && !auth.isAdmin) throw forbidden();
  return auth;
}

/** A user may read their own record; admins and facilitators anyone's (the console's people pages). */
export async function requireSelfOrOperator(request: FastifyRequest, userId: string): Promise<AuthContext> {
  const auth = await requireUser(request);
  if (auth.userId !== userId && !auth.operatorRole) throw forbidden();
  return auth;
}

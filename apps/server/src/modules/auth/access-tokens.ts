import { randomUUID } from "node:crypto";
import { type JWTPayload, errors as joseErrors, jwtVerify, SignJWT } from "jose";
import { AppError } from "../../errors.ts";
import { Cache } from "../../infrastructure/cache/cache.ts";
import type { CacheCounter } from "../../infrastructure/metrics/metrics.ts";
import type { SigningKeys } from "./signing-keys.ts";

/** The claims Supabase puts in an access token, which supabase-js and our guards read. */
export interface AccessTokenClaims extends JWTPayload {
  sub: string;
  aud: string;
  role: string;
  email: string;
  phone: string;
  app_metadata: Record<string, unknown>;
  user_metadata: Record<string, unknown>;
  aal: "aal1" | "aal2";
  amr: { method: string; timestamp: number }[];
  session_id: string;
  is_anonymous: boolean;
}

export interface AccessTokenSubject {
  userId: string;
  email: string | null;
  phone: string | null;
  appMetadata: Record<string, unknown>;
  userMetadata: Record<string, unknown>;
  isAnonymous: boolean;
  sessionId: string;
  aal: "aal1" | "aal2";
  amr: { method: string; timestamp: number }[];
}

export class AccessTokens {
  readonly #keys: SigningKeys;
  /** `${PUBLIC_URL}/auth/v1`, or the default origin's (an absolute URL, as GoTrue's issuer always is). */
  readonly #issuer: string;
  /** JWT_EXPIRY_SECONDS. */
  readonly ttlSeconds: number;

  constructor(keys: SigningKeys, issuer: string, ttlSeconds: number, options: { maxBytes: number; counter?: CacheCounter }) {
    this.#verified = new Cache({
      maxBytes: options.maxBytes,
      // A token's claims as their JSON would count, twice for UTF-16, plus the key id.
      sizeOf: (entry) => 2 * (JSON.stringify(entry.claims).length + 64),
      ...(options.counter && { counter: options.counter }),
    });
    this.#keys = keys;
    this.#issuer = issuer;
    this.ttlSeconds = ttlSeconds;
  }

  /**
   * Checks a signature against the published keys. A token signed by a key this process has not loaded yet
   * (another replica rotated it in) re-reads the keys once and tries again.
   */
  async #verifySignature(token: string, options: { audience?: string }) {
    try {
      return await jwtVerify(token, this.#keys.jwkSet, { ...options, algorithms: ["ES256"] });
    } catch (error) {
      if (!(error instanceof joseErrors.JWKSNoMatchingKey) || !(await this.#keys.refresh())) throw error;
      return jwtVerify(token, this.#keys.jwkSet, { ...options, algorithms: ["ES256"] });
    }
  }

  async issue(subject: AccessTokenSubject, now = Date.now()): Promise<{ token: string; expiresAt: number }> {
    const iat = Math.floor(now / 1000);
    const exp = iat + this.ttlSeconds;
    const token = await new SignJWT({
      aud: "authenticated",
      role: "authenticated",
      email: subject.email ?? "",
      phone: subject.phone ?? "",
      app_metadata: subject.appMetadata,
      user_metadata: subject.userMetadata,
      aal: subject.aal,
      amr: subject.amr,
      session_id: subject.sessionId,
      is_anonymous: subject.isAnonymous,
    })
      .setProtectedHeader({ alg: "ES256", kid: this.#keys.current.kid, typ: "JWT" })
      .setIssuer(this.#issuer)
      .setSubject(subject.userId)
      .setIssuedAt(iat)
      .setExpirationTime(exp)
      .setJti(randomUUID())
      .sign(this.#keys.current.privateKey);
    return { token, expiresAt: exp };
  }

  /**
   * The claims of a token verified before, not yet expired and signed by a key still in the store, from memory;
   * else undefined (call verify).
   */
  verifiedClaims(token: string): AccessTokenClaims | undefined {
    const cached = this.#verified.get(token);
    return cached && cached.claims.exp * 1000 > Date.now() && this.#keys.isLive(cached.kid) ? cached.claims : undefined;
  }

  /** Verifies signature, expiry, audience and that the signing key is still live. Throws AppError('token_expired' | 'unauthorized'). */
  async verify(token: string): Promise<AccessTokenClaims> {
    // A rotation was signalled: the keys are read again before any token, cached or not, is accepted.
    const settled = this.#keys.settled;
    if (settled) await settled;
    const cached = this.#verified.get(token);
    if (cached) {
      if (!this.#keys.isLive(cached.kid)) {
        this.#verified.forget(token);
        throw new AppError("unauthorized", "invalid JWT: unable to parse or verify signature");
      }
      if (cached.claims.exp * 1000 > Date.now()) return cached.claims;
      this.#verified.forget(token);
      throw new AppError("token_expired", "JWT has expired");
    }
    try {
      const { payload, protectedHeader } = await this.#verifySignature(token, { audience: "authenticated" });
      if (typeof payload.sub !== "string" || typeof payload.session_id !== "string")
        throw new AppError("unauthorized", "invalid JWT: missing claims");
      const claims = payload as AccessTokenClaims;
      if (typeof protectedHeader.kid === "string") this.#remember(token, protectedHeader.kid, claims);
      return claims;
    } catch (error) {
      if (error instanceof AppError) throw error;
      if (error instanceof joseErrors.JWTExpired) throw new AppError("token_expired", "JWT has expired");
      throw new AppError("unauthorized", "invalid JWT: unable to parse or verify signature");
    }
  }

  /**
   * A signature check costs more than the rest of a typical request, and a client sends the same
   * token for its whole lifetime; a verified token's claims are kept until it expires (bounded in
   * bytes, least recently used out), with the id of the key that signed it. Revocation is unaffected: the session is
   * still checked on every request, and an entry counts only while its key is in the store (a rotation that drops the key
   * is signalled to every replica, see SigningKeys.listen), so a retired key is refused cached or not.
   */
  readonly #verified: Cache<{ kid: string; claims: AccessTokenClaims & { exp: number } }>;

  #remember(token: string, kid: string, claims: AccessTokenClaims) {
    if (typeof claims.exp === "number") this.#verified.set(token, { kid, claims: claims as AccessTokenClaims & { exp: number } });
  }

  /** Verifies a role key (anon / service_role, or supabase_admin as Supabase's own tools sign). Returns its role or null. */
  async verifyRoleKey(token: string): Promise<"anon" | "service_role" | "supabase_admin" | null> {
    try {
      const settled = this.#keys.settled;
      if (settled) await settled;
      const { payload } = await this.#verifySignature(token, {});
      // A revoked service-role key still carries a good signature: its id must be the current one, read live. The key
      // opens every admin call and such calls are rare, so one read of the store each beats trusting a change signal
      // (a file watch on SQLite) to have arrived before the next call.
      if (payload.role === "service_role") {
        await this.#keys.refresh(true);
        return this.#keys.acceptsServiceRole({ srk: payload.srk }) ? "service_role" : null;
      }
      return payload.role === "anon" || payload.role === "supabase_admin" ? payload.role : null;
    } catch {
      return null;
    }
  }
}

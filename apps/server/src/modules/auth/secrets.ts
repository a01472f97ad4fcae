import { createHash, createHmac, randomBytes, randomInt, scrypt, timingSafeEqual } from "node:crypto";

/** Opaque bearer secrets (refresh tokens, reset tokens, PKCE auth codes): 256 random bits, URL-safe. */
export const randomToken = (bytes = 32): string => randomBytes(bytes).toString("base64url");

export const sha256Hex = (value: string): string => createHash("sha256").update(value).digest("hex");

export const hmacHex = (key: Buffer, value: string): string => createHmac("sha256", key).update(value).digest("hex");

/** Constant-time string comparison (lengths are compared first, which leaks only the length). */
export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** A 6-digit one-time code, uniformly drawn. */
export const sixDigitCode = (): string => randomInt(0, 1_000_000).toString().padStart(6, "0");

/** Supabase's token_hash for an e-mailed code: hex SHA-256 of the address followed by the code. */
export const emailTokenHash = (relatesTo: string, code: string): string => sha256Hex(`${relatesTo}${code}`);

/** RFC 7636: S256 compares base64url(SHA-256(verifier)); plain compares the verifier itself. */
export function pkceMatches(verifier: string, challenge: string, method: string): boolean {
  const computed = method === "s256" ? createHash("sha256").update(verifier).digest("base64url") : verifier;
  return safeEqual(computed, challenge);
}

// ── passwords ───────────────────────────────────────────────────────────────────────────────────
// scrypt with OWASP's parameters (N=2^17, r=8, p=1) by default, stored as
// `$scrypt$ln=17,r=8,p=1$<salt b64>$<hash b64>` so the cost can change without breaking old hashes.

const KEY_LENGTH = 32;

function scryptAsync(password: string, salt: Buffer, logN: number, r: number, p: number): Promise<Buffer> {
  const N = 2 ** logN;
  return new Promise((resolve, reject) =>
    scrypt(password.normalize("NFKC"), salt, KEY_LENGTH, { N, r, p, maxmem: 256 * N * r + 1024 * 1024 }, (e, key) =>
      e ? reject(e) : resolve(key),
    ),
  );
}

export async function hashPassword(password: string, logN: number): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, logN, 8, 1);
  return `$scrypt$ln=${logN},r=8,p=1$${salt.toString("base64")}$${key.toString("base64")}`;
}

export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const match = stored ? /^\$scrypt\$ln=(\d+),r=(\d+),p=(\d+)\$([^$]+)\$([^$]+)$/.exec(stored) : null;
  if (!match) return false;
  const [, ln, r, p, salt, hash] = match as unknown as [string, string, string, string, string, string];
  const expected = Buffer.from(hash, "base64");
  const actual = await scryptAsync(password, Buffer.from(salt, "base64"), Number(ln), Number(r), Number(p));
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

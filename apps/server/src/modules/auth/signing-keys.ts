import { createHash, randomUUID } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { exportJWK, generateKeyPair, importJWK, type CryptoKey as JoseKey, type JWK, SignJWT } from "jose";

/**
 * The ES256 keys that sign access tokens. Kept in DATA_DIR/keys/signing-keys.json (generated on first
 * start, never in the repo). The first key signs; every key in the file is published in the JWKS, so
 * a rotated-out key keeps verifying its tokens until they expire.
 */
export interface SigningKey {
  kid: string;
  privateKey: JoseKey;
  publicJwk: JWK;
}

export interface SigningKeys {
  current: SigningKey;
  all: SigningKey[];
  jwks: { keys: JWK[] };
  /** The long-lived anonymous-role key the browser's auth client sends as `apikey`. */
  anonKey: string;
  /** The service-role key for server-to-server admin calls. */
  serviceRoleKey: string;
  /** A server secret derived from the newest private key: the HMAC key for stored one-time codes. */
  hmacSecret: Buffer;
}

interface StoredKey {
  kid: string;
  privateJwk: JWK;
  createdAt: string;
}

const ALG = "ES256";
export const JWT_ISSUER_PATH = "/auth/v1";

export async function loadSigningKeys(dataDir: string): Promise<SigningKeys> {
  const dir = join(dataDir, "keys");
  const file = join(dir, "signing-keys.json");
  let stored: StoredKey[];
  try {
    stored = JSON.parse(await readFile(file, "utf8")) as StoredKey[];
    if (!Array.isArray(stored) || stored.length === 0) throw new Error("empty key file");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw new Error(`Cannot read ${file}: ${String(error)}`);
    stored = [await newStoredKey()];
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const temp = `${file}.${randomUUID()}.tmp`;
    await writeFile(temp, JSON.stringify(stored, null, 2), { mode: 0o600, flag: "wx" });
    await rename(temp, file);
  }
  const all = await Promise.all(stored.map(toSigningKey));
  const current = all[0] as SigningKey;
  return {
    current,
    all,
    jwks: { keys: all.map((k) => k.publicJwk) },
    anonKey: await signRoleKey(current, "anon"),
    serviceRoleKey: await signRoleKey(current, "service_role"),
    hmacSecret: createHash("sha256")
      .update(`hikaya-hmac:${(stored[0] as StoredKey).privateJwk.d}`)
      .digest(),
  };
}

/** Puts a fresh key first (it signs from now on) and keeps the old ones published. */
export async function rotateSigningKeys(dataDir: string, keep = 2): Promise<void> {
  const file = join(dataDir, "keys", "signing-keys.json");
  const stored = JSON.parse(await readFile(file, "utf8")) as StoredKey[];
  const next = [await newStoredKey(), ...stored].slice(0, keep + 1);
  const temp = `${file}.${randomUUID()}.tmp`;
  await writeFile(temp, JSON.stringify(next, null, 2), { mode: 0o600, flag: "wx" });
  await rename(temp, file);
}

async function newStoredKey(): Promise<StoredKey> {
  const { privateKey } = await generateKeyPair(ALG, { extractable: true });
  return { kid: randomUUID(), privateJwk: await exportJWK(privateKey), createdAt: new Date().toISOString() };
}

async function toSigningKey(stored: StoredKey): Promise<SigningKey> {
  const privateKey = (await importJWK({ ...stored.privateJwk, alg: ALG }, ALG)) as JoseKey;
  const { d: _private, ...publicPart } = stored.privateJwk;
  return {
    kid: stored.kid,
    privateKey,
    publicJwk: { ...publicPart, kid: stored.kid, alg: ALG, use: "sig", key_ops: ["verify"] },
  };
}

async function signRoleKey(key: SigningKey, role: "anon" | "service_role"): Promise<string> {
  // Role keys are identities of a client, not of a person: long-lived, like Supabase's.
  return new SignJWT({ role })
    .setProtectedHeader({ alg: ALG, kid: key.kid, typ: "JWT" })
    .setIssuer("hikaya")
    .setIssuedAt()
    .setExpirationTime("10y")
    .sign(key.privateKey);
}

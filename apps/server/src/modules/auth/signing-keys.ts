import { randomBytes, randomUUID } from "node:crypto";
import { join } from "node:path";
import { createLocalJWKSet, exportJWK, generateKeyPair, importJWK, type CryptoKey as JoseKey, type JWK, SignJWT } from "jose";
import { FileSecretStore, type SecretStore } from "../../infrastructure/secrets/index.ts";

/**
 * The ES256 keys that sign access tokens, kept in the secret store (DATA_DIR/keys/signing-keys.json on
 * SQLite, the `secrets` table on PostgreSQL, so every replica signs and verifies with the same keys). The
 * first key signs; every stored key is published in the JWKS, so a rotated-out key keeps verifying its
 * tokens until they expire. The HMAC secret for one-time codes and signed links is a separate random secret:
 * rotating the signing key does not void outstanding codes and links.
 */
export interface SigningKey {
  kid: string;
  privateKey: JoseKey;
  publicJwk: JWK;
}

export interface SigningKeys {
  readonly current: SigningKey;
  readonly all: SigningKey[];
  readonly jwks: { keys: JWK[] };
  /** The JWKS as jose's verification key lookup. */
  readonly jwkSet: ReturnType<typeof createLocalJWKSet>;
  /** The long-lived anonymous-role key the browser's auth client sends as `apikey`. */
  readonly anonKey: string;
  /** The service-role key for server-to-server admin calls. */
  readonly serviceRoleKey: string;
  /** The HMAC key for stored one-time codes and signed links (its own random secret). */
  readonly hmacSecret: Buffer;
  /**
   * Re-reads the keys from the store (after `npm run keys:rotate`, or a token signed by a key this process
   * has not seen yet). Resolves true when they changed. Without `force`, at most one read per few seconds.
   */
  refresh(force?: boolean): Promise<boolean>;
  /** Stops the periodic refresh. */
  close(): void;
}

interface StoredKey {
  kid: string;
  privateJwk: JWK;
  createdAt: string;
}

interface Snapshot {
  fingerprint: string;
  current: SigningKey;
  all: SigningKey[];
  jwks: { keys: JWK[] };
  jwkSet: ReturnType<typeof createLocalJWKSet>;
  anonKey: string;
  serviceRoleKey: string;
}

const ALG = "ES256";
export const JWT_ISSUER_PATH = "/auth/v1";
export const SIGNING_KEYS_SECRET = "signing-keys";
export const HMAC_SECRET = "hmac-secret";
/** Keys kept published after a rotation: the signing one plus this many previous ones. */
const KEEP_PREVIOUS = 2;
/**
 * Every replica re-reads the keys this often, so one rotated by `npm run keys:rotate` signs everywhere
 * within a minute without a restart. A token signed by an unknown key triggers an earlier re-read.
 */
const REFRESH_MS = 60_000;
/** Tokens naming unknown keys (forged ones too) cause at most one store read per this interval. */
const MIN_REFRESH_GAP_MS = 5_000;

/**
 * On PostgreSQL the keys live in the database. A signing-keys file left in DATA_DIR (copied by hand from
 * another server, or from the SQLite days without `npm run migrate-data`) that differs from them would mean
 * tokens nobody else accepts, or people losing their sessions: start-up stops with one line instead.
 */
export async function refuseStrayKeyFile(secrets: SecretStore, dataDir: string): Promise<void> {
  if (secrets.kind !== "postgres") return;
  const file = await new FileSecretStore(dataDir).get<StoredKey[]>(SIGNING_KEYS_SECRET);
  if (!file) return;
  const shared = await secrets.get<StoredKey[]>(SIGNING_KEYS_SECRET);
  if (!shared || fingerprintOf(file) !== fingerprintOf(shared))
    throw new Error(
      `${join(dataDir, "keys", "signing-keys.json")} differs from the signing keys in the database: replicas on PostgreSQL share the database's keys, so remove the file (or move a SQLite server's data and keys with npm run migrate-data)`,
    );
}

export async function loadSigningKeys(secrets: SecretStore, options: { refreshMs?: number } = {}): Promise<SigningKeys> {
  const stored = await secrets.getOrCreate<StoredKey[]>(SIGNING_KEYS_SECRET, async () => [await newStoredKey()]);
  const hmac = await secrets.getOrCreate<string>(HMAC_SECRET, () => randomBytes(32).toString("base64url"));
  let snapshot = await toSnapshot(stored);
  let refreshing: Promise<boolean> | undefined;
  let lastRead = 0;
  const refresh = (force = false) => {
    if (!force && Date.now() - lastRead < MIN_REFRESH_GAP_MS) return Promise.resolve(false);
    refreshing ??= (async () => {
      try {
        lastRead = Date.now();
        const latest = await secrets.get<StoredKey[]>(SIGNING_KEYS_SECRET);
        if (!latest || !Array.isArray(latest) || latest.length === 0) return false;
        if (fingerprintOf(latest) === snapshot.fingerprint) return false;
        snapshot = await toSnapshot(latest);
        return true;
      } finally {
        refreshing = undefined;
      }
    })();
    return refreshing;
  };
  const timer = setInterval(() => void refresh(true).catch(() => undefined), options.refreshMs ?? REFRESH_MS);
  timer.unref();
  return {
    get current() {
      return snapshot.current;
    },
    get all() {
      return snapshot.all;
    },
    get jwks() {
      return snapshot.jwks;
    },
    get jwkSet() {
      return snapshot.jwkSet;
    },
    get anonKey() {
      return snapshot.anonKey;
    },
    get serviceRoleKey() {
      return snapshot.serviceRoleKey;
    },
    hmacSecret: Buffer.from(hmac, "base64url"),
    refresh,
    close: () => clearInterval(timer),
  };
}

/** Puts a fresh key first (it signs from now on) and keeps the previous ones published. Returns the new kid. */
export async function rotateSigningKeys(secrets: SecretStore, keep = KEEP_PREVIOUS): Promise<string> {
  const fresh = await newStoredKey();
  await secrets.update<StoredKey[]>(SIGNING_KEYS_SECRET, (stored) => [fresh, ...(stored ?? [])].slice(0, keep + 1));
  return fresh.kid;
}

async function toSnapshot(stored: StoredKey[]): Promise<Snapshot> {
  const all = await Promise.all(stored.map(toSigningKey));
  const current = all[0] as SigningKey;
  const jwks = { keys: all.map((k) => k.publicJwk) };
  return {
    fingerprint: fingerprintOf(stored),
    current,
    all,
    jwks,
    jwkSet: createLocalJWKSet(jwks),
    anonKey: await signRoleKey(current, "anon"),
    serviceRoleKey: await signRoleKey(current, "service_role"),
  };
}

const fingerprintOf = (stored: StoredKey[]) => stored.map((k) => k.kid).join(",");

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
  // Role keys are identities of a client, not of a person: long-lived, like Supabase's. Each replica signs
  // its own copy (ECDSA signatures differ), and each accepts any copy by verifying it against the JWKS.
  return new SignJWT({ role })
    .setProtectedHeader({ alg: ALG, kid: key.kid, typ: "JWT" })
    .setIssuer("hikaya")
    .setIssuedAt()
    .setExpirationTime("10y")
    .sign(key.privateKey);
}

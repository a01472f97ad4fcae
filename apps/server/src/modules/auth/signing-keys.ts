import { randomBytes, randomUUID } from "node:crypto";
import { join } from "node:path";
import { createLocalJWKSet, exportJWK, generateKeyPair, importJWK, type CryptoKey as JoseKey, type JWK, SignJWT } from "jose";
import type { MessageBus } from "../../infrastructure/bus/bus.ts";
import { FileSecretStore, type SecretStore } from "../../infrastructure/secrets/index.ts";

/**
 * The ES256 keys that sign access tokens, kept in the secret store (DATA_DIR/keys/signing-keys.json on
 * SQLite, the `secrets` table on PostgreSQL, so every replica signs and verifies with the same keys). The
 * first key signs; every stored key is published in the JWKS, so a rotated-out key keeps verifying its
 * tokens until they expire, and a key dropped from the store is refused at once (SigningKeys.listen). The HMAC secret for one-time codes and signed links is a separate random secret:
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
  /**
   * Whether a verified service_role key is the current one: it names the current service-role id (`srk`), or names
   * none while no revocation has happened yet (keys made before the id existed keep working until the first).
   */
  acceptsServiceRole(payload: { srk?: unknown }): boolean;
  /** The HMAC key for stored one-time codes and signed links (its own random secret). */
  readonly hmacSecret: Buffer;
  /**
   * Re-reads the keys from the store (after `npm run keys:rotate`, or a token signed by a key this process
   * has not seen yet). Resolves true when they changed. Without `force`, at most one read per few seconds.
   */
  refresh(force?: boolean): Promise<boolean>;
  /**
   * True while `kid` is one of the stored keys as far as this process knows for sure: false once a rotation dropped
   * it, and false while a signalled rotation is still being read (then await `settled` and ask again).
   */
  isLive(kid: string): boolean;
  /** Resolves once a signalled rotation has been read; undefined when none is pending (no await on the hot path). */
  readonly settled: Promise<unknown> | undefined;
  /**
   * Hears of rotations: through the bus (`npm run keys:rotate` on PostgreSQL announces one, confirmed by every
   * replica before it returns) and, with keys in DATA_DIR, from the keys file itself. A gap in the bus re-reads.
   */
  listen(bus: MessageBus): Promise<void>;
  /** Stops the periodic refresh and the listening. */
  close(): void;
}

/** A rotation happened: every process re-reads the keys before it accepts another token. */
export const SIGNING_KEYS_CHANNEL = "auth_signing_keys";

interface StoredKey {
  kid: string;
  privateJwk: JWK;
  createdAt: string;
}

/**
 * The service-role key's own id, so that key can be revoked without rotating the signing keys (which would sign
 * everyone's tokens anew). `acceptsUnmarked`: keys signed before the id existed are accepted until the first revocation.
 */
interface StoredServiceRole {
  id: string;
  acceptsUnmarked: boolean;
}

interface Snapshot {
  fingerprint: string;
  serviceRole: StoredServiceRole;
  kids: Set<string>;
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
export const SERVICE_ROLE_SECRET = "service-role";
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
  const serviceRole = await secrets.getOrCreate<StoredServiceRole>(SERVICE_ROLE_SECRET, () => ({
    id: randomUUID(),
    acceptsUnmarked: true,
  }));
  let snapshot = await toSnapshot(stored, serviceRole);
  let refreshing: Promise<boolean> | undefined;
  let lastRead = 0;
  const read = async () => {
    lastRead = Date.now();
    const [latest, latestServiceRole] = await Promise.all([
      secrets.get<StoredKey[]>(SIGNING_KEYS_SECRET),
      secrets.get<StoredServiceRole>(SERVICE_ROLE_SECRET),
    ]);
    if (!latest || !Array.isArray(latest) || latest.length === 0 || !latestServiceRole?.id) return false;
    if (fingerprintOf(latest, latestServiceRole) === snapshot.fingerprint) return false;
    snapshot = await toSnapshot(latest, latestServiceRole);
    return true;
  };
  const refresh = (force = false) => {
    if (!force && Date.now() - lastRead < MIN_REFRESH_GAP_MS) return Promise.resolve(false);
    refreshing ??= read().finally(() => {
      refreshing = undefined;
    });
    return refreshing;
  };
  // A signalled rotation: until the store has been read again (by a read that started after the signal, so one
  // already under way does not count), no cached verification is trusted. Signals during the read read once more.
  let signals = 0;
  let settled: Promise<unknown> | undefined;
  const signal = () => {
    signals++;
    settled ??= (async () => {
      try {
        for (let seen = -1; seen !== signals; ) {
          seen = signals;
          await refreshing?.catch(() => undefined);
          await refresh(true);
        }
      } catch {
        // The store could not be read: the next signal, the next unknown key or the periodic refresh tries again.
      } finally {
        settled = undefined;
      }
    })();
  };
  const timer = setInterval(() => void refresh(true).catch(() => undefined), options.refreshMs ?? REFRESH_MS);
  timer.unref();
  const stops: (() => unknown)[] = [];
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
    acceptsServiceRole: ({ srk }) => (srk === undefined ? snapshot.serviceRole.acceptsUnmarked : srk === snapshot.serviceRole.id),
    hmacSecret: Buffer.from(hmac, "base64url"),
    refresh,
    isLive: (kid) => settled === undefined && snapshot.kids.has(kid),
    get settled() {
      return settled;
    },
    async listen(bus) {
      stops.push(await bus.subscribe(SIGNING_KEYS_CHANNEL, signal, signal));
      // With SQLite the keys CLI cannot reach this process's bus: the files it replaces are the signal.
      for (const name of [SIGNING_KEYS_SECRET, SERVICE_ROLE_SECRET]) {
        const stop = secrets.watch?.(name, signal);
        if (stop) stops.push(stop);
      }
    },
    close: () => {
      clearInterval(timer);
      for (const stop of stops.splice(0)) void Promise.resolve(stop()).catch(() => undefined);
    },
  };
}

/** Puts a fresh key first (it signs from now on) and keeps the previous ones published. Returns the new kid. */
export async function rotateSigningKeys(secrets: SecretStore, keep = KEEP_PREVIOUS): Promise<string> {
  const fresh = await newStoredKey();
  await secrets.update<StoredKey[]>(SIGNING_KEYS_SECRET, (stored) => [fresh, ...(stored ?? [])].slice(0, keep + 1));
  return fresh.kid;
}

/**
 * A new service-role id: every server signs its service-role key with it from the next read (at once, when the
 * change is signalled), and refuses keys with another id or none. The signing keys stay. Returns the new id.
 */
export async function revokeServiceRoleKey(secrets: SecretStore): Promise<string> {
  const id = randomUUID();
  await secrets.update<StoredServiceRole>(SERVICE_ROLE_SECRET, () => ({ id, acceptsUnmarked: false }));
  return id;
}

async function toSnapshot(stored: StoredKey[], serviceRole: StoredServiceRole): Promise<Snapshot> {
  const all = await Promise.all(stored.map(toSigningKey));
  const current = all[0] as SigningKey;
  const jwks = { keys: all.map((k) => k.publicJwk) };
  return {
    fingerprint: fingerprintOf(stored, serviceRole),
    serviceRole,
    kids: new Set(stored.map((k) => k.kid)),
    current,
    all,
    jwks,
    jwkSet: createLocalJWKSet(jwks),
    anonKey: await signRoleKey(current, "anon"),
    serviceRoleKey: await signRoleKey(current, "service_role", serviceRole.id),
  };
}

const fingerprintOf = (stored: StoredKey[], serviceRole?: StoredServiceRole) =>
  stored.map((k) => k.kid).join(",") + (serviceRole ? `|${serviceRole.id}|${serviceRole.acceptsUnmarked}` : "");

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

async function signRoleKey(key: SigningKey, role: "anon" | "service_role", serviceRoleId?: string): Promise<string> {
  // Role keys are identities of a client, not of a person: long-lived, like Supabase's. Each replica signs
  // its own copy (ECDSA signatures differ), and each accepts any copy by verifying it against the JWKS (and, for
  // the service role, its id against the stored one).
  return new SignJWT(serviceRoleId ? { role, srk: serviceRoleId } : { role })
    .setProtectedHeader({ alg: ALG, kid: key.kid, typ: "JWT" })
    .setIssuer("hikaya")
    .setIssuedAt()
    .setExpirationTime("10y")
    .sign(key.privateKey);
}

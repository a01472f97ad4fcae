import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../deps.ts";
import { FileSecretStore } from "../../infrastructure/secrets/index.ts";
import { createReplica, createTestApp, type TestApp, type TwoReplicas, testDialect, twoReplicas } from "../../test/test-app.ts";
import { createTestUser } from "../../test/test-users.ts";
import { loadSigningKeys, SIGNING_KEYS_SECRET } from "./signing-keys.ts";

const run = promisify(execFile);
const CLI = fileURLToPath(new URL("../../cli/keys.ts", import.meta.url));
/** Three runs of the keys CLI each start a Node process: a few seconds apiece on a loaded 2-core machine. */
const CLI_RUNS_TIMEOUT_MS = 60_000;

const subject = {
  email: "keys@example.com",
  phone: null,
  appMetadata: {},
  userMetadata: {},
  isAnonymous: false,
  sessionId: "00000000-0000-4000-8000-000000000001",
  userId: "00000000-0000-4000-8000-000000000002",
  aal: "aal1" as const,
  amr: [],
};

const kidOf = (token: string) => JSON.parse(Buffer.from(token.split(".")[0] ?? "", "base64url").toString()).kid as string;

/** The keys CLI against the test app's own configuration, as an operator runs it next to the server. */
async function keysCli(t: TestApp, ...args: string[]) {
  const env = { ...process.env, DATA_DIR: t.config.dataDir, LOG_LEVEL: "silent" } as NodeJS.ProcessEnv;
  if (t.config.database.kind === "postgres") Object.assign(env, { DATABASE_URL: t.config.database.url, STORAGE_DRIVER: "local" });
  else env.DATABASE_URL = `sqlite:${t.config.database.file}`;
  return run(process.execPath, [CLI, ...args], { env });
}

describe("signing keys shared by replicas, rotation and the service-role key", () => {
  let t: TwoReplicas;
  let other: App;
  beforeAll(async () => {
    t = await twoReplicas();
    other = t.replica;
  });
  afterAll(async () => t?.close());

  it("a second replica on the same database signs and verifies with the same keys, no file copied", async () => {
    const a = t.app.deps.auth;
    const b = other.deps.auth;
    expect(b.keys.current.kid).toBe(a.keys.current.kid);
    expect(b.keys.jwks).toEqual(a.keys.jwks);
    expect(b.keys.hmacSecret.equals(a.keys.hmacSecret)).toBe(true);
    const { token } = await a.tokens.issue(subject);
    await expect(b.tokens.verify(token)).resolves.toMatchObject({ sub: subject.userId });
    // Each replica's own copy of the service-role key is accepted by the other.
    expect(await b.tokens.verifyRoleKey(a.keys.serviceRoleKey)).toBe("service_role");
  });

  it("keys:rotate: new tokens use the new key, tokens of the previous key stay valid, both in the JWKS", async () => {
    const a = t.app.deps.auth;
    const b = other.deps.auth;
    const oldKid = a.keys.current.kid;
    const hmacBefore = Buffer.from(a.keys.hmacSecret);
    const { token: before } = await a.tokens.issue(subject);

    const { stdout } = await keysCli(t, "rotate");
    const newKid = /New signing key ([0-9a-f-]{36})/.exec(stdout)?.[1];
    expect(newKid).toBeDefined();
    expect(newKid).not.toBe(oldKid);

    // Both replicas heard of the rotation (the bus on PostgreSQL, the keys file on SQLite) and read the store again.
    await expect(b.tokens.verify(before)).resolves.toMatchObject({ sub: subject.userId });
    await expect(a.tokens.verify(before)).resolves.toMatchObject({ sub: subject.userId });
    expect(b.keys.current.kid).toBe(newKid);
    const { token: after } = await a.tokens.issue(subject);
    expect(kidOf(after)).toBe(newKid);
    await expect(b.tokens.verify(after)).resolves.toMatchObject({ sub: subject.userId });

    const jwks = (await t.app.inject({ url: "/auth/v1/.well-known/jwks.json" })).json() as { keys: { kid: string }[] };
    expect(jwks.keys.map((k) => k.kid)).toEqual([newKid, oldKid]);
    // The one-time-code secret is its own: rotating the signing key leaves codes and links valid.
    expect(a.keys.hmacSecret.equals(hmacBefore)).toBe(true);
  });

  it(
    "a key dropped by the third keys:rotate is refused at once by every replica, even for a token each had verified",
    async () => {
      const a = t.app.deps.auth;
      const b = other.deps.auth;
      const retiring = a.keys.current;
      // A long-lived token (30 days) signed by the key about to retire, and a person's token for the API.
      const now = Math.floor(Date.now() / 1000);
      const longLived = await new SignJWT({
        ...subject,
        aud: "authenticated",
        role: "authenticated",
        session_id: subject.sessionId,
      })
        .setProtectedHeader({ alg: "ES256", kid: retiring.kid, typ: "JWT" })
        .setSubject(subject.userId)
        .setIssuedAt(now)
        .setExpirationTime(now + 30 * 86_400)
        .sign(retiring.privateKey);
      const person = await createTestUser(t.app);
      const profile = (app: App) => app.inject({ method: "POST", url: "/api/profile", headers: person.headers });
      // Both replicas verify them once, so both hold them in their verified-token caches.
      for (const auth of [a, b]) await expect(auth.tokens.verify(longLived)).resolves.toMatchObject({ sub: subject.userId });
      for (const app of [t.app, other]) expect((await profile(app)).statusCode).toBe(200);

      await keysCli(t, "rotate");
      await keysCli(t, "rotate");
      // Still one of the previous two: valid everywhere.
      await expect(b.tokens.verify(longLived)).resolves.toMatchObject({ sub: subject.userId });
      expect((await profile(t.app)).statusCode).toBe(200);
      await keysCli(t, "rotate");

      for (const auth of [a, b]) {
        expect(auth.keys.all.map((k) => k.kid)).not.toContain(retiring.kid);
        expect(auth.tokens.verifiedClaims(longLived)).toBeUndefined();
        await expect(auth.tokens.verify(longLived)).rejects.toMatchObject({ code: "unauthorized" });
      }
      for (const app of [t.app, other]) expect((await profile(app)).statusCode).toBe(401);
    },
    CLI_RUNS_TIMEOUT_MS,
  );

  it("a token naming a key that is in no store is refused, and costs at most one store read per few seconds", async () => {
    const b = other.deps.auth;
    const { token } = await b.tokens.issue(subject);
    const [header, payload, signature] = token.split(".") as [string, string, string];
    const forgedHeader = Buffer.from(JSON.stringify({ alg: "ES256", kid: "not-a-key", typ: "JWT" })).toString("base64url");
    await expect(b.tokens.verify(`${forgedHeader}.${payload}.${signature}`)).rejects.toMatchObject({ code: "unauthorized" });
    expect(await b.keys.refresh()).toBe(false);
    expect(header).not.toBe(forgedHeader);
  });

  it("keys:service-role prints a key the server accepts for admin calls", async () => {
    const { stdout } = await keysCli(t, "service-role");
    const key = stdout.trim();
    expect(key.split(".")).toHaveLength(3);
    const res = await t.app.inject({
      url: "/auth/v1/admin/users",
      headers: { apikey: key, authorization: `Bearer ${key}` },
    });
    expect(res.statusCode).toBe(200);
    const anon = t.app.deps.auth.keys.anonKey;
    const refused = await t.app.inject({
      url: "/auth/v1/admin/users",
      headers: { apikey: anon, authorization: `Bearer ${anon}` },
    });
    expect(refused.statusCode).toBe(403);
  });

  it("keys:service-role revoke: the old service-role key is refused at once by every replica; signing keys and people's tokens stay", async () => {
    const a = t.app.deps.auth;
    const b = other.deps.auth;
    const kid = a.keys.current.kid;
    const copies = [a.keys.serviceRoleKey, b.keys.serviceRoleKey];
    // A key signed before service-role ids existed (no `srk`): accepted until the first revocation.
    const unmarked = await new SignJWT({ role: "service_role" })
      .setProtectedHeader({ alg: "ES256", kid, typ: "JWT" })
      .setIssuer("hikaya")
      .setIssuedAt()
      .setExpirationTime("10y")
      .sign(a.keys.current.privateKey);
    const listUsers = (app: App, key: string) =>
      app.inject({ url: "/auth/v1/admin/users", headers: { apikey: key, authorization: `Bearer ${key}` } });
    const person = await createTestUser(t.app);
    for (const app of [t.app, other])
      for (const key of [...copies, unmarked]) expect((await listUsers(app, key)).statusCode).toBe(200);

    const { stdout } = await keysCli(t, "service-role", "revoke");
    const fresh = stdout.trim();
    expect(copies).not.toContain(fresh);

    for (const app of [t.app, other]) {
      for (const key of [...copies, unmarked]) expect((await listUsers(app, key)).statusCode).toBe(401);
      expect((await listUsers(app, fresh)).statusCode).toBe(200);
      expect((await app.inject({ method: "POST", url: "/api/profile", headers: person.headers })).statusCode).toBe(200);
      expect(app.deps.auth.keys.current.kid).toBe(kid);
    }
    expect(await b.tokens.verifyRoleKey(a.keys.serviceRoleKey)).toBe("service_role");
  });

  it("the keys command explains its usage instead of guessing", async () => {
    await expect(keysCli(t, "spin")).rejects.toMatchObject({
      stderr: expect.stringContaining("Usage: keys.ts rotate | service-role"),
    });
  });
});

describe.runIf(testDialect() === "postgres")("a replica on PostgreSQL with a signing-keys file of its own", () => {
  it("stops with one line when the file differs from the database's keys, and starts when it matches", async () => {
    const t = await createTestApp();
    const stray = mkdtempSync(join(tmpdir(), "hikaya-stray-"));
    try {
      // A key file made elsewhere (another server's, copied by hand).
      (await loadSigningKeys(new FileSecretStore(stray))).close();
      const before = await t.app.deps.secrets.get(SIGNING_KEYS_SECRET);
      const started = createReplica({ ...t.config, dataDir: stray });
      await expect(started).rejects.toThrow(/^\S+signing-keys\.json differs from the signing keys in the database: [^\n]+$/);
      expect(await t.app.deps.secrets.get(SIGNING_KEYS_SECRET)).toEqual(before);

      // The same keys as the database's (say, a copy from before this check existed) are accepted.
      await new FileSecretStore(stray).update(SIGNING_KEYS_SECRET, () => before);
      const replica = await createReplica({ ...t.config, dataDir: stray });
      expect(replica.deps.auth.keys.current.kid).toBe(t.app.deps.auth.keys.current.kid);
      await replica.close();
    } finally {
      rmSync(stray, { recursive: true, force: true });
      await t.close();
    }
  });
});

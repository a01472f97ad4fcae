/**
 * Auth throughput on SQLite with production password hashing (scrypt N=2^17, r=8, p=1):
 *  sign-in (POST /auth/v1/token?grant_type=password), refresh (grant_type=refresh_token, every request
 *  spends a fresh token, as rotation requires) and GET /auth/v1/user. Requests/s and latency, ~5 s each.
 * `npm run bench -- auth` or standalone `node bench/auth.ts`; `node bench/auth.ts scrypt` gives only the sign-ins
 * per second per core (the CPU one password check costs, which the README states).
 */
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { hashPassword, sha256Hex, verifyPassword } from "../apps/server/src/modules/auth/secrets.ts";
import { load, printTable, report, startApp } from "./lib.ts";

const COMMAND = "npm run bench -- auth";
const EMAIL = "bench@users.hikaya.app";
const PASSWORD = "bench-password-1";

/**
 * One sign-in's password check at the default cost, in CPU time rather than wall time, so a busy machine does
 * not lower the figure: checks one after another on one core, and 1 / (CPU seconds per check).
 */
export async function benchScryptPerCore(checks = 8) {
  const stored = await hashPassword(PASSWORD, 17);
  const before = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < checks; i++) await verifyPassword(`wrong-${i}`, stored);
  const cpu = process.cpuUsage(before);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6 / checks;
  const wallSeconds = (performance.now() - started) / 1000 / checks;
  report(
    "password sign-ins per second per core (scrypt N=2^17, r=8, p=1)",
    `${(1 / cpuSeconds).toFixed(2)}/s (${Math.round(cpuSeconds * 1000)} ms CPU, ${Math.round(wallSeconds * 1000)} ms wall per check)`,
    "node scripts/with-node.mjs node bench/auth.ts scrypt",
  );
}

export async function benchAuth() {
  await benchScryptPerCore();
  console.log("auth: sign-in, refresh and getUser on /auth/v1 (SQLite, scrypt N=2^17)");
  // Limits far out of the way: this measures the work, not the 429s.
  const running = await startApp({ SEED_DEMO: "false", AUTH_RATE_LIMIT_FACTOR: "1000000" });
  try {
    const anon = running.app.deps.auth.keys.anonKey;
    const headers = { apikey: anon, "content-type": "application/json", "x-supabase-api-version": "2024-01-01" };
    const signup = await fetch(`${running.url}/auth/v1/signup`, {
      method: "POST",
      headers,
      body: JSON.stringify({ email: EMAIL, password: PASSWORD }),
    });
    const session = (await signup.json()) as { access_token: string; refresh_token: string; user: { id: string } };

    const signIn = await load({
      url: `${running.url}/auth/v1/token?grant_type=password`,
      method: "POST",
      headers,
      body: JSON.stringify({ email: EMAIL, password: PASSWORD }),
      connections: 4,
    });
    report(
      "POST /auth/v1/token?grant_type=password (scrypt N=2^17 per request)",
      `${signIn.requestsPerSecond.toFixed(1)} req/s, p97.5 ${signIn.p95} ms, non-2xx ${signIn.non2xx}`,
      COMMAND,
    );

    // Rotation makes every refresh token single use: give each request its own, from a pool of live tokens.
    const sessionId = JSON.parse(Buffer.from(session.access_token.split(".")[1] as string, "base64url").toString()).session_id;
    const pool: string[] = [];
    const now = new Date().toISOString();
    for (let batch = 0; batch < 40; batch++) {
      const rows = Array.from({ length: 500 }, () => {
        const token = randomBytes(32).toString("base64url");
        pool.push(token);
        return {
          token_hash: sha256Hex(token),
          session_id: sessionId,
          user_id: session.user.id,
          parent_id: null,
          revoked: 0,
          created_at: now,
          revoked_at: null,
        };
      });
      await running.app.deps.db.insertInto("refresh_tokens").values(rows).execute();
    }
    const poolFile = join(running.dataDir, "refresh-pool.json");
    writeFileSync(poolFile, JSON.stringify(pool));
    const setupFile = join(running.dataDir, "refresh-setup.cjs");
    writeFileSync(
      setupFile,
      `const pool = require(${JSON.stringify(poolFile)});
module.exports = (req) => ({ ...req, body: JSON.stringify({ refresh_token: pool.pop() || "exhausted" }) });\n`,
    );
    const refresh = await load({
      url: `${running.url}/auth/v1/token?grant_type=refresh_token`,
      method: "POST",
      headers,
      connections: 10,
      requests: [{ method: "POST", setupRequest: setupFile } as never],
    });
    report(
      "POST /auth/v1/token?grant_type=refresh_token (rotation: a fresh token per request)",
      `${refresh.requestsPerSecond.toFixed(0)} req/s, p97.5 ${refresh.p95} ms, non-2xx ${refresh.non2xx}`,
      COMMAND,
    );

    const user = await load({
      url: `${running.url}/auth/v1/user`,
      headers: { apikey: anon, authorization: `Bearer ${session.access_token}` },
      connections: 10,
    });
    report(
      "GET /auth/v1/user (ES256 verify + session check + user)",
      `${user.requestsPerSecond.toFixed(0)} req/s, p97.5 ${user.p95} ms, non-2xx ${user.non2xx}`,
      COMMAND,
    );
  } finally {
    await running.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  if (process.argv[2] === "scrypt") await benchScryptPerCore();
  else await benchAuth();
  printTable();
  process.exit(0);
}

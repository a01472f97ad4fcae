import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../deps.ts";
import { createReplica, createTestApp, type TestApp } from "../../test/test-app.ts";

// An account locked by password guessing stays locked when the server restarts, on SQLite too: otherwise every
// restart would hand a guesser ten more tries. Production limits (AUTH_RATE_LIMIT_FACTOR=1): ten sign-ins per
// account in 15 minutes.

let t: TestApp;
let restarted: App | undefined;
beforeAll(async () => {
  t = await createTestApp({ AUTH_RATE_LIMIT_FACTOR: "1" });
});
afterAll(async () => {
  await restarted?.close();
  await t?.close();
});

const signIn = (app: App, email: string, password: string) =>
  app.inject({
    method: "POST",
    url: "/auth/v1/token?grant_type=password",
    headers: { apikey: app.deps.auth.keys.anonKey, "content-type": "application/json" },
    payload: { email, password },
  });

describe("an account locked by wrong passwords", () => {
  it("is still refused, with the rest of the wait, after a restart on the same database", async () => {
    // The lock must not end between the tries and the restart: start afresh when the 15 minutes are nearly over.
    const left = 900 - (Math.floor(Date.now() / 1000) % 900);
    if (left < 20) await new Promise((resolve) => setTimeout(resolve, left * 1000 + 100));
    const email = `locked-${Date.now()}@users.hikaya.app`;
    const signUp = await t.app.inject({
      method: "POST",
      url: "/auth/v1/signup",
      headers: { apikey: t.app.deps.auth.keys.anonKey, "content-type": "application/json" },
      payload: { email, password: "secret123" },
    });
    expect(signUp.statusCode).toBe(200);
    for (let i = 0; i < 9; i++) expect((await signIn(t.app, email, `guess-${i}`)).statusCode).toBe(400);
    // The tenth try is the last the window allows; the eleventh is refused.
    expect((await signIn(t.app, email, "guess-9")).statusCode).toBe(400);
    const locked = await signIn(t.app, email, "guess-10");
    expect(locked.statusCode).toBe(429);
    const wait = Number(locked.headers["retry-after"]);
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(900);

    // The same configuration (DATA_DIR, DATABASE_URL) served by a new process: the old one is gone.
    await t.app.close();
    restarted = await createReplica(t.config);
    await restarted.ready();
    const after = await signIn(restarted, email, "secret123");
    expect(after.statusCode).toBe(429);
    expect(after.json()).toMatchObject({ error_code: "over_request_rate_limit" });
    const rest = Number(after.headers["retry-after"]);
    expect(rest).toBeGreaterThan(0);
    expect(rest).toBeLessThanOrEqual(wait);
  }, 60_000);
});

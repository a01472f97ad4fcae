import { describe, expect, it } from "vitest";
import { AuthError } from "./auth-errors.ts";
import { MAX_WAIT_MS, PasswordHasher } from "./password-hasher.ts";

// The queue's rules, with a cheap cost (logN 12) so they are quick; sign-in-capacity.test.ts holds the default cost.

const busy = async (promise: Promise<unknown>) => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AuthError);
  return error as AuthError;
};

describe("the password hasher's queue", () => {
  it("runs `concurrency` checks at once, queues up to queueMax, and refuses the next at once with 503 and a wait", async () => {
    const hasher = new PasswordHasher({ logN: 12, queueMax: 1, concurrency: 1 });
    const stored = await hasher.hash("secret123");
    const first = hasher.verify("secret123", stored);
    const second = hasher.verify("wrong", stored);
    expect(hasher.running).toBe(1);
    expect(hasher.waiting).toBe(1);
    const refused = await busy(hasher.verify("secret123", stored));
    expect(refused.status).toBe(503);
    expect(refused.errorCode).toBe("over_request_rate_limit");
    expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    // On /api the same failure is the envelope's 503 with Retry-After.
    expect(refused.toAppError()).toMatchObject({ code: "service_unavailable", status: 503, details: { retryAfterSeconds: 1 } });
    expect(await first).toBe(true);
    expect(await second).toBe(false);
    expect(hasher).toMatchObject({ running: 0, waiting: 0, completed: 3, rejected: 1 });
  });

  it("refuses a check whose expected wait passes the bound, however long the queue may be", async () => {
    // logN 20 guesses 4.8 s a check: one already running means the next would wait past MAX_WAIT_MS.
    expect(600 * 2 ** 3).toBeGreaterThan(MAX_WAIT_MS);
    const hasher = new PasswordHasher({ logN: 20, queueMax: 1000, concurrency: 1 });
    const running = hasher.verify("x", "$scrypt$ln=12,r=8,p=1$c2FsdA==$aGFzaA==");
    const refused = await busy(hasher.verify("x", "$scrypt$ln=12,r=8,p=1$c2FsdA==$aGFzaA=="));
    expect(refused.retryAfterSeconds).toBe(5);
    expect(await running).toBe(false);
  });

  it("refuses a check still waiting after the longest wait, when the running ones take longer than expected", async () => {
    const hasher = new PasswordHasher({ logN: 12, queueMax: 10, concurrency: 1, maxWaitMs: 50 });
    // A stored hash of a higher cost (logN 16, a few hundred ms) than the configured one the estimate starts from.
    const slow = "$scrypt$ln=16,r=8,p=1$c2FsdA==$aGFzaA==";
    const running = hasher.verify("x", slow);
    const started = performance.now();
    const refused = await busy(hasher.verify("x", slow));
    expect(performance.now() - started).toBeLessThan(200);
    expect(refused.status).toBe(503);
    expect(hasher.waiting).toBe(0);
    expect(await running).toBe(false);
    expect(hasher).toMatchObject({ running: 0, completed: 1, rejected: 1 });
  });

  it("hands a finished check's slot to the next in line, so the count of running checks stays bounded", async () => {
    const hasher = new PasswordHasher({ logN: 12, queueMax: 10, concurrency: 2 });
    const stored = await hasher.hash("secret123");
    let most = 0;
    const checks = Array.from({ length: 6 }, () =>
      hasher.verify("secret123", stored).then((ok) => {
        most = Math.max(most, hasher.running);
        return ok;
      }),
    );
    most = Math.max(most, hasher.running);
    expect(await Promise.all(checks)).toEqual([true, true, true, true, true, true]);
    expect(most).toBe(2);
    expect(hasher.running).toBe(0);
  });
});

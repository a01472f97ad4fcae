import { errorBodySchema } from "@hikaya/contracts";
import type { LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WRITE_LIMITS } from "../../plugins/write-limits.ts";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { createTestUser, type TestUser } from "../../test/test-users.ts";
import { seedFamily } from "./keepsake.test-helpers.ts";

// The keepsake's writes at their production limits (RATE_LIMIT_FACTOR=1), behind one load balancer (TRUST_PROXY=1),
// so each request can come from the address the test names.
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ RATE_LIMIT_FACTOR: "1", TRUST_PROXY: "1" });
});
afterAll(async () => t?.close());

type Write = "PUT /api/keepsake" | "POST /api/keepsake/share" | "POST /api/keepsake/links/:id/revoke";

const write = (route: Write, user: TestUser, ip: string) => {
  const base = { remoteAddress: "10.0.0.1", headers: { ...user.headers, "x-forwarded-for": ip } };
  if (route === "PUT /api/keepsake")
    return t.app.inject({ ...base, method: "PUT", url: "/api/keepsake", payload: { title: "Ours", dedication: "", voices: [] } });
  if (route === "POST /api/keepsake/share")
    return t.app.inject({ ...base, method: "POST", url: "/api/keepsake/share", payload: { expiry: "year", language: "en" } });
  // A link that is not theirs: 404, yet counted, as the limit comes before the route looks anything up.
  return t.app.inject({ ...base, method: "POST", url: "/api/keepsake/links/not-a-link/revoke" });
};

const expectRefused = (res: LightMyRequestResponse) => {
  expect(res.statusCode).toBe(429);
  expect(Number(res.headers["retry-after"])).toBeGreaterThan(0);
  expect(errorBodySchema.parse(res.json()).code).toBe("rate_limited");
};

describe("keepsake write limits", () => {
  const answered: Record<Write, number> = {
    "PUT /api/keepsake": 200,
    "POST /api/keepsake/share": 200,
    "POST /api/keepsake/links/:id/revoke": 404,
  };

  it.each(Object.keys(answered) as Write[])(
    "%s: 429 with Retry-After past the account's limit, from any address",
    async (route) => {
      // A family with a recording, so sharing succeeds until the limit.
      const family = await seedFamily(t.app);
      const perAccount = WRITE_LIMITS[route]?.perAccount?.limit ?? 0;
      expect(perAccount).toBe(30);
      for (let i = 0; i < perAccount; i++) {
        const res = await write(route, family.user, `192.0.2.${i + 1}`);
        expect(res.statusCode, res.body).toBe(answered[route]);
      }
      expectRefused(await write(route, family.user, "192.0.2.200"));
      // Someone else's account is counted on its own.
      const other = await seedFamily(t.app, "Amal");
      expect((await write(route, other.user, "192.0.2.201")).statusCode).toBe(answered[route]);
    },
  );

  it("PUT /api/keepsake: 429 past the address's limit, whichever account asks", async () => {
    const perIp = WRITE_LIMITS["PUT /api/keepsake"]?.perIp.limit ?? 0;
    const perAccount = WRITE_LIMITS["PUT /api/keepsake"]?.perAccount?.limit ?? 0;
    expect(perIp).toBe(60);
    const ip = "198.51.100.40";
    // Accounts each under their own limit, together filling the address's.
    for (let i = 0; i < perIp / perAccount; i++) {
      const user = await createTestUser(t.app);
      for (let n = 0; n < perAccount; n++) expect((await write("PUT /api/keepsake", user, ip)).statusCode).toBe(200);
    }
    expectRefused(await write("PUT /api/keepsake", await createTestUser(t.app), ip));
  });
});

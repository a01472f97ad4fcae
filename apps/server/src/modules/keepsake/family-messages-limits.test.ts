import { errorBodySchema } from "@hikaya/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WRITE_LIMITS } from "../../plugins/write-limits.ts";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { multipart } from "../recordings/test-fixtures.ts";
import { seedFamily, shareBook } from "./keepsake.test-helpers.ts";

// Relatives' messages at their production limits (RATE_LIMIT_FACTOR=1), behind one load balancer (TRUST_PROXY=1), so
// each post can come from the address the test names.
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ RATE_LIMIT_FACTOR: "1", TRUST_PROXY: "1" });
});
afterAll(async () => t?.close());

async function bookToken() {
  const family = await seedFamily(t.app);
  return { family, token: (await shareBook(t.app, family)).book };
}

const post = (token: string, ip: string) => {
  const body = multipart([
    { name: "kind", value: "question" },
    { name: "name", value: "Omar" },
    { name: "text", value: "Hello" },
  ]);
  return t.app.inject({
    method: "POST",
    url: `/k/${token}/messages`,
    remoteAddress: "10.0.0.1",
    headers: { "content-type": body.contentType, "x-forwarded-for": ip, accept: "application/json" },
    payload: body.payload,
  });
};

const rule = WRITE_LIMITS["POST /k/:token/messages"];

describe("relatives' message limits", () => {
  it("a link flooded with 200 posts from many addresses answers 429 past its limit, and keeps only what it took", async () => {
    const { family, token } = await bookToken();
    const perLink = rule?.perParam?.limit.limit ?? 0;
    expect(perLink).toBe(50);
    const statuses: number[] = [];
    for (let i = 0; i < 200; i++) statuses.push((await post(token, `192.0.2.${i + 1}`)).statusCode);
    expect(statuses.slice(0, perLink).every((s) => s === 201)).toBe(true);
    expect(statuses.slice(perLink).every((s) => s === 429)).toBe(true);
    const refused = await post(token, "198.51.100.250");
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
    expect(errorBodySchema.parse(refused.json()).code).toBe("rate_limited");
    const list = await t.app.inject({ method: "GET", url: "/api/family-messages", headers: family.user.headers });
    expect(list.json<{ messages: unknown[] }>().messages).toHaveLength(perLink);
    // A browser's form without script reads the refusal as a page in the book's language.
    const form = multipart([
      { name: "kind", value: "question" },
      { name: "name", value: "Omar" },
      { name: "text", value: "Hello" },
    ]);
    const page = await t.app.inject({
      method: "POST",
      url: `/k/${token}/messages`,
      remoteAddress: "10.0.0.1",
      headers: { "content-type": form.contentType, "x-forwarded-for": "198.51.100.252", accept: "text/html" },
      payload: form.payload,
    });
    expect(page.statusCode).toBe(429);
    expect(page.headers["content-type"]).toContain("text/html");
    expect(page.body).toContain("Too many messages were sent through this link");
    // Another family's link is counted on its own.
    const other = await bookToken();
    expect((await post(other.token, "198.51.100.251")).statusCode).toBe(201);
  });

  it("one address is held to its own limit across links", async () => {
    const perIp = rule?.perIp.limit ?? 0;
    expect(perIp).toBe(20);
    const ip = "203.0.113.9";
    const a = await bookToken();
    const b = await bookToken();
    for (let i = 0; i < perIp; i++) expect((await post(i % 2 ? a.token : b.token, ip)).statusCode).toBe(201);
    expect((await post(a.token, ip)).statusCode).toBe(429);
  });
});

import { MAX_ANALYTICS_BATCH } from "@hikaya/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { createTestUser, type TestUser } from "../../test/test-users.ts";

let t: TestApp;
let user: TestUser;
beforeAll(async () => {
  t = await createTestApp();
  user = await createTestUser(t.app);
});
afterAll(() => t.close());

const events = () => t.app.deps.db.selectFrom("analytics_events").selectAll().orderBy("id").execute();

describe("POST /api/events", () => {
  it("stores a JSON batch from a visitor", async () => {
    const res = await t.app.inject({
      method: "POST",
      url: "/api/events",
      payload: { events: [{ name: "landing_video_end", properties: { lang: "ar" }, at: new Date().toISOString() }] },
    });
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({ accepted: 1 });
    const [row] = await events();
    expect(row).toMatchObject({ name: "landing_video_end", user_id: null });
    expect(JSON.parse(row?.properties ?? "{}")).toEqual({ lang: "ar" });
  });

  it("accepts a sendBeacon text/plain body and attributes it to the token's user", async () => {
    const res = await t.app.inject({
      method: "POST",
      url: "/api/events",
      headers: { "content-type": "text/plain;charset=UTF-8" },
      payload: JSON.stringify({
        events: [{ name: "video_watched", properties: { videoID: "x", videoOrder: 2 } }],
        token: user.token,
      }),
    });
    expect(res.statusCode).toBe(202);
    const rows = await events();
    expect(rows.at(-1)).toMatchObject({ name: "video_watched", user_id: user.id });
  });

  it("ignores an invalid token rather than losing the events", async () => {
    const res = await t.app.inject({
      method: "POST",
      url: "/api/events",
      payload: { events: [{ name: "signup" }], token: "not-a-jwt" },
    });
    expect(res.statusCode).toBe(202);
    expect((await events()).at(-1)).toMatchObject({ name: "signup", user_id: null });
  });

  it("refuses unknown names, oversized batches and bad bodies without storing any of them", async () => {
    const before = (await events()).length;
    const tooMany = Array.from({ length: MAX_ANALYTICS_BATCH + 1 }, () => ({ name: "signup" }));
    for (const payload of [{ events: [{ name: "hack" }] }, { events: tooMany }, { events: [] }, { events: "x" }, {}]) {
      const res = await t.app.inject({ method: "POST", url: "/api/events", payload });
      expect(res.statusCode).toBe(400);
    }
    const text = await t.app.inject({
      method: "POST",
      url: "/api/events",
      headers: { "content-type": "text/plain" },
      payload: "{nope",
    });
    expect(text.statusCode).toBe(400);
    const huge = await t.app.inject({
      method: "POST",
      url: "/api/events",
      headers: { "content-type": "text/plain" },
      payload: JSON.stringify({ events: [{ name: "signup", properties: { x: "y".repeat(100_000) } }] }),
    });
    expect(huge.statusCode).toBe(413);
    expect((await events()).length).toBe(before);
  });
});

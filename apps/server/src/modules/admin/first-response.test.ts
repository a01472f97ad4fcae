import type { AdminAnalytics } from "@hikaya/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { createTestUser, type TestUser } from "../../test/test-users.ts";
import { percentile, weekOf } from "./analytics.service.ts";

/**
 * First-response time in the console's analytics, from messages with fixed times: a wait starts at a family's first
 * unanswered message and ends at the team's next reply; weeks start on Monday (UTC); the conversations waiting now
 * are listed longest first.
 */
let t: TestApp;
let admin: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = await createTestUser(t.app, { admin: true });
});
afterAll(async () => t?.close());

/** A conversation's messages, each `[who, ISO time]`, written as the messages module would keep them. */
async function conversation(messages: ["family" | "team", string][]): Promise<string> {
  const family = await createTestUser(t.app);
  let lastId = 0;
  let lastUserId = 0;
  for (const [who, at] of messages) {
    const row = await t.app.deps.db
      .insertInto("messages")
      .values({
        user_id: family.id,
        sender_id: who === "family" ? family.id : admin.id,
        sender_role: who === "family" ? "user" : "facilitator",
        message_type: "text",
        body: `${who} at ${at}`,
        duration_seconds: null,
        client_id: null,
        created_at: at,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    lastId = Number(row.id);
    if (who === "family") lastUserId = lastId;
  }
  await t.app.deps.db
    .insertInto("conversations")
    .values({
      user_id: family.id,
      last_message_id: lastId,
      last_message_at: messages.at(-1)?.[1] ?? "",
      last_user_message_id: lastUserId,
    })
    .execute();
  return family.id;
}

describe("first-response time", () => {
  it("weekOf and percentile: Monday-based weeks, nearest-rank percentiles", () => {
    expect(weekOf("2026-03-02T00:00:00.000Z")).toBe("2026-03-02");
    expect(weekOf("2026-03-08T23:59:59.000Z")).toBe("2026-03-02");
    expect(weekOf("2026-03-09T00:00:00.000Z")).toBe("2026-03-09");
    expect(percentile([120, 600, 1800, 3600], 0.5)).toBe(600);
    expect(percentile([120, 600, 1800, 3600], 0.9)).toBe(3600);
    expect(percentile([], 0.5)).toBeNull();
  });

  it("per week: median and 90th percentile from the first unanswered message to the next reply; the longest waits now", async () => {
    // Two messages in a row wait from the first (1 h), then a second wait of 2 minutes.
    const a = await conversation([
      ["family", "2026-03-02T09:00:00.000Z"],
      ["family", "2026-03-02T09:30:00.000Z"],
      ["team", "2026-03-02T10:00:00.000Z"],
      ["family", "2026-03-03T08:00:00.000Z"],
      ["team", "2026-03-03T08:02:00.000Z"],
    ]);
    await conversation([
      ["family", "2026-03-04T12:00:00.000Z"],
      ["team", "2026-03-04T12:10:00.000Z"],
    ]);
    // A wait begun before the range is not the range's; the next one (30 min) is.
    await conversation([
      ["family", "2026-03-01T23:00:00.000Z"],
      ["team", "2026-03-02T01:00:00.000Z"],
      ["family", "2026-03-02T02:00:00.000Z"],
      ["team", "2026-03-02T02:30:00.000Z"],
    ]);
    // Second week: one answered in 5 minutes, then a wait with no reply yet.
    const c = await conversation([
      ["family", "2026-03-10T10:00:00.000Z"],
      ["team", "2026-03-10T10:05:00.000Z"],
      ["family", "2026-03-11T10:00:00.000Z"],
      ["family", "2026-03-11T11:00:00.000Z"],
    ]);
    // Waiting since after the range: listed among those waiting now, after the longer wait.
    const e = await conversation([
      ["team", "2026-03-19T00:00:00.000Z"],
      ["family", "2026-03-20T08:00:00.000Z"],
      ["family", "2026-03-20T09:00:00.000Z"],
    ]);

    const res = await t.app.inject({
      method: "GET",
      url: "/api/admin/analytics?from=2026-03-02&to=2026-03-15",
      headers: admin.headers,
    });
    expect(res.statusCode).toBe(200);
    const { firstResponse } = res.json() as AdminAnalytics;
    expect(firstResponse.weeks).toEqual([
      { weekStart: "2026-03-02", answered: 4, unanswered: 0, medianSeconds: 600, p90Seconds: 3600 },
      { weekStart: "2026-03-09", answered: 1, unanswered: 1, medianSeconds: 300, p90Seconds: 300 },
    ]);
    const waiting = firstResponse.longestWaiting;
    expect(waiting.map((w) => w.userId)).toEqual([c, e]);
    expect(waiting.map((w) => w.waitingSince)).toEqual(["2026-03-11T10:00:00.000Z", "2026-03-20T08:00:00.000Z"]);
    expect(waiting.map((w) => w.userId)).not.toContain(a);
  });
});

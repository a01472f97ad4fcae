import type { AdminAnalytics } from "@hikaya/contracts";
import { describe, expect, it } from "vitest";
import { ApiError } from "../lib/api-client.ts";
import { decodeJwtPayload } from "../lib/jwt.ts";
import { adminSession } from "./admin-session.ts";
import { staleCurrent } from "./components/stale-notice.tsx";
import { analyticsCsv, move, refusedField, thumbnailOf } from "./logic.ts";

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
const jwt = (payload: unknown) => `${b64url({ alg: "ES256" })}.${b64url(payload)}.signature`;
const NOW = Date.parse("2026-01-01T00:00:00Z");

describe("admin session", () => {
  it("lets in a token whose app_metadata.role is admin", () => {
    const token = jwt({ sub: "u1", email: "ops@hikaya.test", exp: NOW / 1000 + 60, app_metadata: { role: "admin" } });
    expect(adminSession(token)).toMatchObject({ status: "admin", userId: "u1", email: "ops@hikaya.test" });
  });

  it("tells apart no token and a person who is not an admin; an expired admin token stays in (it is refreshed)", () => {
    expect(adminSession(null).status).toBe("none");
    expect(adminSession("garbage").status).toBe("none");
    expect(adminSession(jwt({ sub: "u2", exp: NOW / 1000 + 60, app_metadata: {} })).status).toBe("not_admin");
    // user_metadata is editable by its owner, so it never grants the role.
    expect(adminSession(jwt({ sub: "u2", exp: NOW / 1000 + 60, user_metadata: { role: "admin" } })).status).toBe("not_admin");
    expect(adminSession(jwt({ sub: "u3", exp: NOW / 1000 - 1, app_metadata: { role: "admin" } })).status).toBe("admin");
  });

  it("lets in a facilitator with their role, and no other role", () => {
    const token = jwt({ sub: "f1", email: "fac@hikaya.test", exp: NOW / 1000 + 60, app_metadata: { role: "facilitator" } });
    expect(adminSession(token)).toMatchObject({ status: "admin", userId: "f1", role: "facilitator" });
    expect(adminSession(jwt({ sub: "o1", exp: NOW / 1000 + 60, app_metadata: { role: "owner" } })).status).toBe("not_admin");
  });

  it("decodes UTF-8 payloads", () => {
    expect(decodeJwtPayload(jwt({ sub: "x", name: "هدى" }))).toMatchObject({ name: "هدى" });
  });
});

describe("console logic", () => {
  it("moves an item without losing or duplicating any", () => {
    expect(move(["a", "b", "c", "d"], 3, 0)).toEqual(["d", "a", "b", "c"]);
    expect(move(["a", "b", "c", "d"], 0, 2)).toEqual(["b", "c", "a", "d"]);
  });

  it("writes analytics as CSV, quoting commas and neutralising formulas", () => {
    const data: AdminAnalytics = {
      from: "2026-01-01",
      to: "2026-01-02",
      funnel: [
        { step: "signup", storyOrder: null, count: 3 },
        { step: "story_watched", storyOrder: 1, count: 2 },
      ],
      signupsPerDay: [{ day: "2026-01-01", count: 3 }],
      recordingsPerStory: [{ storyId: "s", order: 1, titleEn: "=HYPERLINK(1), bread", titleAr: "خبز", count: 4 }],
      messagesPerDay: [],
      messagesAvailable: true,
      recordingsAvailable: true,
      firstResponse: { weeks: [], longestWaiting: [] },
    };
    const csv = analyticsCsv(data).trim().split("\n");
    expect(csv[0]).toBe("section,key,label,count");
    expect(csv).toContain("funnel,signup,signup,3");
    expect(csv).toContain("funnel,1,story_watched,2");
    expect(csv).toContain(`recordings_per_story,1,"'=HYPERLINK(1), bread",4`);
  });
});

describe("a stale save", () => {
  it("is told apart from other conflicts by details.reason, and carries the stored values", () => {
    const current = { titleEn: "Saved by someone else" };
    expect(staleCurrent(new ApiError("conflict", "x", 409, { reason: "stale_version", current }))).toEqual(current);
    expect(staleCurrent(new ApiError("conflict", "still answers", 409))).toBeNull();
    expect(staleCurrent(new Error("x"))).toBeNull();
  });
});

describe("a refused field", () => {
  it("reads the field and zod's reason from a validation_failed answer, so the console can word it per language", () => {
    expect(refusedField({ issues: [{ path: "/titleEn", message: "Too small", reason: "too_small" }] })).toEqual({
      field: "titleEn",
      reason: "too_small",
    });
    expect(refusedField({ issues: [{ path: "/answers/0/audio", message: "x" }] })).toEqual({ field: "audio", reason: "" });
    expect(refusedField({ issues: [{ path: "" }] })).toBeNull();
    expect(refusedField(undefined)).toBeNull();
  });
});

describe("a story's thumbnail in the console", () => {
  const both = { thumbnailUrl: "/t/s1", thumbnailUrlAr: "/t/s1-ar" };
  it("is the Arabic one in Arabic where the story has one, else the English (default) one, as families get it", () => {
    expect(thumbnailOf(both, "ar")).toBe("/t/s1-ar");
    expect(thumbnailOf(both, "en")).toBe("/t/s1");
    expect(thumbnailOf({ thumbnailUrl: "/t/s2", thumbnailUrlAr: null }, "ar")).toBe("/t/s2");
    expect(thumbnailOf({ thumbnailUrl: null, thumbnailUrlAr: "/t/s3-ar" }, "en")).toBe("/t/s3-ar");
    expect(thumbnailOf({ thumbnailUrl: null, thumbnailUrlAr: null }, "ar")).toBeNull();
  });
});

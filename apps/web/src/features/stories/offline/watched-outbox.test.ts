// @vitest-environment jsdom
import { beforeEach, describe, expect, it } from "vitest";
import { ApiError } from "../../../lib/api-client.ts";
import { flushWatched, type PendingWatch, pendingWatches, queueWatched } from "./watched-outbox.ts";

beforeEach(() => {
  localStorage.clear();
  localStorage.setItem("userId", "u1");
});

const offline = () => Promise.reject(new ApiError("network", "Network error", 0));

describe("watched kept offline", () => {
  it("is kept while there is no network and sent once it returns, then forgotten", async () => {
    queueWatched("s1");
    expect(await flushWatched(offline)).toBe(0);
    expect(pendingWatches().map((p) => p.storyId)).toEqual(["s1"]);
    const sent: PendingWatch[] = [];
    expect(await flushWatched(async (item) => sent.push(item))).toBe(1);
    expect(sent.map((p) => [p.userId, p.storyId])).toEqual([["u1", "s1"]]);
    expect(pendingWatches()).toEqual([]);
  });

  it("sends what was queued after a flush that found nothing", async () => {
    expect(await flushWatched(offline)).toBe(0);
    queueWatched("s2");
    const sent: string[] = [];
    expect(await flushWatched(async (item) => sent.push(item.storyId))).toBe(1);
    expect(sent).toEqual(["s2"]);
  });

  it("drops one the server refuses for good, keeps the person's own only, and one entry per story", async () => {
    queueWatched("gone");
    queueWatched("s3");
    queueWatched("s3");
    localStorage.setItem("userId", "u2");
    queueWatched("theirs");
    localStorage.setItem("userId", "u1");
    const sent: string[] = [];
    const count = await flushWatched(async (item) => {
      if (item.storyId === "gone") throw new ApiError("not_found", "Not found", 404);
      sent.push(item.storyId);
    });
    expect(count).toBe(1);
    expect(sent).toEqual(["s3"]);
    expect(pendingWatches()).toEqual([]);
    localStorage.setItem("userId", "u2");
    expect(pendingWatches().map((p) => p.storyId)).toEqual(["theirs"]);
  });

  it("keeps them when the session is refused or the server is busy", async () => {
    queueWatched("s4");
    await flushWatched(() => Promise.reject(new ApiError("unauthorized", "No", 401)));
    await flushWatched(() => Promise.reject(new ApiError("internal_error", "Busy", 503)));
    expect(pendingWatches().map((p) => p.storyId)).toEqual(["s4"]);
  });
});

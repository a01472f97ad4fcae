import { RECORDING_LINK_TTL_SECONDS, STORY_MEDIA_BUCKET } from "@hikaya/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { signedQuery } from "../storage/signed-links.ts";
import { mediaLinkSubject } from "../storage/story-media.ts";
import { mediaWorkerOf } from "./worker.ts";

// Issue 37: a story's private video asked for by a signed link whose signature is wrong or expired is refused with
// the error shape (403), as the file itself is, rather than answered 200 with empty fields.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  await mediaWorkerOf(t.app)?.stop();
});
afterAll(() => t?.close());

const KEY = "no-such-video.mp4";
const link = (query: string) => `/storage/v1/object/sign/${STORY_MEDIA_BUCKET}/${KEY}?${query}`;
const stream = (src: string) => t.app.inject({ url: `/api/media/stream?src=${encodeURIComponent(src)}` });
const refusal = { code: "forbidden", message: "This link has expired or is not valid" };

describe("GET /api/media/stream for a signed story video", () => {
  it("answers a good signature (no stream yet for a file never processed)", async () => {
    const res = await stream(link(signedQuery(t.app.deps, mediaLinkSubject(KEY))));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ hls: null, poster: null, durationSeconds: null });
  });

  it("refuses a wrong, missing or borrowed signature with 403 and the error shape", async () => {
    const good = signedQuery(t.app.deps, mediaLinkSubject(KEY));
    const wrong = good.replace(/signature=(.)/, (_, c: string) => `signature=${c === "A" ? "B" : "A"}`);
    const borrowed = signedQuery(t.app.deps, mediaLinkSubject("another-video.mp4"));
    const expires = /expires=(\d+)/.exec(good)?.[1];
    for (const src of [link(wrong), link(`expires=${expires}`), link(borrowed), link("")]) {
      const res = await stream(src);
      expect(res.statusCode, src).toBe(403);
      expect(res.json()).toEqual(refusal);
    }
  });

  it("refuses an expired link with 403, on the stream's answer and on the file itself", async () => {
    const longAgo = Date.now() - 2 * (RECORDING_LINK_TTL_SECONDS + 600) * 1000;
    const expired = signedQuery(t.app.deps, mediaLinkSubject(KEY), longAgo);
    const res = await stream(link(expired));
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual(refusal);
    const file = await t.app.inject({ url: link(expired) });
    expect(file.statusCode).toBe(403);
    expect(file.json()).toEqual(refusal);
  });

  it("still answers an outside address (no stream) with 200", async () => {
    const res = await stream("https://youtu.be/hikaya");
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ hls: null });
  });
});

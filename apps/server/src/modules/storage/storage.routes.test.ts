import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../test/test-app.ts";

let t: TestApp;
const bytes = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 256));

beforeAll(async () => {
  t = await createTestApp();
  await t.app.deps.storage.put("videos", "clip.mp4", Readable.from([bytes]), "video/mp4");
  await t.app.deps.storage.put("recordings", "secret.webm", Readable.from([bytes]), "audio/webm");
});
afterAll(() => t.close());

const url = "/storage/v1/object/public/videos/clip.mp4";

describe("public storage objects", () => {
  it("serves the whole file with type, length, ETag and caching headers", async () => {
    const res = await t.app.inject({ url });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("video/mp4");
    expect(res.headers["content-length"]).toBe("1000");
    expect(res.headers["accept-ranges"]).toBe("bytes");
    expect(res.headers["cache-control"]).toContain("max-age=");
    expect(res.headers.etag).toMatch(/^".+"$/);
    expect(res.rawPayload.equals(bytes)).toBe(true);
  });

  it("answers a byte range with 206 and Content-Range", async () => {
    const res = await t.app.inject({ url, headers: { range: "bytes=10-19" } });
    expect(res.statusCode).toBe(206);
    expect(res.headers["content-range"]).toBe("bytes 10-19/1000");
    expect(res.rawPayload.equals(bytes.subarray(10, 20))).toBe(true);
  });

  it("answers a range past the end with 416", async () => {
    const res = await t.app.inject({ url, headers: { range: "bytes=5000-" } });
    expect(res.statusCode).toBe(416);
    expect(res.headers["content-range"]).toBe("bytes */1000");
    expect(res.json().code).toBe("range_not_satisfiable");
  });

  it("answers 304 when the ETag matches", async () => {
    const first = await t.app.inject({ url });
    const res = await t.app.inject({ url, headers: { "if-none-match": String(first.headers.etag) } });
    expect(res.statusCode).toBe(304);
    expect(res.body).toBe("");
  });

  it("HEAD gives the headers without the body", async () => {
    const res = await t.app.inject({ url, method: "HEAD" });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-length"]).toBe("1000");
    expect(res.body).toBe("");
  });

  it.each([
    "/storage/v1/object/public/videos/../../etc/passwd",
    "/storage/v1/object/public/videos/%2e%2e/%2e%2e/etc/passwd",
    "/storage/v1/object/public/videos/..%2f..%2fetc%2fpasswd",
    "/storage/v1/object/public/videos/.hidden",
  ])("never leaves the bucket: %s", async (path) => {
    const res = await t.app.inject({ url: path });
    expect([400, 404]).toContain(res.statusCode);
    expect(res.body).not.toContain("root:");
  });

  it("does not serve private buckets publicly", async () => {
    const res = await t.app.inject({ url: "/storage/v1/object/public/recordings/secret.webm" });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe("validation_failed");
  });

  it("answers 404 for a missing object", async () => {
    const res = await t.app.inject({ url: "/storage/v1/object/public/videos/nope.mp4" });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ code: "not_found" });
  });
});

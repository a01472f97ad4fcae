import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestS3, type TestS3 } from "../../test/s3-server.ts";
import { createTestApp, type TestApp } from "../../test/test-app.ts";

// Media on S3 served through the app (Range, ETag: the default) or by redirect, chosen by STORAGE_DELIVERY.
let s3: TestS3;
let proxied: TestApp;
let redirected: TestApp;
const BYTES = Buffer.from("0123456789 thumbnail bytes");

beforeAll(async () => {
  s3 = await startTestS3();
  proxied = await createTestApp(s3.env);
  redirected = await createTestApp({ ...s3.env, STORAGE_DELIVERY: "redirect" });
  await proxied.app.deps.storage.put("thumbnails", "story-x", Readable.from([BYTES]), "image/jpeg");
});
afterAll(async () => {
  await redirected?.close();
  await proxied?.close();
  await s3?.close();
});

describe("S3 media delivery", () => {
  it("proxy (default): the app streams the object with Range and ETag", async () => {
    const part = await proxied.app.inject({
      url: "/storage/v1/object/public/thumbnails/story-x",
      headers: { range: "bytes=2-5" },
    });
    expect(part.statusCode).toBe(206);
    expect(part.body).toBe("2345");
    const etag = part.headers.etag as string;
    const again = await proxied.app.inject({
      url: "/storage/v1/object/public/thumbnails/story-x",
      headers: { "if-none-match": etag },
    });
    expect(again.statusCode).toBe(304);
  });

  it("redirect: a 302 to a presigned address that serves the object, Range included", async () => {
    const res = await redirected.app.inject({ url: "/storage/v1/object/public/thumbnails/story-x" });
    expect(res.statusCode).toBe(302);
    const location = res.headers.location as string;
    expect(location.startsWith(`${s3.endpoint}/${s3.bucket}/thumbnails/story-x?`)).toBe(true);
    expect(location).toMatch(/X-Amz-Expires=600/);
    const whole = await fetch(location);
    expect(Buffer.from(await whole.arrayBuffer()).equals(BYTES)).toBe(true);
    const part = await fetch(location, { headers: { range: "bytes=2-5" } });
    expect(part.status).toBe(206);
    expect(await part.text()).toBe("2345");
    // A bad path is still refused by the app, not redirected.
    expect((await redirected.app.inject({ url: "/storage/v1/object/public/thumbnails/..%2Fx" })).statusCode).toBe(400);
  });
});

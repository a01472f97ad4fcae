import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../config.ts";
import { startTestS3 } from "../../test/s3-server.ts";
import { S3FileStorage } from "./s3-file-storage.ts";
import { storageContract } from "./storage-contract.ts";

const s3Config = (env: Record<string, string>) => {
  const storage = loadConfig(env).storage;
  if (storage.driver !== "s3") throw new Error("expected S3");
  return storage;
};

storageContract("S3 API (s3rver)", async () => {
  const s3 = await startTestS3();
  return { storage: new S3FileStorage(s3Config(s3.env)), close: () => s3.close() };
});

describe("S3 driver: what an operator can get wrong", () => {
  it("a bucket that does not exist or denies access, or a server that cannot be reached, stops the start with one clear line", async () => {
    const s3 = await startTestS3();
    try {
      const wrongBucket = new S3FileStorage(s3Config({ ...s3.env, S3_BUCKET: "no-such-bucket" }));
      await expect(wrongBucket.check()).rejects.toThrow(
        /^S3 bucket "no-such-bucket" at http:\/\/127\.0\.0\.1:\d+ does not exist$/,
      );
      const wrongKey = new S3FileStorage(s3Config({ ...s3.env, S3_ACCESS_KEY_ID: "NOT-A-KEY" }));
      await expect(wrongKey.check()).rejects.toThrow(/^S3 bucket "hikaya-test" at .* denies access to these credentials$/);
      await expect(new S3FileStorage(s3Config(s3.env)).check()).resolves.toBeUndefined();
    } finally {
      await s3.close();
    }
    const unreachable = new S3FileStorage(s3Config({ ...s3.env, S3_ENDPOINT: "http://127.0.0.1:9" }));
    await expect(unreachable.check()).rejects.toThrow(/^S3 bucket "hikaya-test" at http:\/\/127\.0\.0\.1:9 cannot be reached/);
  });

  it("redirect delivery: a presigned address, or one under STORAGE_PUBLIC_URL, that serves the object", async () => {
    const s3 = await startTestS3();
    try {
      const signed = new S3FileStorage(s3Config({ ...s3.env, STORAGE_DELIVERY: "redirect" }));
      await signed.put("thumbnails", "story-9", Readable.from([Buffer.from("picture")]), "image/jpeg");
      const url = await signed.urlFor("thumbnails", "story-9", 300);
      expect(url).toMatch(/X-Amz-Signature=/);
      const res = await fetch(url as string);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe("picture");

      const cdn = new S3FileStorage(
        s3Config({ ...s3.env, STORAGE_DELIVERY: "redirect", STORAGE_PUBLIC_URL: "https://cdn.example.org/media/" }),
      );
      expect(await cdn.urlFor("thumbnails", "story-9", 300)).toBe("https://cdn.example.org/media/thumbnails/story-9");
      expect(await new S3FileStorage(s3Config(s3.env)).urlFor("thumbnails", "story-9", 300)).toBeNull();
    } finally {
      await s3.close();
    }
  });
});

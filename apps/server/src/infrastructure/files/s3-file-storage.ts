import { PassThrough, type Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  S3Client,
} from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { type Bucket, PUBLIC_BUCKETS } from "@hikaya/contracts";
import type { Config } from "../../config.ts";
import { type ByteRange, type FileStorage, type ListedObject, objectKeyOrThrow, type StoredObjectInfo } from "./file-storage.ts";

type S3Config = Extract<Config["storage"], { driver: "s3" }>;

/**
 * Objects in one S3-compatible bucket, keyed `<bucket>/<key>`, for running several replicas.
 * Multipart uploads stream the body and are atomic: an object appears only once complete.
 */
export class S3FileStorage implements FileStorage {
  readonly #client: S3Client;
  readonly #bucket: string;
  readonly #config: S3Config;

  constructor(config: S3Config) {
    this.#bucket = config.bucket;
    this.#config = config;
    this.#client = new S3Client({
      region: config.region,
      endpoint: config.endpoint,
      forcePathStyle: config.forcePathStyle,
      credentials:
        config.accessKeyId && config.secretAccessKey
          ? { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey }
          : undefined,
    });
  }

  /**
   * Start-up check: the bucket exists and these credentials may use it. Throws one line saying which,
   * so a replica pointed at the wrong bucket stops instead of answering 404 for every file.
   */
  async check(): Promise<void> {
    const where = `S3 bucket "${this.#bucket}" at ${this.#config.endpoint ?? `AWS ${this.#config.region}`}`;
    try {
      await this.#client.send(new HeadBucketCommand({ Bucket: this.#bucket }));
    } catch (error) {
      const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      if (status === 404) throw new Error(`${where} does not exist`);
      if (status === 401 || status === 403) throw new Error(`${where} denies access to these credentials`);
      throw new Error(`${where} cannot be reached: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  async put(bucket: Bucket, key: string, body: Readable, contentType: string) {
    const objectKey = this.#key(bucket, key);
    let size = 0;
    // Counted on the way through; the upload reads 5 MB parts, two at a time, so memory stays bounded.
    const counted = new PassThrough();
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        size += chunk.length;
        done(null, chunk);
      },
    });
    const upload = new Upload({
      client: this.#client,
      queueSize: 2,
      partSize: 5 * 1024 * 1024,
      leavePartsOnError: false,
      params: { Bucket: this.#bucket, Key: objectKey, Body: counted, ContentType: contentType },
    });
    const piping = pipeline(body, counter, counted);
    try {
      await Promise.all([piping, upload.done()]);
    } catch (error) {
      await upload.abort().catch(() => undefined);
      counted.destroy();
      throw error;
    }
    return { size };
  }

  /**
   * With STORAGE_DELIVERY=redirect, where a browser can fetch the object itself: a public file under
   * STORAGE_PUBLIC_URL (a CDN or public bucket) when set, otherwise (and always for private files, which the
   * app has already checked the caller may read) a presigned GET valid for `expiresInSeconds`.
   * Null: serve it through the app.
   */
  async urlFor(bucket: Bucket, key: string, expiresInSeconds: number): Promise<string | null> {
    if (this.#config.delivery !== "redirect") return null;
    const objectKey = this.#key(bucket, key);
    if (this.#config.publicUrl && (PUBLIC_BUCKETS as readonly string[]).includes(bucket))
      return `${this.#config.publicUrl.replace(/\/$/, "")}/${objectKey}`;
    return getSignedUrl(this.#client, new GetObjectCommand({ Bucket: this.#bucket, Key: objectKey }), {
      expiresIn: expiresInSeconds,
    });
  }

  #key(bucket: Bucket, key: string): string {
    return `${bucket}/${objectKeyOrThrow(key)}`;
  }

  async stat(bucket: Bucket, key: string): Promise<StoredObjectInfo | null> {
    try {
      const head = await this.#client.send(new HeadObjectCommand({ Bucket: this.#bucket, Key: this.#key(bucket, key) }));
      return {
        size: head.ContentLength ?? 0,
        etag: head.ETag ?? `"${head.ContentLength}"`,
        lastModified: head.LastModified ?? new Date(0),
        contentType: head.ContentType ?? "application/octet-stream",
      };
    } catch (error) {
      const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      if (status === 404) return null;
      throw error;
    }
  }

  async read(bucket: Bucket, key: string, range?: ByteRange): Promise<Readable> {
    const out = await this.#client.send(
      new GetObjectCommand({
        Bucket: this.#bucket,
        Key: this.#key(bucket, key),
        Range: range ? `bytes=${range.start}-${range.end}` : undefined,
      }),
    );
    return out.Body as Readable;
  }

  async delete(bucket: Bucket, key: string) {
    await this.#client.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key: this.#key(bucket, key) }));
  }

  async *list(bucket: Bucket): AsyncIterable<ListedObject> {
    const prefix = `${bucket}/`;
    let token: string | undefined;
    do {
      const page = await this.#client.send(
        new ListObjectsV2Command({ Bucket: this.#bucket, Prefix: prefix, ContinuationToken: token }),
      );
      for (const object of page.Contents ?? []) {
        if (object.Key?.startsWith(prefix))
          yield { key: object.Key.slice(prefix.length), lastModified: object.LastModified ?? new Date(0) };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }
}

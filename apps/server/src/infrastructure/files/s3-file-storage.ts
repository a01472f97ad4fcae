import type { Readable } from "node:stream";
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import type { Bucket } from "@hikaya/contracts";
import type { Config } from "../../config.ts";
import type { ByteRange, FileStorage, StoredObjectInfo } from "./file-storage.ts";

type S3Config = Extract<Config["storage"], { driver: "s3" }>;

/**
 * Objects in one S3-compatible bucket, keyed `<bucket>/<key>`, for running several replicas.
 * Multipart uploads stream the body and are atomic: an object appears only once complete.
 */
export class S3FileStorage implements FileStorage {
  readonly #client: S3Client;
  readonly #bucket: string;

  constructor(config: S3Config) {
    this.#bucket = config.bucket;
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

  async put(bucket: Bucket, key: string, body: Readable, contentType: string) {
    let size = 0;
    body.on("data", (chunk: Buffer) => {
      size += chunk.length;
    });
    await new Upload({
      client: this.#client,
      params: { Bucket: this.#bucket, Key: `${bucket}/${key}`, Body: body, ContentType: contentType },
    }).done();
    return { size };
  }

  async stat(bucket: Bucket, key: string): Promise<StoredObjectInfo | null> {
    try {
      const head = await this.#client.send(new HeadObjectCommand({ Bucket: this.#bucket, Key: `${bucket}/${key}` }));
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
        Key: `${bucket}/${key}`,
        Range: range ? `bytes=${range.start}-${range.end}` : undefined,
      }),
    );
    return out.Body as Readable;
  }

  async delete(bucket: Bucket, key: string) {
    await this.#client.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key: `${bucket}/${key}` }));
  }
}

import { randomUUID } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import {
  type PublicBucket,
  publicObjectPath,
  UPLOAD_LIMITS,
  UPLOAD_PURPOSES,
  UPLOAD_TYPES,
  type UploadKind,
  type UploadPurpose,
} from "@hikaya/contracts";
import { AppError, badRequest } from "../../errors.ts";
import type { FileStorage } from "../../infrastructure/files/index.ts";
import { withSpool } from "./spool.ts";

/** file-type needs at most this many leading bytes to recognise every format we accept. */
const SNIFF_BYTES = 4100;

export interface StoredUpload {
  bucket: PublicBucket;
  key: string;
  path: string;
  size: number;
  contentType: string;
}

export const tooLarge = (kind: UploadKind, limit = UPLOAD_LIMITS[kind]) =>
  new AppError("payload_too_large", `The ${kind} is larger than the limit of ${Math.round(limit / (1024 * 1024))} MB`, {
    limit,
  });

/** Refuses a request whose declared size is already past the limit, before a byte of it is read. */
export function checkDeclaredSize(contentLength: string | undefined, kind: UploadKind, limit = UPLOAD_LIMITS[kind]) {
  const declared = Number(contentLength ?? 0);
  // A multipart body carries a few hundred bytes of headers around the file.
  if (Number.isFinite(declared) && declared > limit + 64 * 1024) throw tooLarge(kind, limit);
}

/**
 * Streams one uploaded file into storage. The first bytes decide its type (never the name or the
 * browser's claim): anything not accepted for `kind` is refused with 415 before storage sees it. The
 * byte count is enforced while streaming (413), and the storage driver keeps a half-written object out
 * of sight, so a refused or broken upload leaves nothing behind.
 */
export async function storeUpload(
  storage: FileStorage,
  source: Readable,
  options: {
    kind: UploadKind;
    bucket: PublicBucket;
    key?: (ext: string) => string;
    maxBytes?: number;
    /**
     * Measures the whole file before it is stored (the media module's length and picture bounds): the upload is
     * spooled to a temporary file first, and a refusal leaves nothing in storage.
     */
    admit?: (file: string) => Promise<unknown>;
  },
): Promise<StoredUpload> {
  const maxBytes = options.maxBytes ?? UPLOAD_LIMITS[options.kind];
  const iterator = source[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const head: Buffer[] = [];
  let headBytes = 0;
  let ended = false;
  while (headBytes < SNIFF_BYTES) {
    const next = await iterator.next();
    if (next.done) {
      ended = true;
      break;
    }
    head.push(next.value);
    headBytes += next.value.length;
  }
  if (headBytes === 0) throw badRequest("The file is empty");
  if (headBytes > maxBytes) {
    source.destroy();
    throw tooLarge(options.kind, maxBytes);
  }
  // file-type loads on the first upload, not at start-up.
  const { fileTypeFromBuffer } = await import("file-type");
  const detected = await fileTypeFromBuffer(Buffer.concat(head).subarray(0, SNIFF_BYTES));
  if (!detected || !UPLOAD_TYPES[options.kind].includes(detected.mime)) {
    source.destroy();
    throw new AppError(
      "unsupported_media_type",
      `This is not an accepted ${options.kind} file (${detected?.mime ?? "unknown type"}); accepted: ${UPLOAD_TYPES[options.kind].join(", ")}`,
    );
  }

  let written = 0;
  async function* body() {
    for (const chunk of head) {
      written += chunk.length;
      yield chunk;
    }
    if (ended) return;
    for (;;) {
      const next = await iterator.next();
      if (next.done) return;
      written += next.value.length;
      if (written > maxBytes) throw tooLarge(options.kind, maxBytes);
      yield next.value;
    }
  }
  const key = options.key ? options.key(detected.ext) : `${randomUUID()}.${detected.ext}`;
  const contentType = detected.mime === "audio/x-m4a" ? "audio/mp4" : detected.mime;
  const store = async (content: Readable) => {
    const { size } = await storage.put(options.bucket, key, content, contentType);
    return { bucket: options.bucket, key, path: publicObjectPath(options.bucket, key), size, contentType };
  };
  const { admit } = options;
  try {
    if (!admit) return await store(Readable.from(body()));
    return await withSpool(async (spool) => {
      await pipeline(Readable.from(body()), createWriteStream(spool));
      await admit(spool);
      return store(createReadStream(spool));
    });
  } catch (error) {
    source.destroy();
    throw error;
  }
}

export function purposeOf(purpose: UploadPurpose) {
  return UPLOAD_PURPOSES[purpose];
}

import { Readable } from "node:stream";
import { STORY_MEDIA_BUCKET } from "@hikaya/contracts";
import type { Kysely } from "kysely";
import type { AppDeps } from "../../deps.ts";
import { derivedPrefix } from "../storage/derived-files.ts";
import { insertJob, type MediaJobsTable } from "./media.repository.ts";

/**
 * What a browser does with the stream cookies (storage/media-cookies.ts) for tests and the bench: keeps each
 * Set-Cookie by name and Path, and sends back those whose Path covers the address asked for.
 */
export class CookieJar {
  readonly #cookies = new Map<string, { name: string; value: string; path: string }>();

  /** Keeps the cookies an answer set (headers as `inject` or fetch give them); a Max-Age of 0 removes one. */
  take(setCookie: string | string[] | undefined | null): this {
    for (const line of typeof setCookie === "string" ? [setCookie] : (setCookie ?? [])) {
      const [pair = "", ...attributes] = line.split(";").map((part) => part.trim());
      const [name = "", value = ""] = pair.split("=", 2);
      const path = attributes.find((a) => a.toLowerCase().startsWith("path="))?.slice(5) ?? "/";
      const gone = attributes.some((a) => a.toLowerCase() === "max-age=0");
      if (gone) this.#cookies.delete(`${name} ${path}`);
      else this.#cookies.set(`${name} ${path}`, { name, value, path });
    }
    return this;
  }

  /** The Cookie header a browser would send to `url` (its path only), or {} when none applies. */
  headersFor(url: string): { cookie?: string } {
    const path = new URL(url, "http://localhost").pathname;
    const sent = [...this.#cookies.values()].filter((c) => path.startsWith(c.path));
    return sent.length ? { cookie: sent.map((c) => `${c.name}=${c.value}`).join("; ") } : {};
  }
}

/** The files a processed story video has, small stand-ins for what ffmpeg makes (the URLs are what is tested). */
export const FAKE_STREAM_FILES: Record<string, { type: string; text: string }> = {
  "hls/master.m3u8": {
    type: "application/vnd.apple.mpegurl",
    text: "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=300000,RESOLUTION=426x240\n240p/index.m3u8\n",
  },
  "hls/240p/index.m3u8": {
    type: "application/vnd.apple.mpegurl",
    text: "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1.0,\nseg_0000.ts\n#EXTINF:1.0,\nseg_0001.ts\n#EXT-X-ENDLIST\n",
  },
  "hls/240p/seg_0000.ts": { type: "video/mp2t", text: "G segment 0".repeat(100) },
  "hls/240p/seg_0001.ts": { type: "video/mp2t", text: "G segment 1".repeat(100) },
  "poster.jpg": { type: "image/jpeg", text: "poster bytes" },
  "captions/en.vtt": { type: "text/vtt; charset=utf-8", text: "WEBVTT\n\n00:00.000 --> 00:01.000\nOnce\n" },
};

/** Stores the stand-in files beside a story video and records its job ready, as the worker would have. */
export async function fakeProcessed(deps: Pick<AppDeps, "db" | "storage">, videoKey: string): Promise<void> {
  for (const [name, file] of Object.entries(FAKE_STREAM_FILES))
    await deps.storage.put(
      STORY_MEDIA_BUCKET,
      `${derivedPrefix(videoKey)}${name}`,
      Readable.from([Buffer.from(file.text)]),
      file.type,
    );
  const now = new Date().toISOString();
  await insertJob(deps.db, { bucket: STORY_MEDIA_BUCKET, key: videoKey, kind: "video" }, now);
  const outputs = {
    hls: `${derivedPrefix(videoKey)}hls/master.m3u8`,
    poster: `${derivedPrefix(videoKey)}poster.jpg`,
    durationSeconds: 2,
  };
  await (deps.db.withTables<{ media_jobs: MediaJobsTable }>() as unknown as Kysely<{ media_jobs: MediaJobsTable }>)
    .updateTable("media_jobs")
    .set({ status: "ready", progress: 100, outputs: JSON.stringify(outputs), updated_at: now })
    .where("bucket", "=", STORY_MEDIA_BUCKET)
    .where("object_key", "=", videoKey)
    .execute();
}

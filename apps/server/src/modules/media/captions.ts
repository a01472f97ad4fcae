import { Readable } from "node:stream";
import { type Bucket, captionsProblem, LANGUAGES, type Language } from "@hikaya/contracts";
import type { AppDeps } from "../../deps.ts";
import { AppError } from "../../errors.ts";
import { type Actor, audit } from "../audit/audit.service.ts";
import { derivedPrefix } from "../storage/derived-files.ts";
import { objectOf, type StoredObject } from "../storage/story-media.ts";

/**
 * Captions of a story video (WCAG 2.2 1.2.2), one WebVTT file per language. They are stored beside the video, under
 * `<key>.media/captions/<lang>.vtt`, like its HLS renditions: served under the video's own signed link
 * (media.routes.ts, the stream route), so a locked story's captions are refused like its video, and kept by the
 * storage sweep exactly as long as the video. A replaced video starts without captions: they were timed to the old one.
 */
export const captionsKey = (videoKey: string, lang: Language) => `${derivedPrefix(videoKey)}captions/${lang}.vtt`;

const VTT_TYPE = "text/vtt; charset=utf-8";

/** The stored video a console address names; captions are for stored videos (YouTube and Vimeo carry their own). */
function videoOf(src: string): StoredObject & { bucket: Bucket } {
  const object = objectOf(src);
  if (!object)
    throw new AppError("validation_failed", "src: captions are for uploaded videos", { field: "src", reason: "other" });
  return object;
}

export async function saveCaptions(
  deps: Pick<AppDeps, "db" | "storage">,
  actor: Actor,
  input: { src: string; lang: Language; text: string },
): Promise<void> {
  const problem = captionsProblem(input.text);
  if (problem)
    throw new AppError(
      "validation_failed",
      problem === "too_large" ? "text: the captions file is too large" : "text: a captions file starts with WEBVTT",
      { field: "text", reason: problem },
    );
  const video = videoOf(input.src);
  if (!(await deps.storage.stat(video.bucket, video.key))) throw new AppError("not_found", "This video is no longer in storage");
  // Line endings as WebVTT prefers, and no byte order mark: browsers accept both, but one form keeps files comparable.
  const text = input.text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  await deps.storage.put(video.bucket, captionsKey(video.key, input.lang), Readable.from([Buffer.from(text)]), VTT_TYPE);
  await audit(deps.db, actor, "captions.save", { type: "file", id: input.src.split("?")[0] }, { lang: input.lang });
}

export async function removeCaptions(
  deps: Pick<AppDeps, "db" | "storage">,
  actor: Actor,
  input: { src: string; lang: Language },
): Promise<void> {
  const video = videoOf(input.src);
  await deps.storage.delete(video.bucket, captionsKey(video.key, input.lang));
  await audit(deps.db, actor, "captions.remove", { type: "file", id: input.src.split("?")[0] }, { lang: input.lang });
}

/**
 * The captions a video has, each at `base` + its key (the stream route's signed prefix for a story's private video,
 * the public path otherwise). The file's time is in the address, so a corrected file is fetched again at once
 * although the browser may keep the old one for as long as the link lives.
 */
export async function captionsOf(
  deps: Pick<AppDeps, "storage">,
  video: StoredObject,
  base: string,
): Promise<{ lang: Language; url: string }[]> {
  const found = await Promise.all(
    LANGUAGES.map(async (lang) => {
      const key = captionsKey(video.key, lang);
      const info = await deps.storage.stat(video.bucket, key);
      return info ? { lang, url: `${base}${key}?v=${info.lastModified.getTime()}` } : null;
    }),
  );
  return found.filter((c) => c !== null);
}

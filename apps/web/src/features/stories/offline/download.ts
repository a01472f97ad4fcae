/**
 * Downloading a story for offline (offline-copy.ts says what a copy is): planned from the server's answers, fetched
 * file by file into the cache with progress, the record written last. Loaded only when a person asks for a download.
 */
import type { MediaStream, Story, ViewingMode } from "@hikaya/contracts";
import { ApiError, api, tokenApi } from "../../../lib/api-client.ts";
import type { Language } from "../../../lib/i18n.ts";
import { getUserId } from "../../../lib/session.ts";
import { fetchMediaStream, HLS_TYPE } from "../../../lib/stream-source.ts";
import type { Answer, Question } from "../api/question-types.ts";
import { fetchStoriesList } from "../api/stories-list.ts";
import { embedFor } from "../embed.ts";
import { lowestRung, rewriteMediaPlaylist } from "./hls-playlist.ts";
import {
  absolute,
  base,
  COPY_VERSION,
  OFFLINE_CACHE,
  type OfflineCopy,
  offlineSupported,
  recordOf,
  removeCopy,
  writeNote,
} from "./offline-copy.ts";

type Text = { path: string; text: string; type: string };
type Download = { path: string; from: string };

/** What a copy of one video (or sound) is made of: its playlist text and files, or the original file. */
async function planMedia(
  src: string,
  stream: MediaStream | null | undefined,
  mode: ViewingMode,
  at: string,
  texts: Text[],
  downloads: Download[],
  signal?: AbortSignal,
): Promise<string> {
  let rung: string | null = mode === "audio_only" && stream?.audioOnly ? absolute(stream.audioOnly) : null;
  if (!rung && stream?.hls) {
    const masterUrl = absolute(stream.hls);
    rung = lowestRung(await fetchText(masterUrl, signal), masterUrl);
  }
  if (!rung) {
    downloads.push({ path: `${at}original`, from: absolute(src) });
    return `${at}original`;
  }
  const playlist = rewriteMediaPlaylist(await fetchText(rung, signal), rung);
  texts.push({ path: `${at}index.m3u8`, text: playlist.text, type: HLS_TYPE });
  for (const file of playlist.files) downloads.push({ path: `${at}${file.name}`, from: file.from });
  return `${at}index.m3u8`;
}

async function fetchText(url: string, signal?: AbortSignal): Promise<string> {
  const res = await fetch(url, { signal }).catch(() => {
    throw new ApiError("network", "Network error", 0);
  });
  if (!res.ok) throw new ApiError(res.status === 403 ? "forbidden" : "internal_error", res.statusText, res.status);
  return res.text();
}

/** Fetches a file into the cache, telling how far it got; answers its size in bytes. */
async function storeFile(
  cache: Cache,
  item: Download,
  onFraction: (fraction: number) => void,
  signal?: AbortSignal,
): Promise<number> {
  const res = await fetch(item.from, { signal }).catch(() => {
    throw new ApiError("network", "Network error", 0);
  });
  if (!res.ok || !res.body) throw new ApiError(res.status === 403 ? "forbidden" : "internal_error", res.statusText, res.status);
  const expected = Number(res.headers.get("content-length")) || 0;
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read().catch(() => {
      throw new ApiError("network", "Network error", 0);
    });
    if (done) break;
    chunks.push(value);
    received += value.byteLength;
    if (expected > 0) onFraction(Math.min(1, received / expected));
  }
  const type = res.headers.get("content-type") ?? "application/octet-stream";
  const blob = new Blob(chunks as BlobPart[], { type });
  await cache.put(
    absolute(item.path),
    new Response(blob, { headers: { "content-type": type, "content-length": String(blob.size) } }),
  );
  return blob.size;
}

/**
 * Downloads the story for the signed-in person in their language and viewing mode, reporting progress from 0 to 1.
 * Answers the bytes kept. A failure leaves nothing behind.
 */
export async function downloadStory(
  storyId: string,
  language: Language,
  mode: ViewingMode,
  onProgress: (fraction: number) => void,
  signal?: AbortSignal,
): Promise<number> {
  const userId = getUserId();
  if (!userId || !offlineSupported()) throw new ApiError("unauthorized", "Not signed in", 401);
  // Asked once the person chose to keep something: a persisted site is not cleared under storage pressure.
  void navigator.storage?.persist?.().catch(() => false);
  onProgress(0);
  const story = await api<Story>(`/stories/${encodeURIComponent(storyId)}?lang=${language}`, { signal });
  const embed = story.url ? embedFor(story.url, window.location.origin) : null;
  if (story.watchStatus === "Locked" || !embed || embed.kind !== "file") throw new ApiError("forbidden", "Not downloadable", 403);
  const [questions, answers, list] = await Promise.all([
    tokenApi<Question[]>(`/story/questions?lang=${language}`, { story: storyId }, signal),
    tokenApi<Answer[]>("/story/questions/answers", { story: storyId }, signal),
    fetchStoriesList(language, signal),
  ]);

  const at = base(storyId);
  const texts: Text[] = [];
  const downloads: Download[] = [];
  const stream = story.stream ?? (await fetchMediaStream(embed.src));
  const video = await planMedia(embed.src, stream, mode, `${at}video/`, texts, downloads, signal);
  const poster = stream?.poster ? `${at}poster.jpg` : null;
  if (stream?.poster && poster) downloads.push({ path: poster, from: absolute(stream.poster) });
  const captions = (stream?.captions ?? []).map((c) => {
    downloads.push({ path: `${at}captions/${c.lang}.vtt`, from: absolute(c.url) });
    return { lang: c.lang, url: `${at}captions/${c.lang}.vtt` };
  });
  const keptQuestions: Question[] = [];
  for (const [i, question] of questions.entries()) {
    const src = embedFor(question.url, window.location.origin);
    if (src.kind !== "file") {
      keptQuestions.push(question);
      continue;
    }
    const url = await planMedia(src.src, await fetchMediaStream(src.src), mode, `${at}q${i}/`, texts, downloads, signal);
    keptQuestions.push({ ...question, url });
  }
  const pictures = new Map<string, string>();
  const keptAnswers = answers.map((answer, i) => {
    downloads.push({ path: `${at}a${i}`, from: absolute(answer.audio) });
    const thumbnail = answer.character.thumbnail;
    if (thumbnail && !pictures.has(thumbnail)) {
      pictures.set(thumbnail, `${at}people/${pictures.size}`);
      downloads.push({ path: pictures.get(thumbnail) as string, from: absolute(thumbnail) });
    }
    return {
      ...answer,
      audio: `${at}a${i}`,
      character: { ...answer.character, thumbnail: thumbnail ? (pictures.get(thumbnail) ?? null) : null },
    };
  });

  const cache = await caches.open(OFFLINE_CACHE);
  let bytes = 0;
  try {
    for (const text of texts) {
      const blob = new Blob([text.text], { type: text.type });
      bytes += blob.size;
      await cache.put(absolute(text.path), new Response(blob, { headers: { "content-type": text.type } }));
    }
    for (const [done, item] of downloads.entries()) {
      bytes += await storeFile(cache, item, (part) => onProgress((done + part) / downloads.length), signal);
      onProgress((done + 1) / downloads.length);
    }
    const copy: OfflineCopy = {
      version: COPY_VERSION,
      userId,
      storyId,
      language,
      savedAt: new Date().toISOString(),
      bytes,
      files: [...texts.map((t) => t.path), ...downloads.map((d) => d.path)],
      story: {
        ...story,
        url: video,
        stream: { hls: null, poster, durationSeconds: stream?.durationSeconds ?? null, audioOnly: null, sizes: null, captions },
      },
      questions: keptQuestions,
      answers: keptAnswers,
      list,
    };
    // The record last: a copy is complete or absent.
    await cache.put(
      absolute(recordOf(storyId)),
      new Response(JSON.stringify(copy), { headers: { "content-type": "application/json" } }),
    );
    writeNote(userId, storyId, { bytes, savedAt: copy.savedAt });
  } catch (error) {
    await removeCopy(storyId).catch(() => undefined);
    throw error;
  }
  return bytes;
}

import type { Readable } from "node:stream";
import type { Bucket, Language } from "@hikaya/contracts";
import type { AppDeps } from "../../deps.ts";
import { voiceCopyOf } from "../media/media.service.ts";
import { RECORDINGS_BUCKET } from "../recordings/recordings.service.ts";
import { bookFamilyMessagesOf } from "./family-messages.repository.ts";
import { bookOrder, catalogueOf, chosenVoices, type VoiceEntry, voiceKey, wordsOf } from "./keepsake.service.ts";
import { type ExportPage, exportIndexPage } from "./keepsake-export-page.ts";

type Deps = Pick<AppDeps, "db" | "storage" | "auth" | "secrets" | "config">;
type StoredFile = { bucket: Bucket; key: string };

const EXTENSIONS: Record<string, string> = {
  "audio/mp4": "m4a",
  "audio/x-m4a": "m4a",
  "audio/aac": "aac",
  "audio/wav": "wav",
  "audio/webm": "webm",
  "audio/ogg": "ogg",
  "audio/mpeg": "mp3",
};

/** The file to put in the ZIP: the AAC copy once processing made it, else the voice as it was sent; null if gone. */
async function playable(deps: Deps, file: StoredFile): Promise<{ file: StoredFile; ext: string } | null> {
  const copy = await voiceCopyOf(deps, file.bucket, file.key);
  const chosen = copy ? { bucket: file.bucket, key: copy } : file;
  const info = await deps.storage.stat(chosen.bucket, chosen.key);
  if (!info) return null;
  return { file: chosen, ext: EXTENSIONS[info.contentType.split(";")[0]?.trim() ?? ""] ?? "audio" };
}

const two = (n: number) => String(n).padStart(2, "0");

/**
 * Everything the family can take home, in the book's order: every recording of their own (each story's, chosen or
 * not), the family members' answers they put in the book, and what relatives left that the book keeps (shown replies,
 * answered questions with the answer). Paths are plain ASCII so every unzip tool keeps them; `index.html` names them.
 */
export async function keepsakeExportOf(deps: Deps, userId: string, language: Language) {
  const { stories, voices, familyName } = await catalogueOf(deps, userId);
  const { title, chosen } = await chosenVoices(deps, userId, voices);
  const inBook = new Set(chosen.map(voiceKey));
  const kept = [...voices.values()].filter((v) => v.ownVoice || inBook.has(voiceKey(v))).sort(bookOrder);
  const files: { path: string; file: StoredFile }[] = [];
  const page: ExportPage = { language, title, familyName, stories: [], questions: [], replies: [] };
  for (const [index, story] of stories.entries()) {
    const here = kept.filter((v) => v.storyId === story.id);
    const entries: ExportPage["stories"][number]["voices"] = [];
    for (const v of here) {
      const found = v.file ? await playable(deps, v.file) : null;
      if (!found) continue;
      const path = `story-${two(index + 1)}/voice-${two(entries.length + 1)}.${found.ext}`;
      files.push({ path, file: found.file });
      entries.push({
        path,
        speaker: speakerOf(v, language, familyName),
        recordedAt: v.recordedAt,
        seconds: v.durationSeconds,
        words: wordsOf(v, language),
      });
    }
    if (entries.length > 0) page.stories.push({ title: language === "ar" ? story.titleAr : story.titleEn, voices: entries });
  }
  for (const row of await bookFamilyMessagesOf(deps.db, userId)) {
    const voice = row.audio_key ? await playable(deps, { bucket: RECORDINGS_BUCKET, key: row.audio_key }) : null;
    const n = two((row.kind === "question" ? page.questions.length : page.replies.length) + 1);
    const voicePath = voice ? `family/${row.kind}-${n}.${voice.ext}` : null;
    if (voice && voicePath) files.push({ path: voicePath, file: voice.file });
    if (row.kind === "reply") {
      page.replies.push({ name: row.name, text: row.text, path: voicePath });
      continue;
    }
    const answer = row.answer_key ? await playable(deps, { bucket: RECORDINGS_BUCKET, key: row.answer_key }) : null;
    const answerPath = answer ? `family/answer-${n}.${answer.ext}` : null;
    if (answer && answerPath) files.push({ path: answerPath, file: answer.file });
    page.questions.push({ name: row.name, text: row.text, path: voicePath, answerPath, answeredAt: row.answered_at });
  }
  return { files, index: exportIndexPage(page) };
}

function speakerOf(v: VoiceEntry, language: Language, familyName: string | null): string {
  if (v.ownVoice) return familyName ?? "";
  return language === "ar" ? v.speakerNameAr : v.speakerNameEn;
}

/**
 * The ZIP as a stream (yazl: small, no dependencies of its own beyond a CRC, and it reads one entry at a time): each file is opened only when the archiver reaches it and flows through (stored, not
 * compressed: audio does not shrink), so memory holds one file's buffers at a time, never the archive.
 */
export async function zipStream(
  deps: Pick<AppDeps, "storage">,
  files: { path: string; file: StoredFile }[],
  index: string,
): Promise<Readable> {
  // Loaded on the first download, not at start-up (src/test/lazy-start.test.ts).
  const { ZipFile } = await import("yazl");
  const zip = new ZipFile();
  const mtime = new Date();
  zip.addBuffer(Buffer.from(index), "index.html", { mtime });
  for (const { path, file } of files)
    zip.addReadStreamLazy(path, { mtime, compress: false }, (done) => {
      deps.storage.read(file.bucket, file.key).then(
        (stream) => done(null, stream),
        (error: unknown) => done(error, undefined as unknown as NodeJS.ReadableStream),
      );
    });
  zip.end();
  return zip.outputStream as Readable;
}

import { randomUUID } from "node:crypto";
import { Readable } from "node:stream";
import { inflateRawSync } from "node:zlib";
import { STORY_MEDIA_BUCKET, storyMediaPath } from "@hikaya/contracts";
import type { App } from "../../deps.ts";
import { createTestUser, type TestUser } from "../../test/test-users.ts";
import { wav } from "../recordings/test-fixtures.ts";

export interface KeepsakeFamily {
  user: TestUser;
  story: { id: string; titleEn: string; titleAr: string };
  unwatchedStoryId: string;
  recordingId: string;
  answerId: string;
}

const put = (app: App, bucket: "recordings" | typeof STORY_MEDIA_BUCKET, key: string, bytes: Buffer) =>
  app.deps.storage.put(bucket, key, Readable.from([bytes]), "audio/wav");

/**
 * A family who watched one story of two, recorded a 3-second answer to its first question and heard a family
 * member's answer: what a keepsake is made of, files included.
 */
export async function seedFamily(app: App, name = "Huda"): Promise<KeepsakeFamily> {
  const user = await createTestUser(app);
  const now = new Date().toISOString();
  const tag = randomUUID().slice(0, 8);
  const story = { id: `ks-${tag}`, titleEn: `The olive tree ${tag}`, titleAr: `شجرة الزيتون ${tag}` };
  const base = {
    subtitle_en: "",
    subtitle_ar: "",
    video_url: "https://example.test/v.mp4",
    duration_seconds: null,
    created_at: now,
    updated_at: now,
  };
  const position = Date.now() % 1_000_000_000;
  await app.deps.db
    .insertInto("stories")
    .values([
      { ...base, id: story.id, position, title_en: story.titleEn, title_ar: story.titleAr, thumbnail_path: null },
      { ...base, id: `${story.id}-2`, position: position + 1, title_en: "Unwatched", title_ar: "لم تُشاهد", thumbnail_path: null },
    ])
    .execute();
  await app.deps.db
    .insertInto("progress")
    .values({ user_id: user.id, story_id: story.id, story_position: position, watched_at: now })
    .execute();
  await app.deps.db
    .insertInto("profiles")
    .values({
      user_id: user.id,
      name,
      phone_number: null,
      country_code: null,
      city: null,
      gender: null,
      age_group: null,
      from_landing_page: 0,
      agree_to_reminder: 0,
      agree_to_reminder_at: null,
      whatsapp_opt_in: null,
      whatsapp_opt_in_at: null,
      language: null,
      reminders_stopped_via: null,
      created_at: now,
      updated_at: now,
    })
    .execute();
  const questionId = `q-${tag}`;
  await app.deps.db
    .insertInto("questions")
    .values({ id: questionId, story_id: story.id, position: 1, media_path: "https://example.test/q.mp4", created_at: now })
    .execute();
  const characterId = `c-${tag}`;
  await app.deps.db
    .insertInto("characters")
    .values({
      id: characterId,
      key: `grandma-${tag}`,
      name_en: "Grandma Salma",
      name_ar: "الجدة سلمى",
      thumbnail_path: null,
      audio_path: null,
      created_at: now,
    })
    .execute();
  const answerKey = `answer-${tag}.wav`;
  await put(app, STORY_MEDIA_BUCKET, answerKey, wav(1));
  const answerId = `a-${tag}`;
  await app.deps.db
    .insertInto("answers")
    .values({
      id: answerId,
      question_id: questionId,
      character_id: characterId,
      audio_path: storyMediaPath(answerKey),
      position: 1,
      created_at: now,
    })
    .execute();
  const recordingId = randomUUID();
  const recordingKey = `${user.id}/${recordingId}`;
  const bytes = wav(3);
  await put(app, "recordings", recordingKey, bytes);
  await app.deps.db
    .insertInto("recordings")
    .values({
      id: recordingId,
      user_id: user.id,
      story_id: story.id,
      question_index: 0,
      object_key: recordingKey,
      content_type: "audio/wav",
      size: bytes.length,
      duration_seconds: 3,
      created_at: now,
    })
    .execute();
  return { user, story, unwatchedStoryId: `${story.id}-2`, recordingId, answerId };
}

/** Shares the family's book; the tokens (the address part after /k/) and ids of its book link and its first voice's. */
export async function shareBook(app: App, family: KeepsakeFamily, language: "en" | "ar" = "en") {
  const res = await app.inject({
    method: "POST",
    url: "/api/keepsake/share",
    headers: family.user.headers,
    payload: { expiry: "year", language },
  });
  if (res.statusCode !== 200) throw new Error(`share: ${res.statusCode} ${res.body}`);
  const links = (res.json() as { links: { id: string; scope: string; url: string }[] }).links;
  const tokenOf = (url: string) => new URL(url).pathname.split("/")[2] ?? "";
  const book = links.find((l) => l.scope === "book");
  const voice = links.find((l) => l.scope === "voice");
  if (!book || !voice) throw new Error("no links");
  return { book: tokenOf(book.url), voice: tokenOf(voice.url), bookLinkId: book.id, voiceLinkId: voice.id };
}

/** The entries of a ZIP, read from its central directory (stored or deflated, as yazl writes them). */
export function unzip(zip: Buffer): Map<string, Buffer> {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const entries = new Map<string, Buffer>();
  for (let i = 0; i < count; i++) {
    const method = zip.readUInt16LE(at + 10);
    const size = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const extra = zip.readUInt16LE(at + 30);
    const comment = zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    const name = zip.toString("utf8", at + 46, at + 46 + nameLength);
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const data = zip.subarray(start, start + size);
    entries.set(name, method === 8 ? inflateRawSync(data) : Buffer.from(data));
    at += 46 + nameLength + extra + comment;
  }
  return entries;
}

import type {
  Bucket,
  Keepsake,
  KeepsakeFamilyEntry,
  KeepsakeLink,
  KeepsakeSettings,
  KeepsakeShare,
  KeepsakeVoice,
  KeepsakeVoiceRef,
  Language,
  Transcript,
  VoiceWords,
} from "@hikaya/contracts";
import { mediaFor, transcriptFor } from "@hikaya/contracts";
import type { AppDeps } from "../../deps.ts";
import { AppError, conflict, notFound } from "../../errors.ts";
import { type Actor, audit } from "../audit/audit.service.ts";
import { measuredLengthsOf } from "../media/media.service.ts";
import { RECORDINGS_BUCKET, signedAudioUrl } from "../recordings/recordings.service.ts";
import { objectOf, signMedia } from "../storage/story-media.ts";
import { familyAudioUrl } from "./family-audio-links.ts";
import { bookFamilyMessagesOf } from "./family-messages.repository.ts";
import {
  answersOf,
  findKeepsake,
  insertLink,
  type KeepsakeLinksTable,
  liveLinksOf,
  profileNameOf,
  questionsOf,
  recordingsOf,
  revokeAllLinks,
  revokeLink,
  saveKeepsake,
  watchedStories,
} from "./keepsake.repository.ts";
import { expiryOf, hashOf, linkUrl, newLinkId, tokenOf } from "./share-links.ts";

type Deps = Pick<AppDeps, "db" | "storage" | "auth" | "secrets" | "config">;

/** One voice the family could put in the book, with where its file lives. */
export interface VoiceEntry {
  kind: KeepsakeVoiceRef["kind"];
  id: string;
  storyId: string;
  /** The story's place in the program, the question's in its story and the answer's under it: the book's order. */
  storyPosition: number;
  answerPosition: number | null;
  questionIndex: number | null;
  speakerNameEn: string;
  speakerNameAr: string;
  ownVoice: boolean;
  recordedAt: string;
  durationSeconds: number | null;
  file: { bucket: Bucket; key: string } | null;
  previewUrl: string;
  /** An answer's transcript per language; null for a recording, whose words are `ownWords`. */
  transcript: Transcript | null;
  ownWords: string | null;
  /** The recording's version (its words' saves); 0 for an answer. */
  version: number;
}

/** What the book prints under a voice in `language` (issue 39): see `keepsakeVoiceSchema.words`. */
export function wordsOf(v: VoiceEntry, language: Language): VoiceWords | null {
  if (v.ownVoice) return v.ownWords ? { text: v.ownWords, language: null } : null;
  return transcriptFor(language, v.transcript);
}

export interface StoryEntry {
  id: string;
  position: number;
  titleEn: string;
  titleAr: string;
  thumbnailEn: string | null;
  thumbnailAr: string | null;
  questionCount: number;
}

export const voiceKey = (v: KeepsakeVoiceRef) => `${v.kind}:${v.id}`;

/** Everything the book can hold: the watched stories and every voice heard or recorded in them. */
export async function catalogueOf(deps: Deps, userId: string) {
  const [storyRows, recordingRows, familyName] = await Promise.all([
    watchedStories(deps.db, userId),
    recordingsOf(deps.db, userId),
    profileNameOf(deps.db, userId),
  ]);
  const questionRows = await questionsOf(
    deps.db,
    storyRows.map((s) => s.id),
  );
  const answerRows = await answersOf(
    deps.db,
    questionRows.map((q) => q.id),
  );
  // A question's place is its rank among its story's questions, so gaps in stored positions never show.
  const questionPlace = new Map<string, { storyId: string; index: number }>();
  const questionCount = new Map<string, number>();
  for (const q of questionRows) {
    const index = questionCount.get(q.story_id) ?? 0;
    questionPlace.set(q.id, { storyId: q.story_id, index });
    questionCount.set(q.story_id, index + 1);
  }
  const stories: StoryEntry[] = storyRows.map((s) => ({
    id: s.id,
    position: s.position,
    titleEn: s.title_en,
    titleAr: s.title_ar,
    thumbnailEn: s.thumbnail_path,
    thumbnailAr: s.thumbnail_path_ar ?? null,
    questionCount: questionCount.get(s.id) ?? 0,
  }));
  const watched = new Set(stories.map((s) => s.id));
  const positionOf = new Map(stories.map((s) => [s.id, s.position]));
  const voices = new Map<string, VoiceEntry>();
  for (const r of recordingRows) {
    if (!watched.has(r.story_id)) continue;
    voices.set(voiceKey({ kind: "recording", id: r.id }), {
      kind: "recording",
      id: r.id,
      storyId: r.story_id,
      storyPosition: positionOf.get(r.story_id) ?? 0,
      answerPosition: null,
      // The recorder's index is the story's place in the program (spec: /start-recording/{id}/{index}), not a
      // question's: printed as "Question {index + 1}" it said "Question 18" in a story with two.
      questionIndex: null,
      speakerNameEn: familyName ?? "",
      speakerNameAr: familyName ?? "",
      ownVoice: true,
      recordedAt: r.created_at,
      durationSeconds: r.duration_seconds,
      file: { bucket: RECORDINGS_BUCKET, key: r.object_key },
      previewUrl: signedAudioUrl(deps, r.id),
      transcript: null,
      ownWords: r.transcript ?? null,
      version: Number(r.version ?? 0),
    });
  }
  for (const a of answerRows) {
    const place = questionPlace.get(a.question_id);
    if (!place) continue;
    voices.set(voiceKey({ kind: "answer", id: a.id }), {
      kind: "answer",
      id: a.id,
      storyId: place.storyId,
      storyPosition: positionOf.get(place.storyId) ?? 0,
      answerPosition: a.position,
      questionIndex: place.index,
      speakerNameEn: a.name_en,
      speakerNameAr: a.name_ar,
      ownVoice: false,
      recordedAt: a.created_at,
      durationSeconds: null,
      file: objectOf(a.audio_path),
      previewUrl: signMedia(deps, a.audio_path),
      transcript: { en: a.transcript_en ?? null, ar: a.transcript_ar ?? null },
      ownWords: null,
      version: 0,
    });
  }
  // The voices whose upload carried no length have the one their processing measured.
  const unmeasured = [...voices.values()].filter((v) => v.durationSeconds === null && v.file);
  const lengths = await measuredLengthsOf(
    deps,
    unmeasured.flatMap((v) => (v.file ? [v.file] : [])),
  );
  for (const v of unmeasured) if (v.file) v.durationSeconds = lengths.get(`${v.file.bucket}/${v.file.key}`) ?? null;
  const ordered = new Map([...voices.entries()].sort(([, a], [, b]) => bookOrder(a, b)));
  return { stories, voices: ordered, familyName, hasRecordings: recordingRows.length > 0 };
}

/**
 * The book's order, the same on every engine and every read: story, question (a recording about the whole story
 * after the questions' answers), the answer's position, then the date; an id only breaks a tie of all four.
 */
export function bookOrder(a: VoiceEntry, b: VoiceEntry): number {
  const last = Number.POSITIVE_INFINITY;
  return (
    a.storyPosition - b.storyPosition ||
    (a.questionIndex ?? last) - (b.questionIndex ?? last) ||
    (a.answerPosition ?? last) - (b.answerPosition ?? last) ||
    a.recordedAt.localeCompare(b.recordedAt) ||
    a.id.localeCompare(b.id)
  );
}

/** The voices in the book, in the family's order; before they choose, every recording of their own. */
export async function chosenVoices(deps: Deps, userId: string, voices: Map<string, VoiceEntry>) {
  const row = await findKeepsake(deps.db, userId);
  if (!row) return { title: "", dedication: "", chosen: [...voices.values()].filter((v) => v.ownVoice) };
  const refs = JSON.parse(row.voices) as KeepsakeVoiceRef[];
  const chosen = refs.map((ref) => voices.get(voiceKey(ref))).filter((v): v is VoiceEntry => v !== undefined);
  return { title: row.title, dedication: row.dedication, chosen };
}

/** What a printed code is drawn with: a quiet zone of two modules, and level M (15 % of it may be smudged). */
export const QR_OPTIONS = { ecc: "M", border: 2 } as const;

/**
 * A link's QR code as SVG: one stroke, a line through each run of dark modules on a row (at mid-height). uqr's own
 * renderSVG draws every module as its own square, about five times the bytes, and a book holds a code per voice.
 */
export async function qrSvgOf(url: string): Promise<string> {
  // Loaded when a keepsake is drawn, not at start-up (lazy-start.test.ts).
  const { encode } = await import("uqr");
  const { data, size } = encode(url, QR_OPTIONS);
  let runs = "";
  data.forEach((row, y) => {
    let end: number | null = null; // where the row's last run ended: the next one moves on from there
    for (let x = 0; x < size; x++) {
      if (!row[x]) continue;
      const start = x;
      while (row[x + 1]) x++;
      runs += `${end === null ? `M${start} ${y}.5` : `m${start - end} 0`}h${x + 1 - start}`;
      end = x + 1;
    }
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${size} ${size}" shape-rendering="crispEdges"><path fill="#fff" d="M0 0h${size}v${size}H0z"/><path stroke="#000" d="${runs}"/></svg>`;
}

async function linkView(deps: Deps, row: KeepsakeLinksTable): Promise<KeepsakeLink> {
  const url = linkUrl(deps.config, await tokenOf(deps, row.id));
  return {
    id: row.id,
    scope: row.scope,
    voice:
      row.scope === "voice" && row.voice_kind && row.voice_id
        ? { kind: row.voice_kind as KeepsakeVoiceRef["kind"], id: row.voice_id }
        : null,
    url,
    qrSvg: await qrSvgOf(url),
    createdAt: row.created_at,
    expiresAt: row.expires_at,
  };
}

/** The keepsake as the family (or an admin) sees it: the book, what could go in it, and the live links. */
export async function keepsakeOf(deps: Deps, userId: string, language: Language): Promise<Keepsake> {
  const { stories, voices, familyName, hasRecordings } = await catalogueOf(deps, userId);
  const { title, dedication, chosen } = await chosenVoices(deps, userId, voices);
  const links = await Promise.all(
    (await liveLinksOf(deps.db, userId, new Date().toISOString())).map((row) => linkView(deps, row)),
  );
  const linkOfVoice = new Map<string, KeepsakeLink>();
  for (const link of links) if (link.voice && !linkOfVoice.has(voiceKey(link.voice))) linkOfVoice.set(voiceKey(link.voice), link);
  const included = new Set(chosen.map((v) => voiceKey(v)));
  // Only included voices are looked up in storage: one stat each, and only what the book would print.
  const missing = new Set<string>();
  await Promise.all(
    chosen.map(async (v) => {
      if (!v.file || !(await deps.storage.stat(v.file.bucket, v.file.key))) missing.add(voiceKey(v));
    }),
  );
  const view = (v: VoiceEntry): KeepsakeVoice => ({
    kind: v.kind,
    id: v.id,
    questionIndex: v.questionIndex,
    speakerNameEn: v.speakerNameEn,
    speakerNameAr: v.speakerNameAr,
    ownVoice: v.ownVoice,
    recordedAt: v.recordedAt,
    durationSeconds: v.durationSeconds,
    included: included.has(voiceKey(v)),
    missing: missing.has(voiceKey(v)),
    audioUrl: v.previewUrl,
    link: linkOfVoice.get(voiceKey(v)) ?? null,
    words: wordsOf(v, language),
    wordsVersion: v.version,
  });
  const all = [...voices.values()];
  const family = await familyInBook(deps, userId);
  return {
    title,
    dedication,
    familyName,
    hasRecordings,
    stories: stories.map((s) => ({
      id: s.id,
      position: s.position,
      titleEn: s.titleEn,
      titleAr: s.titleAr,
      thumbnailUrl: mediaFor(language, s.thumbnailEn, s.thumbnailAr),
      questionCount: s.questionCount,
      voices: [
        ...chosen.filter((v) => v.storyId === s.id),
        ...all.filter((v) => v.storyId === s.id && !included.has(voiceKey(v))),
      ].map(view),
    })),
    links,
    family,
  };
}

/** The relatives' messages the family put in the book: replies they showed, questions they answered (oldest first). */
async function familyInBook(deps: Deps, userId: string): Promise<Keepsake["family"]> {
  const rows = await bookFamilyMessagesOf(deps.db, userId);
  const entry = (r: (typeof rows)[number]): KeepsakeFamilyEntry => ({
    id: r.id,
    name: r.name,
    text: r.text,
    audioUrl: r.audio_key ? familyAudioUrl(deps, r.id, "voice") : null,
    voice: r.voice_kind && r.voice_id ? { kind: r.voice_kind === "answer" ? "answer" : "recording", id: r.voice_id } : null,
    createdAt: r.created_at,
    answerUrl: r.answer_key ? familyAudioUrl(deps, r.id, "answer") : null,
    answeredAt: r.answered_at,
  });
  return {
    questions: rows
      .filter((r) => r.kind === "question")
      .sort((a, b) => (a.answered_at ?? "").localeCompare(b.answered_at ?? "") || a.id.localeCompare(b.id))
      .map(entry),
    replies: rows.filter((r) => r.kind === "reply").map(entry),
  };
}

/** Saves the family's choices; every voice must be one the catalogue offers them. */
export async function saveKeepsakeSettings(deps: Deps, userId: string, settings: KeepsakeSettings, language: Language) {
  const { voices } = await catalogueOf(deps, userId);
  const seen = new Set<string>();
  const refs: KeepsakeVoiceRef[] = [];
  for (const ref of settings.voices) {
    const key = voiceKey(ref);
    if (!voices.has(key)) throw new AppError("validation_failed", "voices: a voice is not one of this keepsake's");
    if (seen.has(key)) continue;
    seen.add(key);
    refs.push({ kind: ref.kind, id: ref.id });
  }
  await saveKeepsake(deps.db, {
    user_id: userId,
    title: settings.title.trim(),
    dedication: settings.dedication.trim(),
    voices: JSON.stringify(refs),
    updated_at: new Date().toISOString(),
  });
  return keepsakeOf(deps, userId, language);
}

/**
 * Shares the book: a whole-book link and a link for each voice in it that has none yet, all with the expiry the
 * family chose. Nothing is shared before this call.
 */
export async function shareKeepsake(deps: Deps, userId: string, share: KeepsakeShare) {
  const { voices, hasRecordings } = await catalogueOf(deps, userId);
  if (!hasRecordings) throw conflict("Record a story first: the keepsake holds your recordings");
  const { chosen } = await chosenVoices(deps, userId, voices);
  if (chosen.length === 0) throw conflict("Choose at least one voice for the book first");
  const now = new Date();
  const live = await liveLinksOf(deps.db, userId, now.toISOString());
  const linked = new Set(live.filter((l) => l.scope === "voice").map((l) => `${l.voice_kind}:${l.voice_id}`));
  const base = {
    user_id: userId,
    language: share.language,
    created_at: now.toISOString(),
    expires_at: expiryOf(share.expiry, now),
    revoked_at: null,
  };
  const fresh = async (scope: "book" | "voice", voice: VoiceEntry | null): Promise<KeepsakeLinksTable> => {
    const id = newLinkId();
    return {
      ...base,
      id,
      token_hash: hashOf(await tokenOf(deps, id)),
      scope,
      voice_kind: voice?.kind ?? null,
      voice_id: voice?.id ?? null,
    };
  };
  if (!live.some((l) => l.scope === "book")) await insertLink(deps.db, await fresh("book", null));
  for (const voice of chosen) if (!linked.has(voiceKey(voice))) await insertLink(deps.db, await fresh("voice", voice));
  return keepsakeOf(deps, userId, share.language);
}

export async function revokeKeepsakeLink(deps: Deps, userId: string, linkId: string, language: Language) {
  if (!(await revokeLink(deps.db, userId, linkId, new Date().toISOString()))) throw notFound("No such live link");
  return keepsakeOf(deps, userId, language);
}

/** Account deletion: every link stops at once (the rows then go with the account). */
export async function revokeEveryLink(deps: Pick<AppDeps, "db">, userId: string): Promise<number> {
  return revokeAllLinks(deps.db, userId, new Date().toISOString());
}

/** An admin opens a person's printable keepsake (programs that print and mail books): recorded in the audit log. */
export async function keepsakeForOperator(deps: Deps, actor: Actor, userId: string, language: Language) {
  const keepsake = await keepsakeOf(deps, userId, language);
  await audit(deps.db, actor, "person.keepsake.open", { type: "user", id: userId });
  return keepsake;
}

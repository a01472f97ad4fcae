import { randomUUID } from "node:crypto";
import type { Readable } from "node:stream";
import {
  FAMILY_VOICE_MAX_BYTES,
  FAMILY_VOICE_MAX_SECONDS,
  type FamilyMessage,
  type FamilyMessageCreated,
  type FamilyMessageList,
  familyMessageFormSchema,
  type Language,
} from "@hikaya/contracts";
import type { AppDeps } from "../../deps.ts";
import { AppError, conflict, notFound, validated } from "../../errors.ts";
import { type Actor, audit } from "../audit/audit.service.ts";
import { normalizePhone } from "../auth/phone.ts";
import { enqueueMedia, voiceCopyKey } from "../media/enqueue.ts";
import { voiceCopyOf } from "../media/media.service.ts";
import type { AudioLimits } from "../recordings/audio-inspector.ts";
import { discardAudio, RECORDINGS_BUCKET, type StoredAudio, storeAudio } from "../recordings/recordings.service.ts";
import { type FamilyAudioPart, familyAudioUrl, isValidFamilyAudioLink } from "./family-audio-links.ts";
import {
  deleteFamilyMessage,
  type FamilyMessagesTable,
  familyMessageKeysOf,
  familyMessagesOf,
  findAnyFamilyMessage,
  findFamilyMessage,
  insertFamilyMessage,
  updateFamilyMessage,
} from "./family-messages.repository.ts";
import type { KeepsakeLinksTable } from "./keepsake.repository.ts";
import { liveLink, slugOf, voicesOf } from "./listening.service.ts";
import { linkUrl, tokenOf } from "./share-links.ts";

type Deps = Pick<AppDeps, "db" | "storage" | "auth" | "secrets" | "config" | "fileEvents">;

/** A relative's voice: smaller and shorter than a story recording (the recordings module's checks, these limits). */
export const FAMILY_VOICE_LIMITS: AudioLimits = { maxBytes: FAMILY_VOICE_MAX_BYTES, maxSeconds: FAMILY_VOICE_MAX_SECONDS };

/** Relatives' voices and the storyteller's answers live in the storyteller's folder of the recordings bucket. */
const FOLDER = "family";

/** The live link a relative writes through, and the book's language for the pages that answer them. */
export async function messageLinkOf(deps: Deps, token: string): Promise<{ link: KeepsakeLinksTable; language: Language }> {
  const link = await liveLink(deps, token);
  return { link, language: link.language === "ar" ? "ar" : "en" };
}

/** Stores a relative's voice as it arrives, held to the family voice limits. */
export function storeRelativeVoice(deps: Deps, link: KeepsakeLinksTable, file: Readable) {
  return storeAudio(deps, link.user_id, file, { folder: FOLDER, limits: FAMILY_VOICE_LIMITS });
}

export const discardVoice = (deps: Deps, stored: StoredAudio | null) => discardAudio(deps, stored);

/**
 * Keeps what a relative left through a live link: a reply (under a voice the link opens, or the book) or a
 * question, typed or recorded, with the name they gave and, if they want to hear of the answer, their number.
 */
export async function leaveFamilyMessage(
  deps: Deps,
  link: KeepsakeLinksTable,
  fields: Record<string, string>,
  audio: StoredAudio | null,
): Promise<FamilyMessageCreated> {
  const form = validated(familyMessageFormSchema, {
    kind: fields.kind,
    name: fields.name ?? "",
    text: fields.text || undefined,
    voice: fields.voice || undefined,
    phone: fields.phone || undefined,
  });
  const text = form.text ? form.text : null;
  if (!text && !audio) throw new AppError("validation_failed", "text: write a few lines or record a voice", { field: "text" });
  let voice: { kind: string; id: string } | null = null;
  if (form.voice) {
    const { opened } = await voicesOf(deps, link);
    const found = opened.find((v) => slugOf(v) === form.voice);
    if (!found) throw new AppError("validation_failed", "voice: is not one this link opens", { field: "voice" });
    voice = { kind: found.kind, id: found.id };
  }
  let phone: string | null = null;
  if (form.phone) {
    phone = normalizePhone(form.phone);
    if (!phone) throw new AppError("invalid_phone", "Invalid phone number format (E.164 required)", { field: "phone" });
  }
  const now = new Date().toISOString();
  const row: FamilyMessagesTable = {
    id: randomUUID(),
    user_id: link.user_id,
    link_id: link.id,
    kind: form.kind,
    name: form.name,
    text,
    audio_key: audio?.key ?? null,
    duration_seconds: audio?.durationSeconds ?? null,
    voice_kind: voice?.kind ?? null,
    voice_id: voice?.id ?? null,
    phone,
    language: link.language === "ar" ? "ar" : "en",
    status: "pending",
    answer_key: null,
    answered_at: null,
    created_at: now,
    updated_at: now,
  };
  await insertFamilyMessage(deps.db, row);
  // The AAC copy every voice gets (modules/media), which the book's download prefers.
  if (audio) await enqueueMedia(deps, { bucket: RECORDINGS_BUCKET, key: audio.key, kind: "audio" });
  return { id: row.id, status: "pending" };
}

export function toFamilyMessage(deps: Pick<AppDeps, "auth">, row: FamilyMessagesTable): FamilyMessage {
  return {
    id: row.id,
    kind: row.kind,
    name: row.name,
    text: row.text,
    audio: row.audio_key ? familyAudioUrl(deps, row.id, "voice") : null,
    status: row.status,
    voice:
      row.voice_kind && row.voice_id ? { kind: row.voice_kind === "answer" ? "answer" : "recording", id: row.voice_id } : null,
    answerAudio: row.answer_key ? familyAudioUrl(deps, row.id, "answer") : null,
    wantsReply: row.phone !== null,
    language: row.language === "ar" ? "ar" : "en",
    createdAt: row.created_at,
    answeredAt: row.answered_at,
  };
}

export async function familyMessageList(deps: Pick<AppDeps, "db" | "auth">, userId: string): Promise<FamilyMessageList> {
  const rows = await familyMessagesOf(deps.db, userId);
  return { messages: rows.map((r) => toFamilyMessage(deps, r)), unread: rows.filter((r) => r.status === "pending").length };
}

/** The storyteller shows a message in the book or hides it; an answered question stays answered. */
export async function setFamilyMessageStatus(
  deps: Pick<AppDeps, "db" | "auth">,
  userId: string,
  id: string,
  status: "shown" | "hidden",
): Promise<FamilyMessage> {
  const row = await findFamilyMessage(deps.db, userId, id);
  if (!row) throw notFound("No such message");
  if (row.status === "answered" && status === "shown") return toFamilyMessage(deps, row);
  const updated = await updateFamilyMessage(deps.db, userId, id, { status, updated_at: new Date().toISOString() });
  if (!updated) throw notFound("No such message");
  return toFamilyMessage(deps, updated);
}

/** A file of a message, for a signed link; anything else is not found. */
export async function familyAudioFile(
  deps: Pick<AppDeps, "db" | "auth">,
  id: string,
  part: FamilyAudioPart,
  expires: number | undefined,
  signature: string | undefined,
) {
  if (!isValidFamilyAudioLink(deps, id, part, expires, signature))
    throw new AppError("forbidden", "This link has expired or is not valid");
  const row = await findAnyFamilyMessage(deps.db, id);
  const key = part === "voice" ? row?.audio_key : row?.answer_key;
  if (!key) throw notFound("No such recording");
  // The loudness-normalised AAC copy once it is ready (modules/media), else the file as it was sent.
  return (await voiceCopyOf(deps, RECORDINGS_BUCKET, key)) ?? key;
}

/** Account deletion: the files of a person's family messages, each with its processed copy. */
export async function familyMessageFilesOf(deps: Pick<AppDeps, "db">, userId: string) {
  const rows = await familyMessageKeysOf(deps.db, userId);
  return rows
    .flatMap((r) => [r.audio_key, r.answer_key])
    .filter((k): k is string => k !== null)
    .flatMap((key) => [
      { bucket: RECORDINGS_BUCKET, key },
      { bucket: RECORDINGS_BUCKET, key: voiceCopyKey(key) },
    ]);
}

/** Stores the storyteller's answer to one of their questions; anything else is refused before a byte is kept. */
export async function storeStorytellerAnswer(deps: Deps, userId: string, id: string, file: Readable): Promise<StoredAudio> {
  const row = await findFamilyMessage(deps.db, userId, id);
  if (!row) {
    file.resume();
    throw notFound("No such message");
  }
  if (row.kind !== "question") {
    file.resume();
    throw conflict("Only a question can be answered");
  }
  return storeAudio(deps, userId, file, { folder: FOLDER });
}

const ANSWERED_TEXT = {
  en: (name: string, link: string) => `${name}, the family answered your question in Hikaya. Listen: ${link}`,
  ar: (name: string, link: string) => `${name}، أجابت العائلة عن سؤالك في حكاية. استمع: ${link}`,
} as const;

/**
 * Keeps the storyteller's recorded answer (a new take replaces the last one) and tells the relative who left a
 * number, in the book's language, with the link the question came through, which now plays the answer. A link
 * turned off since sends nothing: it would open nothing.
 */
export async function answerFamilyQuestion(
  deps: Deps & Pick<AppDeps, "messages">,
  userId: string,
  id: string,
  stored: StoredAudio,
): Promise<FamilyMessage> {
  const before = await findFamilyMessage(deps.db, userId, id);
  if (!before) throw notFound("No such message");
  if (before.kind !== "question") throw conflict("Only a question can be answered");
  const now = new Date().toISOString();
  const row = await updateFamilyMessage(deps.db, userId, id, {
    status: "answered",
    answer_key: stored.key,
    answered_at: now,
    updated_at: now,
  });
  if (!row) throw notFound("No such message");
  await enqueueMedia(deps, { bucket: RECORDINGS_BUCKET, key: stored.key, kind: "audio" });
  if (before.answer_key && before.answer_key !== stored.key)
    for (const key of [before.answer_key, voiceCopyKey(before.answer_key)])
      await deps.storage.delete(RECORDINGS_BUCKET, key).catch(() => undefined);
  if (row.phone && !before.answered_at) await tellRelative(deps, row);
  return toFamilyMessage(deps, row);
}

async function tellRelative(deps: Deps & Pick<AppDeps, "messages">, row: FamilyMessagesTable) {
  if (!row.phone) return;
  const token = await tokenOf(deps, row.link_id);
  const live = await liveLink(deps, token).then(
    () => true,
    () => false,
  );
  if (!live) return;
  const language: Language = row.language === "ar" ? "ar" : "en";
  const body = ANSWERED_TEXT[language](row.name, `${linkUrl(deps.config, token)}#answer-${row.id}`);
  // The outbox keeps every message with its status; a provider's failure must not undo the answer.
  await deps.messages.send({ channel: "sms", to: row.phone, body, purpose: "family-answer" }).catch(() => undefined);
}

/**
 * An operator removes what a relative left (abuse): the row and its files go, the audit log keeps that it was
 * removed, by whom and from whose book, never what it said.
 */
export async function removeFamilyMessage(deps: Deps, actor: Actor, userId: string, id: string): Promise<void> {
  const row = await findFamilyMessage(deps.db, userId, id);
  if (!row || !(await deleteFamilyMessage(deps.db, userId, id))) throw notFound("No such message");
  for (const key of [row.audio_key, row.answer_key])
    if (key) for (const k of [key, voiceCopyKey(key)]) await deps.storage.delete(RECORDINGS_BUCKET, k).catch(() => undefined);
  await audit(deps.db, actor, "person.family_message.delete", { type: "user", id: userId }, { kind: row.kind });
}

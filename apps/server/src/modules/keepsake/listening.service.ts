import type { Bucket, Language, VoiceWords } from "@hikaya/contracts";
import type { AppDeps } from "../../deps.ts";
import { notFound } from "../../errors.ts";
import { RECORDINGS_BUCKET } from "../recordings/recordings.service.ts";
import { answeredQuestionsOf } from "./family-messages.repository.ts";
import { findLinkByHash, type KeepsakeLinksTable } from "./keepsake.repository.ts";
import { bookOrder, catalogueOf, chosenVoices, type VoiceEntry, voiceKey, wordsOf } from "./keepsake.service.ts";
import { hashOf, isWellFormedToken } from "./share-links.ts";

type Deps = Pick<AppDeps, "db" | "storage" | "auth" | "secrets" | "config">;

/** What a listening page shows: the book's title and each voice with its story and speaker. */
export interface ListeningPage {
  language: Language;
  bookTitle: string | null;
  dedication: string | null;
  voices: {
    /** `recording-<id>` or `answer-<id>`: the address part of its audio. */
    slug: string;
    storyTitle: string;
    speakerName: string;
    ownVoice: boolean;
    recordedAt: string;
    durationSeconds: number | null;
    /** What the voice says, in the link's language where there is a transcript in it. */
    words: VoiceWords | null;
  }[];
  /** Relatives' questions the family answered with their voice ("Questions from your family"). */
  questions: { id: string; slug: string; name: string; text: string | null }[];
}

const FAMILY_SLUG = "family-";

/** The answered questions a link plays: the book's every one, a voice link's those that came through it. */
const answeredFor = (deps: Deps, link: KeepsakeLinksTable) =>
  answeredQuestionsOf(deps.db, link.user_id, link.scope === "book" ? null : link.id);

export const slugOf = (v: Pick<VoiceEntry, "kind" | "id">) => `${v.kind}-${v.id}`;

/**
 * The live link a token opens. Revoked, expired, malformed and unknown tokens all end the same way, a 404 that
 * says nothing about which it was. So does the link of a family that is blocked (the console) or banned (the admin
 * API): suspended, not revoked, so the same links work again once the ban ends. The ban is read with the link, on
 * every request, so no cache can keep a blocked family's voices shared.
 */
export async function liveLink(deps: Deps, token: string): Promise<KeepsakeLinksTable> {
  if (!isWellFormedToken(token)) throw notFound("This link is not valid");
  const link = await findLinkByHash(deps.db, hashOf(token));
  const now = new Date().toISOString();
  if (
    !link ||
    link.revoked_at !== null ||
    (link.expires_at !== null && link.expires_at <= now) ||
    (link.owner_banned_until !== null && link.owner_banned_until > now)
  )
    throw notFound("This link is not valid");
  return link;
}

/** The voices a link opens now: its one voice, or every voice in the book as the family has it today. */
export async function voicesOf(deps: Deps, link: KeepsakeLinksTable) {
  const { stories, voices } = await catalogueOf(deps, link.user_id);
  const { title, dedication, chosen } = await chosenVoices(deps, link.user_id, voices);
  // The book prints story by story, the family's order within each: the page plays them in that order.
  const place = new Map(chosen.map((v, i) => [voiceKey(v), i]));
  const inBook = [...chosen].sort(
    (a, b) =>
      a.storyPosition - b.storyPosition || (place.get(voiceKey(a)) ?? 0) - (place.get(voiceKey(b)) ?? 0) || bookOrder(a, b),
  );
  const opened =
    link.scope === "book"
      ? inBook
      : inBook.filter(
          (v) =>
            link.voice_kind &&
            link.voice_id &&
            voiceKey(v) === voiceKey({ kind: link.voice_kind as VoiceEntry["kind"], id: link.voice_id }),
        );
  return { stories, title, dedication, opened };
}

export async function listeningPageOf(deps: Deps, token: string): Promise<ListeningPage> {
  const link = await liveLink(deps, token);
  const language: Language = link.language === "ar" ? "ar" : "en";
  const { stories, title, dedication, opened } = await voicesOf(deps, link);
  // A voice taken out of the book, or whose file is gone, is no longer shared.
  const present = (
    await Promise.all(opened.map(async (v) => (v.file && (await deps.storage.stat(v.file.bucket, v.file.key)) ? v : null)))
  ).filter((v): v is VoiceEntry => v !== null);
  const questions = await answeredFor(deps, link);
  if (present.length === 0 && questions.length === 0) throw notFound("This link is not valid");
  const storyOf = new Map(stories.map((s) => [s.id, s]));
  const book = link.scope === "book";
  return {
    language,
    bookTitle: book ? title || null : null,
    dedication: book ? dedication || null : null,
    voices: present.map((v) => {
      const story = storyOf.get(v.storyId);
      return {
        slug: slugOf(v),
        storyTitle: (language === "ar" ? story?.titleAr : story?.titleEn) ?? "",
        speakerName: language === "ar" ? v.speakerNameAr : v.speakerNameEn,
        ownVoice: v.ownVoice,
        recordedAt: v.recordedAt,
        durationSeconds: v.durationSeconds,
        words: wordsOf(v, language),
      };
    }),
    questions: questions.map((q) => ({ id: q.id, slug: `${FAMILY_SLUG}${q.id}`, name: q.name, text: q.text })),
  };
}

/** The stored file of one voice the link opens; anything else is not found. */
export async function listeningAudioOf(deps: Deps, token: string, slug: string): Promise<{ bucket: Bucket; key: string }> {
  const link = await liveLink(deps, token);
  if (slug.startsWith(FAMILY_SLUG)) {
    const question = (await answeredFor(deps, link)).find((q) => `${FAMILY_SLUG}${q.id}` === slug);
    if (!question?.answer_key) throw notFound("This link is not valid");
    return { bucket: RECORDINGS_BUCKET, key: question.answer_key };
  }
  const { opened } = await voicesOf(deps, link);
  const voice = opened.find((v) => slugOf(v) === slug);
  if (!voice?.file) throw notFound("This link is not valid");
  return voice.file;
}

import { type AnswerItem, type LandingAnswer, type Language, mediaFor, type QuestionItem, type Story } from "@hikaya/contracts";
import type { AppDeps } from "../../deps.ts";
import { AppError, notFound } from "../../errors.ts";
import type { AuthContext } from "../auth/guards.ts";
import { streamOfSignedLink } from "../media/media.service.ts";
import { lastWatchedOrderOf, positionOf } from "../progress/progress.service.ts";
import { watchStatusOf } from "../progress/watch-status.ts";
import { linkExpiry } from "../storage/signed-links.ts";
import { signMedia } from "../storage/story-media.ts";
import {
  findStory,
  listAllStories,
  listAnswers,
  listLandingAnswers,
  listQuestions,
  listStories,
  type StoryRow,
} from "./program.repository.ts";
import { storyListCacheOf } from "./story-list-cache.ts";

type Deps = Pick<AppDeps, "db">;
/** Reading stories and their media: private media are handed out as signed links. */
type ReadDeps = Pick<AppDeps, "db" | "auth">;

/**
 * Who sees what of a story:
 * - a visitor: titles, subtitles, thumbnail and order, no video URL and no watchStatus (the list is a
 *   teaser; watching needs an account);
 * - a signed-in person: watchStatus from their own progress (spec section 4) and the video URL of every
 *   story that is not Locked for them;
 * - an admin: everything, with their own watchStatus.
 * A video in private storage is given as a signed link (story-media.ts), made at `now`. Families get the video and
 * thumbnail of `language` (mediaFor: the other one when it has none); editors the English (default) ones.
 */
function toStory(
  deps: ReadDeps,
  row: StoryRow,
  viewer: { lastWatched: number; isAdmin: boolean } | "editor" | null,
  now = Date.now(),
  language?: Language,
): Story {
  const story: Story = {
    id: row.id,
    _id: row.id,
    order: row.position,
    title: row.title_en,
    subtitle: row.subtitle_en,
    titleB: row.title_ar,
    subtitleB: row.subtitle_ar,
    thumbnailUrl: mediaFor(language, row.thumbnail_path, row.thumbnail_path_ar),
    durationSeconds: row.duration_seconds,
  };
  if (!viewer) return story;
  if (viewer === "editor") return { ...story, url: signMedia(deps, row.video_url, now) };
  story.watchStatus = watchStatusOf(row.position, viewer.lastWatched);
  if (viewer.isAdmin || story.watchStatus !== "Locked")
    story.url = signMedia(deps, mediaFor(language, row.video_url, row.video_url_ar), now);
  return story;
}

async function viewerOf(deps: Deps, auth: AuthContext | null) {
  return auth ? { lastWatched: await lastWatchedOrderOf(deps, auth.userId), isAdmin: auth.isAdmin } : null;
}

/**
 * The story list, as JSON bytes (encoding 7 KB of text on every answer costs more than computing it). The
 * answer per viewer kind, furthest watched story and language is cached (story-list-cache.ts), as is that
 * furthest story (progress), so a list request costs no database round trip while nothing changed.
 */
export async function storyListJson(deps: ReadDeps, auth: AuthContext | null, language?: Language): Promise<Buffer> {
  const viewer = await viewerOf(deps, auth);
  const now = Date.now();
  const lang = language ?? "en";
  const key = `${viewer ? `${viewer.isAdmin ? "admin" : "user"}:${viewer.lastWatched}` : "visitor"}:${lang}`;
  const build = (rows: StoryRow[]) => Buffer.from(JSON.stringify(rows.map((row) => toStory(deps, row, viewer, now, lang))));
  const load = () => listStories(deps.db);
  const cache = storyListCacheOf<StoryRow>(deps.db);
  return cache ? cache.answer(key, linkExpiry(now), load, build) : build(await load());
}

export async function getStoryFor(
  deps: ReadDeps & Pick<AppDeps, "storage">,
  auth: AuthContext | null,
  id: string,
  language?: Language,
): Promise<Story> {
  const [row, viewer] = await Promise.all([findStory(deps.db, id), viewerOf(deps, auth)]);
  // A draft is not there for families; admins see it (the console's preview).
  if (!row || (row.published === 0 && !auth?.isAdmin)) throw notFound("Story not found");
  const story = toStory(deps, row, viewer, Date.now(), language);
  if (story.watchStatus === "Locked" && !auth?.isAdmin) throw lockedError(row.position);
  if (!auth) return story;
  // Where the person stopped (the story resumes there on any device) and its stream, so the player starts without
  // asking about a link just handed out (issue 38).
  const [positionSeconds, stream] = await Promise.all([
    positionOf(deps, auth.userId, row.id),
    story.url ? streamOfSignedLink(deps, story.url) : null,
  ]);
  return { ...story, positionSeconds, ...(stream?.hls ? { stream } : {}) };
}

const lockedError = (order: number) =>
  new AppError("story_locked", "This story is locked. Watch the stories before it first.", { order });

/** A story the person may act on (ask, answer, record): unknown ones are not found, locked ones refused. */
export async function openStoryFor(deps: Deps, auth: AuthContext, id: string): Promise<{ id: string; position: number }> {
  const row = await unlockedStory(deps, auth, id);
  return { id: row.id, position: row.position };
}

/** The story a signed-in person asks questions or answers of; refused while it is locked for them. */
async function unlockedStory(deps: Deps, auth: AuthContext, id: string): Promise<StoryRow> {
  const row = await findStory(deps.db, id);
  if (!row || (row.published === 0 && !auth.isAdmin)) throw notFound("Story not found");
  if (!auth.isAdmin && watchStatusOf(row.position, await lastWatchedOrderOf(deps, auth.userId)) === "Locked") {
    throw lockedError(row.position);
  }
  return row;
}

export async function questionsFor(
  deps: ReadDeps,
  auth: AuthContext,
  storyId: string,
  language?: Language,
): Promise<QuestionItem[]> {
  const story = await unlockedStory(deps, auth, storyId);
  const rows = await listQuestions(deps.db, story.id);
  return rows.map((q) => ({
    _id: q.id,
    url: signMedia(deps, mediaFor(language, q.media_path, q.media_path_ar)),
    index: q.position,
    transcript: { en: q.transcript_en ?? null, ar: q.transcript_ar ?? null },
  }));
}

export async function answersFor(deps: ReadDeps, auth: AuthContext, storyId: string): Promise<AnswerItem[]> {
  const story = await unlockedStory(deps, auth, storyId);
  const rows = await listAnswers(deps.db, story.id);
  return rows.map((a) => ({
    _id: a.id,
    question: a.question_id,
    questionIndex: a.question_position,
    audio: signMedia(deps, a.audio_path),
    character: {
      _id: a.character_id,
      nameOfFamilyMember: a.name_en,
      nameOfFamilyMemberAr: a.name_ar,
      thumbnail: a.thumbnail_path,
    },
    transcript: { en: a.transcript_en ?? null, ar: a.transcript_ar ?? null },
  }));
}

export async function landingAnswers(deps: Deps): Promise<LandingAnswer[]> {
  const rows = await listLandingAnswers(deps.db);
  return rows.map((a) => ({
    _id: a.id,
    audio: a.audio_path,
    nameOfFamilyMember: a.name_en,
    nameOfFamilyMemberAr: a.name_ar,
    thumbnail: a.thumbnail_path,
    transcript: { en: a.transcript_en ?? null, ar: a.transcript_ar ?? null },
  }));
}

// ─── What the spec's admin writes answer (the writes themselves are the story service's) ─────────────

/** Every story, drafts after the published ones, as the spec's admin writes answer them. */
export async function listStoriesAsAdmin(deps: ReadDeps): Promise<Story[]> {
  const rows = await listAllStories(deps.db);
  return rows.map((row) => toStory(deps, row, "editor"));
}

export async function getStoryAsAdmin(deps: ReadDeps, id: string): Promise<Story> {
  const row = await findStory(deps.db, id);
  if (!row) throw notFound("Story not found");
  return toStory(deps, row, "editor");
}

/** Every published story's video addresses (each language's), story 1 first: what is processed first (issue 38). */
export async function storyVideosInOrder(deps: Pick<AppDeps, "db">): Promise<string[]> {
  return (await listStories(deps.db)).flatMap((row) => [row.video_url, row.video_url_ar].filter((p): p is string => Boolean(p)));
}

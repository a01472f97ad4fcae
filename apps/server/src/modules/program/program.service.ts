import { randomUUID } from "node:crypto";
import {
  type AnswerItem,
  type CreateStoryBody,
  createStoryBodySchema,
  type LandingAnswer,
  publicObjectPath,
  type QuestionItem,
  type Story,
  type UpdateStoryBody,
} from "@hikaya/contracts";
import { isRetryableTransactionError, isUniqueViolation } from "../../db/dialect.ts";
import type { AppDeps } from "../../deps.ts";
import { AppError, badRequest, conflict, notFound } from "../../errors.ts";
import type { AuthContext } from "../auth/guards.ts";
import { lastWatchedOrderOf } from "../progress/progress.service.ts";
import { watchStatusOf } from "../progress/watch-status.ts";
import { linkExpiry } from "../storage/signed-links.ts";
import { privateMediaRef, releaseFiles, signMedia } from "../storage/story-media.ts";
import {
  applyOrder,
  deleteStory as deleteStoryRow,
  findListState,
  findStory,
  insertStory,
  listAnswers,
  listLandingAnswers,
  listQuestions,
  listStories,
  listStoryIdsInOrder,
  type StoryRow,
  storyFilePaths,
  updateStory as updateStoryRow,
} from "./program.repository.ts";

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
 * A video in private storage is given as a signed link (story-media.ts), made at `now`.
 */
function toStory(
  deps: ReadDeps,
  row: StoryRow,
  viewer: { lastWatched: number; isAdmin: boolean } | "editor" | null,
  now = Date.now(),
): Story {
  const story: Story = {
    id: row.id,
    _id: row.id,
    order: row.position,
    title: row.title_en,
    subtitle: row.subtitle_en,
    titleB: row.title_ar,
    subtitleB: row.subtitle_ar,
    thumbnailUrl: row.thumbnail_path,
    durationSeconds: row.duration_seconds,
  };
  if (!viewer) return story;
  if (viewer === "editor") return { ...story, url: signMedia(deps, row.video_url, now) };
  story.watchStatus = watchStatusOf(row.position, viewer.lastWatched);
  if (viewer.isAdmin || story.watchStatus !== "Locked") story.url = signMedia(deps, row.video_url, now);
  return story;
}

async function viewerOf(deps: Deps, auth: AuthContext | null) {
  return auth ? { lastWatched: await lastWatchedOrderOf(deps, auth.userId), isAdmin: auth.isAdmin } : null;
}

/**
 * The story list is read on every home-screen visit and differs between people only by their furthest
 * watched story. Each process keeps the rows and the serialized answer per (viewer kind, L), and reuses
 * them only while the table's version (count, newest update, checked in the same query as L) is
 * unchanged, so an edit from any replica shows at once.
 */
interface ListCache {
  version: string;
  rows: StoryRow[];
  /** Signed links in the answers expire at this time (links are stable for a while; signed-links.ts). */
  expires: number;
  json: Map<string, Buffer>;
}
const listCaches = new WeakMap<object, ListCache>();

export async function storyListJson(deps: ReadDeps, auth: AuthContext | null): Promise<Buffer> {
  const state = await findListState(deps.db, auth?.userId ?? null);
  const now = Date.now();
  const expires = linkExpiry(now);
  let cache = listCaches.get(deps.db);
  if (!cache || cache.version !== state.version || cache.expires !== expires) {
    cache = { version: state.version, rows: await listStories(deps.db), expires, json: new Map() };
    // Rows read after the version: if they changed in between, the next request sees a new version.
    listCaches.set(deps.db, cache);
  }
  const viewer = auth ? { lastWatched: state.last, isAdmin: auth.isAdmin } : null;
  const key = viewer ? `${viewer.isAdmin ? "admin" : "user"}:${viewer.lastWatched}` : "visitor";
  let json = cache.json.get(key);
  if (json === undefined) {
    // Kept as UTF-8 bytes: encoding 7 KB of text on every answer costs more than computing it.
    json = Buffer.from(JSON.stringify(cache.rows.map((row) => toStory(deps, row, viewer, now))));
    if (cache.json.size < 1000) cache.json.set(key, json);
  }
  return json;
}

export async function getStoryFor(deps: ReadDeps, auth: AuthContext | null, id: string): Promise<Story> {
  const [row, viewer] = await Promise.all([findStory(deps.db, id), viewerOf(deps, auth)]);
  if (!row) throw notFound("Story not found");
  const story = toStory(deps, row, viewer);
  if (story.watchStatus === "Locked" && !auth?.isAdmin) throw lockedError(row.position);
  return story;
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
  if (!row) throw notFound("Story not found");
  if (!auth.isAdmin && watchStatusOf(row.position, await lastWatchedOrderOf(deps, auth.userId)) === "Locked") {
    throw lockedError(row.position);
  }
  return row;
}

export async function questionsFor(deps: ReadDeps, auth: AuthContext, storyId: string): Promise<QuestionItem[]> {
  const story = await unlockedStory(deps, auth, storyId);
  const rows = await listQuestions(deps.db, story.id);
  return rows.map((q) => ({ _id: q.id, url: signMedia(deps, q.media_path), index: q.position }));
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
  }));
}

// ─── Admin writes ───────────────────────────────────────────────────────────────────────────────────

/** Order writes race only with other order writes; a lost race is a clean 409, never half an order. */
async function orderTransaction<T>(deps: Deps, work: (trx: AppDeps["db"]) => Promise<T>): Promise<T> {
  try {
    return await deps.db.transaction().execute(work);
  } catch (error) {
    if (isUniqueViolation(error) || isRetryableTransactionError(error))
      throw conflict("The story order changed at the same time; please try again");
    throw error;
  }
}

/** Places `id` at `order` (clamped to 1…n) in `ids`. */
function placeAt(ids: string[], id: string, order: number | undefined): string[] {
  const rest = ids.filter((x) => x !== id);
  const at = order === undefined ? rest.length : Math.min(Math.max(order, 1), rest.length + 1) - 1;
  rest.splice(at, 0, id);
  return rest;
}

/** A new story goes to `order` (the stories from there move down one) or last; orders stay 1…n. */
export async function createStory(deps: Pick<AppDeps, "db" | "auth" | "storage">, body: CreateStoryBody): Promise<Story> {
  const input = createStoryBodySchema.parse(body);
  const videoUrl = await privateMediaRef(deps, input.url, "url");
  const id = randomUUID();
  const now = new Date().toISOString();
  await orderTransaction(deps, async (trx) => {
    const current = await listStoryIdsInOrder(trx);
    const ids = placeAt(
      current.map((s) => s.id),
      id,
      input.order,
    );
    await insertStory(trx, {
      id,
      position: -(ids.indexOf(id) + 1),
      title_en: input.title,
      title_ar: input.titleB || input.title,
      subtitle_en: input.subtitle,
      subtitle_ar: input.subtitleB ?? input.subtitle,
      video_url: videoUrl,
      // Spec section 3: the thumbnail object is named by the story id.
      thumbnail_path: input.thumbnailUrl ?? publicObjectPath("thumbnails", id),
      duration_seconds: input.durationSeconds ?? null,
      created_at: now,
      updated_at: now,
    });
    await applyOrder(trx, [...current, { id, position: 0 }], ids);
  });
  return getStoryAsAdmin(deps, id);
}

export async function updateStory(
  deps: Pick<AppDeps, "db" | "auth" | "storage">,
  id: string,
  body: UpdateStoryBody,
): Promise<Story> {
  if (body.id !== undefined && body.id !== id) throw badRequest("The id in the body does not match the query id");
  const videoUrl = body.url === undefined ? undefined : await privateMediaRef(deps, body.url, "url");
  let before: StoryRow | undefined;
  await orderTransaction(deps, async (trx) => {
    const row = await findStory(trx, id);
    if (!row) throw notFound("Story not found");
    before = row;
    const values = {
      ...(body.title !== undefined ? { title_en: body.title } : {}),
      ...(body.titleB !== undefined ? { title_ar: body.titleB } : {}),
      ...(body.subtitle !== undefined ? { subtitle_en: body.subtitle } : {}),
      ...(body.subtitleB !== undefined ? { subtitle_ar: body.subtitleB } : {}),
      ...(videoUrl !== undefined ? { video_url: videoUrl } : {}),
      ...(body.thumbnailUrl !== undefined ? { thumbnail_path: body.thumbnailUrl } : {}),
      ...(body.durationSeconds !== undefined ? { duration_seconds: body.durationSeconds } : {}),
    };
    await updateStoryRow(trx, id, { ...values, updated_at: new Date().toISOString() });
    if (body.order !== undefined && body.order !== row.position) {
      const current = await listStoryIdsInOrder(trx);
      await applyOrder(
        trx,
        current,
        placeAt(
          current.map((s) => s.id),
          id,
          body.order,
        ),
      );
    }
  });
  // The replaced video and thumbnail go once no row uses them.
  await releaseFiles(deps, [
    videoUrl !== undefined ? before?.video_url : null,
    body.thumbnailUrl !== undefined ? before?.thumbnail_path : null,
  ]);
  return getStoryAsAdmin(deps, id);
}

/**
 * Deletes a story (its questions and answers go with it) and closes the gap in the order. Its files (video,
 * thumbnail, question media, answers) go too, except any another row still uses.
 */
export async function deleteStory(deps: Pick<AppDeps, "db" | "storage">, id: string): Promise<void> {
  let files: (string | null)[] = [];
  await orderTransaction(deps, async (trx) => {
    const row = await findStory(trx, id);
    if (row) files = [row.video_url, row.thumbnail_path, ...(await storyFilePaths(trx, id))];
    if (!(await deleteStoryRow(trx, id))) throw notFound("Story not found");
    const current = await listStoryIdsInOrder(trx);
    await applyOrder(
      trx,
      current,
      current.map((s) => s.id),
    );
  });
  await releaseFiles(deps, files);
}

/** Sets the whole order at once: `ids` must name every story exactly once. */
export async function reorderStories(deps: ReadDeps, ids: string[]): Promise<Story[]> {
  if (new Set(ids).size !== ids.length) throw badRequest("ids: a story is listed twice");
  await orderTransaction(deps, async (trx) => {
    const current = await listStoryIdsInOrder(trx);
    const known = new Set(current.map((s) => s.id));
    if (ids.length !== current.length || !ids.every((id) => known.has(id))) {
      throw badRequest("ids: list every story exactly once", { expected: current.length, got: ids.length });
    }
    await applyOrder(trx, current, ids);
  });
  const rows = await listStories(deps.db);
  return rows.map((row) => toStory(deps, row, "editor"));
}

async function getStoryAsAdmin(deps: ReadDeps, id: string): Promise<Story> {
  const row = await findStory(deps.db, id);
  if (!row) throw notFound("Story not found");
  return toStory(deps, row, "editor");
}

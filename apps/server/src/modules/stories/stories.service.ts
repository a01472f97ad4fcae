import { randomUUID } from "node:crypto";
import type { Readable } from "node:stream";
import {
  type AdminStory,
  publicObjectPath,
  type ReorderImpact,
  type StoryInput,
  type StoryPatch,
  storyInputSchema,
  storyPatchSchema,
} from "@hikaya/contracts";
import { lostRaceAsConflict, retryLostRace } from "../../db/dialect.ts";
import { StaleSave, savedOrStale } from "../../db/versions.ts";
import type { AppDeps } from "../../deps.ts";
import { AppError, badRequest, conflict, notFound, validated } from "../../errors.ts";
import { type Actor, audit } from "../audit/audit.service.ts";
import { statesOf } from "../media/media.service.ts";
import { checkStoryMediaOrigin, listedVideoOrigins } from "../settings/video-origins.ts";
import { privateMediaRef, releaseFiles, signMedia } from "../storage/story-media.ts";
import { storeUpload } from "../storage/uploads.service.ts";
import * as repo from "./stories.repository.ts";

/**
 * The one story service behind both `/api/stories` (the spec's API) and `/api/admin/stories` (the console): one
 * input schema (contracts `storyInputSchema`), one ordering algorithm, one audit, one progress resync, one version
 * check. Each route set reads its own response shape afterwards.
 *
 * Drafts sit after every published story: published stories hold the orders 1…p that families see, drafts
 * p+1…n. Publishing a draft makes it the last published story; unpublishing makes it the first draft. So the
 * orders families see, unlock by and keep progress by never count a draft, and no query on their side changes.
 */

type StoryRow = NonNullable<Awaited<ReturnType<typeof repo.findStoryRow>>>;
type Trx = AppDeps["db"];
/** Reads give a story's private media as signed links, so the console can preview them (story-media.ts). */
type ReadDeps = Pick<AppDeps, "db" | "auth">;
type WriteDeps = Pick<AppDeps, "db" | "auth" | "storage" | "fileEvents">;

const toAdminStory = (deps: ReadDeps, row: StoryRow & { question_count?: unknown; watched_count?: unknown }): AdminStory => ({
  id: row.id,
  order: Number(row.position),
  titleEn: row.title_en,
  titleAr: row.title_ar,
  subtitleEn: row.subtitle_en,
  subtitleAr: row.subtitle_ar,
  videoUrl: signMedia(deps, row.video_url),
  thumbnailUrl: row.thumbnail_path,
  videoUrlAr: signMedia(deps, row.video_url_ar ?? null),
  thumbnailUrlAr: row.thumbnail_path_ar ?? null,
  questionCount: Number(row.question_count ?? 0),
  watchedCount: Number(row.watched_count ?? 0),
  updatedAt: row.updated_at,
  version: Number(row.version ?? 0),
  published: Number(row.published ?? 1) === 1,
});

/** The console's list: every story in order, or a page of those whose title (either language) contains `q`. */
export async function listStories(
  deps: ReadDeps,
  options: { q?: string; limit?: number; offset?: number } = {},
): Promise<{ stories: AdminStory[]; total: number }> {
  const [rows, total] = await Promise.all([
    repo.listStoriesWithCounts(deps.db, options),
    repo.countStories(deps.db, options.q ?? ""),
  ]);
  return { stories: rows.map((row) => toAdminStory(deps, row)), total };
}

export async function getStory(deps: ReadDeps, id: string): Promise<AdminStory> {
  const [row] = await repo.listStoriesWithCounts(deps.db, { id });
  if (!row) throw notFound("Story not found");
  return toAdminStory(deps, row);
}

/** Places `id` at `order` (clamped to 1…n) in `ids`; without an order, last. */
function placeAt(ids: string[], id: string, order: number | undefined): string[] {
  const rest = ids.filter((x) => x !== id);
  const at = order === undefined ? rest.length : Math.min(Math.max(order, 1), rest.length + 1) - 1;
  rest.splice(at, 0, id);
  return rest;
}

/** Published stories first, then drafts, each keeping the relative order `ids` gives them. */
function arranged(ids: string[], published: (id: string) => boolean): string[] {
  return [...ids.filter(published), ...ids.filter((id) => !published(id))];
}

/**
 * The ordering algorithm every write uses: gives the stories the places 1…n of `ids`. Each row moves only from
 * the place it was read at (0 rows moved means someone else moved it: 409), through a negative place because
 * places are unique, and rows are taken in their stored order, so two concurrent writers queue instead of
 * deadlocking. Progress rows then follow their stories' new places.
 */
async function applyOrder(trx: Trx, current: { id: string; position: number }[], ids: string[], now: string) {
  for (const story of current) {
    const to = ids.indexOf(story.id) + 1;
    if (to === story.position) continue;
    if ((await repo.parkStory(trx, story.id, story.position, to, now)) !== 1)
      throw conflict("The stories were changed by someone else; reload and try again");
  }
  await repo.unparkStories(trx);
  await repo.resyncProgressPositions(trx);
}

function movesOf(current: { id: string; position: number; title_en: string }[], ids: string[]) {
  return current
    .map((s) => ({ id: s.id, titleEn: s.title_en, from: s.position, to: ids.indexOf(s.id) + 1 }))
    .filter((m) => m.from !== m.to);
}

/**
 * A video or thumbnail from outside the app's storage must come from where the operator allows (YouTube and Vimeo
 * for videos, the origins listed in the settings for both): the families' browsers load it, and the CSP allows
 * only those. Read from the database, not the CSP's held copy: a save must see the list as it is now.
 */
async function checkOutsideMedia(deps: Pick<AppDeps, "db">, data: { videoUrl?: string; thumbnailUrl?: string | null }) {
  const outside = [data.videoUrl, data.thumbnailUrl].some((v) => v && !v.startsWith("/storage/"));
  if (!outside) return;
  const listed = await listedVideoOrigins(deps.db);
  checkStoryMediaOrigin("videoUrl", data.videoUrl, listed);
  checkStoryMediaOrigin("thumbnailUrl", data.thumbnailUrl, listed);
}

export async function createStory(deps: WriteDeps, actor: Actor, input: StoryInput): Promise<string> {
  const data = validated(storyInputSchema, input);
  await checkOutsideMedia(deps, data);
  const videoUrl = await privateMediaRef(deps, data.videoUrl, "videoUrl");
  const id = randomUUID();
  const published = data.published ?? true;
  await retryLostRace(() =>
    deps.db.transaction().execute(async (trx) => {
      const now = new Date().toISOString();
      const current = await repo.storyOrder(trx);
      const isPublished = (x: string) => (x === id ? published : current.find((s) => s.id === x)?.published !== 0);
      // A draft given no order goes after every story; a published one after the published stories.
      const ids = arranged(
        placeAt(
          current.map((s) => s.id),
          id,
          data.order,
        ),
        isPublished,
      );
      const position = ids.indexOf(id) + 1;
      await repo.insertStoryRow(trx, {
        id,
        // Negative until applyOrder flips it, so the new row never takes a place another still holds.
        position: -position,
        title_en: data.titleEn,
        title_ar: data.titleAr,
        subtitle_en: data.subtitleEn,
        subtitle_ar: data.subtitleAr,
        video_url: videoUrl,
        // None until one is given or uploaded (the console names its upload by the story id then): an address named
        // ahead of a file answered 404, and the app shows its own placeholder for a story without a thumbnail.
        thumbnail_path: data.thumbnailUrl ?? null,
        duration_seconds: data.durationSeconds ?? null,
        created_at: now,
        updated_at: now,
        published: published ? 1 : 0,
      });
      await applyOrder(trx, current, ids, now);
      await audit(
        trx,
        actor,
        "story.create",
        { type: "story", id },
        { order: position, titleEn: data.titleEn, videoUrl, published, moved: movesOf(current, ids) },
      );
    }),
  );
  return id;
}

/**
 * Saves the fields `input` names (the console names all of them). With `version`, a save made from an older
 * version than the stored one is refused with 409 stale_version and the stored story; the bump is conditional
 * on the version read, so of two saves racing from one version the second finds 0 rows and is refused too.
 * `answer` reads the route's answer in the save's own transaction, which holds the row: read after the commit it
 * could show a later save's version, and a console saving from that one would undo the later save unwarned.
 */
export async function updateStory<T>(
  deps: WriteDeps,
  actor: Actor,
  id: string,
  input: StoryPatch,
  answer: (db: Trx) => Promise<T>,
): Promise<T> {
  const data = validated(storyPatchSchema, input);
  await checkOutsideMedia(deps, data);
  const videoUrl = data.videoUrl === undefined ? undefined : await privateMediaRef(deps, data.videoUrl, "videoUrl");
  const save = () =>
    lostRaceAsConflict(() =>
      deps.db.transaction().execute(async (trx) => {
        const before = await repo.findStoryRow(trx, id);
        if (!before) throw notFound("Story not found");
        const stored = Number(before.version ?? 0);
        if ((data.version !== undefined && data.version !== stored) || (await repo.bumpStoryVersion(trx, id, stored)) === null)
          throw new StaleSave();
        const now = new Date().toISOString();
        const next = {
          title_en: data.titleEn ?? before.title_en,
          title_ar: data.titleAr ?? before.title_ar,
          subtitle_en: data.subtitleEn ?? before.subtitle_en,
          subtitle_ar: data.subtitleAr ?? before.subtitle_ar,
          video_url: videoUrl ?? before.video_url,
          thumbnail_path: data.thumbnailUrl !== undefined ? data.thumbnailUrl : before.thumbnail_path,
          duration_seconds: data.durationSeconds !== undefined ? data.durationSeconds : before.duration_seconds,
        };
        await repo.updateStoryRow(trx, id, { ...next, updated_at: now });
        const changed = Object.fromEntries(
          (
            [
              ["titleEn", before.title_en, next.title_en],
              ["titleAr", before.title_ar, next.title_ar],
              ["subtitleEn", before.subtitle_en, next.subtitle_en],
              ["subtitleAr", before.subtitle_ar, next.subtitle_ar],
              ["videoUrl", before.video_url, next.video_url],
              ["thumbnailUrl", before.thumbnail_path, next.thumbnail_path],
              ["durationSeconds", before.duration_seconds, next.duration_seconds],
            ] as const
          )
            .filter(([, a, b]) => a !== b)
            .map(([k, a, b]) => [k, { from: a, to: b }]),
        );
        await audit(trx, actor, "story.update", { type: "story", id }, changed);
        if (data.published !== undefined && data.published !== (Number(before.published ?? 1) === 1))
          await setPublishedIn(trx, actor, { ...before, video_url: next.video_url }, data.published, now);
        if (data.order !== undefined && data.order !== before.position) {
          const current = await repo.storyOrder(trx);
          const ids = arranged(
            placeAt(
              current.map((s) => s.id),
              id,
              data.order,
            ),
            (x) => current.find((s) => s.id === x)?.published !== 0,
          );
          await applyOrder(trx, current, ids, now);
          await audit(trx, actor, "story.reorder", { type: "story" }, { moved: movesOf(current, ids) });
        }
        return {
          replaced: [
            videoUrl !== undefined ? before.video_url : null,
            data.thumbnailUrl !== undefined ? before.thumbnail_path : null,
          ],
          answered: await answer(trx),
        };
      }),
    );
  const { replaced, answered } = await savedOrStale(save, () => getStory(deps, id));
  // The video or thumbnail it replaced goes once no row uses it.
  await releaseFiles(deps, replaced);
  return answered;
}

/**
 * Publishing makes a draft the last published story (families see it at once); unpublishing makes a story the
 * first draft. A story somebody has watched cannot go back to draft: their progress would then point at a story
 * they cannot see (409 `conflict`, `details.reason` "watched"); delete it instead, which keeps progress as history.
 */
async function setPublishedIn(trx: Trx, actor: Actor, story: StoryRow, published: boolean, now: string) {
  if (published) await refuseFailedVideo(trx, story);
  if (!published) {
    const watchedBy = await repo.countProgressForStory(trx, story.id);
    if (watchedBy > 0)
      throw new AppError("conflict", "People have watched this story; it cannot go back to draft", {
        reason: "watched",
        watchedBy,
      });
  }
  await repo.updateStoryRow(trx, story.id, { published: published ? 1 : 0, updated_at: now });
  const current = await repo.storyOrder(trx);
  const ids = arranged(
    current.map((s) => s.id),
    (x) => (x === story.id ? published : current.find((s) => s.id === x)?.published !== 0),
  );
  await applyOrder(trx, current, ids, now);
  await audit(
    trx,
    actor,
    published ? "story.publish" : "story.unpublish",
    { type: "story", id: story.id },
    {
      titleEn: story.title_en,
      from: story.position,
      to: ids.indexOf(story.id) + 1,
    },
  );
}

/**
 * A story whose video (either language) failed processing is not published (409 `video_failed`, `details.failure` the
 * reason and `details.video` "en" or "ar"): families would get a file the server could not even read. One still
 * waiting or processing may be: its original plays until the stream is ready (the console asks the operator first).
 */
async function refuseFailedVideo(db: Trx, story: Pick<StoryRow, "video_url" | "video_url_ar">) {
  const videos = [
    { video: "en", path: story.video_url },
    { video: "ar", path: story.video_url_ar ?? null },
  ].filter((v): v is { video: string; path: string } => v.path !== null);
  const states = await statesOf(
    { db },
    videos.map((v) => v.path),
  );
  const index = states.findIndex((s) => s?.status === "failed");
  if (index < 0) return;
  throw new AppError("video_failed", "This story's video could not be processed; upload it again before publishing", {
    video: videos[index]?.video,
    failure: states[index]?.failure ?? "failed",
  });
}

export async function setPublished(deps: WriteDeps, actor: Actor, id: string, published: boolean): Promise<AdminStory> {
  return lostRaceAsConflict(() =>
    deps.db.transaction().execute(async (trx) => {
      const story = await repo.findStoryRow(trx, id);
      if (!story) throw notFound("Story not found");
      if ((Number(story.published ?? 1) === 1) !== published)
        await setPublishedIn(trx, actor, story, published, new Date().toISOString());
      // The story (and its version) as this write left it, not as a later save left it.
      return getStory({ ...deps, db: trx }, id);
    }),
  );
}

/**
 * Deleting a story (documented in modules/admin/README.md): its questions and answers go with it; every later
 * story moves up one place. Progress rows that say someone watched it are kept as history, but
 * `lastWatchedStoryId` is read from the current orders of the stories that still exist (progress module), so the
 * frontier stays on stories the person really watched and nobody skips or repeats one. Recordings are never
 * deleted. The story's files (video, thumbnail, question media, answers) are removed once the rows are gone,
 * unless another row uses one.
 */
export async function deleteStory(
  deps: Pick<AppDeps, "db" | "storage">,
  actor: Actor,
  id: string,
): Promise<{ id: string; watchedBy: number; recordingsKept: number }> {
  let files: (string | null | undefined)[] = [];
  const result = await lostRaceAsConflict(() =>
    deps.db.transaction().execute(async (trx) => {
      const story = await repo.findStoryRow(trx, id);
      if (!story) throw notFound("Story not found");
      const questions = await repo.listQuestionRows(trx, id);
      const answers = await repo.listAnswerRows(
        trx,
        questions.map((q) => q.id),
      );
      files = [
        ...[story.video_url, story.video_url_ar, story.thumbnail_path, story.thumbnail_path_ar],
        ...questions.flatMap((q) => [q.media_path, q.media_path_ar]),
        ...answers.map((a) => a.audio_path),
      ];
      const watchedBy = await repo.countProgressForStory(trx, id);
      const recordingsKept = await repo.countRecordingsForStory(trx, id);
      if ((await repo.deleteStoryRow(trx, id)) !== 1) throw conflict("The story was changed meanwhile; reload and try again");
      const current = await repo.storyOrder(trx);
      await applyOrder(
        trx,
        current,
        current.map((s) => s.id),
        new Date().toISOString(),
      );
      await audit(
        trx,
        actor,
        "story.delete",
        { type: "story", id },
        { order: story.position, titleEn: story.title_en, watchedBy, recordingsKept },
      );
      return { id, watchedBy, recordingsKept };
    }),
  );
  await releaseFiles(deps, files);
  return result;
}

/** `ids` must name every story once; drafts keep their place after the published stories whatever it says. */
function checkedOrder(current: { id: string; published?: number }[], ids: string[]): string[] {
  const known = new Set(current.map((s) => s.id));
  if (ids.length !== current.length || new Set(ids).size !== ids.length || !ids.every((id) => known.has(id)))
    throw badRequest("ids must list every story exactly once", { expected: current.length, got: ids.length });
  return arranged(ids, (x) => current.find((s) => s.id === x)?.published !== 0);
}

/**
 * Puts the stories in the given order (1…n). `expected`, when given, is the order the editor saw: if the stored
 * order differs, someone else changed it meanwhile and the request is refused (409) rather than merged.
 */
export async function reorderStories(
  deps: Pick<AppDeps, "db">,
  actor: Actor,
  input: { ids: string[]; expected?: string[] },
): Promise<void> {
  await lostRaceAsConflict(
    () =>
      deps.db.transaction().execute(async (trx) => {
        const current = await repo.storyOrder(trx);
        if (input.expected && current.map((s) => s.id).join() !== input.expected.join())
          throw conflict("The stories were changed by someone else; reload and try again");
        const ids = checkedOrder(current, input.ids);
        await applyOrder(trx, current, ids, new Date().toISOString());
        await audit(trx, actor, "story.reorder", { type: "story" }, { moved: movesOf(current, ids) });
      }),
    "The stories were changed by someone else; reload and try again",
  );
}

/**
 * A dry run of a reorder: how many people it would affect (their furthest watched story moves later, so a
 * story they never watched would show as watched). The console asks before it moves a story.
 */
export async function reorderImpact(deps: Pick<AppDeps, "db">, ids: string[]): Promise<ReorderImpact> {
  const current = await repo.storyOrder(deps.db);
  const next = checkedOrder(current, ids);
  const moved = new Map<string, number>();
  for (const story of current) {
    const to = next.indexOf(story.id) + 1;
    if (to !== story.position) moved.set(story.id, to);
  }
  return { affected: await repo.countPeopleMovedAhead(deps.db, moved) };
}

/** The thumbnail object is named by the story id in bucket "thumbnails" (spec section 3). */
export async function replaceThumbnail(deps: AppDeps, actor: Actor, id: string, file: Readable): Promise<AdminStory> {
  const story = await repo.findStoryRow(deps.db, id);
  if (!story) {
    file.resume();
    throw notFound("Story not found");
  }
  const stored = await storeUpload(deps.storage, file, { kind: "image", bucket: "thumbnails", key: () => id });
  // Same object name, new bytes: a version in the address lets caches pick the new picture up at once.
  const path = `${publicObjectPath("thumbnails", id)}?v=${Date.now()}`;
  const answer = await deps.db.transaction().execute(async (trx) => {
    if ((await repo.updateStoryRow(trx, id, { thumbnail_path: path, updated_at: new Date().toISOString() })) !== 1)
      throw notFound("Story not found");
    await audit(trx, actor, "story.thumbnail", { type: "story", id }, { size: stored.size, contentType: stored.contentType });
    return getStory({ ...deps, db: trx }, id);
  });
  await releaseFiles(deps, [story.thumbnail_path]);
  return answer;
}

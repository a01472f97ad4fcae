import { STORY_MEDIA_BUCKET } from "@hikaya/contracts";
import { CookieJar } from "../apps/server/src/modules/media/cdn.test-helpers.ts";
import { enqueueMedia } from "../apps/server/src/modules/media/enqueue.ts";
import { findJobs } from "../apps/server/src/modules/media/media.repository.ts";
import { COOKIE_MEDIA_ROOT } from "../apps/server/src/modules/storage/media-cookies.ts";
import { signedQuery } from "../apps/server/src/modules/storage/signed-links.ts";
import { mediaLinkSubject } from "../apps/server/src/modules/storage/story-media.ts";
import { createTestUser } from "../apps/server/src/test/test-users.ts";
import { fail, type RunningApp, report, startApp } from "./lib.ts";

const COMMAND = "npm run bench -- scale";
const FAMILIES = 20;
/** Families open the story 10 minutes apart: each in its own step of the links' rounded expiry. */
const STEP_MS = 10 * 60_000;

interface Stream {
  hls: string;
  poster: string | null;
  audioOnly: string | null;
  captions?: { url: string }[];
}

/**
 * Issue 41: how many different sets of addresses 20 families fetch for one story's stream (master and rendition
 * playlists, segments, poster, captions): what a CDN keyed by address must fetch from the app and keep. Story 1 of
 * the demo is processed for real by the app's worker and given English captions. Family i opens the story with the
 * link it would have been handed i × 10 minutes later, and fetches every file of the lowest rendition and the sound
 * with the cookie its answer set. Beside it, the same run's links put through the stream addresses of before (the
 * link's expiry and signature in the path), fetched too: the old route still answers them.
 */
export async function benchScaleMedia() {
  console.log(`scale: one story's stream fetched by ${FAMILIES} families, 10 minutes apart`);
  let running: RunningApp | null = null;
  try {
    running = await startApp();
    const { app, url } = running;
    const admin = await createTestUser(app, { admin: true });
    const [story, locked] = await app.deps.db
      .selectFrom("stories")
      .select(["id", "video_url"])
      .orderBy("position")
      .limit(2)
      .execute();
    if (!story || !locked) throw new Error("the demo has fewer than two stories");
    const key = story.video_url.split("/").pop() as string;
    const lockedKey = locked.video_url.split("/").pop() as string;
    await enqueueMedia(app.deps, { bucket: STORY_MEDIA_BUCKET, key, kind: "video" });
    await readyOrThrow(running, key);
    const captions = await fetch(`${url}/api/admin/media/captions`, {
      method: "PUT",
      headers: { ...admin.headers, "content-type": "application/json" },
      body: JSON.stringify({
        src: story.video_url,
        lang: "en",
        text: "WEBVTT\n\n00:00.000 --> 00:02.000\nOnce upon a time\n",
      }),
    });
    if (!captions.ok) throw new Error(`captions ${captions.status}`);

    const sets = { now: new Set<string>(), before: new Set<string>() };
    const urls = { now: new Set<string>(), before: new Set<string>() };
    let refused = 0;
    for (let i = 0; i < FAMILIES; i++) {
      const family = await createTestUser(app);
      const jar = new CookieJar();
      const answer = await fetch(`${url}/api/stories/${story.id}`, { headers: family.headers });
      jar.take(answer.headers.getSetCookie());
      const { stream: fromStory } = (await answer.json()) as { stream: Stream };
      // The link as the list would hand it out i steps later (valid now: it expires later still).
      const link = `/storage/v1/object/sign/${STORY_MEDIA_BUCKET}/${key}?${signedQuery(app.deps, mediaLinkSubject(key), Date.now() + i * STEP_MS)}`;
      const asked = await fetch(`${url}/api/media/stream?src=${encodeURIComponent(link)}`);
      jar.take(asked.headers.getSetCookie());
      const stream = (await asked.json()) as Stream;
      if (JSON.stringify(stream) !== JSON.stringify(fromStory)) fail("scale: the story's answer and the stream's differ");

      const fetched = await playAll(url, stream, (u) => jar.headersFor(u));
      const query = new URLSearchParams(link.split("?")[1]);
      const oldBase = `/storage/v1/object/stream/${STORY_MEDIA_BUCKET}/${query.get("expires")}/${query.get("signature")}/`;
      const before = await playAll(url, rebase(stream, oldBase), () => ({}));
      for (const [kind, list] of [
        ["now", fetched],
        ["before", before],
      ] as const) {
        sets[kind].add(list.join("\n"));
        for (const u of list) urls[kind].add(u);
      }
      // Story 2, locked for this family: its cookie for story 1, written by hand at story 2's path, opens nothing.
      const other = fetched.find((u) => u.endsWith(".ts")) as string;
      const res = await fetch(`${url}${other.replace(key, lockedKey)}`, { headers: jar.headersFor(other) });
      if (res.status !== 403) refused++;
    }
    const perFamily = urls.now.size;
    report("distinct URL sets, 20 families, one story", `${sets.now.size} (before: ${sets.before.size})`, COMMAND);
    report(
      "distinct URLs a path-keyed CDN fetches",
      `${urls.now.size} (before: ${urls.before.size}; ${perFamily} per family)`,
      COMMAND,
    );
    report(
      "CDN hit ratio by address",
      `${pct(1 - urls.now.size / (FAMILIES * perFamily))} (before: ${pct(1 - urls.before.size / (FAMILIES * perFamily))})`,
      COMMAND,
    );
    if (sets.now.size !== 1) fail(`scale: ${sets.now.size} URL sets for one story (goal 1)`);
    if (refused) fail(`scale: ${refused} files opened outside their cookie's path`);
  } finally {
    await running?.close();
  }
}

const pct = (x: number) => `${(x * 100).toFixed(1)} %`;

/** The same stream under another base (the addresses of before issue 41). */
function rebase(stream: Stream, base: string): Stream {
  const move = (u: string | null) => (u ? u.replace(COOKIE_MEDIA_ROOT, base) : u);
  return {
    hls: move(stream.hls) as string,
    poster: move(stream.poster),
    audioOnly: move(stream.audioOnly),
    captions: stream.captions?.map((c) => ({ url: move(c.url) as string })),
  };
}

/** Fetches what a player would (master, lowest rendition and the sound with their segments, poster, captions). */
async function playAll(base: string, stream: Stream, headersFor: (u: string) => Record<string, string>): Promise<string[]> {
  const fetched: string[] = [];
  const get = async (u: string) => {
    const res = await fetch(new URL(u, base), { headers: headersFor(u) });
    if (!res.ok) throw new Error(`${u}: ${res.status}`);
    fetched.push(u);
    return res.text();
  };
  const entries = (text: string) => text.split("\n").filter((line) => line.trim() && !line.startsWith("#"));
  const master = await get(stream.hls);
  const folder = (u: string) => u.slice(0, u.lastIndexOf("/") + 1);
  const playlists = [entries(master)[0], stream.audioOnly ? null : entries(master).at(-1)]
    .filter((p): p is string => Boolean(p))
    .map((p) => `${folder(stream.hls)}${p}`);
  if (stream.audioOnly) playlists.push(stream.audioOnly);
  for (const playlist of playlists) for (const name of entries(await get(playlist))) await get(`${folder(playlist)}${name}`);
  if (stream.poster) await get(stream.poster);
  for (const c of stream.captions ?? []) await get(c.url);
  return fetched;
}

async function readyOrThrow(running: RunningApp, key: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const [job] = await findJobs(running.app.deps.db, [{ bucket: STORY_MEDIA_BUCKET, key }]);
    if (job?.status === "ready") return;
    if (job?.status === "failed") throw new Error(`story 1 failed to process: ${job.error}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("story 1 was not processed within a minute");
}

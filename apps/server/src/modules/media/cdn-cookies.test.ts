import { execFile } from "node:child_process";
import { createHmac } from "node:crypto";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { RECORDING_LINK_TTL_SECONDS, STORY_MEDIA_BUCKET } from "@hikaya/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestS3, type TestS3 } from "../../test/s3-server.ts";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { createTestUser, type TestUser } from "../../test/test-users.ts";
import { MEDIA_COOKIE, mediaCookieFor } from "../storage/media-cookies.ts";
import { signedQuery } from "../storage/signed-links.ts";
import { mediaLinkSubject } from "../storage/story-media.ts";
import { CookieJar, fakeProcessed } from "./cdn.test-helpers.ts";

/**
 * Issue 41: a story's stream is at the same addresses for every viewer, so a CDN can cache it by path; the cookie
 * the stream's answer sets, scoped to the video's files, is what opens them, and a locked story's files stay refused
 * whatever other story's cookie comes with them.
 */

let t: TestApp;
let admin: TestUser;
let families: TestUser[];
/** The first two stories' video keys: story 1 is open to a new family, story 2 locked. */
let openKey: string;
let lockedKey: string;
let openId: string;
let lockedId: string;

const keyOf = (ref: string) => ref.split("?")[0]?.split("/").pop() as string;

async function seededStories(app: TestApp["app"]) {
  const rows = await app.deps.db.selectFrom("stories").select(["id", "video_url"]).orderBy("position").limit(2).execute();
  return rows.map((r) => ({ id: r.id, key: keyOf(r.video_url) }));
}

beforeAll(async () => {
  t = await createTestApp({ SEED_DEMO: "true" });
  admin = await createTestUser(t.app, { admin: true });
  families = [await createTestUser(t.app), await createTestUser(t.app)];
  const [open, locked] = await seededStories(t.app);
  if (!open || !locked) throw new Error("the demo has fewer than two stories");
  ({ id: openId, key: openKey } = open);
  ({ id: lockedId, key: lockedKey } = locked);
  await fakeProcessed(t.app.deps, openKey);
  await fakeProcessed(t.app.deps, lockedKey);
}, 60_000);
afterAll(() => t?.close());

/** A family's browser opening a story: the answer, and the cookies it set. */
async function watch(user: TestUser, storyId: string) {
  const jar = new CookieJar();
  const res = await t.app.inject({ url: `/api/stories/${storyId}`, headers: user.headers });
  expect(res.statusCode, res.body).toBe(200);
  jar.take(res.headers["set-cookie"]);
  return { story: res.json(), jar, setCookie: res.headers["set-cookie"] };
}

/** Every address a player fetches for a stream: master, rendition, its segments, poster and captions. */
async function addressesOf(stream: { hls: string; poster: string; captions: { url: string }[] }, jar: CookieJar) {
  const rendition = stream.hls.replace("master.m3u8", "240p/index.m3u8");
  const playlist = await t.app.inject({ url: rendition, headers: jar.headersFor(rendition) });
  expect(playlist.statusCode).toBe(200);
  const segments = playlist.body
    .split("\n")
    .filter((line) => line.endsWith(".ts"))
    .map((name) => rendition.replace("index.m3u8", name));
  return [stream.hls, rendition, ...segments, stream.poster, ...stream.captions.map((c) => c.url)];
}

const fetchWith = (url: string, cookie?: string) => t.app.inject({ url, headers: cookie ? { cookie } : {} });

describe("story media a CDN can cache", () => {
  it("gives every family the same addresses, each of which its cookie opens", async () => {
    const seen: string[][] = [];
    for (const family of families) {
      const { story, jar } = await watch(family, openId);
      const addresses = await addressesOf(story.stream, jar);
      for (const url of addresses) expect((await t.app.inject({ url, headers: jar.headersFor(url) })).statusCode, url).toBe(200);
      seen.push(addresses);
    }
    expect(seen[1]).toEqual(seen[0]);
    expect(seen[0]?.every((url) => url.startsWith(`/storage/v1/object/cookie/${STORY_MEDIA_BUCKET}/${openKey}.media/`))).toBe(
      true,
    );
    expect(seen[0]?.join(" ")).not.toMatch(/signature|expires/);
  });

  it("answers the same stream for links signed in different 10-minute steps", async () => {
    const src = (now: number) =>
      `/storage/v1/object/sign/${STORY_MEDIA_BUCKET}/${openKey}?${signedQuery(t.app.deps, mediaLinkSubject(openKey), now)}`;
    const [early, late] = [src(Date.now()), src(Date.now() + 25 * 60_000)];
    expect(early).not.toBe(late);
    const answers = await Promise.all(
      [early, late].map((s) => t.app.inject({ url: `/api/media/stream?src=${encodeURIComponent(s)}` }).then((r) => r.json())),
    );
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[0].hls).toBe(`/storage/v1/object/cookie/${STORY_MEDIA_BUCKET}/${openKey}.media/hls/master.m3u8`);
  });

  it("sets an HttpOnly, SameSite=Lax cookie scoped to the video's files and living about an hour", async () => {
    const { setCookie } = await watch(families[0] as TestUser, openId);
    const line = String(setCookie);
    expect(line).toMatch(new RegExp(`^${MEDIA_COOKIE}=\\d+\\.[\\w-]+; `));
    expect(line).toContain(`Path=/storage/v1/object/cookie/${STORY_MEDIA_BUCKET}/${openKey}.media/;`);
    expect(line).toContain("HttpOnly");
    expect(line).toContain("SameSite=Lax");
    expect(line).not.toContain("Secure"); // plain http here; https (PUBLIC_URL or the request) adds it
    const maxAge = Number(/Max-Age=(\d+)/.exec(line)?.[1]);
    expect(maxAge).toBeGreaterThanOrEqual(RECORDING_LINK_TTL_SECONDS);
    expect(maxAge).toBeLessThanOrEqual(RECORDING_LINK_TTL_SECONDS + 600);
  });

  it("refuses a locked story's files with an open story's cookie, hand-written or not", async () => {
    const { story, jar } = await watch(families[0] as TestUser, openId);
    const lockedMaster = (story.stream.hls as string).replace(openKey, lockedKey);
    const lockedSegment = lockedMaster.replace("master.m3u8", "240p/seg_0000.ts");
    // The family's locked story answers 403 and sets nothing.
    const refused = await t.app.inject({ url: `/api/stories/${lockedId}`, headers: families[0]?.headers });
    expect(refused.statusCode).toBe(403);
    expect(refused.headers["set-cookie"]).toBeUndefined();
    // The open story's cookie, as a browser would not send it but a person can: refused at the locked story's path.
    const openCookie = mediaCookieFor(t.app.deps, openKey);
    const handWritten = `${MEDIA_COOKIE}=${openCookie.value}`;
    for (const url of [lockedMaster, lockedSegment, lockedMaster.replace("hls/master.m3u8", "poster.jpg")]) {
      const res = await fetchWith(url, handWritten);
      expect(res.statusCode, url).toBe(403);
      expect(res.json()).toMatchObject({ code: "forbidden" });
      expect(res.headers["cache-control"]).toBe("no-store");
      expect((await fetchWith(url)).statusCode).toBe(403);
      expect((await fetchWith(url, `${jar.headersFor(story.stream.hls).cookie}; other=1`)).statusCode).toBe(403);
    }
    // The same cookie opens its own story's files, and the locked story's own cookie would open its: the refusal
    // is the cookie's scope, not a missing file.
    expect((await fetchWith(story.stream.hls, handWritten)).statusCode).toBe(200);
    expect((await fetchWith(lockedSegment, `${MEDIA_COOKIE}=${mediaCookieFor(t.app.deps, lockedKey).value}`)).statusCode).toBe(
      200,
    );
  });

  it("refuses an expired cookie, a forged one and a path outside a video's files", async () => {
    const url = `/storage/v1/object/cookie/${STORY_MEDIA_BUCKET}/${openKey}.media/hls/240p/seg_0000.ts`;
    const longAgo = Date.now() - 2 * (RECORDING_LINK_TTL_SECONDS + 600) * 1000;
    const expired = mediaCookieFor(t.app.deps, openKey, longAgo);
    const good = mediaCookieFor(t.app.deps, openKey);
    const [expires] = good.value.split(".");
    for (const value of [expired.value, `${Number(expires) + 600}.${good.value.split(".")[1]}`, "x", `${expires}.`]) {
      expect((await fetchWith(url, `${MEDIA_COOKIE}=${value}`)).statusCode, value).toBe(403);
    }
    // The video itself is not under the cookie: it keeps its signed link.
    const original = `/storage/v1/object/cookie/${STORY_MEDIA_BUCKET}/${openKey}`;
    expect((await fetchWith(original, `${MEDIA_COOKIE}=${good.value}`)).statusCode).toBe(403);
  });

  it("lets any cache keep segments and posters for a year, and playlists and captions for minutes", async () => {
    const { story, jar } = await watch(families[1] as TestUser, openId);
    const get = (url: string) => t.app.inject({ url, headers: jar.headersFor(url) });
    const segment = await get(story.stream.hls.replace("master.m3u8", "240p/seg_0001.ts"));
    expect(segment.statusCode).toBe(200);
    expect(segment.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(segment.headers.vary ?? "").not.toMatch(/cookie/i);
    expect((await get(story.stream.poster)).headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    const master = await get(story.stream.hls);
    expect(master.headers["cache-control"]).toBe("public, max-age=300");
    expect(master.headers.etag).toBeTruthy();
    expect((await get(story.stream.captions[0].url)).headers["cache-control"]).toBe("public, max-age=300");
  });

  it("opens a locked story's stream to an operator previewing it", async () => {
    const { story, jar } = await watch(admin, lockedId);
    expect(story.stream.hls).toContain(`${lockedKey}.media/`);
    expect((await t.app.inject({ url: story.stream.hls, headers: jar.headersFor(story.stream.hls) })).statusCode).toBe(200);
  });

  it("still answers a stream address handed out before, under its video's signature", async () => {
    const { expires, signature } = Object.fromEntries(
      new URLSearchParams(signedQuery(t.app.deps, mediaLinkSubject(openKey))),
    ) as Record<string, string>;
    const old = `/storage/v1/object/stream/${STORY_MEDIA_BUCKET}/${expires}/${signature}/${openKey}.media/hls/master.m3u8`;
    expect((await fetchWith(old)).statusCode).toBe(200);
    expect((await fetchWith(old.replace(openKey, lockedKey))).statusCode).toBe(403);
  });
});

describe("checking the cookie at a CDN's edge", () => {
  it("needs only the key `npm run keys:media-cookies` prints: HMAC-SHA256 of the path and expiry", {
    timeout: 60_000,
  }, async () => {
    const cli = fileURLToPath(new URL("../../cli/keys.ts", import.meta.url));
    const env = { ...process.env, DATA_DIR: t.config.dataDir, LOG_LEVEL: "silent" } as NodeJS.ProcessEnv;
    if (t.config.database.kind === "postgres")
      Object.assign(env, { DATABASE_URL: t.config.database.url, STORAGE_DRIVER: "local" });
    else env.DATABASE_URL = `sqlite:${t.config.database.file}`;
    const { stdout } = await promisify(execFile)(process.execPath, [cli, "media-cookies"], { env });
    const key = Buffer.from(stdout.trim(), "base64url");
    expect(key.length).toBe(32);
    // What an edge function does (docs/scale.md): the folder of the file asked for, the cookie's expiry, compared.
    const cookie = mediaCookieFor(t.app.deps, openKey);
    const [expires, signature] = cookie.value.split(".");
    const folder = `/storage/v1/object/cookie/${STORY_MEDIA_BUCKET}/${openKey}.media/`;
    const expected = createHmac("sha256", key).update(`${folder}\n${expires}`).digest("base64url");
    expect(expected).toBe(signature);
    // The key is the cookies' alone: it does not make the signed links of recordings or story videos.
    const link = new URLSearchParams(signedQuery(t.app.deps, mediaLinkSubject(openKey)));
    const forged = createHmac("sha256", key)
      .update(`${mediaLinkSubject(openKey)}\n${link.get("expires")}`)
      .digest("base64url");
    expect(forged).not.toBe(link.get("signature"));
  });
});

describe("story media on S3 with STORAGE_DELIVERY=redirect", () => {
  let s3: TestS3;
  let redirected: TestApp;
  beforeAll(async () => {
    s3 = await startTestS3();
    // Behind https, as such a site is: the cookie is then Secure.
    redirected = await createTestApp({ ...s3.env, STORAGE_DELIVERY: "redirect", PUBLIC_URL: "https://hikaya.example.org" });
    await fakeProcessed(redirected.app.deps, "redirected-video.mp4");
  }, 60_000);
  afterAll(async () => {
    await redirected?.close();
    await s3?.close();
  });

  it("sets a Secure cookie, checks it, then sends segments to the bucket and answers playlists itself", async () => {
    const base = `/storage/v1/object/cookie/${STORY_MEDIA_BUCKET}/redirected-video.mp4.media/`;
    const link = `/storage/v1/object/sign/${STORY_MEDIA_BUCKET}/redirected-video.mp4?${signedQuery(redirected.app.deps, mediaLinkSubject("redirected-video.mp4"))}`;
    const answer = await redirected.app.inject({ url: `/api/media/stream?src=${encodeURIComponent(link)}` });
    expect(answer.json().hls).toBe(`${base}hls/master.m3u8`);
    expect(String(answer.headers["set-cookie"])).toMatch(/; HttpOnly; SameSite=Lax; Secure$/);
    const cookie = String(answer.headers["set-cookie"]).split(";")[0] as string;
    const segment = await redirected.app.inject({ url: `${base}hls/240p/seg_0000.ts`, headers: { cookie } });
    expect(segment.statusCode).toBe(302);
    const location = segment.headers.location as string;
    expect(location.startsWith(`${s3.endpoint}/${s3.bucket}/${STORY_MEDIA_BUCKET}/redirected-video.mp4.media/hls/240p/`)).toBe(
      true,
    );
    expect(await (await fetch(location)).text()).toBe("G segment 0".repeat(100));
    // Without the cookie nothing is redirected.
    expect((await redirected.app.inject({ url: `${base}hls/240p/seg_0000.ts` })).statusCode).toBe(403);
    // A playlist's relative addresses must resolve under the cookie's path, not the bucket's.
    const playlist = await redirected.app.inject({ url: `${base}hls/240p/index.m3u8`, headers: { cookie } });
    expect(playlist.statusCode).toBe(200);
    expect(playlist.body).toContain("seg_0000.ts");
  });
});

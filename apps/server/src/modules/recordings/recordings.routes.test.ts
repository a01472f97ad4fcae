import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { RECORDING_LINK_TTL_SECONDS } from "@hikaya/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { createTestUser, type TestUser } from "../../test/test-users.ts";
import { mediaWorkerOf } from "../media/worker.ts";
import { signedAudioUrl } from "./recordings.service.ts";
import { encodedAudio, mp4, mpegAudio, multipart, type Part, wav, webm } from "./test-fixtures.ts";

let t: TestApp;
let admin: TestUser;
let a: TestUser;
let b: TestUser;
let open: string;
let locked: string;

function storedFiles(): string[] {
  const root = join(t.config.dataDir, "storage", "recordings");
  if (!existsSync(root)) return [];
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => e.name);
}
const rows = async () =>
  Number(
    (
      await t.app.deps.db
        .selectFrom("recordings")
        .select((eb) => eb.fn.countAll().as("n"))
        .executeTakeFirstOrThrow()
    ).n,
  );

async function upload(user: TestUser | null, parts: Part[]) {
  const body = multipart(parts);
  return t.app.inject({
    method: "POST",
    url: "/api/story/audio/add",
    headers: { ...(user?.headers ?? {}), "content-type": body.contentType },
    payload: body.payload,
  });
}
const audio = (data: Buffer, filename = "recording.mp3", type = "audio/mpeg"): Part => ({ name: "audio", filename, type, data });

beforeAll(async () => {
  t = await createTestApp({ SEED_DEMO: "true" });
  // These tests count the files in storage; the media worker would add voice copies at moments of its own.
  await mediaWorkerOf(t.app)?.stop();
  admin = await createTestUser(t.app, { admin: true });
  a = await createTestUser(t.app);
  b = await createTestUser(t.app);
  const stories = await t.app.deps.db.selectFrom("stories").select(["id", "position"]).orderBy("position").execute();
  open = stories[0]?.id as string;
  locked = stories[3]?.id as string;
});
afterAll(() => t.close());

describe("POST /api/story/audio/add", () => {
  it("stores WAV data named .mp3 as WAV, with its duration, question index and owner", async () => {
    const res = await upload(a, [audio(wav(2)), { name: "story", value: open }, { name: "index", value: "3" }]);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.code).toBe(200);
    expect(body.data).toMatchObject({
      userId: a.id,
      storyId: open,
      questionIndex: 3,
      contentType: "audio/wav",
      durationSeconds: 2,
    });
    expect(body.data.size).toBe(44 + 64_000);
  });

  // Those that ffprobe cannot read without real frames (Ogg pages are checksummed, MP4 needs its sample tables) are
  // real encodings.
  it.each([
    ["WebM/Opus, as Chrome and Firefox record", () => webm(["audio"]), "audio/webm"],
    ["Matroska audio", () => webm(["audio"], { docType: "matroska" }), "audio/webm"],
    ["Ogg/Opus", () => encodedAudio("ogg-opus"), "audio/ogg"],
    ["M4A (MP4 audio)", () => encodedAudio("m4a"), "audio/mp4"],
    ["MP4 audio with the isom brand, as Safari records", () => encodedAudio("mp4-isom"), "audio/mp4"],
    ["M4A whose tracks come after the media", () => encodedAudio("m4a-moov-at-end"), "audio/mp4"],
    ["MP3 with ID3", () => mpegAudio("id3"), "audio/mpeg"],
    ["MP3 frames", () => mpegAudio("mp3"), "audio/mpeg"],
    ["ADTS AAC", () => mpegAudio("adts"), "audio/aac"],
  ])("accepts %s by its bytes", async (_name, make, type) => {
    const data = await make();
    const res = await upload(a, [{ name: "story", value: open }, audio(data, "x.bin", "application/octet-stream")]);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ contentType: type, durationSeconds: null });
  });

  it("keeps the length the recorder measured for a file that carries none, and the file's own for WAV", async () => {
    const recorded = await upload(a, [
      { name: "story", value: open },
      { name: "duration", value: "83.6" },
      audio(webm(["audio"])),
    ]);
    expect(recorded.statusCode).toBe(200);
    expect(recorded.json().data).toMatchObject({ contentType: "audio/webm", durationSeconds: 84 });
    // WAV says its own length; a claim does not override it.
    const measured = await upload(a, [{ name: "story", value: open }, { name: "duration", value: "90" }, audio(wav(2))]);
    expect(measured.json().data).toMatchObject({ contentType: "audio/wav", durationSeconds: 2 });
    for (const bad of ["-1", "abc", "601", "1e3"]) {
      const res = await upload(a, [{ name: "story", value: open }, { name: "duration", value: bad }, audio(webm(["audio"]))]);
      expect(res.statusCode, bad).toBe(400);
    }
  });

  it.each([
    ["a WebM video", webm(["audio", "video"])],
    ["a WebM with only a video track", webm(["video"])],
    ["an MP4 video", mp4(["vide", "soun"], { brand: "isom" })],
    ["an MP4 video with the M4A brand", mp4(["soun", "vide"])],
    ["an MP4 video whose tracks come after the media", mp4(["soun", "vide"], { brand: "isom", bytes: 8000, moovAtEnd: true })],
  ])("refuses %s with 415: a recording is audio only", async (_name, data) => {
    const files = storedFiles().length;
    const res = await upload(a, [{ name: "story", value: open }, audio(data, "clip.webm", "audio/webm")]);
    expect(res.statusCode).toBe(415);
    expect(res.json()).toMatchObject({ code: 415, errorCode: "unsupported_media_type" });
    expect(storedFiles().length).toBe(files);
  });

  it("refuses what is not audio with 415, whatever its name, leaving nothing behind", async () => {
    const files = storedFiles().length;
    const count = await rows();
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(10_000)]);
    for (const data of [png, Buffer.from("just some text, not audio at all"), Buffer.from("RIFF....WAVEjunk")]) {
      const res = await upload(a, [audio(data, "voice.mp3", "audio/mpeg"), { name: "story", value: open }]);
      expect(res.statusCode).toBe(415);
      expect(res.json()).toMatchObject({ code: 415, errorCode: "unsupported_media_type" });
    }
    expect(storedFiles().length).toBe(files);
    expect(await rows()).toBe(count);
  });

  it("refuses more than 25 MB with 413 and keeps no partial file", async () => {
    const files = storedFiles().length;
    const count = await rows();
    const res = await upload(a, [{ name: "story", value: open }, audio(wav(60, 1), "big.mp3")]);
    expect(res.statusCode).toBe(200); // 1.9 MB: fine
    const big = Buffer.alloc(25 * 1024 * 1024 + 10);
    wav(1).copy(big, 0, 0, 44);
    const tooBig = await upload(a, [{ name: "story", value: open }, audio(big, "big.mp3")]);
    expect(tooBig.statusCode).toBe(413);
    expect(tooBig.json()).toMatchObject({ code: 413, errorCode: "payload_too_large" });
    expect(storedFiles().length).toBe(files + 2); // the 1.9 MB one: file + type sidecar
    expect(await rows()).toBe(count + 1);
  });

  it("refuses a WAV longer than 10 minutes by its header", async () => {
    const res = await upload(a, [{ name: "story", value: open }, audio(wav(1, 11 * 60))]);
    expect(res.statusCode).toBe(413);
  });

  it("refuses a locked story (before or after the file) and an unknown one, storing nothing", async () => {
    const files = storedFiles().length;
    const count = await rows();
    const before = await upload(a, [{ name: "story", value: locked }, audio(wav(1))]);
    expect(before.statusCode).toBe(403);
    expect(before.json().errorCode).toBe("story_locked");
    const after = await upload(a, [audio(wav(1)), { name: "story", value: locked }]);
    expect(after.statusCode).toBe(403);
    const unknown = await upload(a, [audio(wav(1)), { name: "story", value: "no-such-story" }]);
    expect(unknown.statusCode).toBe(404);
    expect(storedFiles().length).toBe(files);
    expect(await rows()).toBe(count);
  });

  it("answers missing parts, bad index, JSON bodies and visitors with clear 4xx", async () => {
    const count = await rows();
    expect((await upload(a, [{ name: "story", value: open }])).statusCode).toBe(400);
    expect((await upload(a, [audio(wav(1))])).statusCode).toBe(400);
    expect((await upload(a, [audio(wav(1)), { name: "story", value: open }, { name: "index", value: "two" }])).statusCode).toBe(
      400,
    );
    expect((await upload(a, [audio(Buffer.alloc(0)), { name: "story", value: open }])).statusCode).toBe(400);
    const json = await t.app.inject({
      method: "POST",
      url: "/api/story/audio/add",
      headers: a.headers,
      payload: { story: open },
    });
    expect(json.statusCode).toBe(415);
    expect((await upload(null, [audio(wav(1)), { name: "story", value: open }])).statusCode).toBe(401);
    expect(await rows()).toBe(count);
  });
});

describe("recordings are private", () => {
  it("lists only the caller's own, and plays them to the owner and admins only", async () => {
    await upload(b, [audio(wav(1)), { name: "story", value: open }]);
    const mine = (await t.app.inject({ url: "/api/recordings", headers: a.headers })).json() as {
      id: string;
      userId: string;
      audioUrl: string;
    }[];
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.every((r) => r.userId === a.id)).toBe(true);
    const theirs = (await t.app.inject({ url: "/api/recordings", headers: b.headers })).json() as { userId: string }[];
    expect(theirs).toHaveLength(1);
    expect(theirs[0]?.userId).toBe(b.id);

    const url = (mine.find((r) => r.audioUrl) as { audioUrl: string }).audioUrl;
    const own = await t.app.inject({ url, headers: a.headers });
    expect(own.statusCode).toBe(200);
    expect(own.headers["cache-control"]).toContain("private");
    const range = await t.app.inject({ url, headers: { ...admin.headers, range: "bytes=0-3" } });
    expect(range.statusCode).toBe(206);
    expect(range.headers["content-type"]).toBeDefined();
    expect((await t.app.inject({ url, headers: b.headers })).statusCode).toBe(404);
    expect((await t.app.inject({ url })).statusCode).toBe(401);
    expect((await t.app.inject({ url: "/api/recordings/nope/audio", headers: admin.headers })).statusCode).toBe(404);

    expect((await t.app.inject({ url: `/api/users/${a.id}/recordings`, headers: b.headers })).statusCode).toBe(403);
    const asAdmin = await t.app.inject({ url: `/api/users/${a.id}/recordings`, headers: admin.headers });
    expect(asAdmin.statusCode).toBe(200);
    expect(asAdmin.json()).toHaveLength(mine.length);
  });

  it("plays by a signed link without a token; a tampered or expired link is refused", async () => {
    const [rec] = (await t.app.inject({ url: "/api/recordings", headers: a.headers })).json() as {
      id: string;
      signedUrl: string;
    }[];
    const signedUrl = rec?.signedUrl as string;
    expect(signedUrl).toMatch(/expires=\d+&signature=/);
    const ok = await t.app.inject({ url: signedUrl, headers: { range: "bytes=0-11" } });
    expect(ok.statusCode).toBe(206);
    expect(ok.rawPayload.length).toBe(12);
    // Always a different first character: replacing it with a fixed one left the link intact 1 time in 64.
    const tampered = await t.app.inject({
      url: signedUrl.replace(/signature=(.)/, (_m, first: string) => `signature=${first === "A" ? "B" : "A"}`),
    });
    expect(tampered.statusCode).toBe(403);
    const otherId = signedUrl.replace(rec?.id as string, "00000000-0000-0000-0000-000000000000");
    expect((await t.app.inject({ url: otherId })).statusCode).toBe(403);
    const expired = signedUrl.replace(/expires=\d+/, "expires=1000");
    expect((await t.app.inject({ url: expired })).statusCode).toBe(403);
  });

  it("honours a signed link for at least its hour and refuses it after, though its signature is genuine", async () => {
    const [rec] = (await t.app.inject({ url: "/api/recordings", headers: a.headers })).json() as { id: string }[];
    const id = rec?.id as string;
    const hour = RECORDING_LINK_TTL_SECONDS * 1000;
    const almostAnHourAgo = signedAudioUrl(t.app.deps, id, Date.now() - hour + 60_000);
    expect((await t.app.inject({ url: almostAnHourAgo })).statusCode).toBe(200);
    // Links are rounded up to the next 10 minutes (stable links cache well), so one signed 71 minutes ago has run out.
    const overAnHourAgo = signedAudioUrl(t.app.deps, id, Date.now() - hour - 11 * 60_000);
    expect((await t.app.inject({ url: overAnHourAgo })).statusCode).toBe(403);
  });
});

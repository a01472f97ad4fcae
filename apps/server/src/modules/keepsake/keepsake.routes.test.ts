import { type Keepsake, STORY_MEDIA_BUCKET } from "@hikaya/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { createTestUser, type TestUser } from "../../test/test-users.ts";
import { deleteAccountWithFiles } from "../account/deletion.service.ts";
import { enqueueMedia } from "../media/enqueue.ts";
import { RECORDINGS_BUCKET } from "../recordings/recordings.service.ts";
import { type KeepsakeFamily, seedFamily } from "./keepsake.test-helpers.ts";

let t: TestApp;
let admin: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = await createTestUser(t.app, { admin: true });
});
afterAll(async () => t?.close());

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: "GET", url, headers });
const keepsakeOf = async (family: KeepsakeFamily, lang = "en") => {
  const res = await get(`/api/keepsake?lang=${lang}`, family.user.headers);
  expect(res.statusCode).toBe(200);
  return res.json<Keepsake>();
};
const share = async (family: KeepsakeFamily, expiry: "never" | "year" | "month", language: "en" | "ar" = "en") => {
  const res = await t.app.inject({
    method: "POST",
    url: "/api/keepsake/share",
    headers: family.user.headers,
    payload: { expiry, language },
  });
  expect(res.statusCode).toBe(200);
  return res.json<Keepsake>();
};
const pathOf = (url: string) => new URL(url).pathname;
const bookLink = (k: Keepsake) => {
  const link = k.links.find((l) => l.scope === "book");
  if (!link) throw new Error("no book link");
  return link;
};
const linkRows = (userId: string) =>
  t.app.deps.db
    .withTables<{
      keepsake_links: { user_id: string; token_hash: string; revoked_at: string | null; expires_at: string | null };
    }>()
    .selectFrom("keepsake_links")
    .selectAll()
    .where("user_id", "=", userId)
    .execute();

describe("the family's keepsake", () => {
  it("asks who is asking", async () => {
    expect((await get("/api/keepsake")).statusCode).toBe(401);
  });

  it("holds the watched stories, with the family's own recordings in it before they choose", async () => {
    const family = await seedFamily(t.app);
    const k = await keepsakeOf(family, "ar");
    expect(k.hasRecordings).toBe(true);
    expect(k.stories.map((s) => s.id)).toEqual([family.story.id]);
    const [own, answer] = k.stories[0]?.voices ?? [];
    expect(own).toMatchObject({
      kind: "recording",
      id: family.recordingId,
      included: true,
      missing: false,
      durationSeconds: 3,
      speakerNameEn: "Huda",
    });
    expect(answer).toMatchObject({
      kind: "answer",
      id: family.answerId,
      included: false,
      speakerNameAr: "الجدة سلمى",
      questionIndex: 0,
    });
    expect(k.links).toEqual([]);
  });

  it("gives a voice whose upload carried no length the one its processing measured", async () => {
    const family = await seedFamily(t.app);
    await t.app.deps.db.updateTable("recordings").set({ duration_seconds: null }).where("id", "=", family.recordingId).execute();
    const before = (await keepsakeOf(family)).stories[0]?.voices ?? [];
    expect(before.map((v) => v.durationSeconds)).toEqual([null, null]);

    const recording = await t.app.deps.db
      .selectFrom("recordings")
      .select("object_key")
      .where("id", "=", family.recordingId)
      .executeTakeFirstOrThrow();
    const answer = await t.app.deps.db
      .selectFrom("answers")
      .select("audio_path")
      .where("id", "=", family.answerId)
      .executeTakeFirstOrThrow();
    const answerKey = answer.audio_path.split("/").pop() as string;
    await enqueueMedia(t.app.deps, { bucket: RECORDINGS_BUCKET, key: recording.object_key, kind: "audio" });
    await enqueueMedia(t.app.deps, { bucket: STORY_MEDIA_BUCKET, key: answerKey, kind: "audio" });
    // The family's keepsake shows them once the worker has measured them (a few hundred milliseconds here).
    await expect
      .poll(async () => (await keepsakeOf(family)).stories[0]?.voices.map((v) => [v.kind, v.durationSeconds]), {
        timeout: 15_000,
        interval: 100,
      })
      .toEqual([
        ["recording", 3],
        ["answer", 1],
      ]);
  });

  it("a person with nothing recorded has an empty keepsake and cannot share it", async () => {
    const stranger = await createTestUser(t.app);
    const res = await get("/api/keepsake", stranger.headers);
    expect(res.json()).toMatchObject({ hasRecordings: false, stories: [], links: [] });
    const shared = await t.app.inject({
      method: "POST",
      url: "/api/keepsake/share",
      headers: stranger.headers,
      payload: { expiry: "never", language: "en" },
    });
    expect(shared.statusCode).toBe(409);
  });

  it("saves the title, dedication and order, and refuses a voice that is not the family's", async () => {
    const family = await seedFamily(t.app);
    const other = await seedFamily(t.app);
    const voices = [
      { kind: "answer", id: family.answerId },
      { kind: "recording", id: family.recordingId },
    ];
    const saved = await t.app.inject({
      method: "PUT",
      url: "/api/keepsake",
      headers: family.user.headers,
      payload: { title: " Our story ", dedication: "For Sami", voices },
    });
    expect(saved.statusCode).toBe(200);
    const k = saved.json<Keepsake>();
    expect(k).toMatchObject({ title: "Our story", dedication: "For Sami" });
    expect(k.stories[0]?.voices.map((v) => [v.kind, v.included])).toEqual([
      ["answer", true],
      ["recording", true],
    ]);
    const foreign = await t.app.inject({
      method: "PUT",
      url: "/api/keepsake",
      headers: family.user.headers,
      payload: { title: "", dedication: "", voices: [{ kind: "recording", id: other.recordingId }] },
    });
    expect(foreign.statusCode).toBe(400);
  });

  it("says when a voice's file is missing, and the listening page leaves it out", async () => {
    const family = await seedFamily(t.app);
    await t.app.inject({
      method: "PUT",
      url: "/api/keepsake",
      headers: family.user.headers,
      payload: {
        title: "",
        dedication: "",
        voices: [
          { kind: "recording", id: family.recordingId },
          { kind: "answer", id: family.answerId },
        ],
      },
    });
    const book = pathOf(bookLink(await share(family, "never")).url);
    await t.app.deps.storage.delete("recordings", `${family.user.id}/${family.recordingId}`);
    const k = await keepsakeOf(family);
    expect(k.stories[0]?.voices.find((v) => v.kind === "recording")?.missing).toBe(true);
    const page = await get(book);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`answer-${family.answerId}/audio`);
    expect(page.body).not.toContain(`recording-${family.recordingId}`);
  });
});

describe("share links", () => {
  it("are unguessable, stored only as a hash, and open a light page that plays the voice", async () => {
    const family = await seedFamily(t.app);
    const k = await share(family, "never", "ar");
    expect(k.links.map((l) => l.scope).sort()).toEqual(["book", "voice"]);
    const voice = k.stories[0]?.voices[0]?.link;
    if (!voice) throw new Error("no voice link");
    const token = pathOf(voice.url).split("/")[2] ?? "";
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(voice.qrSvg).toMatch(/^<svg[^>]*>.*<\/svg>\s*$/s);
    const rows = await linkRows(family.user.id);
    expect(rows.some((r) => JSON.stringify(r).includes(token))).toBe(false);
    expect(rows.every((r) => /^[0-9a-f]{64}$/.test(r.token_hash))).toBe(true);

    const page = await get(pathOf(voice.url));
    expect(page.statusCode).toBe(200);
    expect(page.headers["content-type"]).toContain("text/html");
    expect(page.body).toContain('lang="ar" dir="rtl"');
    expect(page.body).toContain(family.story.titleAr);
    expect(page.body).toContain("Huda");
    expect(page.body).toContain("المدة ٠:٠٣");
    // One script, the recorder's file from this origin (family-script.ts), never an inline one.
    expect(page.body.match(/<script[^>]*>/gi)).toEqual(['<script src="/k/family-reply.js" defer>']);
    const audio = await get(`${pathOf(voice.url)}/recording-${family.recordingId}/audio`, { range: "bytes=0-43" });
    expect(audio.statusCode).toBe(206);
    expect(audio.headers["content-type"]).toBe("audio/wav");
    expect(audio.rawPayload.subarray(0, 4).toString("latin1")).toBe("RIFF");
    // A voice link opens that one voice, not the family member's answer beside it.
    expect((await get(`${pathOf(voice.url)}/answer-${family.answerId}/audio`)).statusCode).toBe(404);
  });

  it("sharing again keeps the links (and so the printed QR codes) the same", async () => {
    const family = await seedFamily(t.app);
    const first = await share(family, "never");
    const again = await share(family, "month");
    expect(again.links.map((l) => l.url).sort()).toEqual(first.links.map((l) => l.url).sort());
    expect((await keepsakeOf(family)).links.map((l) => l.qrSvg).sort()).toEqual(first.links.map((l) => l.qrSvg).sort());
  });

  it("answer 404 with a page in both languages when tampered with, and never the audio", async () => {
    const family = await seedFamily(t.app);
    const path = pathOf(bookLink(await share(family, "never")).url);
    const last = path.at(-1) === "A" ? "B" : "A";
    const tampered = `${path.slice(0, -1)}${last}`;
    const page = await get(tampered);
    expect(page.statusCode).toBe(404);
    expect(page.body).toContain("This link does not work");
    expect(page.body).toContain("هذا الرابط لا يعمل");
    expect((await get(`${tampered}/recording-${family.recordingId}/audio`)).statusCode).toBe(404);
    expect((await get("/k/short")).statusCode).toBe(404);
  });

  it("stop working when the family revokes them, and only the family can", async () => {
    const family = await seedFamily(t.app);
    const stranger = await createTestUser(t.app);
    const link = bookLink(await share(family, "year"));
    const audio = `${pathOf(link.url)}/recording-${family.recordingId}/audio`;
    expect((await get(audio)).statusCode).toBe(200);
    const revokeAs = (headers: Record<string, string>) =>
      t.app.inject({ method: "POST", url: `/api/keepsake/links/${link.id}/revoke`, headers });
    expect((await revokeAs(stranger.headers)).statusCode).toBe(404);
    const revoked = await revokeAs(family.user.headers);
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json<Keepsake>().links.map((l) => l.id)).not.toContain(link.id);
    const page = await get(pathOf(link.url));
    expect(page.statusCode).toBe(404);
    expect(page.body).toContain("هذا الرابط لا يعمل");
    expect((await get(audio)).statusCode).toBe(404);
  });

  it("expire when the family chose", async () => {
    const family = await seedFamily(t.app);
    const before = Date.now();
    const k = await share(family, "month");
    const link = bookLink(k);
    const expires = Date.parse(link.expiresAt ?? "");
    expect(expires - before).toBeGreaterThanOrEqual(28 * 86_400_000);
    expect(expires - before).toBeLessThanOrEqual(32 * 86_400_000);
    await t.app.deps.db
      .withTables<{ keepsake_links: { id: string; expires_at: string | null } }>()
      .updateTable("keepsake_links")
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where("id", "=", link.id)
      .execute();
    const page = await get(pathOf(link.url));
    expect(page.statusCode).toBe(404);
    expect(page.body).toContain("This link does not work");
    expect(page.body).toContain("هذا الرابط لا يعمل");
    expect((await get(`${pathOf(link.url)}/recording-${family.recordingId}/audio`)).statusCode).toBe(404);
    expect((await keepsakeOf(family)).links.map((l) => l.id)).not.toContain(link.id);
    const yearly = bookLink(await share(family, "year"));
    expect(Date.parse(yearly.expiresAt ?? "") - before).toBeGreaterThanOrEqual(365 * 86_400_000);
    const forever = await seedFamily(t.app);
    expect(bookLink(await share(forever, "never")).expiresAt).toBeNull();
  });

  it("all stop when the account is deleted, and the voices' files go with it", async () => {
    const family = await seedFamily(t.app);
    const k = await share(family, "never");
    const path = pathOf(bookLink(k).url);
    const voice = pathOf(k.stories[0]?.voices[0]?.link?.url ?? "");
    const audio = `${voice}/recording-${family.recordingId}/audio`;
    expect((await get(path)).statusCode).toBe(200);
    expect((await get(audio)).statusCode).toBe(200);
    const file = ["recordings", `${family.user.id}/${family.recordingId}`] as const;
    expect(await t.app.deps.storage.stat(...file)).toBeTruthy();
    await deleteAccountWithFiles(t.app.deps, family.user.id, { ip: "127.0.0.1", userAgent: null }, { kind: "self" });
    expect((await get(path)).statusCode).toBe(404);
    expect((await get(voice)).statusCode).toBe(404);
    expect((await get(audio)).statusCode).toBe(404);
    expect(await linkRows(family.user.id)).toEqual([]);
    expect(await t.app.deps.storage.stat(...file)).toBeNull();
  });
});

describe("a blocked or banned family's links (issue 37)", () => {
  /** The book link's page and a voice link's audio, as a relative would open them. */
  const sharedVoice = async (family: KeepsakeFamily) => {
    const k = await share(family, "never", "ar");
    const voice = pathOf(k.stories[0]?.voices[0]?.link?.url ?? "");
    return { page: pathOf(bookLink(k).url), voice, audio: `${voice}/recording-${family.recordingId}/audio` };
  };
  const expectSuspended = async (links: Awaited<ReturnType<typeof sharedVoice>>) => {
    for (const path of [links.page, links.voice]) {
      const page = await get(path);
      expect(page.statusCode, path).toBe(404);
      expect(page.body).toContain("This link does not work");
      expect(page.body).toContain("هذا الرابط لا يعمل");
    }
    expect((await get(links.audio)).statusCode).toBe(404);
    expect((await get(links.audio, { range: "bytes=0-43" })).statusCode).toBe(404);
  };
  const expectShared = async (links: Awaited<ReturnType<typeof sharedVoice>>) => {
    expect((await get(links.page)).statusCode).toBe(200);
    expect((await get(links.voice)).statusCode).toBe(200);
    const audio = await get(links.audio, { range: "bytes=0-3" });
    expect(audio.statusCode).toBe(206);
    expect(audio.rawPayload.toString("latin1")).toBe("RIFF");
  };

  it("are suspended while the console blocks the family, and the same links play again once unblocked", async () => {
    const family = await seedFamily(t.app);
    const links = await sharedVoice(family);
    await expectShared(links);
    const block = (blocked: boolean) =>
      t.app.inject({
        method: "PUT",
        url: `/api/admin/users/${family.user.id}/block`,
        headers: admin.headers,
        payload: { blocked },
      });
    expect((await block(true)).statusCode).toBe(200);
    await expectSuspended(links);
    // Suspended, not revoked: nothing about the links themselves changed.
    expect((await linkRows(family.user.id)).every((r) => r.revoked_at === null)).toBe(true);
    expect((await block(false)).statusCode).toBe(200);
    await expectShared(links);
  });

  it("are suspended while the admin API bans the family (ban_duration), and work again when the ban is lifted", async () => {
    const family = await seedFamily(t.app);
    const links = await sharedVoice(family);
    const key = t.app.deps.auth.keys.serviceRoleKey;
    const ban = (ban_duration: string) =>
      t.app.inject({
        method: "PUT",
        url: `/auth/v1/admin/users/${family.user.id}`,
        headers: { apikey: key, authorization: `Bearer ${key}` },
        payload: { ban_duration },
      });
    expect((await ban("24h")).statusCode).toBe(200);
    await expectSuspended(links);
    expect((await ban("none")).statusCode).toBe(200);
    await expectShared(links);
    // A ban that has run out suspends nothing.
    await t.app.deps.db
      .updateTable("users")
      .set({ banned_until: new Date(Date.now() - 1000).toISOString() })
      .where("id", "=", family.user.id)
      .execute();
    await expectShared(links);
  });
});

describe("an admin's printable copy", () => {
  it("is for admins only and is written in the audit log", async () => {
    const family = await seedFamily(t.app);
    const facilitator = await createTestUser(t.app, { role: "facilitator" });
    const url = `/api/keepsake/people/${family.user.id}`;
    expect((await get(url, facilitator.headers)).statusCode).toBe(403);
    expect((await get(url, family.user.headers)).statusCode).toBe(403);
    const res = await get(url, admin.headers);
    expect(res.statusCode).toBe(200);
    expect(res.json<Keepsake>().stories[0]?.id).toBe(family.story.id);
    const entry = await t.app.deps.db
      .selectFrom("admin_audit_log")
      .select(["action", "target_id", "actor_id"])
      .where("action", "=", "person.keepsake.open")
      .where("target_id", "=", family.user.id)
      .executeTakeFirst();
    expect(entry).toMatchObject({ actor_id: admin.id });
  });
});

import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import type { AdminQuestion, AdminStory, AuditEntry, AuditPage } from "@hikaya/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../config.ts";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { createTestUser, type TestUser } from "../../test/test-users.ts";
import { storeUpload } from "../storage/uploads.service.ts";

const DEMO = join(REPO_ROOT, "apps/server/demo/files");
const VIDEO = readFileSync(join(DEMO, "videos/story-01.mp4"));
const IMAGE = readFileSync(join(DEMO, "images/aunt.jpg"));
const AUDIO = readFileSync(join(DEMO, "audio/landing-aunt.m4a"));

function multipart(file: Buffer, filename: string, contentType: string) {
  const boundary = `----hikaya${Math.random().toString(16).slice(2)}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: ${contentType}\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return { payload: Buffer.concat([head, file, tail]), headers: { "content-type": `multipart/form-data; boundary=${boundary}` } };
}

let t: TestApp;
let admin: TestUser;
let user: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = await createTestUser(t.app, { admin: true });
  user = await createTestUser(t.app);
});
afterAll(async () => t?.close());

async function upload(purpose: string, file: Buffer, name: string, type: string, who: TestUser = admin) {
  const body = multipart(file, name, type);
  return t.app.inject({
    method: "POST",
    url: `/api/admin/uploads/${purpose}`,
    headers: { ...who.headers, ...body.headers },
    payload: body.payload,
  });
}

async function createStory(title: string): Promise<AdminStory> {
  const video = await upload("story-video", VIDEO, "v.mp4", "video/mp4");
  expect(video.statusCode).toBe(200);
  const res = await t.app.inject({
    method: "POST",
    url: "/api/admin/stories",
    headers: admin.headers,
    payload: { titleEn: title, titleAr: `عربي ${title}`, subtitleEn: "sub", subtitleAr: "فرعي", videoUrl: video.json().path },
  });
  expect(res.statusCode).toBe(200);
  return res.json();
}

async function order(): Promise<AdminStory[]> {
  return (await t.app.inject({ method: "GET", url: "/api/admin/stories", headers: admin.headers })).json();
}

describe("permissions: every /api/admin endpoint refuses visitors and users", () => {
  const endpoints: [string, string, unknown?][] = [
    ["GET", "/api/admin/stories"],
    ["POST", "/api/admin/stories", { titleEn: "x", titleAr: "x", videoUrl: "https://youtu.be/abc" }],
    ["PUT", "/api/admin/stories/nope", { titleEn: "x", titleAr: "x", videoUrl: "https://youtu.be/abc" }],
    ["DELETE", "/api/admin/stories/nope"],
    ["POST", "/api/admin/stories/reorder", { ids: ["a"], expected: ["a"] }],
    ["PUT", "/api/admin/stories/nope/thumbnail"],
    ["GET", "/api/admin/stories/nope/questions"],
    ["POST", "/api/admin/uploads/story-video"],
    ["GET", "/api/admin/characters"],
    ["POST", "/api/admin/characters", { nameEn: "a", nameAr: "b" }],
    ["GET", "/api/admin/landing-answers"],
    ["GET", "/api/admin/media"],
    ["PUT", "/api/admin/instructions/Add%20Website", { media: "/storage/v1/object/public/instructions/x.mp4" }],
    ["PUT", "/api/admin/documents/termsAndCondition", { path: "/storage/v1/object/public/documents/x.pdf" }],
    ["GET", "/api/admin/settings"],
    ["PUT", "/api/admin/settings", { titleEn: "a", titleAr: "b", primaryColor: "#000000", siteUnderMaintenance: true }],
    ["GET", "/api/admin/users/nope/detail"],
    ["GET", "/api/admin/contact-submissions"],
    ["PUT", "/api/admin/contact-submissions/nope", { handled: true }],
    ["GET", "/api/admin/analytics"],
    ["GET", "/api/admin/audit"],
  ];

  it.each(endpoints)("%s %s: visitor 401, user 403", async (method, url, payload) => {
    const visitor = await t.app.inject({ method: method as "GET", url, ...(payload ? { payload: payload as object } : {}) });
    expect(visitor.statusCode).toBe(401);
    expect(visitor.json().code).toBe("unauthorized");
    const asUser = await t.app.inject({
      method: method as "GET",
      url,
      headers: user.headers,
      ...(payload ? { payload: payload as object } : {}),
    });
    expect(asUser.statusCode).toBe(403);
    expect(asUser.json().code).toBe("forbidden");
  });

  it("a forged token is refused, and a refused settings change changed nothing", async () => {
    const res = await t.app.inject({
      method: "GET",
      url: "/api/admin/stories",
      headers: { authorization: "Bearer abc.def.ghi" },
    });
    expect(res.statusCode).toBe(401);
    const settings = await t.app.inject({ method: "GET", url: "/api/settings" });
    expect(settings.json().siteUnderMaintenance).toBe(false);
  });

  it("admins get through", async () => {
    for (const url of [
      "/api/admin/stories",
      "/api/admin/characters",
      "/api/admin/media",
      "/api/admin/settings",
      "/api/admin/audit",
      "/api/admin/analytics",
      "/api/admin/contact-submissions",
      "/api/admin/landing-answers",
    ]) {
      const res = await t.app.inject({ method: "GET", url, headers: admin.headers });
      expect(res.statusCode, url).toBe(200);
    }
  });
});

describe("uploads", () => {
  it("stores a real video and serves it publicly", async () => {
    const res = await upload("story-video", VIDEO, "anything.bin", "application/octet-stream");
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.contentType).toBe("video/mp4");
    expect(body.size).toBe(VIDEO.length);
    expect(body.path).toMatch(/^\/storage\/v1\/object\/public\/videos\/[0-9a-f-]+\.mp4$/);
    const file = await t.app.inject({ method: "GET", url: body.path });
    expect(file.statusCode).toBe(200);
    expect(file.rawPayload.equals(VIDEO)).toBe(true);
  });

  it("refuses a non-video named .mp4 with 415 and stores nothing", async () => {
    const before = await auditCount();
    const image = await upload("story-video", IMAGE, "movie.mp4", "video/mp4");
    expect(image.statusCode).toBe(415);
    expect(image.json().code).toBe("unsupported_media_type");
    const text = await upload(
      "story-video",
      Buffer.from("hello, this is not a video at all ".repeat(200)),
      "movie.mp4",
      "video/mp4",
    );
    expect(text.statusCode).toBe(415);
    expect(await auditCount()).toBe(before);
  });

  it("accepts images, audio and PDFs only for their purpose", async () => {
    expect((await upload("image", IMAGE, "a.jpg", "image/jpeg")).statusCode).toBe(200);
    expect((await upload("audio", AUDIO, "a.m4a", "audio/mp4")).statusCode).toBe(200);
    expect((await upload("image", VIDEO, "a.jpg", "image/jpeg")).statusCode).toBe(415);
    expect((await upload("document", IMAGE, "a.pdf", "application/pdf")).statusCode).toBe(415);
    const pdf = readFileSync(join(DEMO, "documents/terms.pdf"));
    expect((await upload("document", pdf, "terms.pdf", "application/pdf")).statusCode).toBe(200);
  });

  it("refuses a 2 GB upload by its declared size with 413 before reading it", async () => {
    const body = multipart(VIDEO, "huge.mp4", "video/mp4");
    const res = await t.app.inject({
      method: "POST",
      url: "/api/admin/uploads/story-video",
      headers: { ...admin.headers, ...body.headers, "content-length": String(2 * 1024 * 1024 * 1024) },
      payload: body.payload,
    });
    expect(res.statusCode).toBe(413);
    expect(res.json().code).toBe("payload_too_large");
  });

  it("refuses a stream that grows past the limit while streaming, leaving no object behind", async () => {
    const chunks = [VIDEO, Buffer.alloc(64 * 1024), Buffer.alloc(64 * 1024)];
    const error = await storeUpload(t.app.deps.storage, Readable.from(chunks), {
      kind: "video",
      bucket: "videos",
      key: () => "too-big.mp4",
      maxBytes: VIDEO.length + 1000,
    }).catch((e) => e);
    expect(error.code).toBe("payload_too_large");
    expect(await t.app.deps.storage.stat("videos", "too-big.mp4")).toBeNull();
  });

  it("refuses an empty request and a request without multipart", async () => {
    const res = await t.app.inject({
      method: "POST",
      url: "/api/admin/uploads/image",
      headers: admin.headers,
      payload: { a: 1 },
    });
    expect(res.statusCode).toBe(415);
  });
});

async function auditCount() {
  const res = await t.app.inject({ method: "GET", url: "/api/admin/audit?limit=200", headers: admin.headers });
  return (res.json() as AuditPage).entries.length;
}

describe("stories", () => {
  it("creates, edits (both languages), gives a thumbnail named by the story id, and appears in the public list", async () => {
    const story = await createStory("Created");
    expect(story.titleAr).toBe("عربي Created");
    const edited = await t.app.inject({
      method: "PUT",
      url: `/api/admin/stories/${story.id}`,
      headers: admin.headers,
      payload: {
        titleEn: "Edited",
        titleAr: "معدّل",
        subtitleEn: "New sub",
        subtitleAr: "جديد",
        videoUrl: "https://www.youtube.com/watch?v=abc",
      },
    });
    expect(edited.statusCode).toBe(200);
    expect(edited.json().titleAr).toBe("معدّل");
    const thumb = multipart(IMAGE, "t.jpg", "image/jpeg");
    const put = await t.app.inject({
      method: "PUT",
      url: `/api/admin/stories/${story.id}/thumbnail`,
      headers: { ...admin.headers, ...thumb.headers },
      payload: thumb.payload,
    });
    expect(put.statusCode).toBe(200);
    expect(put.json().thumbnailUrl).toMatch(new RegExp(`^/storage/v1/object/public/thumbnails/${story.id}\\?v=\\d+$`));
    const file = await t.app.inject({ method: "GET", url: `/storage/v1/object/public/thumbnails/${story.id}` });
    expect(file.statusCode).toBe(200);
    expect(file.headers["content-type"]).toBe("image/jpeg");
    const entries = (await t.app.inject({ method: "GET", url: "/api/admin/audit", headers: admin.headers })).json()
      .entries as AuditEntry[];
    const mine = entries.filter((e) => e.targetId === story.id).map((e) => e.action);
    expect(mine).toEqual(expect.arrayContaining(["story.create", "story.update", "story.thumbnail"]));
    expect(entries[0]?.actorId).toBe(admin.id);
  });

  it("refuses a bad video address and a missing title, saving nothing", async () => {
    const count = (await order()).length;
    for (const payload of [
      { titleEn: "x", titleAr: "x", videoUrl: "https://evil.example/x.mp4" },
      { titleEn: "", titleAr: "x", videoUrl: "https://youtu.be/abc" },
      { titleEn: "x", titleAr: "x", videoUrl: "/storage/v1/object/public/videos/../../etc/passwd" },
    ]) {
      const res = await t.app.inject({ method: "POST", url: "/api/admin/stories", headers: admin.headers, payload });
      expect(res.statusCode).toBe(400);
    }
    expect((await order()).length).toBe(count);
  });

  it("reorders; orders stay unique and contiguous; a stale order is refused with 409", async () => {
    await createStory("R1");
    await createStory("R2");
    const before = await order();
    const ids = before.map((s) => s.id);
    const reversed = [...ids].reverse();
    const res = await t.app.inject({
      method: "POST",
      url: "/api/admin/stories/reorder",
      headers: admin.headers,
      payload: { ids: reversed, expected: ids },
    });
    expect(res.statusCode).toBe(200);
    const after = await order();
    expect(after.map((s) => s.id)).toEqual(reversed);
    expect(after.map((s) => s.order)).toEqual(after.map((_, i) => i + 1));
    const stale = await t.app.inject({
      method: "POST",
      url: "/api/admin/stories/reorder",
      headers: admin.headers,
      payload: { ids, expected: ids },
    });
    expect(stale.statusCode).toBe(409);
    expect((await order()).map((s) => s.id)).toEqual(reversed);
    const partial = await t.app.inject({
      method: "POST",
      url: "/api/admin/stories/reorder",
      headers: admin.headers,
      payload: { ids: reversed.slice(1), expected: reversed },
    });
    expect(partial.statusCode).toBe(400);
  });

  it("admins reordering at once: exactly one wins each round, the others get 409, the result is the winner's", async () => {
    const admins = [admin, await createTestUser(t.app, { admin: true }), await createTestUser(t.app, { admin: true })];
    // Rotations by 1, 2 and 3 places all differ from the stored order once there are at least 4 stories.
    while ((await order()).length < admins.length + 1) await createStory("Extra");
    for (let round = 0; round < 4; round++) {
      const ids = (await order()).map((s) => s.id);
      const proposals = admins.map((_, i) => [...ids.slice(i + 1), ...ids.slice(0, i + 1)]);
      const results = await Promise.all(
        admins.map((who, i) =>
          t.app.inject({
            method: "POST",
            url: "/api/admin/stories/reorder",
            headers: who.headers,
            payload: { ids: proposals[i], expected: ids },
          }),
        ),
      );
      const statuses = results.map((r) => r.statusCode);
      expect(statuses.filter((s) => s === 200)).toHaveLength(1);
      expect(statuses.filter((s) => s === 409)).toHaveLength(admins.length - 1);
      const winner = proposals[statuses.indexOf(200)] as string[];
      const final = await order();
      expect(final.map((s) => s.id)).toEqual(winner);
      expect(final.map((s) => s.order)).toEqual(final.map((_, i) => i + 1));
    }
  });

  it("deleting a watched story keeps recordings and keeps progress consistent", async () => {
    const stories = await order();
    const [first, second, third] = stories as [AdminStory, AdminStory, AdminStory];
    const viewer = await createTestUser(t.app);
    const recordingId = randomUUID();
    const now = new Date().toISOString();
    await t.app.deps.db
      .insertInto("progress")
      .values(
        [first, second, third].map((s) => ({ user_id: viewer.id, story_id: s.id, story_position: s.order, watched_at: now })),
      )
      .execute();
    await t.app.deps.db
      .insertInto("recordings")
      .values({
        id: recordingId,
        user_id: viewer.id,
        story_id: second.id,
        question_index: 3,
        object_key: `${viewer.id}/${recordingId}.wav`,
        content_type: "audio/wav",
        size: 10,
        duration_seconds: 1,
        created_at: now,
      })
      .execute();
    const res = await t.app.inject({ method: "DELETE", url: `/api/admin/stories/${second.id}`, headers: admin.headers });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ watchedBy: 1, recordingsKept: 1 });
    const after = await order();
    expect(after.map((s) => s.order)).toEqual(after.map((_, i) => i + 1));
    expect(after.find((s) => s.id === third.id)?.order).toBe(2);
    const progress = await t.app.deps.db.selectFrom("progress").selectAll().where("user_id", "=", viewer.id).execute();
    expect(progress.find((p) => p.story_id === third.id)?.story_position).toBe(2);
    const summary = await t.app.inject({ method: "GET", url: `/api/users/${viewer.id}`, headers: admin.headers });
    if (summary.statusCode === 200) expect(summary.json().lastWatchedStoryId).toBe(2);
    const recordings = await t.app.deps.db.selectFrom("recordings").select("id").where("user_id", "=", viewer.id).execute();
    expect(recordings).toHaveLength(1);
    const detail = await t.app.inject({ method: "GET", url: `/api/admin/users/${viewer.id}/detail`, headers: admin.headers });
    expect(detail.statusCode).toBe(200);
    expect(detail.json().recordings[0]).toMatchObject({ id: recordingId, storyId: second.id, storyTitleEn: null });
    expect(detail.json().progress.map((p: { order: number }) => p.order)).toEqual([1, 2]);
    const audit = (
      await t.app.inject({ method: "GET", url: "/api/admin/audit?action=story.delete", headers: admin.headers })
    ).json().entries;
    expect(audit[0]).toMatchObject({ action: "story.delete", targetId: second.id, actorId: admin.id });
    expect(
      (await t.app.inject({ method: "DELETE", url: `/api/admin/stories/${second.id}`, headers: admin.headers })).statusCode,
    ).toBe(404);
  });
});

describe("questions, family members and answers", () => {
  it("adds a question, a family member and an answer; reorders and deletes questions", async () => {
    const story = await createStory("With questions");
    const media = (await upload("question-media", VIDEO, "q.mp4", "video/mp4")).json().path;
    let questions: AdminQuestion[] = (
      await t.app.inject({
        method: "POST",
        url: `/api/admin/stories/${story.id}/questions`,
        headers: admin.headers,
        payload: { media },
      })
    ).json();
    questions = (
      await t.app.inject({
        method: "POST",
        url: `/api/admin/stories/${story.id}/questions`,
        headers: admin.headers,
        payload: { media },
      })
    ).json();
    expect(questions.map((q) => q.order)).toEqual([1, 2]);

    const thumbnail = (await upload("image", IMAGE, "m.jpg", "image/jpeg")).json().path;
    const audio = (await upload("audio", AUDIO, "m.m4a", "audio/mp4")).json().path;
    const characters = (
      await t.app.inject({
        method: "POST",
        url: "/api/admin/characters",
        headers: admin.headers,
        payload: { nameEn: "Huda", nameAr: "هدى", thumbnail, audio },
      })
    ).json();
    const huda = characters.find((c: { nameEn: string }) => c.nameEn === "Huda");
    expect(huda).toMatchObject({ nameAr: "هدى", thumbnail, audio, answerCount: 0 });

    const [q1, q2] = questions as [AdminQuestion, AdminQuestion];
    const withAnswer = await t.app.inject({
      method: "POST",
      url: `/api/admin/questions/${q1.id}/answers`,
      headers: admin.headers,
      payload: { characterId: huda.id, audio },
    });
    expect(withAnswer.statusCode).toBe(200);
    // A family member's answer is a story's private media: stored as a private copy, shown as a signed link.
    expect(withAnswer.json()[0].answers[0]).toMatchObject({
      characterNameEn: "Huda",
      audio: expect.stringMatching(/^\/storage\/v1\/object\/sign\/story-media\/[0-9a-f-]{36}\.m4a\?expires=/),
    });
    const badCharacter = await t.app.inject({
      method: "POST",
      url: `/api/admin/questions/${q1.id}/answers`,
      headers: admin.headers,
      payload: { characterId: "nobody", audio },
    });
    expect(badCharacter.statusCode).toBe(400);

    // The user app reads the same rows.
    const publicAnswers = await t.app.inject({
      method: "GET",
      url: `/api/admin/stories/${story.id}/questions`,
      headers: admin.headers,
    });
    expect(publicAnswers.json()[0].answers).toHaveLength(1);

    const blocked = await t.app.inject({ method: "DELETE", url: `/api/admin/characters/${huda.id}`, headers: admin.headers });
    expect(blocked.statusCode).toBe(409);

    const reordered = await t.app.inject({
      method: "POST",
      url: `/api/admin/stories/${story.id}/questions/reorder`,
      headers: admin.headers,
      payload: { ids: [q2.id, q1.id], expected: [q1.id, q2.id] },
    });
    expect(reordered.json().map((q: AdminQuestion) => q.id)).toEqual([q2.id, q1.id]);
    const removed = await t.app.inject({ method: "DELETE", url: `/api/admin/questions/${q2.id}`, headers: admin.headers });
    expect(removed.json().map((q: AdminQuestion) => [q.id, q.order])).toEqual([[q1.id, 1]]);
  });

  it("sets landing answers, instruction videos and documents", async () => {
    const characters = (await t.app.inject({ method: "GET", url: "/api/admin/characters", headers: admin.headers })).json();
    const audio = (await upload("audio", AUDIO, "l.m4a", "audio/mp4")).json().path;
    const landing = await t.app.inject({
      method: "POST",
      url: "/api/admin/landing-answers",
      headers: admin.headers,
      payload: { characterId: characters[0].id, audio },
    });
    expect(landing.json()).toHaveLength(1);
    const video = (await upload("instruction", VIDEO, "i.mp4", "video/mp4")).json().path;
    const media = await t.app.inject({
      method: "PUT",
      url: "/api/admin/instructions/Add%20Website",
      headers: admin.headers,
      payload: { media: video },
    });
    expect(media.json().instructions.find((i: { location: string }) => i.location === "Add Website").media).toBe(video);
    const publicInstruction = await t.app.inject({ method: "GET", url: "/api/instruction?location=Add%20Website" });
    expect(publicInstruction.json().media).toBe(video);
    const greeting = await t.app.inject({
      method: "PUT",
      url: "/api/admin/documents/greetingAudio",
      headers: admin.headers,
      payload: { path: audio },
    });
    expect(greeting.json().documents.find((d: { key: string }) => d.key === "greetingAudio").path).toBe(audio);
    const unknown = await t.app.inject({
      method: "PUT",
      url: "/api/admin/instructions/Nowhere",
      headers: admin.headers,
      payload: { media: video },
    });
    expect(unknown.statusCode).toBe(400);
  });
});

describe("settings, people, analytics", () => {
  it("changes title, colour and maintenance; the public settings follow; the audit log names the change", async () => {
    const res = await t.app.inject({
      method: "PUT",
      url: "/api/admin/settings",
      headers: admin.headers,
      payload: { titleEn: "Hikaya Test", titleAr: "حكاية تجربة", primaryColor: "#1E88E5", siteUnderMaintenance: true },
    });
    expect(res.statusCode).toBe(200);
    const pub = (await t.app.inject({ method: "GET", url: "/api/settings" })).json();
    expect(pub).toMatchObject({
      title: { en: "Hikaya Test", ar: "حكاية تجربة" },
      primaryColor: "#1e88e5",
      siteUnderMaintenance: true,
    });
    const audit = (await t.app.inject({ method: "GET", url: "/api/admin/audit?limit=1", headers: admin.headers })).json().entries;
    expect(audit[0]).toMatchObject({ action: "settings.maintenance_on", actorId: admin.id });
    const bad = await t.app.inject({
      method: "PUT",
      url: "/api/admin/settings",
      headers: admin.headers,
      payload: { titleEn: "x", titleAr: "x", primaryColor: "red", siteUnderMaintenance: false },
    });
    expect(bad.statusCode).toBe(400);
    expect((await t.app.inject({ method: "GET", url: "/api/settings" })).json().siteUnderMaintenance).toBe(true);
  });

  it("lists contact submissions and marks them handled", async () => {
    await t.app.deps.db
      .insertInto("contact_submissions")
      .values({
        id: "c1",
        user_id: null,
        name: "Sara",
        phone: "+962790000000",
        city: "Amman",
        country: "Jordan",
        gender: "Female",
        message: "Hello",
        handled_at: null,
        created_at: new Date().toISOString(),
      })
      .execute();
    const open = (
      await t.app.inject({ method: "GET", url: "/api/admin/contact-submissions?status=open", headers: admin.headers })
    ).json().items;
    expect(open.map((c: { id: string }) => c.id)).toContain("c1");
    const mark = await t.app.inject({
      method: "PUT",
      url: "/api/admin/contact-submissions/c1",
      headers: admin.headers,
      payload: { handled: true },
    });
    expect(mark.statusCode).toBe(200);
    const handled = (
      await t.app.inject({ method: "GET", url: "/api/admin/contact-submissions?status=handled", headers: admin.headers })
    ).json().items;
    expect(handled[0]).toMatchObject({ id: "c1" });
    expect(handled[0].handledAt).toBeTruthy();
  });

  it("lists a person's recordings, playable by an admin through the private audio route", async () => {
    const viewer = await createTestUser(t.app);
    const id = randomUUID();
    await t.app.deps.storage.put("recordings", `${viewer.id}/${id}.m4a`, Readable.from([AUDIO]), "audio/mp4");
    await t.app.deps.db
      .insertInto("recordings")
      .values({
        id,
        user_id: viewer.id,
        story_id: randomUUID(),
        question_index: null,
        object_key: `${viewer.id}/${id}.m4a`,
        content_type: "audio/mp4",
        size: AUDIO.length,
        duration_seconds: null,
        created_at: new Date().toISOString(),
      })
      .execute();
    const detail = (
      await t.app.inject({ method: "GET", url: `/api/admin/users/${viewer.id}/detail`, headers: admin.headers })
    ).json();
    expect(detail.recordings[0]).toMatchObject({ id, storyTitleEn: null, audioUrl: `/api/recordings/${id}/audio` });
    const res = await t.app.inject({ method: "GET", url: detail.recordings[0].audioUrl, headers: admin.headers });
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.length).toBe(AUDIO.length);
    const stranger = await createTestUser(t.app);
    // Someone else's recording is not theirs to hear (the recordings module does not even say it exists).
    const strangerStatus = (await t.app.inject({ method: "GET", url: detail.recordings[0].audioUrl, headers: stranger.headers }))
      .statusCode;
    expect([403, 404]).toContain(strangerStatus);
    expect(
      (await t.app.inject({ method: "GET", url: `/api/admin/users/${viewer.id}/detail`, headers: viewer.headers })).statusCode,
    ).toBe(403);
  });

  it("counts the funnel, sign-ups per day and recordings per story in a date range", async () => {
    const today = new Date().toISOString().slice(0, 10);
    await t.app.deps.db
      .insertInto("analytics_events")
      .values({ name: "landing_video_end", user_id: null, properties: "{}", created_at: new Date().toISOString() })
      .execute();
    const res = await t.app.inject({
      method: "GET",
      url: `/api/admin/analytics?from=${today}&to=${today}`,
      headers: admin.headers,
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.funnel[0]).toMatchObject({ step: "landing_video_end", count: 1 });
    expect(body.funnel[1].step).toBe("signup");
    expect(body.funnel[1].count).toBeGreaterThanOrEqual(3);
    expect(body.signupsPerDay).toEqual([{ day: today, count: body.funnel[1].count }]);
    expect(body.funnel.filter((f: { step: string }) => f.step === "story_watched").length).toBe(body.recordingsPerStory.length);
    const empty = (
      await t.app.inject({ method: "GET", url: "/api/admin/analytics?from=2020-01-01&to=2020-01-03", headers: admin.headers })
    ).json();
    expect(empty.signupsPerDay).toEqual([
      { day: "2020-01-01", count: 0 },
      { day: "2020-01-02", count: 0 },
      { day: "2020-01-03", count: 0 },
    ]);
    const reversed = await t.app.inject({
      method: "GET",
      url: "/api/admin/analytics?from=2020-02-01&to=2020-01-01",
      headers: admin.headers,
    });
    expect(reversed.statusCode).toBe(400);
  });
});

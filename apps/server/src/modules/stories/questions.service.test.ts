import { Readable } from "node:stream";
import type { AdminQuestion, AuditEntry } from "@hikaya/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { createTestUser, type TestUser } from "../../test/test-users.ts";

/** Questions and answers in the story editor: versioned saves (no lost edits) and answers in the order chosen. */
let t: TestApp;
let admin: TestUser;
let storyId = "";
const characters: string[] = [];
const MEDIA = "/storage/v1/object/public/question-media/q.mp4";
const AUDIO = "/storage/v1/object/public/audio/a.m4a";

const inject = (method: "GET" | "POST" | "PUT" | "DELETE", url: string, payload?: unknown) =>
  t.app.inject({ method, url, headers: admin.headers, ...(payload === undefined ? {} : { payload: payload as object }) });

beforeAll(async () => {
  t = await createTestApp();
  admin = await createTestUser(t.app, { admin: true });
  await t.app.deps.storage.put("question-media", "q.mp4", Readable.from([Buffer.from("video")]), "video/mp4");
  await t.app.deps.storage.put("audio", "a.m4a", Readable.from([Buffer.from("audio")]), "audio/mp4");
  const story = await inject("POST", "/api/admin/stories", {
    titleEn: "Questions",
    titleAr: "أسئلة",
    videoUrl: "https://youtu.be/hikaya",
  });
  storyId = story.json().id;
  for (const [nameEn, nameAr] of [
    ["Huda", "هدى"],
    ["Omar", "عمر"],
    ["Sara", "سارة"],
  ] as const) {
    const list = (await inject("POST", "/api/admin/characters", { nameEn, nameAr })).json() as { id: string; nameEn: string }[];
    characters.push(list.find((c) => c.nameEn === nameEn)?.id as string);
  }
});
afterAll(async () => t?.close());

async function questions(): Promise<AdminQuestion[]> {
  return (await inject("GET", `/api/admin/stories/${storyId}/questions`)).json();
}

describe("questions and answers", () => {
  it("two saves of one question from one version: the second gets 409 stale_version with the stored question", async () => {
    const [question] = (
      await inject("POST", `/api/admin/stories/${storyId}/questions`, { media: MEDIA })
    ).json() as AdminQuestion[];
    expect(question?.version).toBe(0);
    const first = await inject("PUT", `/api/admin/questions/${question?.id}`, { media: MEDIA, version: 0 });
    expect(first.statusCode).toBe(200);
    expect(first.json()[0].version).toBe(1);
    const storedMedia = first.json()[0].media.split("?")[0];
    const second = await inject("PUT", `/api/admin/questions/${question?.id}`, { media: MEDIA, version: 0 });
    expect(second.statusCode).toBe(409);
    expect(second.json()).toMatchObject({
      code: "conflict",
      details: { reason: "stale_version", current: { id: question?.id, version: 1 } },
    });
    // Nothing changed: the first save's media is still there.
    expect((await questions())[0]?.media.split("?")[0]).toBe(storedMedia);
  });

  it("two saves of one answer from one version: the second is refused with the stored answer", async () => {
    const [question] = await questions();
    const added = (
      await inject("POST", `/api/admin/questions/${question?.id}/answers`, { characterId: characters[0], audio: AUDIO })
    ).json() as AdminQuestion[];
    const answer = added[0]?.answers[0];
    expect(answer?.version).toBe(0);
    const first = await inject("PUT", `/api/admin/answers/${answer?.id}`, {
      characterId: characters[1],
      audio: AUDIO,
      version: 0,
    });
    expect(first.statusCode).toBe(200);
    const second = await inject("PUT", `/api/admin/answers/${answer?.id}`, {
      characterId: characters[2],
      audio: AUDIO,
      version: 0,
    });
    expect(second.statusCode).toBe(409);
    expect(second.json().details).toMatchObject({
      reason: "stale_version",
      current: { id: answer?.id, characterId: characters[1], characterNameEn: "Omar", version: 1 },
    });
    expect((await questions())[0]?.answers[0]?.characterId).toBe(characters[1]);
  });

  it("reorders a question's answers; a stale expected order is refused with 409; deleting closes the gap", async () => {
    const [question] = await questions();
    for (const characterId of [characters[0], characters[2]])
      await inject("POST", `/api/admin/questions/${question?.id}/answers`, { characterId, audio: AUDIO });
    const before = ((await questions())[0]?.answers ?? []).map((a) => a.id);
    expect(before).toHaveLength(3);
    const reversed = [...before].reverse();

    const moved = await inject("POST", `/api/admin/questions/${question?.id}/answers/reorder`, {
      ids: reversed,
      expected: before,
    });
    expect(moved.statusCode).toBe(200);
    expect((moved.json() as AdminQuestion[])[0]?.answers.map((a) => [a.id, a.order])).toEqual(
      reversed.map((id, i) => [id, i + 1]),
    );

    const stale = await inject("POST", `/api/admin/questions/${question?.id}/answers/reorder`, { ids: before, expected: before });
    expect(stale.statusCode).toBe(409);
    const partial = await inject("POST", `/api/admin/questions/${question?.id}/answers/reorder`, {
      ids: reversed.slice(1),
      expected: reversed,
    });
    expect(partial.statusCode).toBe(400);
    expect(((await questions())[0]?.answers ?? []).map((a) => a.id)).toEqual(reversed);

    const audit = (await inject("GET", "/api/admin/audit?action=answer.reorder")).json().entries as AuditEntry[];
    expect(audit[0]).toMatchObject({ targetId: question?.id, details: { from: before, to: reversed } });

    await inject("DELETE", `/api/admin/answers/${reversed[0]}`);
    expect(((await questions())[0]?.answers ?? []).map((a) => [a.id, a.order])).toEqual([
      [reversed[1], 1],
      [reversed[2], 2],
    ]);
  });
});

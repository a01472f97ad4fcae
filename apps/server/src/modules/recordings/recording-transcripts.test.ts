import { type Recording, TRANSCRIPT_MAX } from "@hikaya/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { createTestUser, type TestUser } from "../../test/test-users.ts";
import { mediaWorkerOf } from "../media/worker.ts";
import { multipart, wav } from "./test-fixtures.ts";

/** The storyteller's words for their own recordings (issue 39): owner only, a versioned save, bounded. */
let t: TestApp;
let owner: TestUser;
let other: TestUser;
let admin: TestUser;
let recording: Recording;

const put = (user: TestUser | null, payload: object, id = recording.id) =>
  t.app.inject({ method: "PUT", url: `/api/recordings/${id}/transcript`, headers: user?.headers ?? {}, payload });
const listed = async () =>
  ((await t.app.inject({ url: "/api/recordings", headers: owner.headers })).json() as Recording[]).find(
    (r) => r.id === recording.id,
  );

beforeAll(async () => {
  t = await createTestApp({ SEED_DEMO: "true" });
  await mediaWorkerOf(t.app)?.stop();
  owner = await createTestUser(t.app);
  other = await createTestUser(t.app);
  admin = await createTestUser(t.app, { admin: true });
  const story = await t.app.deps.db.selectFrom("stories").select("id").orderBy("position").executeTakeFirstOrThrow();
  const body = multipart([
    { name: "story", value: story.id },
    { name: "audio", filename: "take.wav", type: "audio/wav", data: wav(1) },
  ]);
  const res = await t.app.inject({
    method: "POST",
    url: "/api/story/audio/add",
    headers: { ...owner.headers, "content-type": body.contentType },
    payload: body.payload,
  });
  recording = res.json().data as Recording;
});
afterAll(() => t.close());

describe("PUT /api/recordings/{id}/transcript", () => {
  it("a new recording has no words, at version 0", () => {
    expect(recording).toMatchObject({ transcript: null, version: 0 });
  });

  it("the owner saves their words (trimmed); the list shows them with the next version", async () => {
    const res = await put(owner, { transcript: "  My father built the house.  ", version: 0 });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: recording.id, transcript: "My father built the house.", version: 1 });
    expect(await listed()).toMatchObject({ transcript: "My father built the house.", version: 1 });
  });

  it("a save from an older version is refused with 409 and what is stored", async () => {
    const res = await put(owner, { transcript: "Overwrite", version: 0 });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({
      code: "conflict",
      details: { reason: "stale_version", current: { transcript: "My father built the house.", version: 1 } },
    });
  });

  it("too many characters is a 400 naming the field; empty text removes the words", async () => {
    const long = await put(owner, { transcript: "x".repeat(TRANSCRIPT_MAX + 1), version: 1 });
    expect(long.statusCode).toBe(400);
    expect(long.json()).toMatchObject({
      code: "validation_failed",
      details: { issues: [{ path: "/transcript", reason: "too_big" }] },
    });
    const cleared = await put(owner, { transcript: "  ", version: 1 });
    expect(cleared.statusCode).toBe(200);
    expect(cleared.json()).toMatchObject({ transcript: null, version: 2 });
  });

  it("nobody else writes them: another family or an admin 404, a visitor 401; unknown ids 404", async () => {
    expect((await put(other, { transcript: "Not mine", version: 2 })).statusCode).toBe(404);
    expect((await put(admin, { transcript: "Not mine", version: 2 })).statusCode).toBe(404);
    expect((await put(null, { transcript: "Not mine", version: 2 })).statusCode).toBe(401);
    expect((await put(owner, { transcript: "x", version: 2 }, "00000000-0000-4000-8000-000000000000")).statusCode).toBe(404);
    expect(await listed()).toMatchObject({ transcript: null, version: 2 });
  });
});

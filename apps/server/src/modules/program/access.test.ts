import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { createTestUser, type TestUser } from "../../test/test-users.ts";
import { multipart, wav } from "../recordings/test-fixtures.ts";

/**
 * Every program endpoint against a visitor, user A, user B and an admin, with the status each must
 * get; then proof that B's attempts changed nothing of A's.
 */
let t: TestApp;
let admin: TestUser;
let a: TestUser;
let b: TestUser;
const ids = { first: "", locked: "", spare: "", recording: "", all: [] as string[] };

beforeAll(async () => {
  t = await createTestApp({ SEED_DEMO: "true" });
  admin = await createTestUser(t.app, { admin: true });
  a = await createTestUser(t.app);
  b = await createTestUser(t.app);
  const stories = await t.app.deps.db.selectFrom("stories").select(["id"]).orderBy("position").execute();
  ids.all = stories.map((s) => s.id);
  ids.first = stories[0]?.id as string;
  ids.locked = stories[4]?.id as string;
  ids.spare = stories[stories.length - 1]?.id as string;
  const now = new Date().toISOString();
  await t.app.deps.db
    .insertInto("profiles")
    .values({
      user_id: a.id,
      name: "Alia",
      city: "Amman",
      phone_number: "+962791234567",
      country_code: "JO",
      from_landing_page: 0,
      agree_to_reminder: 1,
      created_at: now,
      updated_at: now,
    })
    .execute();
  const body = multipart([
    { name: "audio", filename: "a.mp3", type: "audio/mpeg", data: wav(1) },
    { name: "story", value: ids.first },
  ]);
  const res = await t.app.inject({
    method: "POST",
    url: "/api/story/audio/add",
    headers: { ...a.headers, "content-type": body.contentType },
    payload: body.payload,
  });
  ids.recording = res.json().data.id;
});
afterAll(() => t.close());

type Who = "visitor" | "a" | "b" | "admin";
interface Row {
  name: string;
  method?: "GET" | "POST" | "PUT" | "DELETE";
  url: () => string;
  body?: () => unknown;
  multipart?: () => ReturnType<typeof multipart>;
  expect: Record<Who, number>;
}
const all = (status: number) => ({ visitor: status, a: status, b: status, admin: status });

const table: Row[] = [
  { name: "list stories", url: () => "/api/stories", expect: all(200) },
  { name: "an open story", url: () => `/api/stories/${ids.first}`, expect: all(200) },
  { name: "a locked story", url: () => `/api/stories/${ids.locked}`, expect: { visitor: 200, a: 403, b: 403, admin: 200 } },
  { name: "unknown story", url: () => "/api/stories/nope", expect: all(404) },
  {
    name: "create a story",
    method: "POST",
    url: () => "/api/stories",
    body: () => ({ url: "https://www.youtube.com/watch?v=demo", title: "T", subtitle: "S" }),
    expect: { visitor: 401, a: 403, b: 403, admin: 201 },
  },
  {
    name: "update a story",
    method: "PUT",
    url: () => `/api/stories?id=${ids.spare}`,
    body: () => ({ subtitle: "edited" }),
    expect: { visitor: 401, a: 403, b: 403, admin: 200 },
  },
  {
    name: "reorder stories",
    method: "POST",
    url: () => "/api/stories/reorder",
    body: () => ({ ids: ids.all }),
    expect: { visitor: 401, a: 403, b: 403, admin: 400 /* the story created above is missing from the list */ },
  },
  {
    name: "delete a story",
    method: "DELETE",
    url: () => `/api/stories?id=${ids.spare}`,
    expect: { visitor: 401, a: 403, b: 403, admin: 200 },
  },
  { name: "list users", url: () => "/api/users", expect: { visitor: 401, a: 403, b: 403, admin: 200 } },
  { name: "user A", url: () => `/api/users/${a.id}`, expect: { visitor: 401, a: 200, b: 403, admin: 200 } },
  { name: "unknown user", url: () => "/api/users/nope", expect: { visitor: 401, a: 403, b: 403, admin: 404 } },
  {
    name: "A watches story 1",
    method: "POST",
    url: () => `/api/users/${a.id}/watchStory/${ids.first}`,
    expect: { visitor: 401, a: 200, b: 403, admin: 403 },
  },
  { name: "own profile", url: () => "/api/profile", expect: { visitor: 401, a: 200, b: 200, admin: 200 } },
  {
    name: "own profile (token API)",
    method: "POST",
    url: () => "/api/profile",
    expect: { visitor: 401, a: 200, b: 200, admin: 200 },
  },
  {
    name: "update own profile",
    method: "POST",
    url: () => "/api/profile/update",
    multipart: () => multipart([{ name: "city", value: "Irbid" }]),
    expect: { visitor: 401, a: 200, b: 200, admin: 200 },
  },
  { name: "instruction", url: () => "/api/instruction?location=Add%20Website", expect: all(200) },
  {
    name: "instruction (token API)",
    method: "POST",
    url: () => "/api/instruction",
    body: () => ({ location: "Record Thoughts" }),
    expect: { visitor: 401, a: 200, b: 200, admin: 200 },
  },
  { name: "landing answers", url: () => "/api/landing/answers", expect: all(200) },
  { name: "contents", url: () => "/api/get/contents", expect: all(200) },
  { name: "settings", url: () => "/api/settings", expect: all(200) },
  {
    name: "contact form",
    method: "POST",
    url: () => "/api/contactSubmission",
    body: () => ({ name: "N", message: "M" }),
    expect: all(201),
  },
  {
    name: "analytics",
    method: "POST",
    url: () => "/api/events",
    body: () => ({ events: [{ name: "signup", properties: {} }] }),
    expect: all(202),
  },
  {
    name: "questions of story 1",
    method: "POST",
    url: () => "/api/story/questions",
    body: () => ({ story: ids.first }),
    expect: { visitor: 401, a: 200, b: 200, admin: 200 },
  },
  {
    name: "questions of a locked story",
    method: "POST",
    url: () => "/api/story/questions",
    body: () => ({ story: ids.locked }),
    expect: { visitor: 401, a: 403, b: 403, admin: 200 },
  },
  {
    name: "answers of story 1",
    method: "POST",
    url: () => "/api/story/questions/answers",
    body: () => ({ story: ids.first }),
    expect: { visitor: 401, a: 200, b: 200, admin: 200 },
  },
  {
    name: "answers of a locked story",
    method: "POST",
    url: () => "/api/story/questions/answers",
    body: () => ({ story: ids.locked }),
    expect: { visitor: 401, a: 403, b: 403, admin: 200 },
  },
  {
    name: "upload a recording",
    method: "POST",
    url: () => "/api/story/audio/add",
    multipart: () =>
      multipart([
        { name: "story", value: ids.first },
        { name: "audio", filename: "r.mp3", type: "audio/mpeg", data: wav(0.5) },
      ]),
    expect: { visitor: 401, a: 200, b: 200, admin: 200 },
  },
  { name: "own recordings", url: () => "/api/recordings", expect: { visitor: 401, a: 200, b: 200, admin: 200 } },
  {
    name: "A's recording audio",
    url: () => `/api/recordings/${ids.recording}/audio`,
    expect: { visitor: 401, a: 200, b: 404, admin: 200 },
  },
  {
    name: "A's recordings list",
    url: () => `/api/users/${a.id}/recordings`,
    expect: { visitor: 401, a: 200, b: 403, admin: 200 },
  },
  { name: "API reference", url: () => "/api/docs/json", expect: all(200) },
];

const headersOf = (who: Who) => ({ visitor: {}, a: a.headers, b: b.headers, admin: admin.headers })[who];

describe("access table", () => {
  it.each(table.map((row) => [row.name, row] as const))("%s", async (_name, row) => {
    const got: Record<string, number> = {};
    for (const who of ["visitor", "a", "b", "admin"] as const) {
      const form = row.multipart?.();
      const res = await t.app.inject({
        method: row.method ?? "GET",
        url: row.url(),
        headers: { ...headersOf(who), ...(form ? { "content-type": form.contentType } : {}) },
        ...(form ? { payload: form.payload } : row.body ? { payload: row.body() as object } : {}),
      });
      got[who] = res.statusCode;
      expect(res.statusCode, `${who}: ${res.body.slice(0, 200)}`).toBeLessThan(500);
      expect(res.headers["content-type"] ?? "").toMatch(/json|audio|octet|html/);
    }
    expect(got).toEqual(row.expect);
  });

  it("B never saw nor changed A's profile, progress or recordings", async () => {
    const aProfile = (await t.app.inject({ url: "/api/profile", headers: a.headers })).json();
    expect(aProfile).toMatchObject({ name: "Alia", city: "Irbid", country: "+962 Jordan", lastWatchedStoryId: 1 });
    expect(aProfile.watchedStories).toHaveLength(1);
    const bProfile = (await t.app.inject({ url: "/api/profile", headers: b.headers })).json();
    expect(bProfile).toMatchObject({ id: b.id, name: null, city: "Irbid", lastWatchedStoryId: 0, watchedStories: [] });
    const aRecordings = (await t.app.inject({ url: "/api/recordings", headers: a.headers })).json() as { userId: string }[];
    expect(aRecordings).toHaveLength(2);
    const bRecordings = (await t.app.inject({ url: "/api/recordings", headers: b.headers })).json() as { userId: string }[];
    expect(bRecordings.every((r) => r.userId === b.id)).toBe(true);
    const progress = await t.app.deps.db.selectFrom("progress").selectAll().execute();
    expect(progress.map((p) => p.user_id)).toEqual([a.id]);
  });
});

describe("bad input never answers 500", () => {
  const posts = [
    "/api/stories",
    "/api/stories/reorder",
    "/api/instruction",
    "/api/profile",
    "/api/profile/update",
    "/api/story/questions",
    "/api/story/questions/answers",
    "/api/story/audio/add",
    "/api/contactSubmission",
    "/api/events",
  ];
  const bodies: { type: string; payload: string }[] = [
    { type: "application/json", payload: "{" },
    { type: "application/json", payload: "null" },
    { type: "application/json", payload: "[]" },
    { type: "application/json", payload: '"text"' },
    { type: "application/json", payload: '{"story": 12, "ids": "x", "events": {}, "name": [], "location": null}' },
    { type: "application/json", payload: "" },
    { type: "text/plain", payload: "hello" },
    { type: "application/x-www-form-urlencoded", payload: "story=1&name=x" },
    { type: "multipart/form-data; boundary=zzz", payload: '--zzz\r\nContent-Disposition: form-data; name="story"\r\n\r\nabc' },
    { type: "multipart/form-data", payload: "garbage" },
    {
      type: "multipart/form-data; boundary=zzz",
      payload: `--zzz\r\nContent-Disposition: form-data; name="audio"; filename="a.mp3"\r\nContent-Type: audio/mpeg\r\n\r\nRIFF\x24\x00\x00\x00WAVEfmt ${"x".repeat(5000)}`,
    },
  ];

  it.each(posts)("POST %s", async (url) => {
    for (const who of [a, admin]) {
      for (const body of bodies) {
        const res = await t.app.inject({
          method: "POST",
          url,
          headers: { ...who.headers, "content-type": body.type },
          payload: body.payload,
        });
        // The profile routes take no required field: an empty or null body reads (or keeps) the profile.
        if (!url.startsWith("/api/profile")) {
          expect(res.statusCode, `${body.type} ${body.payload.slice(0, 30)} → ${res.body.slice(0, 200)}`).toBeGreaterThanOrEqual(
            400,
          );
        }
        expect(res.statusCode, `${body.type} ${body.payload.slice(0, 30)} → ${res.body.slice(0, 200)}`).toBeLessThan(500);
        expect(() => res.json()).not.toThrow();
      }
    }
  });

  it("odd ids and query values are clear 4xx", async () => {
    const long = "x".repeat(300);
    for (const url of [
      `/api/stories/${long}`,
      `/api/users/${long}`,
      "/api/users?limit=-1",
      "/api/instruction?location=",
      "/api/stories/%00",
      `/api/recordings/${long}/audio`,
    ]) {
      const res = await t.app.inject({ url, headers: admin.headers });
      expect(res.statusCode, url).toBeGreaterThanOrEqual(400);
      expect(res.statusCode, url).toBeLessThan(500);
    }
    const nul = { name: "a\u0000b", message: "m" };
    const contact = await t.app.inject({ method: "POST", url: "/api/contactSubmission", payload: nul });
    expect(contact.statusCode).toBe(400);
    const form = multipart([
      { name: "story", value: "a\u0000b" },
      { name: "audio", filename: "r.mp3", type: "audio/mpeg", data: wav(0.1) },
    ]);
    const upload = await t.app.inject({
      method: "POST",
      url: "/api/story/audio/add",
      headers: { ...a.headers, "content-type": form.contentType },
      payload: form.payload,
    });
    expect(upload.statusCode).toBe(400);
    for (const url of ["/api/stories?id=", `/api/stories?id=${long}`, "/api/stories?id=%00"]) {
      const res = await t.app.inject({ method: "DELETE", url, headers: admin.headers });
      expect(res.statusCode, url).toBe(400);
    }
  });
});

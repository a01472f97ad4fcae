import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DatabaseHandle, openDatabase } from "../../db/database.ts";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { createTestUser, type TestUser } from "../../test/test-users.ts";

/** The profile answer comes from memory while nothing changed, and is current on the very next read after a change. */
describe("the profile from memory", () => {
  let t: TestApp;
  let person: TestUser;
  let behindItsBack: DatabaseHandle;
  beforeAll(async () => {
    t = await createTestApp({ SEED_DEMO: "true" });
    person = await createTestUser(t.app);
    behindItsBack = openDatabase(t.config.database);
  });
  afterAll(async () => {
    await behindItsBack?.close();
    await t?.close();
  });

  const profile = async () => {
    const res = await t.app.inject({ method: "POST", url: "/api/profile", headers: person.headers });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
    return res.json().data as { city: string | null; watchedStories: unknown[]; lastWatchedStoryId: number };
  };

  it("is not read again while nothing changed, and shows an update and a watch on the very next read", async () => {
    const before = await profile();
    await behindItsBack.db
      .insertInto("profiles")
      .values({
        user_id: person.id,
        city: "Behind its back",
        from_landing_page: 0,
        agree_to_reminder: 1,
        created_at: "",
        updated_at: "",
      })
      .execute();
    expect((await profile()).city).toBe(before.city);
    const updated = await t.app.inject({
      method: "POST",
      url: "/api/profile/update",
      headers: person.headers,
      payload: { city: "Amman" },
    });
    expect(updated.statusCode, updated.body).toBe(200);
    expect((await profile()).city).toBe("Amman");
    const first = await t.app.deps.db.selectFrom("stories").select("id").orderBy("position").executeTakeFirstOrThrow();
    expect(
      (await t.app.inject({ method: "POST", url: `/api/users/me/watchStory/${first.id}`, headers: person.headers })).statusCode,
    ).toBe(200);
    const after = await profile();
    expect([after.watchedStories.length, after.lastWatchedStoryId]).toEqual([1, 1]);
    const plain = await t.app.inject({ method: "GET", url: "/api/profile", headers: person.headers });
    expect(plain.json()).toMatchObject({ city: "Amman", lastWatchedStoryId: 1 });
  });

  it("keeps one person's answer when another person's profile or progress changes; a story change forgets it", async () => {
    const other = await createTestUser(t.app);
    const mine = async () => {
      const res = await t.app.inject({ method: "GET", url: "/api/profile", headers: person.headers });
      expect(res.statusCode, res.body).toBe(200);
      return res.json() as { name: string | null };
    };
    const before = await mine();
    await behindItsBack.db.updateTable("profiles").set({ name: "Behind its back" }).where("user_id", "=", person.id).execute();
    const renamed = await t.app.inject({
      method: "POST",
      url: "/api/profile/update",
      headers: other.headers,
      payload: { name: "Sami" },
    });
    expect(renamed.statusCode, renamed.body).toBe(200);
    const first = await t.app.deps.db.selectFrom("stories").select("id").orderBy("position").executeTakeFirstOrThrow();
    const watched = await t.app.inject({ method: "POST", url: `/api/users/me/watchStory/${first.id}`, headers: other.headers });
    expect(watched.statusCode, watched.body).toBe(200);
    expect((await mine()).name).toBe(before.name);
    await t.app.deps.db.updateTable("stories").set({ subtitle_en: "Edited" }).where("id", "=", first.id).execute();
    expect((await mine()).name).toBe("Behind its back");
  });
});

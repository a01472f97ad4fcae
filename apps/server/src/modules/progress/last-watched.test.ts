import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DatabaseHandle, openDatabase } from "../../db/database.ts";
import type { App } from "../../deps.ts";
import { createReplica, createTestApp, type TestApp, testDialect } from "../../test/test-app.ts";
import { createTestUser, type TestUser } from "../../test/test-users.ts";

/**
 * Each family's furthest watched story is forgotten when that family watches, not when another does (at 40k
 * families a watch somewhere every few seconds would otherwise empty the cache); a story change forgets them all.
 */
const list = async (app: App, user: TestUser) => {
  const res = await app.inject({ method: "GET", url: "/api/stories", headers: user.headers });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { id: string; order: number; watchStatus?: string }[];
};
const statusOf = async (app: App, user: TestUser, order: number) =>
  (await list(app, user)).find((s) => s.order === order)?.watchStatus;
const watch = (app: App, user: TestUser, storyId: string) =>
  app.inject({ method: "POST", url: `/api/users/me/watchStory/${storyId}`, headers: user.headers });

async function firstStory(app: App) {
  return app.deps.db.selectFrom("stories").select(["id", "position"]).orderBy("position").executeTakeFirstOrThrow();
}

/** Records a watch through a connection the app does not hear: only a forgotten entry shows it. */
async function watchBehindItsBack(behind: DatabaseHandle, user: TestUser, story: { id: string; position: number }) {
  await behind.db
    .insertInto("progress")
    .values({ user_id: user.id, story_id: story.id, story_position: story.position, watched_at: new Date().toISOString() })
    .execute();
}

describe("furthest watched stories in memory, per family", () => {
  let t: TestApp;
  let behindItsBack: DatabaseHandle;
  beforeAll(async () => {
    t = await createTestApp({ SEED_DEMO: "true" });
    behindItsBack = openDatabase(t.config.database);
  });
  afterAll(async () => {
    await behindItsBack?.close();
    await t?.close();
  });

  it("one family's watch keeps another family's entry; a story change forgets every entry", async () => {
    const [rana, sami] = [await createTestUser(t.app), await createTestUser(t.app)];
    const first = await firstStory(t.app);
    for (const family of [rana, sami]) expect(await statusOf(t.app, family, 2)).toBe("Locked");
    await watchBehindItsBack(behindItsBack, sami, first);
    expect((await watch(t.app, rana, first.id)).statusCode).toBe(200);
    expect(await statusOf(t.app, rana, 2)).toBe("Active");
    // Sami's entry was not forgotten by Rana's watch: still read from memory, it misses the unheard watch.
    expect(await statusOf(t.app, sami, 2)).toBe("Locked");
    await t.app.deps.db.updateTable("stories").set({ subtitle_en: "Edited" }).where("id", "=", first.id).execute();
    expect(await statusOf(t.app, sami, 2)).toBe("Active");
  });
});

describe.runIf(testDialect() === "postgres")("furthest watched stories on two replicas", () => {
  let t: TestApp;
  let a: App;
  let b: App;
  let behindItsBack: DatabaseHandle;
  beforeAll(async () => {
    t = await createTestApp({ SEED_DEMO: "true" });
    a = t.app;
    b = await createReplica(t.config);
    await b.ready();
    behindItsBack = openDatabase(t.config.database);
  });
  afterAll(async () => {
    await behindItsBack?.close();
    await b?.close();
    await t?.close();
  });

  it("a watch on replica A forgets only the watcher's entry on replica B, before A answers", async () => {
    const [rana, sami] = [await createTestUser(a), await createTestUser(a)];
    const first = await firstStory(a);
    for (const app of [a, b]) for (const family of [rana, sami]) expect(await statusOf(app, family, 2)).toBe("Locked");
    await watchBehindItsBack(behindItsBack, sami, first);
    expect((await watch(a, rana, first.id)).statusCode).toBe(200);
    expect(await statusOf(b, rana, 2)).toBe("Active");
    expect(await statusOf(b, sami, 2)).toBe("Locked");
    // A story change on A forgets every entry on B.
    await a.deps.db.updateTable("stories").set({ subtitle_en: "Edited on A" }).where("id", "=", first.id).execute();
    expect(await statusOf(b, sami, 2)).toBe("Active");
  });
});

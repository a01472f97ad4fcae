import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DatabaseHandle, openDatabase } from "../../db/database.ts";
import type { App } from "../../deps.ts";
import { createTestApp, type TestApp, type TwoReplicas, testDialect, twoReplicas } from "../../test/test-app.ts";
import { createTestUser, type TestUser } from "../../test/test-users.ts";
import { StoryListCache } from "./story-list-cache.ts";

/**
 * The story list costs no database round trip while nothing changed, and is current on the very next request
 * after a change: a watched story unlocks the next one, an edited story shows, on this replica and on another.
 */
describe("StoryListCache", () => {
  it("stays within its bytes however many kinds of viewer ask", async () => {
    const cache = new StoryListCache<{ title: string }>(50_000);
    const rows = [{ title: "a".repeat(500) }];
    for (let last = 0; last < 500; last++) {
      const json = await cache.answer(
        `user:${last}`,
        1,
        async () => rows,
        () => Buffer.alloc(1000, 32),
      );
      expect(json.byteLength).toBe(1000);
      expect(cache.bytes).toBeLessThanOrEqual(50_000);
    }
    expect(cache.bytes).toBeGreaterThan(40_000);
  });

  it("builds an answer from rows read before an invalidation, but does not keep it", async () => {
    const cache = new StoryListCache<string>(100_000);
    let loads = 0;
    let release: () => void = () => undefined;
    const slow = cache.answer(
      "visitor",
      1,
      () => new Promise<string[]>((ok) => (release = () => ok(["old"]))),
      (r) => Buffer.from(r.join()),
    );
    cache.clear();
    release();
    expect((await slow).toString()).toBe("old");
    const fresh = await cache.answer(
      "visitor",
      1,
      async () => {
        loads++;
        return ["new"];
      },
      (r) => Buffer.from(r.join()),
    );
    expect(fresh.toString()).toBe("new");
    expect(loads).toBe(1);
  });
});

const list = async (app: App, user?: TestUser) => {
  const res = await app.inject({ method: "GET", url: "/api/stories", ...(user ? { headers: user.headers } : {}) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { id: string; order: number; title: string; watchStatus?: string; url?: string }[];
};
const statusOf = (stories: { order: number; watchStatus?: string }[], order: number) =>
  stories.find((s) => s.order === order)?.watchStatus;
const watch = (app: App, user: TestUser, storyId: string) =>
  app.inject({ method: "POST", url: `/api/users/me/watchStory/${storyId}`, headers: user.headers });

describe("the story list on one app", () => {
  let t: TestApp;
  let behindItsBack: DatabaseHandle;
  beforeAll(async () => {
    t = await createTestApp({ SEED_DEMO: "true" });
    // A second connection to the same database: its writes are not seen by the app's write watch.
    behindItsBack = openDatabase(t.config.database);
  });
  afterAll(async () => {
    await behindItsBack?.close();
    await t?.close();
  });

  it("answers from memory: a change made behind the app's back does not show", async () => {
    const first = (await list(t.app))[0] as { id: string; title: string };
    await behindItsBack.db
      .updateTable("stories")
      .set({ title_en: "Changed behind its back" })
      .where("id", "=", first.id)
      .execute();
    expect((await list(t.app))[0]?.title).toBe(first.title);
    // Any write through the app, by whatever code, is seen once committed.
    await t.app.deps.db.updateTable("stories").set({ title_en: "Changed by the app" }).where("id", "=", first.id).execute();
    expect((await list(t.app))[0]?.title).toBe("Changed by the app");
  });

  it("unlocks the next story on the very next list request after a watch", async () => {
    const person = await createTestUser(t.app);
    const before = await list(t.app, person);
    expect([statusOf(before, 1), statusOf(before, 2)]).toEqual(["Active", "Locked"]);
    expect(before.find((s) => s.order === 2)?.url).toBeUndefined();
    expect((await watch(t.app, person, (before[0] as { id: string }).id)).statusCode).toBe(200);
    const after = await list(t.app, person);
    expect([statusOf(after, 1), statusOf(after, 2), statusOf(after, 3)]).toEqual(["Deleted", "Active", "Locked"]);
    expect(after.find((s) => s.order === 2)?.url).toBeDefined();
  });
});

describe.runIf(testDialect() === "postgres")("the story list on two replicas of one PostgreSQL database", () => {
  let replicas: TwoReplicas;
  let a: App;
  let b: App;
  beforeAll(async () => {
    replicas = await twoReplicas({ SEED_DEMO: "true" });
    a = replicas.app;
    b = replicas.replica;
  });
  afterAll(async () => replicas?.close());

  it("a story watched through replica A is unlocked on replica B's very next list", async () => {
    const person = await createTestUser(a);
    // Both replicas hold the person's list (and their furthest watched story) in memory.
    for (const app of [a, b]) expect(statusOf(await list(app, person), 2)).toBe("Locked");
    const first = (await list(a, person))[0] as { id: string };
    expect((await watch(a, person, first.id)).statusCode).toBe(200);
    expect(statusOf(await list(b, person), 2)).toBe("Active");
    expect(statusOf(await list(a, person), 2)).toBe("Active");
  });

  it("a story edited through replica B shows on replica A's very next list", async () => {
    const first = (await list(a))[0] as { id: string };
    await list(b);
    await b.deps.db.updateTable("stories").set({ title_en: "Edited on B" }).where("id", "=", first.id).execute();
    expect((await list(a))[0]?.title).toBe("Edited on B");
  });
});

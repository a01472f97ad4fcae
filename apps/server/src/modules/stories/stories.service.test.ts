import type { AdminStory, AuditEntry, Story } from "@hikaya/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { createTestUser, type TestUser } from "../../test/test-users.ts";

/**
 * The one story service behind `/api/stories` and `/api/admin/stories`: the same audit and progress resync
 * through either, drafts hidden from families, publishing audited, the reorder dry run, search and paging,
 * and a title of only spaces refused with a field-level validation error.
 */
let t: TestApp;
let admin: TestUser;
let family: TestUser;
const VIDEO = "https://www.youtube.com/watch?v=hikaya";

beforeAll(async () => {
  t = await createTestApp({ SEED_DEMO: "true" });
  admin = await createTestUser(t.app, { admin: true });
  family = await createTestUser(t.app);
});
afterAll(async () => t?.close());

const inject = (method: "GET" | "POST" | "PUT" | "DELETE", url: string, who: TestUser | null, payload?: unknown) =>
  t.app.inject({ method, url, headers: who?.headers ?? {}, ...(payload === undefined ? {} : { payload: payload as object }) });

async function adminList(query = ""): Promise<AdminStory[]> {
  return (await inject("GET", `/api/admin/stories${query}`, admin)).json();
}
async function familyList(who: TestUser | null = family): Promise<Story[]> {
  return (await inject("GET", "/api/stories", who)).json();
}
async function auditOf(action: string): Promise<AuditEntry[]> {
  return (await inject("GET", `/api/admin/audit?limit=200&action=${action}`, admin)).json().entries;
}
async function progressPositions(userId: string) {
  return t.app.deps.db
    .selectFrom("progress")
    .innerJoin("stories", "stories.id", "progress.story_id")
    .select(["progress.story_position as kept", "stories.position as now"])
    .where("progress.user_id", "=", userId)
    .execute();
}
async function watch(who: TestUser, storyId: string) {
  return inject("POST", `/api/users/${who.id}/watchStory/${storyId}`, who);
}

describe("one service behind both route sets", () => {
  it("creates, moves and deletes through /api/stories and /api/admin/stories with the same audit and progress resync", async () => {
    const watcher = await createTestUser(t.app);
    const first = (await familyList(watcher))[0] as Story;
    expect((await watch(watcher, first.id)).statusCode).toBe(200);

    const viaSpec = await inject("POST", "/api/stories", admin, { order: 1, url: VIDEO, title: "Spec first" });
    expect(viaSpec.statusCode).toBe(201);
    const viaConsole = await inject("POST", "/api/admin/stories", admin, {
      titleEn: "Console first",
      titleAr: "الأولى من اللوحة",
      videoUrl: VIDEO,
      order: 1,
    });
    expect(viaConsole.statusCode).toBe(200);
    const specId = viaSpec.json().id as string;
    const consoleId = viaConsole.json().id as string;

    // Both audited alike, both moved the watched story down, and the person's progress followed it.
    const creates = await auditOf("story.create");
    for (const id of [specId, consoleId]) {
      const entry = creates.find((e) => e.targetId === id);
      expect(entry?.actorId).toBe(admin.id);
      expect(entry?.details).toMatchObject({
        order: 1,
        moved: expect.arrayContaining([expect.objectContaining({ id: first.id })]),
      });
    }
    expect(await progressPositions(watcher.id)).toEqual([{ kept: 3, now: 3 }]);

    // Moving through the spec's PUT is audited as a reorder and resyncs progress too.
    const moved = await inject("PUT", `/api/stories?id=${first.id}`, admin, { order: 1 });
    expect(moved.statusCode).toBe(200);
    expect((await auditOf("story.reorder")).some((e) => JSON.stringify(e.details).includes(first.id))).toBe(true);
    expect(await progressPositions(watcher.id)).toEqual([{ kept: 1, now: 1 }]);

    // Both deletes audited with the same details; orders close up.
    expect((await inject("DELETE", `/api/stories?id=${specId}`, admin)).statusCode).toBe(200);
    expect((await inject("DELETE", `/api/admin/stories/${consoleId}`, admin)).statusCode).toBe(200);
    const deletes = await auditOf("story.delete");
    for (const id of [specId, consoleId])
      expect(deletes.find((e) => e.targetId === id)?.details).toMatchObject({ watchedBy: 0, recordingsKept: 0 });
    const orders = (await adminList()).map((s) => s.order);
    expect(orders).toEqual(orders.map((_, i) => i + 1));
    // The spec's edits are versioned saves too: a stale one is refused with the stored story.
    const current = (await adminList()).find((s) => s.id === first.id) as AdminStory;
    const stale = await inject("PUT", `/api/stories?id=${first.id}`, admin, { subtitle: "late", version: current.version - 1 });
    expect(stale.statusCode).toBe(409);
    expect(stale.json().details).toMatchObject({ reason: "stale_version", current: { id: first.id } });
  });

  it("refuses a title of only spaces with a field-level validation error through either API, saving nothing", async () => {
    const before = await adminList();
    const console = await inject("POST", "/api/admin/stories", admin, { titleEn: "   ", titleAr: "عنوان", videoUrl: VIDEO });
    expect(console.statusCode).toBe(400);
    expect(console.json()).toMatchObject({
      code: "validation_failed",
      details: { issues: [expect.objectContaining({ path: "/titleEn", reason: "too_small" })] },
    });
    const spec = await inject("POST", "/api/stories", admin, { title: " \t ", url: VIDEO });
    expect(spec.statusCode).toBe(400);
    expect(spec.json().details.issues[0]).toMatchObject({ path: "/title", reason: "too_small" });
    const edit = await inject("PUT", `/api/admin/stories/${before[0]?.id}`, admin, {
      titleEn: "Fine",
      titleAr: "   ",
      videoUrl: VIDEO,
    });
    expect(edit.json().details.issues[0]).toMatchObject({ path: "/titleAr", reason: "too_small" });
    expect(await adminList()).toEqual(before);
  });
});

describe("drafts", () => {
  it("a draft is hidden from families, sits after the published stories, and publishing is audited", async () => {
    const published = await familyList();
    const created = await inject("POST", "/api/admin/stories", admin, {
      titleEn: "Draft tale",
      titleAr: "حكاية مسودة",
      videoUrl: VIDEO,
      published: false,
      order: 1,
    });
    expect(created.statusCode).toBe(200);
    const draft = created.json() as AdminStory;
    // Asked for order 1, a draft still goes after every published story: families' orders never count it.
    expect(draft).toMatchObject({ published: false, order: published.length + 1 });

    expect((await familyList()).map((s) => s.id)).toEqual(published.map((s) => s.id));
    expect((await familyList(null)).some((s) => s.id === draft.id)).toBe(false);
    expect((await familyList(admin)).some((s) => s.id === draft.id)).toBe(false);
    expect((await inject("GET", `/api/stories/${draft.id}`, family)).statusCode).toBe(404);
    expect((await inject("GET", `/api/stories/${draft.id}`, null)).statusCode).toBe(404);
    expect((await inject("POST", "/api/story/questions", family, { story: draft.id })).statusCode).toBe(404);
    expect((await watch(family, draft.id)).statusCode).toBe(404);
    // The console's preview reads it as admins do.
    expect((await inject("GET", `/api/stories/${draft.id}`, admin)).json()).toMatchObject({ id: draft.id, title: "Draft tale" });

    // A second draft; publishing the later one makes it the last published story, the other stays a draft.
    const other = (
      await inject("POST", "/api/admin/stories", admin, {
        titleEn: "Draft two",
        titleAr: "مسودة ثانية",
        videoUrl: VIDEO,
        published: false,
      })
    ).json() as AdminStory;
    const publish = await inject("PUT", `/api/admin/stories/${other.id}/published`, admin, { published: true });
    expect(publish.statusCode).toBe(200);
    expect(publish.json()).toMatchObject({ published: true, order: published.length + 1 });
    const familyNow = await familyList();
    expect(familyNow.at(-1)).toMatchObject({ id: other.id, order: published.length + 1 });
    expect((await adminList()).find((s) => s.id === draft.id)).toMatchObject({ published: false, order: published.length + 2 });
    const entry = (await auditOf("story.publish")).find((e) => e.targetId === other.id);
    expect(entry).toMatchObject({ actorId: admin.id, details: { from: published.length + 2, to: published.length + 1 } });

    // Back to draft while nobody watched it: audited; once watched it cannot go back.
    const unpublish = await inject("PUT", `/api/admin/stories/${other.id}/published`, admin, { published: false });
    expect(unpublish.json()).toMatchObject({ published: false, order: published.length + 1 });
    expect((await auditOf("story.unpublish")).some((e) => e.targetId === other.id)).toBe(true);
    expect((await familyList()).map((s) => s.id)).toEqual(published.map((s) => s.id));

    const watcher = await createTestUser(t.app);
    for (const s of await familyList(watcher)) expect((await watch(watcher, s.id)).statusCode).toBe(200);
    await inject("PUT", `/api/admin/stories/${draft.id}/published`, admin, { published: true });
    expect((await familyList(watcher)).at(-1)).toMatchObject({ id: draft.id, watchStatus: "Active" });
    expect((await watch(watcher, draft.id)).statusCode).toBe(200);
    const refused = await inject("PUT", `/api/admin/stories/${draft.id}/published`, admin, { published: false });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().details).toMatchObject({ reason: "watched", watchedBy: 1 });

    for (const id of [draft.id, other.id]) await inject("DELETE", `/api/admin/stories/${id}`, admin);
  });

  it("existing and seeded stories are published; the spec's API publishes unless told otherwise", async () => {
    expect((await adminList()).every((s) => s.published)).toBe(true);
    const draft = await inject("POST", "/api/stories", admin, { url: VIDEO, title: "Spec draft", published: false });
    expect(draft.statusCode).toBe(201);
    expect((await familyList()).some((s) => s.id === draft.json().id)).toBe(false);
    await inject("DELETE", `/api/stories?id=${draft.json().id}`, admin);
  });
});

describe("moving stories before families' positions", () => {
  it("a dry run counts the people who would see a story they never watched as watched; the move itself works as before", async () => {
    const watcher = await createTestUser(t.app);
    const stories = await familyList(watcher);
    const ids = stories.map((s) => s.id);
    const impact = async (next: string[]) =>
      ((await inject("POST", "/api/admin/stories/reorder/impact", admin, { ids: next })).json() as { affected: number }).affected;
    const tenthFirst = [ids[9] as string, ...ids.filter((_, i) => i !== 9)];
    const swapLate = [...ids];
    [swapLate[10], swapLate[11]] = [swapLate[11] as string, swapLate[10] as string];
    const swapWatched = [ids[1] as string, ids[0] as string, ...ids.slice(2)];
    const firstPastUnwatched = [ids[1] as string, ids[2] as string, ids[3] as string, ids[0] as string, ...ids.slice(4)];
    const moves = [tenthFirst, swapLate, swapWatched, firstPastUnwatched];
    // People from the other tests count too: measure what this person adds.
    const before = await Promise.all(moves.map(impact));
    for (const s of stories.slice(0, 3)) expect((await watch(watcher, s.id)).statusCode).toBe(200);
    const after = await Promise.all(moves.map(impact));
    // Story 10 first: this person (watched 1…3) would see it as watched. Swapping two stories nobody reached, or
    // two they watched, affects nobody; their first story moved past unwatched ones does.
    expect(after.map((n, i) => n - (before[i] as number))).toEqual([1, 0, 0, 1]);
    expect((await inject("POST", "/api/admin/stories/reorder/impact", admin, { ids: ids.slice(1) })).statusCode).toBe(400);

    const moved = await inject("POST", "/api/admin/stories/reorder", admin, { ids: tenthFirst, expected: ids });
    expect(moved.statusCode).toBe(200);
    expect((await familyList(watcher))[0]).toMatchObject({ id: ids[9], watchStatus: "Deleted" });
    await inject("POST", "/api/admin/stories/reorder", admin, { ids, expected: tenthFirst });
  });
});

describe("the console's list", () => {
  it("searches titles in either language, pages, and takes LIKE wildcards literally", async () => {
    const all = await adminList();
    const page = await inject("GET", "/api/admin/stories?limit=5&offset=5", admin);
    expect(page.headers["x-total-count"]).toBe(String(all.length));
    expect((page.json() as AdminStory[]).map((s) => s.id)).toEqual(all.slice(5, 10).map((s) => s.id));

    const target = all[3] as AdminStory;
    const word = target.titleEn.slice(1, 6).toUpperCase();
    const found = await adminList(`?q=${encodeURIComponent(word)}`);
    expect(found.map((s) => s.id)).toContain(target.id);
    expect(found.every((s) => s.titleEn.toLowerCase().includes(word.toLowerCase()) || s.titleAr.includes(word))).toBe(true);
    const arabic = await adminList(`?q=${encodeURIComponent(target.titleAr.slice(0, 4))}`);
    expect(arabic.map((s) => s.id)).toContain(target.id);

    for (const q of ["%", "_", "\\", "%' or 1=1 --"]) {
      const res = await inject("GET", `/api/admin/stories?q=${encodeURIComponent(q)}`, admin);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual([]);
      expect(res.headers["x-total-count"]).toBe("0");
    }
    expect([400, 414]).toContain((await inject("GET", `/api/admin/stories?q=${"a".repeat(10_000)}`, admin)).statusCode);
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../deps.ts";
import { type TwoReplicas, twoReplicas } from "../../test/test-app.ts";
import { createTestUser, type TestUser } from "../../test/test-users.ts";

// Twenty console tabs save one thing at once through two replicas, each retrying from the version its 409 names
// until its own save goes through. A save must answer the version its own write produced: answered a later
// one (a re-read after the commit), its next save would be accepted and silently undo a colleague's change.
// What follows a commit may take a while (telling the other replica's caches through the bus is awaited before
// the answer): a slow listener on each replica widens that moment as a slow network would.

const CLIENTS = 20;
const MAX_TRIES = 400;

let t: TwoReplicas;
let admin: TestUser;

beforeAll(async () => {
  t = await twoReplicas();
  admin = await createTestUser(t.app, { admin: true });
  const tables = { site_settings: [], stories: [], characters: [], reminder_settings: [] };
  for (const app of [t.app, t.replica])
    stopWatching.push(app.deps.database.writes.watch(tables, () => new Promise((resolve) => setTimeout(resolve, 15))));
});
afterAll(async () => {
  for (const stop of stopWatching) stop();
  await t?.close();
});
const stopWatching: (() => void)[] = [];

interface Versioned {
  /** What the audit log calls one save of it. */
  actions: string[];
  /** A save of client `i`'s content from `version`. */
  save(app: App, i: number, version: number): Promise<{ statusCode: number; json(): Record<string, unknown> }>;
  /** The content and version a 200 or a 409's `current` shows. */
  read(body: unknown): { content: string; version: number };
  /** Client `i`'s content, as `read` gives it. */
  contentOf(i: number): string;
  /** The content an audit entry says that save wrote. */
  audited(details: Record<string, unknown>): string;
  stored(): Promise<{ content: string; version: number }>;
}

interface Saved {
  client: number;
  content: string;
  version: number;
}

/** Every client saves until its save is accepted; answers each accepted save and every refusal's status. */
async function race(thing: Versioned, start: number): Promise<{ saved: Saved[]; refused: string[] }> {
  const saved: Saved[] = [];
  const refused: string[] = [];
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, i) => {
      // Half the clients start one or two versions behind: mixed versions, as tabs opened at different times.
      let version = Math.max(0, start - (i % 3));
      const app = i % 2 === 0 ? t.app : t.replica;
      for (let tries = 0; tries < MAX_TRIES; tries++) {
        const res = await thing.save(app, i, version);
        if (res.statusCode === 200) {
          saved.push({ client: i, ...thing.read(res.json()) });
          return;
        }
        const body = res.json() as { code?: string; details?: { reason?: string; current?: unknown } };
        refused.push(`${res.statusCode} ${body.code} ${body.details?.reason}`);
        if (res.statusCode !== 409 || !body.details?.current) return;
        version = thing.read(body.details.current).version;
      }
    }),
  );
  return { saved, refused };
}

async function auditTrail(thing: Versioned): Promise<string[]> {
  const rows = await t.app.deps.db
    .selectFrom("admin_audit_log")
    .select(["action", "details"])
    .where("action", "in", thing.actions)
    .orderBy("id")
    .execute();
  return rows.map((row) => thing.audited(JSON.parse(row.details as string)));
}

async function checkHonest(thing: Versioned) {
  const before = await thing.stored();
  const { saved, refused } = await race(thing, before.version);
  // Each client got through once, and every refusal on the way was a 409 stale_version.
  expect(saved.map((s) => s.client).sort((a, b) => a - b)).toEqual(Array.from({ length: CLIENTS }, (_, i) => i));
  expect(new Set(refused)).toEqual(new Set(refused.length ? ["409 conflict stale_version"] : []));
  // Each save answered its own content, and a version no other save answered: one per save, in a row.
  for (const s of saved) expect(s.content, `client ${s.client}`).toBe(thing.contentOf(s.client));
  const versions = saved.map((s) => s.version).sort((a, b) => a - b);
  expect(versions).toEqual(Array.from({ length: CLIENTS }, (_, k) => before.version + k + 1));
  // The version answered is the one that save produced: the audit trail, in commit order, wrote that content then.
  const trail = await auditTrail(thing);
  expect(trail).toHaveLength(CLIENTS);
  for (const s of saved) expect(trail[s.version - before.version - 1], `version ${s.version}`).toBe(s.content);
  // No lost update: what is stored is what the save answered the highest version wrote.
  const last = saved.find((s) => s.version === versions.at(-1));
  expect(await thing.stored()).toEqual({ content: last?.content, version: before.version + CLIENTS });
}

const inject = (app: App, method: "PUT", url: string, payload: Record<string, unknown>) =>
  app.inject({ method, url, headers: admin.headers, payload });

describe("concurrent versioned saves across two replicas answer the version their own write produced", () => {
  it("site settings", async () => {
    const contentOf = (i: number) => `Site ${i}`;
    await checkHonest({
      actions: ["settings.update", "settings.maintenance_on", "settings.maintenance_off"],
      save: (app, i, version) =>
        inject(app, "PUT", "/api/admin/settings", {
          titleEn: contentOf(i),
          titleAr: "حكاية",
          primaryColor: "#2e9e5b",
          siteUnderMaintenance: false,
          version,
        }),
      read: (body) => {
        const s = body as { titleEn: string; version: number };
        return { content: s.titleEn, version: s.version };
      },
      contentOf,
      audited: (details) => (details.titleEn as { to: string }).to,
      stored: async () => {
        const s = (await t.app.inject({ method: "GET", url: "/api/admin/settings", headers: admin.headers })).json();
        return { content: s.titleEn, version: s.version };
      },
    });
  });

  /** A new story, and its title saved by client `i` as a versioned resource. */
  async function storyTitle(): Promise<Versioned & { id: string }> {
    const created = await t.app.inject({
      method: "POST",
      url: "/api/admin/stories",
      headers: admin.headers,
      payload: { titleEn: "Start", titleAr: "البداية", videoUrl: "https://youtu.be/abcdefgh" },
    });
    expect(created.statusCode, created.body).toBe(200);
    const id = created.json().id as string;
    const contentOf = (i: number) => `Story ${i}`;
    const read = (body: unknown) => {
      const s = body as { titleEn: string; version: number };
      return { content: s.titleEn, version: s.version };
    };
    return {
      id,
      actions: ["story.update"],
      save: (app, i, version) =>
        inject(app, "PUT", `/api/admin/stories/${id}`, {
          titleEn: contentOf(i),
          titleAr: "البداية",
          videoUrl: "https://youtu.be/abcdefgh",
          version,
        }),
      read,
      contentOf,
      audited: (details) => (details.titleEn as { to: string }).to,
      stored: async () =>
        read((await t.app.inject({ method: "GET", url: `/api/admin/stories/${id}`, headers: admin.headers })).json()),
    };
  }

  it("a story", async () => {
    await checkHonest(await storyTitle());
  });

  it("a story's Arabic video, saved among saves of its text, answers the version stored when it was written", async () => {
    const story = await storyTitle();
    const { id } = story;
    const arabic = Array.from({ length: 6 }, (_, k) => `https://youtu.be/arabic0${k}`);
    const [, answers] = await Promise.all([
      race(story, 0),
      Promise.all(
        arabic.map(async (videoUrl, k) => {
          await new Promise((resolve) => setTimeout(resolve, 10 * k));
          return inject(k % 2 ? t.replica : t.app, "PUT", `/api/admin/stories/${id}/video/ar`, { videoUrl });
        }),
      ),
    ]);
    // In commit order (the row is held from each write to its commit): a text save counts a version, an Arabic
    // video does not, so each Arabic save saw as many versions as text saves came before it.
    const trail = await t.app.deps.db
      .selectFrom("admin_audit_log")
      .select(["action", "details"])
      .where("target_id", "=", id)
      .where("action", "in", ["story.update", "story.video_ar"])
      .orderBy("id")
      .execute();
    const versionAt = new Map<string, number>();
    let version = 0;
    for (const row of trail) {
      if (row.action === "story.update") version++;
      else versionAt.set((JSON.parse(row.details as string) as { to: string }).to, version);
    }
    expect(version).toBe(CLIENTS);
    for (const [k, res] of answers.entries()) {
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().videoUrlAr).toBe(arabic[k]);
      expect(res.json().version, arabic[k]).toBe(versionAt.get(arabic[k] as string));
    }
  });

  it("a family member", async () => {
    const created = await t.app.inject({
      method: "POST",
      url: "/api/admin/characters",
      headers: admin.headers,
      payload: { nameEn: "Grandma", nameAr: "الجدة" },
    });
    expect(created.statusCode, created.body).toBe(200);
    const id = (created.json() as { id: string }[])[0]?.id as string;
    const contentOf = (i: number) => `Grandma ${i}`;
    // A save answers every family member; a 409 the stored one.
    const read = (body: unknown) => {
      const c = (Array.isArray(body) ? body.find((x: { id: string }) => x.id === id) : body) as {
        nameEn: string;
        version: number;
      };
      return { content: c.nameEn, version: c.version };
    };
    await checkHonest({
      actions: ["character.update"],
      save: (app, i, version) =>
        inject(app, "PUT", `/api/admin/characters/${id}`, { nameEn: contentOf(i), nameAr: "الجدة", version }),
      read,
      contentOf,
      audited: (details) => (details.nameEn as { to: string }).to,
      stored: async () =>
        read((await t.app.inject({ method: "GET", url: "/api/admin/characters", headers: admin.headers })).json()),
    });
  });

  it("reminder rules", async () => {
    const read = (body: unknown) => {
      const r = body as { firstAfterHours: number; version: number };
      return { content: String(r.firstAfterHours), version: r.version };
    };
    await checkHonest({
      actions: ["reminders.settings"],
      save: (app, i, version) =>
        inject(app, "PUT", "/api/admin/reminders/settings", {
          enabled: true,
          firstAfterHours: 100 + i,
          repeatAfterHours: 168,
          maxPerStory: 2,
          windowStart: "09:00",
          windowEnd: "20:00",
          version,
        }),
      read,
      contentOf: (i) => String(100 + i),
      audited: (details) => String(details.firstAfterHours),
      stored: async () =>
        read((await t.app.inject({ method: "GET", url: "/api/admin/reminders/settings", headers: admin.headers })).json()),
    });
  });
});

import {
  type CompiledQuery,
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  sql,
} from "kysely";
import { describe, expect, it } from "vitest";
import { testDialect } from "../test/test-app.ts";
import { prepared } from "./prepared.ts";
import type { Database } from "./schema.ts";
import { WriteWatch, type Written } from "./write-watch.ts";
import type { Reference } from "./written-keys.ts";

/**
 * The reader of written keys fails closed: a write it cannot read is every row of its table, and a statement it
 * cannot read (raw SQL that may write, a kind it does not know, more than one) every row of every watched table.
 * Each case below fails when the branch of written-keys.ts that makes it so is taken out. The statements go through
 * a write watch over Kysely's DummyDriver (runs nothing), compiled as the tested dialect compiles them, so a
 * statement of either dialect (or of none) can be tried; write-watch.test.ts runs real ones on a real database.
 */

// The schema's cascades that these cases cross (write-watch.test.ts uses the ones the database reports).
const REFERENCES: Reference[] = [
  { table: "sessions", column: "user_id", references: "users", to: "id" },
  { table: "profiles", column: "user_id", references: "users", to: "id" },
  { table: "refresh_tokens", column: "session_id", references: "sessions", to: "id" },
];
const WATCHED = {
  progress: ["user_id"],
  profiles: ["user_id"],
  refresh_tokens: ["session_id"],
  sessions: ["id", "user_id"],
  stories: [],
  users: ["id"],
};
type Told = Record<string, string[] | null>;
const EVERYTHING: Told = Object.fromEntries(Object.keys(WATCHED).map((table) => [table, null]));

/** A database that runs nothing, watched as the app's is; `told(run)` is what each statement `run` made was said to write. */
function watchedDb(references: Reference[] | null = REFERENCES, watched: Record<string, string[]> = WATCHED) {
  const writes = new WriteWatch();
  if (references) writes.learnReferences(references);
  const seen: Written[] = [];
  writes.watch(watched, (written) => {
    seen.push(written);
  });
  const postgres = testDialect() === "postgres";
  const db = new Kysely<Database>({
    dialect: writes.wrap({
      createAdapter: () => (postgres ? new PostgresAdapter() : new SqliteAdapter()),
      createDriver: () => new DummyDriver(),
      createIntrospector: (k) => (postgres ? new PostgresIntrospector(k) : new SqliteIntrospector(k)),
      createQueryCompiler: () => (postgres ? new PostgresQueryCompiler() : new SqliteQueryCompiler()),
    }),
  });
  const told = async (run: (k: Kysely<Database>) => Promise<unknown>): Promise<Told[]> => {
    seen.length = 0;
    await run(db);
    return seen.map((w) => Object.fromEntries([...w].sort().map(([table, keys]) => [table, keys && [...keys].sort()])));
  };
  return { db, told };
}

const NOW = "2026-01-01T00:00:00.000Z";
const user = (id: string) => ({
  id,
  email: null,
  phone: null,
  encrypted_password: null,
  role: "authenticated",
  app_metadata: "{}",
  user_metadata: "{}",
  email_confirmed_at: null,
  phone_confirmed_at: null,
  last_sign_in_at: null,
  banned_until: null,
  is_anonymous: 0,
  created_at: NOW,
  updated_at: NOW,
  deleted_at: null,
});
const session = (id: string, userId: string) => ({
  id,
  user_id: userId,
  aal: "aal1",
  amr: "[]",
  factor_id: null,
  user_agent: null,
  ip: null,
  created_at: NOW,
  updated_at: NOW,
  refreshed_at: null,
});
const watch = (userId: string) => ({ user_id: userId, story_id: "s", story_position: 1, watched_at: NOW });

/** Runs each case and checks what it was said to write, naming the case that did not. */
async function expectEach(
  told: (run: (k: Kysely<Database>) => Promise<unknown>) => Promise<Told[]>,
  cases: [string, (k: Kysely<Database>) => Promise<unknown>, Told[]][],
) {
  for (const [what, run, expected] of cases) expect(await told(run), what).toEqual(expected);
}

describe("the written-keys reader fails closed", () => {
  it("reads raw SQL only for whether it can only read: any other is every row of every watched table", async () => {
    const { told } = watchedDb();
    const writes = [
      "update main.stories set subtitle_en = 'x'",
      "update public.progress set watched_at = 'x' where user_id = 'a'",
      "update or replace stories set id = 'x' where id = 'y'",
      "/* note */ update stories set subtitle_en = 'x'",
      "-- note\nupdate stories set subtitle_en = 'x'",
      `update "stories" set subtitle_en = 'x'`,
      `UPDATE "Progress" SET watched_at = 'x'`,
      "update only stories set subtitle_en = 'x'",
      "truncate progress",
      "truncate table stories cascade",
      "with gone as (delete from stories returning id) select id from gone",
      "insert into progress select * from progress",
      "replace into users (id) values ('a')",
      "insert or replace into users (id) values ('a')",
      "delete from progress using stories where stories.id = progress.story_id",
      "update progress set watched_at = 'x' from stories where stories.id = progress.story_id",
      "merge into stories s using stories t on s.id = t.id when matched then delete",
      "call forget_everything()",
      "explain analyze delete from stories",
    ];
    for (const text of writes) expect(await told((k) => sql.raw(text).execute(k)), text).toEqual([EVERYTHING]);
    expect(await told((k) => sql`update stories set subtitle_en = ${"x"} where id = ${"a"}`.execute(k))).toEqual([EVERYTHING]);
    // What can only read tells nothing.
    for (const text of ["select count(*) from stories", " (select 1)", "SELECT 1;", "values (1)"])
      expect(await told((k) => sql.raw(text).execute(k)), text).toEqual([]);
  });

  it("counts more than one statement as every table, raw or built", async () => {
    const { told } = watchedDb();
    await expectEach(told, [
      ["a read, then a write", (k) => sql.raw("select 1; delete from stories").execute(k), [EVERYTHING]],
      ["values, then a write", (k) => sql.raw("values (1);update stories set subtitle_en = 'x';").execute(k), [EVERYTHING]],
      [
        "a built write with a raw one after it",
        (k) =>
          k.updateTable("profiles").set({ city: "x" }).where("user_id", "=", "a").modifyEnd(sql`; delete from stories`).execute(),
        [EVERYTHING],
      ],
      [
        "a built read with a raw write after it",
        (k) => k.selectFrom("stories").select("id").modifyEnd(sql`; delete from stories`).execute(),
        [EVERYTHING],
      ],
    ]);
  });

  it("counts a statement it cannot follow as every table: a schema change, a raw with, a list of targets, no node", async () => {
    const { told } = watchedDb();
    await expectEach(told, [
      ["drop table", (k) => k.schema.dropTable("stories").execute(), [EVERYTHING]],
      ["alter table", (k) => k.schema.alterTable("progress").dropColumn("watched_at").execute(), [EVERYTHING]],
      [
        "a raw with clause",
        (k) =>
          k
            .with("gone", () => sql<{ id: string }>`delete from stories returning id`)
            .selectFrom("gone")
            .selectAll()
            .execute(),
        [EVERYTHING],
      ],
      ["delete from two tables", (k) => k.deleteFrom(["progress", "stories"]).where("user_id", "=", "a").execute(), [EVERYTHING]],
      ["update of two tables", (k) => k.updateTable(["progress", "stories"]).set({ watched_at: "x" }).execute(), [EVERYTHING]],
      [
        "a raw target",
        (k) => k.deleteFrom(sql<{ user_id: string }>`progress`.as("p")).where("user_id", "=", "a").execute(),
        [EVERYTHING],
      ],
      [
        "a compiled query without its node",
        (k) => k.executeQuery({ sql: "delete from stories", parameters: [], query: undefined } as unknown as CompiledQuery),
        [EVERYTHING],
      ],
    ]);
  });

  it("reads a write inside a with clause", async () => {
    const { told } = watchedDb();
    await expectEach(told, [
      [
        "with … delete, select",
        (k) =>
          k
            .with("gone", (w) => w.deleteFrom("progress").where("user_id", "=", "a").returning("story_id"))
            .selectFrom("gone")
            .selectAll()
            .execute(),
        [{ progress: ["a"] }],
      ],
    ]);
  });

  it("does not read the rows of a write holding raw SQL, which can say more than its place in the tree", async () => {
    const { told } = watchedDb();
    await expectEach(told, [
      [
        "`and a or b` beside the key",
        (k) => k.deleteFrom("progress").where("user_id", "=", "a").where(sql<boolean>`true or 1 = 1`).execute(),
        [{ progress: null }],
      ],
      [
        "a value that comments out the where",
        (k) => k.updateTable("progress").set({ watched_at: sql<string>`'x' --` }).where("user_id", "=", "a").execute(),
        [{ progress: null }],
      ],
      [
        "the rows a raw-conditioned delete takes along",
        (k) => k.deleteFrom("users").where("id", "=", "a").where(sql<boolean>`true or 1 = 1`).execute(),
        [{ profiles: null, refresh_tokens: null, sessions: null, users: null }],
      ],
    ]);
  });

  it("does not read the rows of a write that reads other tables: update … from, delete … using, joins", async () => {
    const { told } = watchedDb();
    // With its target aliased, the table's own name is the other copy: every row of `p` is written.
    await expectEach(told, [
      [
        "update … from",
        (k) =>
          k.updateTable("progress as p").from("progress").set({ watched_at: "x" }).where("progress.user_id", "=", "a").execute(),
        [{ progress: null }],
      ],
      [
        "delete … using",
        (k) => k.deleteFrom("progress as p").using("progress").where("progress.user_id", "=", "a").execute(),
        [{ progress: null }],
      ],
      [
        "delete … join",
        (k) =>
          k
            .deleteFrom("progress as p")
            .innerJoin("progress", "progress.story_id", "p.story_id")
            .where("progress.user_id", "=", "a")
            .execute(),
        [{ progress: null }],
      ],
    ]);
  });

  it("does not read an insert's keys where it may change a row of another key", async () => {
    const { told } = watchedDb();
    const profile = {
      user_id: "a",
      city: "Amman",
      from_landing_page: 0,
      agree_to_reminder: 1,
      created_at: NOW,
      updated_at: NOW,
    };
    await expectEach(told, [
      [
        "on duplicate key update",
        (k) => k.insertInto("profiles").values(profile).onDuplicateKeyUpdate({ city: "Irbid" }).execute(),
        [{ profiles: null }],
      ],
    ]);
    // An upsert on the session's id may update a row of another user: by id it is told, by user it is not known.
    const upsert = (k: Kysely<Database>) =>
      k
        .insertInto("sessions")
        .values(session("s1", "a"))
        .onConflict((oc) => oc.column("id").doUpdateSet({ updated_at: NOW }))
        .execute();
    expect(await told(upsert)).toEqual([{ sessions: ["s1"] }]);
    expect(await watchedDb(REFERENCES, { sessions: ["user_id"] }).told(upsert), "an upsert on another column").toEqual([
      { sessions: null },
    ]);
    expect(
      await told((k) =>
        k
          .insertInto("progress")
          .values(watch("a"))
          .onConflict((oc) => oc.columns(["user_id", "story_id"]).doUpdateSet({ user_id: (eb) => eb.ref("excluded.user_id") }))
          .execute(),
      ),
      "an upsert moving its key to what is not a literal",
    ).toEqual([{ progress: null }]);
  });

  it("follows what a replace or a merge deletes by foreign key, the deleted rows unknown", async () => {
    const { told } = watchedDb();
    const replaced = { profiles: null, refresh_tokens: null, sessions: null, users: null };
    await expectEach(told, [
      ["replace into", (k) => k.replaceInto("users").values(user("a")).execute(), [replaced]],
      ["insert or replace", (k) => k.insertInto("users").orReplace().values(user("a")).execute(), [replaced]],
      [
        "merge … then delete",
        (k) => k.mergeInto("users").using("sessions", "sessions.user_id", "users.id").whenMatched().thenDelete().execute(),
        [replaced],
      ],
      // An `or` action it does not know may delete as a replace does.
      [
        "insert or (an action unknown here)",
        (k) => {
          const compiled = k.insertInto("users").orIgnore().values(user("a")).compile();
          const node = compiled.query as unknown as Record<string, unknown>;
          const query = { ...node, orAction: { kind: "OrActionNode", action: "delete" } };
          return k.executeQuery({ ...compiled, query } as unknown as CompiledQuery);
        },
        [replaced],
      ],
    ]);
  });

  it("does not read an insert's keys from a select, default values, or a value that is not a literal", async () => {
    const { told } = watchedDb();
    // Compiled once with stand-ins and run with each call's values: the tree holds no key.
    const forget = prepared<{ user: string }, unknown>(["user"], (k, v) =>
      k.deleteFrom("progress").where("user_id", "=", v.user),
    );
    await expectEach(told, [
      [
        "insert … select",
        (k) =>
          k
            .insertInto("progress")
            .columns(["user_id", "story_id", "story_position", "watched_at"])
            .expression(k.selectFrom("progress").select(["user_id", "story_id", "story_position", "watched_at"]))
            .execute(),
        [{ progress: null }],
      ],
      ["default values", (k) => k.insertInto("progress").defaultValues().execute(), [{ progress: null }]],
      [
        "a key from a subquery",
        (k) =>
          k
            .insertInto("progress")
            .values({ ...watch("a"), user_id: k.selectFrom("users").select("id").limit(1) })
            .execute(),
        [{ progress: null }],
      ],
      ["a prepared statement", (k) => forget.execute(k, { user: "a" }), [{ progress: null }]],
    ]);
  });

  it("does not read a condition's keys unless it pins the column: or, not, <>, like, a subquery, another table", async () => {
    const { told } = watchedDb();
    await expectEach(told, [
      [
        "or",
        (k) =>
          k
            .deleteFrom("progress")
            .where((eb) => eb.or([eb("user_id", "=", "a"), eb("story_id", "=", "s")]))
            .execute(),
        [{ progress: null }],
      ],
      [
        "not",
        (k) =>
          k
            .deleteFrom("progress")
            .where((eb) => eb.not(eb("user_id", "=", "a")))
            .execute(),
        [{ progress: null }],
      ],
      ["<>", (k) => k.deleteFrom("progress").where("user_id", "<>", "a").execute(), [{ progress: null }]],
      ["like", (k) => k.deleteFrom("progress").where("user_id", "like", "a%").execute(), [{ progress: null }]],
      [
        "in a subquery",
        (k) => k.deleteFrom("progress").where("user_id", "in", k.selectFrom("users").select("id")).execute(),
        [{ progress: null }],
      ],
      [
        "another table's column",
        (k) =>
          k
            .deleteFrom("progress")
            .where("users.user_id" as "user_id", "=", "a")
            .execute(),
        [{ progress: null }],
      ],
      [
        "an update moving its key to what is not a literal",
        (k) =>
          k
            .updateTable("progress")
            .set((eb) => ({ user_id: eb.ref("story_id") }))
            .where("user_id", "=", "a")
            .execute(),
        [{ progress: null }],
      ],
    ]);
  });

  it("follows cascades: unknown past the first step, for a table watched by other columns, and anywhere unlearned", async () => {
    const { told } = watchedDb();
    await expectEach(told, [
      // Sessions by user, as the deleted user's; their refresh tokens by session, which the statement does not say.
      [
        "a user deleted",
        (k) => k.deleteFrom("users").where("id", "=", "a").execute(),
        [{ profiles: ["a"], refresh_tokens: null, sessions: ["a"], users: ["a"] }],
      ],
    ]);
    const bySessionOnly = watchedDb(REFERENCES, { sessions: ["id"], users: ["id"] });
    expect(await bySessionOnly.told((k) => k.deleteFrom("users").where("id", "=", "a").execute())).toEqual([
      { sessions: null, users: ["a"] },
    ]);
    const unlearned = watchedDb(null);
    expect(await unlearned.told((k) => k.deleteFrom("progress").where("user_id", "=", "a").execute())).toEqual([
      { ...EVERYTHING, progress: ["a"] },
    ]);
    // Only a delete takes rows along.
    expect(await unlearned.told((k) => k.updateTable("users").set({ role: "x" }).where("id", "=", "a").execute())).toEqual([
      { users: ["a"] },
    ]);
  });

  it("tells a streamed write once its stream ends", async () => {
    const { told } = watchedDb();
    await expectEach(told, [
      [
        "a delete … returning, streamed",
        async (k) => {
          for await (const _ of k.deleteFrom("progress").where("user_id", "=", "a").returning("story_id").stream());
        },
        [{ progress: ["a"] }],
      ],
      [
        "a streamed read",
        async (k) => {
          for await (const _ of k.selectFrom("progress").selectAll().stream());
        },
        [],
      ],
    ]);
  });
});

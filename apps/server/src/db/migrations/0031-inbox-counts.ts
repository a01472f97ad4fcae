import { type Kysely, sql } from "kysely";
import type { DialectName } from "../dialect.ts";

/**
 * Frozen: the inbox tabs' counts kept, not counted (issue 41). Every inbox page carries how many conversations there
 * are and how many nobody took; counted, that read every conversation, so at 100,000 families the first page cost
 * 20× what it did at 1,000. `inbox_counts` holds the two numbers in one row (id 1), moved by triggers on
 * `conversations`, so every way a conversation comes, goes (a deleted account's cascade too) or changes hands keeps
 * them. A message to an existing conversation touches no count: on PostgreSQL the insert trigger is per statement
 * and writes only when the statement inserted a row (an upsert that updated inserts none), and the hand-over trigger
 * fires only when `assigned_to` really changed, so the one row is no lock every send has to take.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  await db.schema
    .createTable("inbox_counts")
    .addColumn("id", "integer", (c) => c.primaryKey())
    .addColumn("conversations", "bigint", (c) => c.notNull())
    .addColumn("unassigned", "bigint", (c) => c.notNull())
    .execute();
  await sql`insert into inbox_counts (id, conversations, unassigned)
    select 1, count(*), coalesce(sum(case when assigned_to is null then 1 else 0 end), 0) from conversations`.execute(db);
  if (dialect === "postgres") await postgresTriggers(db);
  else await sqliteTriggers(db);
}

async function postgresTriggers(db: Kysely<unknown>) {
  await sql`create function inbox_counts_added() returns trigger language plpgsql as $$
    begin
      if exists (select 1 from added) then
        update inbox_counts set conversations = conversations + (select count(*) from added),
          unassigned = unassigned + (select count(*) from added where assigned_to is null) where id = 1;
      end if;
      return null;
    end $$`.execute(db);
  await sql`create trigger inbox_counts_insert after insert on conversations referencing new table as added
    for each statement execute function inbox_counts_added()`.execute(db);
  await sql`create function inbox_counts_removed() returns trigger language plpgsql as $$
    begin
      if exists (select 1 from removed) then
        update inbox_counts set conversations = conversations - (select count(*) from removed),
          unassigned = unassigned - (select count(*) from removed where assigned_to is null) where id = 1;
      end if;
      return null;
    end $$`.execute(db);
  await sql`create trigger inbox_counts_delete after delete on conversations referencing old table as removed
    for each statement execute function inbox_counts_removed()`.execute(db);
  await sql`create function inbox_counts_handed() returns trigger language plpgsql as $$
    begin
      update inbox_counts set unassigned = unassigned + (case when new.assigned_to is null then 1 else 0 end)
        - (case when old.assigned_to is null then 1 else 0 end) where id = 1;
      return null;
    end $$`.execute(db);
  await sql`create trigger inbox_counts_assign after update of assigned_to on conversations for each row
    when (old.assigned_to is distinct from new.assigned_to) execute function inbox_counts_handed()`.execute(db);
}

async function sqliteTriggers(db: Kysely<unknown>) {
  // SQLite's upsert fires the insert trigger only for a row it inserted.
  await sql`create trigger inbox_counts_insert after insert on conversations begin
    update inbox_counts set conversations = conversations + 1, unassigned = unassigned + (new.assigned_to is null)
    where id = 1; end`.execute(db);
  await sql`create trigger inbox_counts_delete after delete on conversations begin
    update inbox_counts set conversations = conversations - 1, unassigned = unassigned - (old.assigned_to is null)
    where id = 1; end`.execute(db);
  await sql`create trigger inbox_counts_assign after update of assigned_to on conversations
    when old.assigned_to is not new.assigned_to begin
    update inbox_counts set unassigned = unassigned + (new.assigned_to is null) - (old.assigned_to is null)
    where id = 1; end`.execute(db);
}

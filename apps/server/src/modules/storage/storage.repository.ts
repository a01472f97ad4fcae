import { type Kysely, sql, type Transaction } from "kysely";
import type { Database } from "../../db/schema.ts";

type Db = Kysely<Database> | Transaction<Database>;

/** Every column that keeps the address of a stored file (`/storage/v1/object/...`, maybe with `?v=`). */
const PATH_COLUMNS = [
  ["stories", "video_url"],
  ["stories", "video_url_ar"],
  ["stories", "thumbnail_path"],
  ["stories", "thumbnail_path_ar"],
  ["characters", "thumbnail_path"],
  ["characters", "audio_path"],
  ["questions", "media_path"],
  ["questions", "media_path_ar"],
  ["answers", "audio_path"],
  ["landing_answers", "audio_path"],
  ["instructions", "media_path"],
  ["instructions", "media_path_ar"],
  ["documents", "path"],
  ["documents", "path_ar"],
] as const;

/** Every stored address any row keeps, as written (duplicates possible). */
export async function listReferencedPaths(db: Db): Promise<string[]> {
  const paths: string[] = [];
  for (const [table, column] of PATH_COLUMNS) {
    const { rows } = await sql<{ p: string | null }>`select ${sql.ref(column)} as p from ${sql.table(table)}`.execute(db);
    for (const row of rows) if (row.p) paths.push(row.p);
  }
  return paths;
}

/**
 * Whether any row keeps one of `paths` (exactly, or followed by a `?` query such as a thumbnail's `?v=`).
 * Keys never hold `%`; LIKE's `_` may match more than the one name, an error on the safe side (a file kept, never
 * one lost).
 */
export async function isPathReferenced(db: Db, paths: string[]): Promise<boolean> {
  for (const [table, column] of PATH_COLUMNS) {
    for (const path of paths) {
      const { rows } = await sql`select 1 as x from ${sql.table(table)}
        where ${sql.ref(column)} = ${path} or ${sql.ref(column)} like ${`${path}?%`} limit 1`.execute(db);
      if (rows.length > 0) return true;
    }
  }
  return false;
}

/** The object keys of every recording (bucket `recordings`). */
export async function listRecordingKeys(db: Db): Promise<string[]> {
  return (await db.selectFrom("recordings").select("object_key").execute()).map((r) => r.object_key);
}

export async function isRecordingKey(db: Db, key: string): Promise<boolean> {
  return Boolean(await db.selectFrom("recordings").select("id").where("object_key", "=", key).executeTakeFirst());
}

/** The object keys of every voice message (bucket `voice-notes`): an audio message's body is its key. */
export async function listVoiceNoteKeys(db: Db): Promise<string[]> {
  const rows = await db.selectFrom("messages").select("body").where("message_type", "=", "audio").execute();
  return rows.map((r) => r.body);
}

export async function isVoiceNoteKey(db: Db, key: string): Promise<boolean> {
  const row = await db
    .selectFrom("messages")
    .select("id")
    .where("message_type", "=", "audio")
    .where("body", "=", key)
    .executeTakeFirst();
  return Boolean(row);
}

/** The story media a row keeps at a public address, left from before story media were private. */
export async function listPublicStoryMedia(db: Db) {
  const like = "/storage/v1/object/public/%";
  const stories = await db.selectFrom("stories").select(["id", "video_url as path"]).where("video_url", "like", like).execute();
  const questions = await db
    .selectFrom("questions")
    .select(["id", "media_path as path"])
    .where("media_path", "like", like)
    .execute();
  const answers = await db.selectFrom("answers").select(["id", "audio_path as path"]).where("audio_path", "like", like).execute();
  return [
    ...stories.map((r) => ({ table: "stories" as const, column: "video_url" as const, ...r })),
    ...questions.map((r) => ({ table: "questions" as const, column: "media_path" as const, ...r })),
    ...answers.map((r) => ({ table: "answers" as const, column: "audio_path" as const, ...r })),
  ];
}

/** Points one row at `to`, only if it still keeps `from` (another replica may have moved it first). */
export async function repointMedia(
  db: Db,
  row: { table: "stories" | "questions" | "answers"; column: "video_url" | "media_path" | "audio_path"; id: string },
  from: string,
  to: string,
): Promise<boolean> {
  // A story's updated_at moves too, so every replica's cached story list is rebuilt with the new address.
  const touch = row.table === "stories" ? sql`, updated_at = ${new Date().toISOString()}` : sql``;
  const result = await sql`update ${sql.table(row.table)} set ${sql.ref(row.column)} = ${to}${touch}
    where id = ${row.id} and ${sql.ref(row.column)} = ${from}`.execute(db);
  return Number(result.numAffectedRows ?? 0) > 0;
}

import { type ColumnDefinitionBuilder, type Kysely, sql } from "kysely";

/**
 * Everything that differs between SQLite and PostgreSQL lives here, so migrations and repositories
 * stay dialect-neutral.
 */
export type DialectName = "sqlite" | "postgres";

/** An auto-incrementing integer primary key: `integer … autoincrement` or `bigserial`. */
export function autoIncrementType(dialect: DialectName) {
  return dialect === "postgres" ? ("bigserial" as const) : ("integer" as const);
}

export function autoIncrementPrimaryKey(dialect: DialectName) {
  return (col: ColumnDefinitionBuilder) => (dialect === "postgres" ? col.primaryKey() : col.primaryKey().autoIncrement());
}

/** True when an error is a unique-constraint violation, in either dialect. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; message?: string } | undefined;
  return e?.code === "23505" || e?.code === "SQLITE_CONSTRAINT_UNIQUE" || e?.code === "SQLITE_CONSTRAINT_PRIMARYKEY";
}

/** True when an error is a foreign-key violation, in either dialect. */
export function isForeignKeyViolation(error: unknown): boolean {
  const e = error as { code?: string } | undefined;
  return e?.code === "23503" || e?.code === "SQLITE_CONSTRAINT_FOREIGNKEY";
}

/** A cheap round trip for the health check. */
// biome-ignore lint/suspicious/noExplicitAny: any database schema will do for `select 1`
export async function ping(db: Kysely<any>): Promise<void> {
  await sql`select 1`.execute(db);
}

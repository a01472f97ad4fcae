import { sql } from "kysely";
import type { DB } from "../../db/database.ts";
import { checkSecretName, type SecretStore } from "./secret-store.ts";

/**
 * The `secrets` table. Creation and updates take a transaction-scoped advisory lock on the name, so two
 * replicas starting together do not both create a signing key: the second waits, then reads the first's.
 */
export class PostgresSecretStore implements SecretStore {
  readonly kind = "postgres";
  readonly #db: DB;

  constructor(db: DB) {
    this.#db = db;
  }

  async get<T>(name: string): Promise<T | undefined> {
    checkSecretName(name);
    const row = await this.#db.selectFrom("secrets").select("value").where("name", "=", name).executeTakeFirst();
    return row ? (JSON.parse(row.value) as T) : undefined;
  }

  async getOrCreate<T>(name: string, create: () => T | Promise<T>): Promise<T> {
    const existing = await this.get<T>(name);
    if (existing !== undefined) return existing;
    return this.#locked(name, async (trx) => {
      const row = await trx.selectFrom("secrets").select("value").where("name", "=", name).executeTakeFirst();
      if (row) return JSON.parse(row.value) as T;
      const value = await create();
      const now = new Date().toISOString();
      await trx
        .insertInto("secrets")
        .values({ name, value: JSON.stringify(value), created_at: now, updated_at: now })
        .execute();
      return value;
    });
  }

  async update<T>(name: string, change: (current: T | undefined) => T | Promise<T>): Promise<T> {
    checkSecretName(name);
    return this.#locked(name, async (trx) => {
      const row = await trx.selectFrom("secrets").select("value").where("name", "=", name).executeTakeFirst();
      const next = await change(row ? (JSON.parse(row.value) as T) : undefined);
      const now = new Date().toISOString();
      await trx
        .insertInto("secrets")
        .values({ name, value: JSON.stringify(next), created_at: now, updated_at: now })
        .onConflict((oc) => oc.column("name").doUpdateSet({ value: JSON.stringify(next), updated_at: now }))
        .execute();
      return next;
    });
  }

  #locked<R>(name: string, work: (trx: DB) => Promise<R>): Promise<R> {
    return this.#db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(hashtext(${`hikaya-secret:${name}`}))`.execute(trx);
      return work(trx);
    });
  }
}

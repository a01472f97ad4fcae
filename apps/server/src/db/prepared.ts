import { type Compilable, type CompiledQuery, createQueryId, type DialectAdapter, type Kysely, type QueryResult } from "kysely";
import type { Database } from "./schema.ts";

/** What a prepared query runs on: the database or a transaction. */
type Db = Kysely<Database>;

interface Compiled<O> {
  query: CompiledQuery<O>;
  /** Per parameter: the name of the value that goes there, or null for a constant of the query itself. */
  slots: (string | null)[];
}

/**
 * A query built once with stand-ins for its values and compiled once per database, then run with each call's values
 * where the stand-ins were. Kysely builds and compiles a query anew on every call (an immutable node tree, then a
 * visitor over it to make the SQL); on a path taken for every message that costs more than SQLite takes to run the
 * statement. The statement is the one the builder would make, through the same driver (statement cache, write
 * watch, transactions). Only for a query whose shape does not change with its values: the same columns every time
 * (a value may be null, never undefined: Kysely would leave its column out) and no lists.
 *
 * `names` are the values' names; `build` gets a stand-in under each name and uses them as it would use the values.
 */
export function prepared<V extends Record<string, unknown>, O>(
  names: readonly (keyof V & string)[],
  build: (db: Db, values: V) => Compilable<O>,
) {
  // One compilation per dialect adapter: a database and its transactions share theirs.
  const compiled = new WeakMap<DialectAdapter, Compiled<O>>();

  function compile(db: Db): Compiled<O> {
    const standIns = new Map<object, string>();
    const values: Record<string, object> = {};
    for (const name of names) {
      const standIn = Object.freeze({ preparedValue: name });
      standIns.set(standIn, name);
      values[name] = standIn;
    }
    const query = build(db, values as unknown as V).compile();
    const slots = query.parameters.map((p) => (typeof p === "object" && p !== null ? (standIns.get(p) ?? null) : null));
    const unused = names.filter((name) => !slots.includes(name));
    if (unused.length) throw new Error(`prepared query: ${unused.join(", ")} not used in ${query.sql}`);
    return { query, slots };
  }

  return {
    async execute(db: Db, values: V): Promise<QueryResult<O>> {
      const adapter = db.getExecutor().adapter;
      let entry = compiled.get(adapter);
      if (!entry) {
        entry = compile(db);
        compiled.set(adapter, entry);
      }
      const { query, slots } = entry;
      const parameters = new Array<unknown>(slots.length);
      for (let i = 0; i < slots.length; i++) {
        const name = slots[i];
        if (name === null || name === undefined) parameters[i] = query.parameters[i];
        else {
          const value = values[name];
          if (value === undefined) throw new Error(`prepared query: no value for ${name}`);
          parameters[i] = value;
        }
      }
      return db.executeQuery<O>({ query: query.query, queryId: createQueryId(), sql: query.sql, parameters });
    },
  };
}

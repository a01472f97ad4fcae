import type { CompiledQuery, DatabaseConnection, Dialect, Driver, QueryResult, TransactionSettings } from "kysely";
import { keysWritten, type Reference, type WriteOf, writesIn } from "./written-keys.ts";

/**
 * Per watched table a statement wrote: the values of the first of the watcher's key columns that the statement
 * pins for every row it writes (an insert's values, an update's or delete's `where column = / in`), or null when
 * the rows cannot be told from the statement (any row may have changed). An empty set: rows of no one's (a null key).
 */
export type Written = ReadonlyMap<string, ReadonlySet<string> | null>;

/** Told what watched tables a statement wrote, once that write is committed. Awaited before the write resolves. */
export type WriteListener = (written: Written) => void | Promise<void>;

/** Per table watched, the columns whose values name the changed entries, most specific first ([] : the table as a whole). */
export type Watched = Readonly<Record<string, readonly string[]>>;

interface Listener {
  tables: Watched;
  listener: WriteListener;
}

/** Adds `table`'s keys to `into`; unknown (null) wins over any keys. */
function record(into: Map<string, Set<string> | null>, table: string, keys: ReadonlySet<string> | null) {
  const held = into.get(table);
  if (keys === null || held === null) into.set(table, null);
  else if (held === undefined) into.set(table, new Set(keys));
  else for (const key of keys) held.add(key);
}

/**
 * Lets in-process caches hear about every committed write to the tables they mirror, whichever module or
 * query wrote it (a repository, a transaction, a raw statement, a test's direct insert), and which rows: what a
 * write touched is read from the statement's Kysely node (written-keys.ts), so no repository has to declare it
 * (nor can get it wrong), and what cannot be read from it (raw SQL that may write, among others) counts as every row
 * of every watched table. Inside a transaction the news waits for the commit (and is dropped on rollback): told
 * earlier, a reader could re-read and keep the old rows before they are replaced. The write's own promise resolves
 * only after the listeners did, so a listener that tells other replicas (through the bus) has done so before the
 * request that wrote is answered.
 */
export class WriteWatch {
  readonly #listeners = new Set<Listener>();
  /** Every foreign key that deletes or nulls its rows with the row it references; null until learned (any delete may). */
  #references: Reference[] | null = null;

  watch(tables: Watched, listener: WriteListener): () => void {
    const entry = { tables, listener };
    this.#listeners.add(entry);
    return () => void this.#listeners.delete(entry);
  }

  /** The database's cascading foreign keys (database.ts reads them after migrating), so a delete tells what it takes along. */
  learnReferences(references: Reference[]): void {
    this.#references = references;
  }

  /** Per listener, what `writes` changed of its tables (none when nothing it watches). */
  changes(writes: readonly WriteOf[]): Map<Listener, Map<string, Set<string> | null>> {
    const found = new Map<Listener, Map<string, Set<string> | null>>();
    for (const entry of this.#listeners) {
      const written = new Map<string, Set<string> | null>();
      for (const write of writes)
        for (const [table, keys] of keysWritten(write, entry.tables, this.#references)) record(written, table, keys);
      if (written.size) found.set(entry, written);
    }
    return found;
  }

  async notify(found: ReadonlyMap<Listener, Written>): Promise<void> {
    await Promise.all([...found].map(([{ listener }, written]) => listener(written)));
  }

  /** The dialect with every statement checked for watched writes. */
  wrap(dialect: Dialect): Dialect {
    return {
      createDriver: () => new WatchedDriver(dialect.createDriver(), this),
      createQueryCompiler: () => dialect.createQueryCompiler(),
      createAdapter: () => dialect.createAdapter(),
      createIntrospector: (db) => dialect.createIntrospector(db),
    };
  }
}

class WatchedConnection implements DatabaseConnection {
  readonly inner: DatabaseConnection;
  readonly #watch: WriteWatch;
  /** What the open transaction wrote, per listener, or null outside one. */
  pending: Map<Listener, Map<string, Set<string> | null>> | null = null;

  constructor(inner: DatabaseConnection, watch: WriteWatch) {
    this.inner = inner;
    this.#watch = watch;
  }

  async executeQuery<R>(query: CompiledQuery, options?: Parameters<DatabaseConnection["executeQuery"]>[1]) {
    const result: QueryResult<R> = await this.inner.executeQuery<R>(query, options);
    await this.#wrote(query);
    return result;
  }

  /** A streamed write (an update's or delete's `returning`, where the driver streams one) is told once it ends. */
  async *streamQuery<R>(query: CompiledQuery, chunkSize: number, options?: Parameters<DatabaseConnection["streamQuery"]>[2]) {
    try {
      yield* this.inner.streamQuery<R>(query, chunkSize, options);
    } finally {
      await this.#wrote(query);
    }
  }

  /** Tells what `query` wrote (once committed, inside a transaction). */
  async #wrote(query: CompiledQuery) {
    const writes = writesIn(query);
    if (!writes.length) return;
    const found = this.#watch.changes(writes);
    if (!this.pending) await this.#watch.notify(found);
    else
      for (const [listener, written] of found) {
        const into = this.pending.get(listener) ?? new Map();
        for (const [table, keys] of written) record(into, table, keys);
        this.pending.set(listener, into);
      }
  }
}

class WatchedDriver implements Driver {
  readonly #inner: Driver;
  readonly #watch: WriteWatch;
  readonly #wrapped = new WeakMap<DatabaseConnection, WatchedConnection>();

  constructor(inner: Driver, watch: WriteWatch) {
    this.#inner = inner;
    this.#watch = watch;
    // Savepoints are optional in Kysely's Driver: offer them only when the real driver does.
    if (inner.savepoint) this.savepoint = (c, name, compile) => inner.savepoint?.(unwrap(c), name, compile) as Promise<void>;
    if (inner.rollbackToSavepoint)
      this.rollbackToSavepoint = (c, name, compile) => inner.rollbackToSavepoint?.(unwrap(c), name, compile) as Promise<void>;
    if (inner.releaseSavepoint)
      this.releaseSavepoint = (c, name, compile) => inner.releaseSavepoint?.(unwrap(c), name, compile) as Promise<void>;
  }

  savepoint?: Driver["savepoint"];
  rollbackToSavepoint?: Driver["rollbackToSavepoint"];
  releaseSavepoint?: Driver["releaseSavepoint"];

  init(options?: Parameters<Driver["init"]>[0]) {
    return this.#inner.init(options);
  }

  async acquireConnection(options?: Parameters<Driver["acquireConnection"]>[0]) {
    const inner = await this.#inner.acquireConnection(options);
    let wrapped = this.#wrapped.get(inner);
    if (!wrapped) {
      wrapped = new WatchedConnection(inner, this.#watch);
      this.#wrapped.set(inner, wrapped);
    }
    return wrapped;
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings) {
    await this.#inner.beginTransaction(unwrap(connection), settings);
    (connection as WatchedConnection).pending = new Map();
  }

  async commitTransaction(connection: DatabaseConnection) {
    const c = connection as WatchedConnection;
    const pending = c.pending;
    c.pending = null;
    await this.#inner.commitTransaction(c.inner);
    if (pending?.size) await this.#watch.notify(pending);
  }

  async rollbackTransaction(connection: DatabaseConnection) {
    (connection as WatchedConnection).pending = null;
    await this.#inner.rollbackTransaction(unwrap(connection));
  }

  releaseConnection(connection: DatabaseConnection, options?: Parameters<Driver["releaseConnection"]>[1]) {
    return this.#inner.releaseConnection(unwrap(connection), options);
  }

  destroy(options?: Parameters<Driver["destroy"]>[0]) {
    return this.#inner.destroy(options);
  }
}

const unwrap = (c: DatabaseConnection) => (c instanceof WatchedConnection ? c.inner : c);

import { AsyncLocalStorage } from "node:async_hooks";
import type { CompiledQuery, DatabaseConnection, Dialect, Driver, QueryResult, TransactionSettings } from "kysely";

/**
 * Per watched table written: the people whose rows the writes changed (`writingFor`), or null when any row may
 * have changed (a write that declared no person: a bulk update, a migration, a test's direct insert).
 */
export type Written = ReadonlyMap<string, ReadonlySet<string> | null>;

/** Told what watched tables a statement wrote, once that write is committed. Awaited before the write resolves. */
export type WriteListener = (written: Written) => void | Promise<void>;

const writer = new AsyncLocalStorage<string>();

/**
 * Runs `work` as writes of one person's rows only (progress, profile, account rows of `personId`), so caches
 * that keep an entry per person forget only theirs. Wrap nothing else in it: a write that touches other
 * people's rows, or rows of no person (stories), must stay undeclared, and then caches forget everything.
 */
export const writingFor = <T>(personId: string, work: () => Promise<T>): Promise<T> => writer.run(personId, work);

// No person's id is empty: the declaration of rows no cache keeps for anyone.
const NOBODY = "";

/**
 * Runs `work` as writes of rows that no cache holds for any person, such as a sign-in code (the user views read
 * only a pending phone change's), so caches forget nothing. Wrap nothing that another cache could read per person.
 */
export const writingForNobody = <T>(work: () => Promise<T>): Promise<T> => writer.run(NOBODY, work);

/** Adds `tables` written for `person` (null: unknown) to `into`; unknown wins over any person. */
function record(into: Map<string, Set<string> | null>, tables: Iterable<string>, person: string | null) {
  for (const table of tables) {
    const people = into.get(table);
    if (person === null || people === null) into.set(table, null);
    else if (!people) into.set(table, person === NOBODY ? new Set() : new Set([person]));
    else if (person !== NOBODY) people.add(person);
  }
}

/**
 * Lets in-process caches hear about every committed write to the tables they mirror, whichever module or
 * query wrote it (a repository, a transaction, a raw statement, a test's direct insert): caches then need no
 * database round trip to check they are current. Inside a transaction the news waits for the commit (and is
 * dropped on rollback): told earlier, a reader could re-read and keep the old rows before they are replaced.
 * The write's own promise resolves only after the listeners did, so a listener that tells other replicas
 * (through the bus) has done so before the request that wrote is answered.
 */
export class WriteWatch {
  readonly #listeners = new Set<{ tables: ReadonlySet<string>; listener: WriteListener }>();
  /** Matches a write statement's target table; any statement that is not a plain select is checked. */
  #pattern: RegExp | null = null;

  watch(tables: readonly string[], listener: WriteListener): () => void {
    const entry = { tables: new Set(tables), listener };
    this.#listeners.add(entry);
    this.#rebuild();
    return () => {
      this.#listeners.delete(entry);
      this.#rebuild();
    };
  }

  #rebuild() {
    const names = new Set([...this.#listeners].flatMap((l) => [...l.tables]));
    // Compiled SQL of either dialect: `insert into "t"`, `update "t"`, `delete from "t"`, quoted or not.
    this.#pattern = names.size
      ? new RegExp(`\\b(?:insert\\s+into|update|delete\\s+from)\\s+"?(${[...names].join("|")})"?(?![\\w"])`, "gi")
      : null;
  }

  /** The watched tables a statement writes (empty for reads). */
  tablesWritten(query: CompiledQuery): Set<string> | null {
    const pattern = this.#pattern;
    if (!pattern || query.query.kind === "SelectQueryNode") return null;
    let found: Set<string> | null = null;
    pattern.lastIndex = 0;
    for (const match of query.sql.matchAll(pattern)) {
      found ??= new Set();
      found.add((match[1] as string).toLowerCase());
    }
    return found;
  }

  async notify(written: Written): Promise<void> {
    const calls: (void | Promise<void>)[] = [];
    for (const { tables: wanted, listener } of this.#listeners) {
      const hit = new Map([...written].filter(([table]) => wanted.has(table)));
      if (hit.size) calls.push(listener(hit));
    }
    await Promise.all(calls);
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
  /** What the open transaction wrote, or null outside one. */
  pending: Map<string, Set<string> | null> | null = null;

  constructor(inner: DatabaseConnection, watch: WriteWatch) {
    this.inner = inner;
    this.#watch = watch;
  }

  async executeQuery<R>(query: CompiledQuery, options?: Parameters<DatabaseConnection["executeQuery"]>[1]) {
    const person = writer.getStore() ?? null;
    const result: QueryResult<R> = await this.inner.executeQuery<R>(query, options);
    const tables = this.#watch.tablesWritten(query);
    if (tables) {
      if (this.pending) record(this.pending, tables, person);
      else {
        const written = new Map<string, Set<string> | null>();
        record(written, tables, person);
        await this.#watch.notify(written);
      }
    }
    return result;
  }

  streamQuery<R>(query: CompiledQuery, chunkSize: number, options?: Parameters<DatabaseConnection["streamQuery"]>[2]) {
    return this.inner.streamQuery<R>(query, chunkSize, options);
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

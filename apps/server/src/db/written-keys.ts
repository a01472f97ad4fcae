import type { CompiledQuery } from "kysely";

/**
 * What rows a write statement touched, read from Kysely's node tree (the compiled query carries it): for caches
 * to forget exactly those (write-watch.ts). The reading fails closed: whatever the tree does not say for certain
 * is "unknown", unknown rows mean every entry of the table, and a statement the tree does not describe (raw SQL
 * that may write, a kind of statement this reading does not know, more than one statement) means every row of
 * every table. A statement misread costs a cache its entries, never an answer its correctness.
 */

/** A foreign key whose rows a delete of the referenced row deletes or sets to null (`on delete cascade | set null`). */
export interface Reference {
  table: string;
  column: string;
  references: string;
  to: string;
}

/** One statement's write to one table (ANY: every watched table). */
export interface WriteOf {
  table: string;
  /** The statement's node, read for the rows written; null when they cannot be read (any row). */
  node: Node | null;
  /** Whether it may delete rows, and so take along the rows that reference them. */
  deletes: boolean;
}

// Kysely's operation nodes, read loosely: only kinds and the few fields used here.
type Node = { readonly kind: string; readonly [field: string]: unknown };
type Keys = Set<string> | null;

const isNode = (value: unknown): value is Node => typeof value === "object" && value !== null && "kind" in value;
const field = (node: unknown, name: string): Node | undefined => (isNode(node) && isNode(node[name]) ? node[name] : undefined);
const list = (node: unknown, name: string): Node[] =>
  isNode(node) && Array.isArray(node[name]) ? (node[name] as unknown[]).filter(isNode) : [];
/** The name a reference, a column or an identifier node stands for. */
const nameOf = (node: Node | undefined): string | undefined => {
  if (node?.kind === "ReferenceNode" || node?.kind === "ColumnNode") return nameOf(field(node, "column"));
  return node?.kind === "IdentifierNode" && typeof node.name === "string" ? node.name : undefined;
};

/** A table node's name (through an alias) and its alias; none when it has no name (a raw table under an alias). */
function tableNames(node: Node | undefined): string[] {
  if (node?.kind === "AliasNode") {
    const names = tableNames(field(node, "node"));
    return names.length ? [...names, nameOf(field(node, "alias")) ?? ""] : [];
  }
  const name = field(field(node, "table"), "identifier")?.name;
  return node?.kind === "TableNode" && typeof name === "string" ? [name] : [];
}

/** A literal key: its text; null for SQL null (rows of no one's); undefined when not a literal (unknown). */
function literal(value: unknown): string | null | undefined {
  if (value === null) return null;
  return typeof value === "string" || typeof value === "number" || typeof value === "bigint" ? String(value) : undefined;
}
const literalOf = (node: Node | undefined) => (node?.kind === "ValueNode" ? literal(node.value) : undefined);

/** The literal keys of a value or value list, or null when any is not a literal. */
function valuesIn(node: Node | undefined): Keys {
  const values =
    node?.kind === "PrimitiveValueListNode"
      ? (node.values as unknown[]).map(literal)
      : node?.kind === "ValueListNode"
        ? list(node, "values").map(literalOf)
        : [literalOf(node)];
  if (values.includes(undefined)) return null;
  return new Set(values.filter((v): v is string => typeof v === "string"));
}

/** The keys a condition pins `column` of the table `names` to: `column = v`, `column in (…)`, in any conjunct. */
function pinned(node: Node | undefined, column: string, names: readonly string[]): Keys {
  if (!node) return null;
  if (node.kind === "WhereNode") return pinned(field(node, "where"), column, names);
  if (node.kind === "ParensNode") return pinned(field(node, "node"), column, names);
  if (node.kind === "AndNode") return pinned(field(node, "left"), column, names) ?? pinned(field(node, "right"), column, names);
  if (node.kind !== "BinaryOperationNode") return null;
  const left = field(node, "leftOperand");
  const operator = field(node, "operator")?.operator;
  const table = tableNames(field(left, "table"))[0];
  const isColumn = (left?.kind === "ReferenceNode" || left?.kind === "ColumnNode") && nameOf(left) === column;
  if (!isColumn || (table !== undefined && !names.includes(table))) return null;
  const right = field(node, "rightOperand");
  // `column is null`: rows of no one's.
  if (operator === "is" && right?.kind === "ValueNode" && right.value === null) return new Set();
  return operator === "=" || operator === "in" ? valuesIn(right) : null;
}

/** Adds the keys an update's `set` gives `column` (a row moved to another key) to `keys`. */
function setTo(keys: Keys, updates: Node[], column: string): Keys {
  for (const update of updates) {
    if (nameOf(field(update, "column")) !== column) continue;
    const to = valuesIn(field(update, "value"));
    if (!keys || !to) return null;
    for (const key of to) keys.add(key);
  }
  return keys;
}

/** The keys of `column` in every row `node` wrote, or null when they cannot be told. */
function keysOf(node: Node, column: string): Keys {
  if (node.kind === "UpdateQueryNode") {
    const names = tableNames(field(node, "table"));
    return setTo(pinned(field(node, "where"), column, names), list(node, "updates"), column);
  }
  if (node.kind === "DeleteQueryNode")
    return pinned(field(node, "where"), column, tableNames(list(field(node, "from"), "froms")[0]));
  // A replace, `insert or …` and MySQL's `on duplicate key` may change (or delete) a row of another key than the
  // values'. (A merge reads another table, so its node is never read: readsOthers.)
  if (node.kind !== "InsertQueryNode" || node.replace || node.orAction || node.onDuplicateKey) return null;
  const at = list(node, "columns").findIndex((c) => nameOf(c) === column);
  const rows = field(node, "values");
  if (at < 0 || rows?.kind !== "ValuesNode") return null;
  const keys = new Set<string>();
  for (const row of list(rows, "values")) {
    const key =
      row.kind === "PrimitiveValueListNode" ? literal((row.values as unknown[])[at]) : literalOf(list(row, "values")[at]);
    if (key === undefined) return null;
    if (key !== null) keys.add(key);
  }
  // An upsert may update a row it did not insert: of the same key only when the conflict is on that key.
  const conflict = field(node, "onConflict");
  const updates = list(conflict, "updates");
  if (!updates.length) return keys;
  return list(conflict, "columns").some((c) => nameOf(c) === column) ? setTo(keys, updates, column) : null;
}

const ANY = "*";
const WRITES = new Set(["InsertQueryNode", "UpdateQueryNode", "DeleteQueryNode", "MergeQueryNode"]);
/** What a statement this reading cannot follow may have written: every row of every watched table. */
const EVERYTHING: readonly WriteOf[] = Object.freeze([{ table: ANY, node: null, deletes: true }]);
/** `insert or …` actions that never delete a row (any other, `replace` or one unknown here, may). */
const KEEPING = new Set(["ignore", "abort", "fail", "rollback"]);

/**
 * Whether a statement's text is one statement: with a `;` before its end it may be several (a raw fragment can put
 * one even into a built query, and PostgreSQL runs them all when the query has no parameters), and what the others
 * do is not in the tree. A `;` inside a string or a comment counts too: rare, and it only costs the caches.
 */
function oneStatement(text: string): boolean {
  const at = text.indexOf(";");
  return at < 0 || text.slice(at + 1).trim() === "";
}

/**
 * Whether raw SQL text can only read: a `select` or `values` statement (no function of this schema writes). Any
 * other (an update however spelled: `update main.x`, quoted, after a comment, `update or replace`, `update only`;
 * `truncate`, `with … delete`, `replace into`, `merge`, a statement unknown here) may write anything.
 */
const readsOnly = (text: string) => /^[\s(]*(?:select|values)\b/i.test(text);

/**
 * Whether a node holds raw SQL anywhere. Raw text is pasted into the statement as it is, so it can say more than
 * its place in the tree: `where(sql\`a or b\`)` beside `user_id = ?` compiles to `user_id = ? and a or b`, and a
 * value ending in `--` comments out the `where` after it. A literal value is not raw (Kysely quotes it).
 */
function holdsRaw(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(holdsRaw);
  if (!isNode(value) || value.kind === "ValueNode" || value.kind === "PrimitiveValueListNode") return false;
  if (value.kind === "RawNode") return true;
  for (const name in value) if (name !== "kind" && holdsRaw(value[name])) return true;
  return false;
}

/** Whether an insert may replace (delete) the row it collides with: `replace into`, `insert or replace`. */
function replaces(node: Node): boolean {
  const action = field(node, "orAction")?.action;
  return node.replace === true || (action !== undefined && !KEEPING.has(String(action)));
}

/**
 * Whether a write reads other tables beside its target (`update … from`, `delete … using`, joins, a merge's source):
 * then a column in its `where` may be theirs (`update progress as p … from progress where progress.user_id = ?`
 * writes every row of p).
 */
const readsOthers = (node: Node) =>
  field(node, node.kind === "UpdateQueryNode" ? "from" : "using") !== undefined || list(node, "joins").length > 0;

/**
 * The one table a write node writes, as its write; null when it cannot be named (a list of tables, a raw target).
 * Its rows are read from the node (keysOf) unless it holds raw SQL or reads other tables.
 */
function writeOf(node: Node): WriteOf | null {
  const targets =
    node.kind === "DeleteQueryNode"
      ? list(field(node, "from"), "froms")
      : [field(node, node.kind === "UpdateQueryNode" ? "table" : "into")];
  const table = targets.length === 1 ? tableNames(targets[0])[0] : undefined;
  if (table === undefined) return null;
  const readable = !holdsRaw(node) && !readsOthers(node);
  return {
    table: table.toLowerCase(),
    node: readable ? node : null,
    deletes:
      node.kind === "DeleteQueryNode" || node.kind === "MergeQueryNode" || (node.kind === "InsertQueryNode" && replaces(node)),
  };
}

/**
 * The writes of a compiled statement: its own and those of its `with` clauses. Whatever the tree does not describe
 * (raw SQL that may write, a kind of statement unknown here, more than one statement) is every watched table.
 */
export function writesIn(query: CompiledQuery): readonly WriteOf[] {
  const root = query.query as unknown;
  if (!isNode(root) || !oneStatement(query.sql)) return EVERYTHING;
  // Raw SQL: its text is all there is, and nothing in it is read but whether it can only read.
  if (root.kind === "RawNode") return readsOnly(query.sql) ? [] : EVERYTHING;
  const writes: WriteOf[] = [];
  const visit = (node: Node): boolean => {
    // A kind of statement this reading does not know (a schema change, a raw `with` clause) may write anything.
    if (node.kind !== "SelectQueryNode" && !WRITES.has(node.kind)) return false;
    for (const cte of list(field(node, "with"), "expressions")) {
      const inner = field(cte, "expression");
      if (!inner || !visit(inner)) return false;
    }
    if (node.kind === "SelectQueryNode") return true;
    const write = writeOf(node);
    if (write) writes.push(write);
    return write !== null;
  };
  return visit(root) ? writes : EVERYTHING;
}

/** The first of `columns` whose keys `write` tells; null when none does (or there are none: the table as a whole). */
function keysWrittenTo(write: WriteOf, columns: readonly string[]): Keys {
  if (!write.node) return null;
  for (const column of columns) {
    const keys = keysOf(write.node, column);
    if (keys) return keys;
  }
  return null;
}

/**
 * What `write` changed of the `watched` tables, with the rows a delete takes along through `references`
 * (cascades, set null; null: not learned, so a delete may change any watched table). A table it does not
 * reach is absent.
 */
export function keysWritten(
  write: WriteOf,
  watched: Readonly<Record<string, readonly string[]>>,
  references: readonly Reference[] | null,
): [string, Keys][] {
  const found: [string, Keys][] = [];
  if (write.table === ANY) return Object.keys(watched).map((table) => [table, null]);
  const columns = watched[write.table];
  if (columns) found.push([write.table, keysWrittenTo(write, columns)]);
  if (!write.deletes) return found;
  if (!references) {
    for (const table of Object.keys(watched)) if (table !== write.table) found.push([table, null]);
    return found;
  }
  // Rows deleted here delete (or change) the rows that reference them, and theirs in turn: the first step's by the
  // deleted keys (a delete's own; keysOf does not tell a replaced or merged row's), any further step's unknown.
  const reached = new Set([write.table]);
  let step: { table: string; keys: (column: string) => Keys }[] = [
    { table: write.table, keys: (to) => (write.node ? keysOf(write.node, to) : null) },
  ];
  while (step.length) {
    const next: typeof step = [];
    for (const { table, keys } of step)
      for (const ref of references) {
        if (ref.references !== table) continue;
        const by = watched[ref.table];
        if (by) found.push([ref.table, by.includes(ref.column) ? keys(ref.to) : null]);
        if (!reached.has(ref.table)) next.push({ table: ref.table, keys: () => null });
        reached.add(ref.table);
      }
    step = next;
  }
  return found;
}

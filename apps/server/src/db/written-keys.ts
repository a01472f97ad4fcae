import type { CompiledQuery } from "kysely";

/**
 * What rows a write statement touched, read from Kysely's node tree (the compiled query carries it): for caches
 * to forget exactly those (write-watch.ts). Whatever the tree does not say for certain is "unknown", and unknown
 * means every entry of the table: a statement this reading does not understand costs a cache its entries, never
 * an answer its correctness.
 */

/** A foreign key whose rows a delete of the referenced row deletes or sets to null (`on delete cascade | set null`). */
export interface Reference {
  table: string;
  column: string;
  references: string;
  to: string;
}

/** One statement's write to one table: its node (null: a raw statement, rows unknown). */
export interface WriteOf {
  table: string;
  node: Node | null;
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

/** A table node's name (through an alias) and its alias. */
function tableNames(node: Node | undefined): string[] {
  if (node?.kind === "AliasNode") return [...tableNames(field(node, "node")), nameOf(field(node, "alias")) ?? ""];
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
  if (node.kind !== "InsertQueryNode" || node.replace || node.orAction) return null;
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

/** The writes of a compiled statement: its own and those of its `with` clauses; a raw one's tables from its text. */
export function writesIn(query: CompiledQuery, rawTables: (text: string) => string[]): WriteOf[] {
  const root = query.query as unknown as Node;
  if (root.kind === "RawNode") return rawTables(query.sql).map((table) => ({ table, node: null }));
  const writes: WriteOf[] = [];
  const visit = (node: Node) => {
    for (const cte of list(field(node, "with"), "expressions")) {
      const inner = field(cte, "expression");
      if (inner) visit(inner);
    }
    if (!WRITES.has(node.kind)) return;
    const target =
      node.kind === "InsertQueryNode"
        ? field(node, "into")
        : node.kind === "UpdateQueryNode"
          ? field(node, "table")
          : node.kind === "DeleteQueryNode"
            ? list(field(node, "from"), "froms")[0]
            : field(node, "into");
    const table = tableNames(target)[0];
    // A write whose target cannot be named could be to any table (ANY: every watched one, rows unknown).
    if (table === undefined) writes.push({ table: ANY, node: null });
    else writes.push({ table: table.toLowerCase(), node: node.kind === "MergeQueryNode" ? null : node });
  };
  visit(root);
  return writes;
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
  if (write.node && write.node.kind !== "DeleteQueryNode" && write.node.kind !== "MergeQueryNode") return found;
  if (!references) {
    for (const table of Object.keys(watched)) if (table !== write.table) found.push([table, null]);
    return found;
  }
  // Rows deleted here delete (or change) the rows that reference them, and theirs in turn: the first step's by the
  // deleted keys, any further step's unknown.
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

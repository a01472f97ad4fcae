/**
 * Rules every request's input obeys before any route sees it, the same on SQLite and PostgreSQL: PostgreSQL
 * cannot store a NUL character in text, and a lone UTF-16 surrogate would be stored as a different character,
 * so both are refused everywhere rather than failing (or silently changing) in one database only.
 */

/** Deeper nesting than this is refused: no request of the API nests beyond a handful of levels. */
export const JSON_MAX_DEPTH = 32;

// A high surrogate not followed by a low one, or a low surrogate not preceded by a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** A NUL or a lone surrogate. */
export function isUnstorableText(value: string): boolean {
  return value.includes("\u0000") || LONE_SURROGATE.test(value);
}

interface Node {
  value: unknown;
  depth: number;
  parent: Node | null;
  /** The key or index under the parent; the path is spelled out only when something is wrong. */
  key: string | number | null;
}

function pathOf(node: Node, root: string): string {
  const parts: string[] = [];
  for (let n: Node | null = node; n?.parent; n = n.parent) parts.push(typeof n.key === "number" ? `[${n.key}]` : `.${n.key}`);
  return root + parts.reverse().join("");
}

/**
 * What is wrong with a request's input, or null: a string (keys included) holding text the databases cannot
 * store, or nesting deeper than JSON_MAX_DEPTH (which would overflow the stack of whatever walks it later).
 * Walks iteratively, so the check itself cannot overflow.
 */
export function inputProblem(value: unknown, root: string): string | null {
  if (value === undefined || value === null) return null;
  const stack: Node[] = [{ value, depth: 0, parent: null, key: null }];
  while (stack.length > 0) {
    const node = stack.pop() as Node;
    const current = node.value;
    if (typeof current === "string") {
      if (isUnstorableText(current)) return `${pathOf(node, root)}: holds a character that is not allowed (NUL)`;
    } else if (current !== null && typeof current === "object" && !Buffer.isBuffer(current)) {
      if (node.depth >= JSON_MAX_DEPTH) return `${root}: nests deeper than ${JSON_MAX_DEPTH} levels`;
      const depth = node.depth + 1;
      if (Array.isArray(current)) {
        for (let i = 0; i < current.length; i++) stack.push({ value: current[i], depth, parent: node, key: i });
      } else {
        for (const key in current) {
          if (!Object.hasOwn(current, key)) continue;
          if (isUnstorableText(key)) return `${pathOf(node, root)}: a field name holds a character that is not allowed (NUL)`;
          stack.push({ value: (current as Record<string, unknown>)[key], depth, parent: node, key });
        }
      }
    }
  }
  return null;
}

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

/**
 * What is wrong with a request's input, or null: a string (keys included) holding text the databases cannot
 * store, or nesting deeper than JSON_MAX_DEPTH (which would overflow the stack of whatever walks it later).
 * Walks iteratively, so the check itself cannot overflow.
 */
export function inputProblem(value: unknown, root: string): string | null {
  const stack: Array<[unknown, string, number]> = [[value, root, 0]];
  while (stack.length > 0) {
    const [current, path, depth] = stack.pop() as [unknown, string, number];
    if (typeof current === "string") {
      if (isUnstorableText(current)) return `${path}: holds a character that is not allowed (NUL)`;
    } else if (current !== null && typeof current === "object" && !Buffer.isBuffer(current)) {
      if (depth >= JSON_MAX_DEPTH) return `${root}: nests deeper than ${JSON_MAX_DEPTH} levels`;
      if (Array.isArray(current)) {
        current.forEach((item, i) => {
          stack.push([item, `${path}[${i}]`, depth + 1]);
        });
      } else {
        for (const [key, item] of Object.entries(current)) {
          if (isUnstorableText(key)) return `${path}: a field name holds a character that is not allowed (NUL)`;
          stack.push([item, `${path}.${key}`, depth + 1]);
        }
      }
    }
  }
  return null;
}

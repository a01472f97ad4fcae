import { SEARCH_MAX_LENGTH } from "@hikaya/contracts";
import { AppError, badRequest } from "../errors.ts";

/**
 * Cursor paging and search for the console's long lists, the same on SQLite and PostgreSQL (the LIKE matching
 * itself is `likeContains` in dialect.ts).
 *
 * A cursor is the sort key of the last row a page showed, made opaque (base64url JSON) so callers pass it back
 * unchanged; pages continue strictly after it (keyset), so rows written meanwhile never shift a page and nothing is
 * skipped or shown twice.
 */

export type CursorKey = readonly (string | number)[];

export function encodeCursor(key: CursorKey): string {
  return Buffer.from(JSON.stringify(key)).toString("base64url");
}

/** The key a cursor names; one that was not made by `encodeCursor` with this shape is a 400. */
export function decodeCursor<K extends CursorKey>(cursor: string, shape: { [I in keyof K]: "string" | "number" }): K {
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    key = null;
  }
  if (!Array.isArray(key) || key.length !== shape.length || key.some((v, i) => typeof v !== shape[i]))
    throw badRequest("cursor: not a cursor this list gave out");
  return key as unknown as K;
}

/** One page of `limit` rows out of `limit + 1` fetched: the extra row only says that another page exists. */
export function pageOf<R>(rows: R[], limit: number, keyOf: (row: R) => CursorKey): { rows: R[]; nextCursor: string | null } {
  if (rows.length <= limit) return { rows, nextCursor: null };
  const page = rows.slice(0, limit);
  return { rows: page, nextCursor: encodeCursor(keyOf(page[page.length - 1] as R)) };
}

/**
 * The search string a list was given, trimmed; undefined when there is none. One longer than SEARCH_MAX_LENGTH
 * is refused with `search_too_long` (its own code, so the console can say so in the operator's language).
 */
export function searchText(q: string | undefined): string | undefined {
  const text = q?.trim();
  if (!text) return undefined;
  if (text.length > SEARCH_MAX_LENGTH)
    throw new AppError("search_too_long", `The search may be at most ${SEARCH_MAX_LENGTH} characters long`, {
      max: SEARCH_MAX_LENGTH,
    });
  return text;
}

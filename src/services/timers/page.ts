import { ErrorCode, XtimerError } from '../../errors.js';

/** A page of a keyset-paginated list: pass `nextCursor` back as `cursor` for the next one. */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

function encodeCursor(value: number): string {
  return Buffer.from(String(value)).toString('base64url');
}

export function decodeCursor(cursor: string): number {
  // base64url decoding skips what it cannot read (and "" reads as 0): only a cursor
  // that re-encodes to itself is one we issued.
  const text = Buffer.from(cursor, 'base64url').toString();
  const value = Number(text);
  if (!/^\d{1,15}$/.test(text) || encodeCursor(value) !== cursor) {
    throw new XtimerError(ErrorCode.INVALID_CURSOR, 'cursor is not one this API returned');
  }
  return value;
}

/**
 * `items` fetched with a limit one over `limit`, as a page: the extra item only says there
 * is more; the cursor is the key of the last item kept.
 */
export function pageOf<T>(items: T[], limit: number, keyOf: (item: T) => number): Page<T> {
  const more = items.length > limit;
  if (more) items.length = limit;
  return { items, nextCursor: more ? encodeCursor(keyOf(items[items.length - 1]!)) : null };
}

/** An offset page and the number of all matches (the xtimer-compatible API's paging). */
export interface Numbered<T> {
  items: T[];
  total: number;
}

// Paging of the two lists the specification returns as a bare JSON array (GET /api/contacts,
// GET /api/actions). Mobile clients parse those bodies as arrays, so the body stays an array and
// the cursor of the next page travels in response headers (src/http/array-page.ts). The default
// page is the largest one: a client that knows nothing of paging still gets all of a normal
// user's list, and no request loads more than this many rows, however many a user holds.

export const ARRAY_LIST_MAX_LIMIT = 1000;
export const ARRAY_LIST_DEFAULT_LIMIT = ARRAY_LIST_MAX_LIMIT;

export interface ArrayPage<T> {
  items: T[];
  /** Present when more items follow: the opaque cursor of the next page. */
  nextCursor: string | null;
}

/**
 * Splits `limit + 1` fetched rows into the page and the cursor of its last item. The extra row
 * only tells that more follow; it is not returned.
 */
export function pageOf<R, T>(rows: R[], limit: number, view: (row: R) => T, cursorOf: (row: R) => string): ArrayPage<T> {
  const page = rows.slice(0, limit);
  return { items: page.map(view), nextCursor: rows.length > limit && page.length > 0 ? cursorOf(page[page.length - 1]) : null };
}

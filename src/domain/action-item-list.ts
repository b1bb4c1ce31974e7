// GET /api/actions: one page of the user's action items, newest first; items created together
// (one analysis) in the analysis's order (position), then by id, so the order is total.
//
// Keyset paging on (created_at DESC, position, id). The cursor carries created_at to the
// microsecond, as PostgreSQL stores it: a millisecond cursor would skip or repeat items created in
// the same millisecond. The directions are mixed, so the condition is written as a range on
// created_at (which bounds the index scan of action_items_user_list_idx, migration 006) plus the
// tie-break within the cursor's own created_at.
import type { ActionItem } from '../store/schema.js';
import { listItemsPage } from '../store/repos/action-items.js';
import type { Executor } from '../store/repos/executor.js';
import { actionItemOf, type ActionItemView } from './action-items.js';
import { pageOf, type ArrayPage } from './array-list.js';
import { isUuid } from './ids.js';

export interface ActionItemCursor {
  /** created_at in UTC with microseconds: YYYY-MM-DDTHH:MM:SS.ffffffZ. */
  createdAt: string;
  position: number;
  id: string;
}

const MICRO_ISO = /^(\d{4})-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const INT32 = /^(0|-?[1-9]\d{0,9})$/;

export function encodeActionItemCursor(c: ActionItemCursor): string {
  return Buffer.from(`${c.createdAt}|${c.position}|${c.id}`).toString('base64url');
}

/**
 * A cursor exactly as encodeActionItemCursor writes it, or null. Strict like the call list's: a
 * value PostgreSQL would reject (an impossible date, a position beyond int4) never reaches it.
 */
export function decodeActionItemCursor(s: string): ActionItemCursor | null {
  const parts = Buffer.from(s, 'base64url').toString('utf8').split('|');
  if (parts.length !== 3) return null;
  const [createdAt, positionText, id] = parts;
  const year = MICRO_ISO.exec(createdAt)?.[1];
  if (!year || Number(year) < 1970) return null;
  const millis = `${createdAt.slice(0, 23)}Z`;
  if (Number.isNaN(Date.parse(millis)) || new Date(millis).toISOString() !== millis) return null;
  if (!INT32.test(positionText)) return null;
  const position = Number(positionText);
  if (position < -(2 ** 31) || position >= 2 ** 31) return null;
  if (!isUuid(id)) return null;
  if (encodeActionItemCursor({ createdAt, position, id }) !== s) return null;
  return { createdAt, position, id: id.toLowerCase() };
}

export async function listActionItemsPage(db: Executor, userId: string, opts: { limit: number; cursor: ActionItemCursor | null }): Promise<ArrayPage<ActionItemView>> {
  const rows = await listItemsPage(db, userId, opts.limit, opts.cursor);
  return pageOf(
    rows,
    opts.limit,
    ({ cursorAt: _cursorAt, ...row }) => actionItemOf(row as ActionItem),
    (r) => encodeActionItemCursor({ createdAt: r.cursorAt, position: r.position, id: r.id }),
  );
}

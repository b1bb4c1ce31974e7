// Deleting one call: its stored files first, then the row (and with it artifacts and action items).
// When object storage deletes only part of the files, the call is deleted all the same, as the
// specification allows: what remains has no call row and the hourly orphan sweep
// (src/store/sweeps.ts) removes it.
import type { AppContext } from '../context.js';
import { callPrefix } from '../store/blobs.js';
import { deleteCallRow, findCall } from './calls.js';

export async function deleteCallAndFiles(ctx: Pick<AppContext, 'database' | 'blobs' | 'log'>, userId: string, callId: string): Promise<boolean> {
  // Called by request handlers only: the request pool, with its statement time limit.
  const db = ctx.database.requestDb;
  const call = await findCall(db, userId, callId);
  if (!call) return false;
  try {
    await ctx.blobs.deletePrefix(callPrefix(userId, callId));
  } catch (err) {
    ctx.log.warn({ callId, err: (err as Error).message }, 'call files not all deleted; the orphan sweep removes the rest');
  }
  return deleteCallRow(db, userId, callId);
}

// Rows of uploads_in_flight (migration 009): the per-user upload slots of domain/upload-slots.ts.
import { sql, type Transaction } from 'kysely';
import type { Db } from '../database.js';
import type { Database } from '../schema.js';

/** The user's slots that still count (not expired). */
export async function countLiveSlots(trx: Transaction<Database>, userId: string): Promise<number> {
  const row = await trx
    .selectFrom('uploadsInFlight')
    .select(sql<number>`count(*)::int`.as('n'))
    .where('userId', '=', userId)
    .where('expiresAt', '>', sql<Date>`now()`)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertSlot(trx: Transaction<Database>, userId: string, id: string, holdSeconds: number): Promise<void> {
  await trx
    .insertInto('uploadsInFlight')
    .values({ id, userId, expiresAt: sql<Date>`now() + ${Math.ceil(holdSeconds)}::int * interval '1 second'` })
    .execute();
}

export async function deleteSlot(db: Db, userId: string, id: string): Promise<void> {
  await db.deleteFrom('uploadsInFlight').where('id', '=', id).where('userId', '=', userId).execute();
}

/** Removes slots that expired (their process died mid-upload). Returns how many. */
export async function deleteExpiredSlots(db: Db): Promise<number> {
  const r = await db.deleteFrom('uploadsInFlight').where('expiresAt', '<', sql<Date>`now()`).executeTakeFirst();
  return Number(r.numDeletedRows);
}

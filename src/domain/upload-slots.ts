// The per-user cap on uploads in flight: an upload holds a slot from before its body is read until
// its request ends, so one user cannot hold dozens of slow uploads open (each a socket, a stream
// into the blob store and up to MAX_FILE_SIZE of disk) while the active-call guard, which counts
// committed calls only, sees none of them.
//
// Slots are rows of uploads_in_flight (migration 009), so the cap holds across every API process
// that shares the database: behind a load balancer a user's uploads land on different processes,
// and a count kept in each process would multiply the cap by the number of processes. A row left
// by a crashed process stops counting at its `expires_at` (the upload's own deadline plus a
// margin) and is swept later.
import crypto from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../store/database.js';
import { ErrorCode, ServiceError } from './errors.js';

export interface UploadSlot {
  id: string;
  /** Frees the slot; never rejects (a slot that cannot be deleted expires on its own). */
  release(): Promise<void>;
}

/**
 * Claims one of the user's `maxInFlight` upload slots, or answers 429 `uploads_in_flight_limit`.
 * `holdSeconds` bounds how long the slot counts if the process dies before releasing it.
 */
export async function claimUploadSlot(db: Db, userId: string, opts: { maxInFlight: number; holdSeconds: number }): Promise<UploadSlot> {
  const id = crypto.randomUUID();
  await db.transaction().execute(async (trx) => {
    // Serialises the user's claims, so two uploads cannot both take the last slot.
    await sql`SELECT pg_advisory_xact_lock(hashtext(${`upload-slots:${userId}`}))`.execute(trx);
    const row = await trx
      .selectFrom('uploadsInFlight')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('userId', '=', userId)
      .where('expiresAt', '>', sql<Date>`now()`)
      .executeTakeFirstOrThrow();
    const current = Number(row.n);
    if (current >= opts.maxInFlight) throw new ServiceError(ErrorCode.UploadsInFlightLimit, { limit: opts.maxInFlight, current });
    await trx
      .insertInto('uploadsInFlight')
      .values({ id, userId, expiresAt: sql<Date>`now() + ${Math.ceil(opts.holdSeconds)}::int * interval '1 second'` })
      .execute();
  });
  let released = false;
  return {
    id,
    async release() {
      if (released) return;
      released = true;
      await db.deleteFrom('uploadsInFlight').where('id', '=', id).where('userId', '=', userId).execute().catch(() => undefined);
    },
  };
}

/** Removes slots that expired (their process died mid-upload). Returns how many. */
export async function sweepExpiredUploadSlots(db: Db): Promise<number> {
  const r = await db.deleteFrom('uploadsInFlight').where('expiresAt', '<', sql<Date>`now()`).executeTakeFirst();
  return Number(r.numDeletedRows);
}

// Idempotency records (see src/http/plugins/idempotency.ts for the protocol), per user and key.
import { sql } from 'kysely';
import type { Db } from '../database.js';

/**
 * Claims the user's key for a request (IN_PROGRESS), taking over only an expired record or a claim
 * older than `staleSeconds`; otherwise returns the record that holds it (undefined if it vanished).
 */
export async function claimKey(db: Db, userId: string, key: string, hash: string, staleSeconds: number) {
  const inserted = await db
    .insertInto('idempotencyKeys')
    .values({ userId, key, requestHash: hash, state: 'IN_PROGRESS', responseStatus: null, responseBody: JSON.stringify(null), expiresAt: sql<Date>`now() + interval '24 hours'` })
    .onConflict((oc) =>
      oc
        .columns(['userId', 'key'])
        .doUpdateSet({ requestHash: hash, state: 'IN_PROGRESS', responseStatus: null, responseBody: JSON.stringify(null), createdAt: sql`now()`, expiresAt: sql<Date>`now() + interval '24 hours'` })
        // Take over only an expired record or an abandoned claim.
        .where((eb) =>
          eb.or([
            eb('idempotencyKeys.expiresAt', '<', sql<Date>`now()`),
            eb.and([eb('idempotencyKeys.state', '=', 'IN_PROGRESS'), eb('idempotencyKeys.createdAt', '<', sql<Date>`now() - make_interval(secs => ${staleSeconds})`)]),
          ]),
        ),
    )
    .returning('key')
    .executeTakeFirst();
  if (inserted) return { claimed: true as const };
  const existing = await db.selectFrom('idempotencyKeys').selectAll().where('userId', '=', userId).where('key', '=', key).executeTakeFirst();
  return { claimed: false as const, existing };
}

/** Stores the response of a claimed key and keeps it `retentionHours`. */
export async function completeKey(db: Db, userId: string, key: string, status: number, body: unknown, retentionHours: number): Promise<void> {
  await db
    .updateTable('idempotencyKeys')
    .set({ state: 'DONE', responseStatus: status, responseBody: JSON.stringify(body), expiresAt: sql<Date>`now() + make_interval(hours => ${retentionHours})` })
    .where('userId', '=', userId)
    .where('key', '=', key)
    .execute();
}

/** Releases a key (a retry may then run again); `onlyInProgress` leaves a completed record alone. */
export async function releaseKey(db: Db, userId: string, key: string, opts: { onlyInProgress?: boolean } = {}): Promise<void> {
  let q = db.deleteFrom('idempotencyKeys').where('userId', '=', userId).where('key', '=', key);
  if (opts.onlyInProgress) q = q.where('state', '=', 'IN_PROGRESS');
  await q.execute();
}

export async function sweepIdempotencyKeys(db: Db): Promise<number> {
  const r = await db.deleteFrom('idempotencyKeys').where('expiresAt', '<', sql<Date>`now()`).executeTakeFirst();
  return Number(r.numDeletedRows);
}

// Rows of voice_enrolment_attempts (migration 012): the voice samples that reached decoding, counted
// by the per-user enrolment rate limit of domain/voice-enrolment.ts.
import { sql } from 'kysely';
import type { Db, Tx } from '../database.js';
import type { Executor } from './executor.js';

/** The user's attempts in the last `windowSeconds`. */
export async function countRecentEnrolmentAttempts(db: Executor, userId: string, windowSeconds: number): Promise<number> {
  const row = await db
    .selectFrom('voiceEnrolmentAttempts')
    .select(sql<number>`count(*)::int`.as('n'))
    .where('userId', '=', userId)
    .where('attemptedAt', '>', sql<Date>`now() - ${Math.ceil(windowSeconds)}::int * interval '1 second'`)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertEnrolmentAttempt(trx: Tx, userId: string): Promise<void> {
  await trx.insertInto('voiceEnrolmentAttempts').values({ userId }).execute();
}

/** Removes attempts older than `windowSeconds` (they no longer count). Returns how many. */
export async function deleteEnrolmentAttemptsBefore(db: Db, windowSeconds: number): Promise<number> {
  const r = await db
    .deleteFrom('voiceEnrolmentAttempts')
    .where('attemptedAt', '<', sql<Date>`now() - ${Math.ceil(windowSeconds)}::int * interval '1 second'`)
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}

// The usage ledger and the counters the usage guards and plan limits read.
import { sql } from 'kysely';
import { ACTIVE_CALL_STATUSES } from '../schema.js';
import type { Executor } from './executor.js';

/** The user's plan, top-up balances and usage in the guards' windows, in one statement. */
export async function usageCounters(db: Executor, userId: string) {
  return db
    .selectFrom('users')
    .select((eb) => [
      'plan',
      'topupMinutesBalance',
      'topupTranscriptsBalance',
      eb
        .selectFrom('usageLedger')
        .select(sql<number>`count(*)::int`.as('n'))
        .where('usageLedger.userId', '=', userId)
        .where('usageLedger.createdAt', '>', sql<Date>`now() - interval '1 hour'`)
        .as('uploadsThisHour'),
      eb
        .selectFrom('usageLedger')
        .select(sql<number>`coalesce(sum(bytes), 0)::bigint`.as('n'))
        .where('usageLedger.userId', '=', userId)
        .where('usageLedger.createdAt', '>', sql<Date>`now() - interval '30 days'`)
        .as('bytes30d'),
      eb
        .selectFrom('usageLedger')
        .select(sql<number>`coalesce(sum(duration_seconds), 0)::bigint`.as('n'))
        .where('usageLedger.userId', '=', userId)
        .where('usageLedger.createdAt', '>', sql<Date>`now() - interval '30 days'`)
        .as('seconds30d'),
      eb
        .selectFrom('usageLedger')
        .select(sql<number>`count(*)::int`.as('n'))
        .where('usageLedger.userId', '=', userId)
        .where('usageLedger.createdAt', '>=', sql<Date>`date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'`)
        .as('transcriptsToday'),
      eb
        .selectFrom('calls')
        .select(sql<number>`count(*)::int`.as('n'))
        .where('calls.userId', '=', userId)
        .where('calls.status', 'in', ACTIVE_CALL_STATUSES)
        .as('activeCalls'),
    ])
    .where('id', '=', userId)
    .executeTakeFirstOrThrow();
}

/** One upload in the ledger (duration is billed later, see billCallMinutes). */
export async function recordUpload(db: Executor, userId: string, callId: string, bytes: number): Promise<void> {
  await db.insertInto('usageLedger').values({ userId, callId, bytes, durationSeconds: null }).execute();
}

export async function spendTranscriptTopup(db: Executor, userId: string): Promise<void> {
  await db.updateTable('users').set((eb) => ({ topupTranscriptsBalance: eb('topupTranscriptsBalance', '-', 1) })).where('id', '=', userId).execute();
}

// The usage ledger and the counters the usage guards and plan limits read.
import { sql, type ExpressionBuilder } from 'kysely';
import { ACTIVE_CALL_STATUSES, type Database } from '../schema.js';
import type { Executor } from './executor.js';

/**
 * Until a call is decoded its length is unknown; its minutes are reserved as if the audio were
 * compressed at 128 kbit/s (16 000 bytes a second: an upload of MAX_FILE_SIZE, 50 MB, reserves
 * 52 minutes), at least one minute, or as long as the client declared (metadata durationSeconds)
 * when that is more. From decoding on, the measured length counts.
 */
export const RESERVED_BYTES_PER_SECOND = 16_000;
export const MIN_RESERVED_SECONDS = 60;

/**
 * Seconds of the user's calls still in processing, created in the last 30 days: the measured
 * length once decoded (TRANSCRIBING, ANALYZING), else the reservation above. The usage ledger
 * holds a call's length only once the call completes, so without these a user with one minute
 * left could start any number of long calls.
 */
function inFlightSeconds(eb: ExpressionBuilder<Database, 'users'>, userId: string, excludeCallId: string | null) {
  let q = eb
    .selectFrom('calls')
    .select(
      sql<number>`coalesce(sum(CASE WHEN status IN ('TRANSCRIBING', 'ANALYZING') AND duration_seconds IS NOT NULL THEN duration_seconds
        ELSE greatest(${MIN_RESERVED_SECONDS}, coalesce(duration_seconds, 0), ceil(coalesce(audio_bytes, 0)::numeric / ${RESERVED_BYTES_PER_SECOND})) END), 0)::bigint`.as('n'),
    )
    .where('calls.userId', '=', userId)
    .where('calls.status', 'in', ACTIVE_CALL_STATUSES)
    .where('calls.createdAt', '>', sql<Date>`now() - interval '30 days'`);
  if (excludeCallId) q = q.where('calls.id', '!=', excludeCallId);
  return q.as('inFlightSeconds');
}

/** The user's plan, top-up balances and usage in the guards' windows, in one statement; `excludeCallId` is left out of the in-flight seconds. */
export async function usageCounters(db: Executor, userId: string, excludeCallId: string | null = null) {
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
      inFlightSeconds(eb, userId, excludeCallId),
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

/** The measured length of a completed call, in its ledger row. */
export async function setLedgerDuration(db: Executor, userId: string, callId: string, durationSeconds: number): Promise<void> {
  await db.updateTable('usageLedger').set({ durationSeconds }).where('userId', '=', userId).where('callId', '=', callId).execute();
}

/** Takes minutes off the top-up balance, never below zero. */
export async function spendMinutesTopup(db: Executor, userId: string, minutes: number): Promise<void> {
  await db.updateTable('users').set({ topupMinutesBalance: sql`greatest(0, topup_minutes_balance - ${minutes})` }).where('id', '=', userId).execute();
}

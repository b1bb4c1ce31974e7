// Usage guards and plan limits. The numbers come from the usage ledger and the calls table; the
// limits endpoint and the upload guard use the same function, so what a client is shown is what
// the server enforces.
import { sql, type ExpressionBuilder } from 'kysely';
import type { Config } from '../config.js';
import type { Db } from '../store/database.js';
import { ACTIVE_CALL_STATUSES, type Database, type Plan } from '../store/schema.js';

export interface UsageLimits {
  maxUploadsPerHour: number;
  uploadsThisHour: number;
  maxConcurrentActiveCalls: number;
  activeCalls: number;
  maxMonthlyUploadBytes: number;
  uploadedBytesThisMonth: number;
  plan: Plan;
  minutesUsedThisPeriod: number;
  minutesLimit: number;
  transcriptsToday: number | null;
  dailyTranscriptLimit: number | null;
  topupMinutesBalance: number;
  topupTranscriptsBalance: number;
}

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

/**
 * The user's usage and limits. `excludeCallId`: a call left out of the in-flight minutes (the call
 * being completed, whose own minutes are then added to the ledger).
 */
export async function computeLimits(db: Db, config: Config, userId: string, opts: { excludeCallId?: string } = {}): Promise<UsageLimits> {
  const row = await db
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
      inFlightSeconds(eb, userId, opts.excludeCallId ?? null),
    ])
    .where('id', '=', userId)
    .executeTakeFirstOrThrow();
  const plan = row.plan;
  const free = plan === 'FREE';
  return {
    maxUploadsPerHour: config.limits.maxUploadsPerHour,
    uploadsThisHour: Number(row.uploadsThisHour ?? 0),
    maxConcurrentActiveCalls: config.limits.maxConcurrentActiveCalls,
    activeCalls: Number(row.activeCalls ?? 0),
    maxMonthlyUploadBytes: config.limits.maxMonthlyUploadBytes,
    uploadedBytesThisMonth: Number(row.bytes30d ?? 0),
    plan,
    minutesUsedThisPeriod: Math.ceil((Number(row.seconds30d ?? 0) + Number(row.inFlightSeconds ?? 0)) / 60),
    minutesLimit: free ? config.plans.free.minutesPerMonth : config.plans.pro.minutesPerMonth,
    transcriptsToday: free ? Number(row.transcriptsToday ?? 0) : null,
    dailyTranscriptLimit: free ? config.plans.free.transcriptsPerDay : null,
    topupMinutesBalance: row.topupMinutesBalance,
    topupTranscriptsBalance: row.topupTranscriptsBalance,
  };
}

export type LimitViolation =
  | { code: 'upload_rate_limited'; details: { limit: number; current: number; windowSeconds: number } }
  | { code: 'concurrent_calls_limit'; details: { limit: number; current: number } }
  | { code: 'monthly_upload_bytes_limit'; details: { limit: number; current: number; incomingBytes: number; windowDays: number } }
  | { code: 'plan_minutes_limit'; details: { limit: number; current: number; plan: Plan } }
  | { code: 'plan_daily_transcripts_limit'; details: { limit: number; current: number; plan: Plan } };

/**
 * What an upload of `incomingBytes` would break, if anything. Usage guards always apply; plan
 * limits only while billing is enabled, and a spent plan allowance is covered by top-up credit.
 */
export function checkUpload(limits: UsageLimits, incomingBytes: number, billingEnabled: boolean): LimitViolation | null {
  if (limits.uploadsThisHour >= limits.maxUploadsPerHour)
    return { code: 'upload_rate_limited', details: { limit: limits.maxUploadsPerHour, current: limits.uploadsThisHour, windowSeconds: 3600 } };
  if (limits.activeCalls >= limits.maxConcurrentActiveCalls)
    return { code: 'concurrent_calls_limit', details: { limit: limits.maxConcurrentActiveCalls, current: limits.activeCalls } };
  if (limits.uploadedBytesThisMonth + incomingBytes > limits.maxMonthlyUploadBytes)
    return {
      code: 'monthly_upload_bytes_limit',
      details: { limit: limits.maxMonthlyUploadBytes, current: limits.uploadedBytesThisMonth, incomingBytes, windowDays: 30 },
    };
  if (!billingEnabled) return null;
  if (limits.minutesUsedThisPeriod >= limits.minutesLimit && limits.topupMinutesBalance <= 0)
    return { code: 'plan_minutes_limit', details: { limit: limits.minutesLimit, current: limits.minutesUsedThisPeriod, plan: limits.plan } };
  if (limits.dailyTranscriptLimit !== null && (limits.transcriptsToday ?? 0) >= limits.dailyTranscriptLimit && limits.topupTranscriptsBalance <= 0)
    return { code: 'plan_daily_transcripts_limit', details: { limit: limits.dailyTranscriptLimit, current: limits.transcriptsToday ?? 0, plan: limits.plan } };
  return null;
}

/** A transcript top-up credit is spent when the FREE daily allowance is already used up. */
export function consumesTranscriptTopup(limits: UsageLimits, billingEnabled: boolean): boolean {
  return billingEnabled && limits.dailyTranscriptLimit !== null && (limits.transcriptsToday ?? 0) >= limits.dailyTranscriptLimit;
}

/** Minutes of a processed call beyond the plan allowance, to be taken from the top-up balance. */
export function minutesBeyondAllowance(limitsBefore: UsageLimits, callMinutes: number): number {
  const free = Math.max(0, limitsBefore.minutesLimit - limitsBefore.minutesUsedThisPeriod);
  return Math.max(0, callMinutes - free);
}

export async function isFlagEnabled(db: Db, key: string): Promise<boolean> {
  const row = await db.selectFrom('featureFlags').select('enabled').where('flagKey', '=', key).executeTakeFirst();
  return row?.enabled ?? false;
}

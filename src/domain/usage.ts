// Usage guards and plan limits. The numbers come from the usage ledger and the calls table; the
// limits endpoint and the upload guard use the same function, so what a client is shown is what
// the server enforces.
import type { Config } from '../config.js';
import type { Db } from '../store/database.js';
import type { Plan } from '../store/schema.js';
import { usageCounters } from '../store/repos/usage.js';

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

// The in-flight reservation (RESERVED_BYTES_PER_SECOND, MIN_RESERVED_SECONDS) is computed in SQL: src/store/repos/usage.ts.
export { MIN_RESERVED_SECONDS, RESERVED_BYTES_PER_SECOND } from '../store/repos/usage.js';

/**
 * The user's usage and limits. `excludeCallId`: a call left out of the in-flight minutes (the call
 * being completed, whose own minutes are then added to the ledger).
 */
export async function computeLimits(db: Db, config: Config, userId: string, opts: { excludeCallId?: string } = {}): Promise<UsageLimits> {
  const row = await usageCounters(db, userId, opts.excludeCallId ?? null);
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

export { isFlagEnabled } from '../store/repos/flags.js';

// Account views and statistics, computed from the tables as they are.
import { sql } from 'kysely';
import type { Db } from '../store/database.js';
import type { User } from '../store/schema.js';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function profileOf(user: User, isAdmin: boolean) {
  return {
    id: user.id,
    externalUserId: user.externalUserId,
    email: user.email,
    displayName: user.displayName,
    photoUrl: user.photoUrl,
    createdAt: user.createdAt.toISOString(),
    lastLoginAt: user.lastLoginAt.toISOString(),
    privacyPolicyVersion: user.privacyPolicyVersion,
    termsVersion: user.termsVersion,
    callRecordingDisclaimerVersion: user.callRecordingDisclaimerVersion,
    privacyPolicyAcceptedAt: iso(user.privacyPolicyAcceptedAt),
    termsAcceptedAt: iso(user.termsAcceptedAt),
    callRecordingDisclaimerAcceptedAt: iso(user.callRecordingDisclaimerAcceptedAt),
    marketingOptIn: user.marketingOptIn,
    marketingOptInAt: iso(user.marketingOptInAt),
    plan: user.plan,
    plansIntroShownAt: iso(user.plansIntroShownAt),
    isAdmin,
    accountStatus: user.accountStatus,
    accountStatusReason: user.accountStatusReason,
  };
}

export function adminSummaryOf(user: User) {
  return {
    id: user.id,
    email: user.email,
    displayName: user.displayName,
    plan: user.plan,
    accountStatus: user.accountStatus,
    accountStatusReason: user.accountStatusReason,
    topupMinutesBalance: user.topupMinutesBalance,
    topupTranscriptsBalance: user.topupTranscriptsBalance,
    createdAt: user.createdAt.toISOString(),
    lastLoginAt: user.lastLoginAt.toISOString(),
  };
}

export interface UserStats {
  totalCalls: number;
  callsThisWeek: number;
  openActionItems: number;
  overdueActionItems: number;
  completedActionItems: number;
  averageCallDurationSeconds: number;
}

/**
 * "This week" is the current ISO week (from Monday 00:00 UTC). Open items are OPEN or
 * IN_PROGRESS; overdue ones are open with a due date before today (UTC); completed means DONE.
 */
export async function computeStats(db: Db, userId: string): Promise<UserStats> {
  const calls = await db
    .selectFrom('calls')
    .select([
      sql<number>`count(*)::int`.as('total'),
      sql<number>`count(*) FILTER (WHERE created_at >= date_trunc('week', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')::int`.as('thisWeek'),
      sql<number>`coalesce(round(avg(duration_seconds)), 0)::int`.as('avgDuration'),
    ])
    .where('userId', '=', userId)
    .executeTakeFirstOrThrow();
  const items = await db
    .selectFrom('actionItems')
    .select([
      sql<number>`count(*) FILTER (WHERE status IN ('OPEN', 'IN_PROGRESS'))::int`.as('open'),
      sql<number>`count(*) FILTER (WHERE status IN ('OPEN', 'IN_PROGRESS') AND due_date < (now() AT TIME ZONE 'UTC')::date)::int`.as('overdue'),
      sql<number>`count(*) FILTER (WHERE status = 'DONE')::int`.as('done'),
    ])
    .where('userId', '=', userId)
    .executeTakeFirstOrThrow();
  return {
    totalCalls: calls.total,
    callsThisWeek: calls.thisWeek,
    openActionItems: items.open,
    overdueActionItems: items.overdue,
    completedActionItems: items.done,
    averageCallDurationSeconds: calls.avgDuration,
  };
}

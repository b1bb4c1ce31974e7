// Account views and statistics, computed from the tables as they are.
import type { Db } from '../store/database.js';
import { userStatsCounters } from '../store/repos/stats.js';
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
  const { calls, items } = await userStatsCounters(db, userId);
  return {
    totalCalls: calls.total,
    callsThisWeek: calls.thisWeek,
    openActionItems: items.open,
    overdueActionItems: items.overdue,
    completedActionItems: items.done,
    averageCallDurationSeconds: calls.avgDuration,
  };
}

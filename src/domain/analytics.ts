// Sentiment and tone trends, aggregated in SQL from the stored analysis artifacts (no model call).
//
// Window and weeks use the call's createdAt (server time of the upload), not recordedAt: recordedAt
// is optional, client-supplied metadata that may be missing or wrong, while createdAt always
// exists, is the order of the call list, and is what the "this week" statistic counts. Weeks are
// ISO weeks in UTC, named by the date of their Monday.
//
// A value counts only where the artifact holds it as a non-empty string, so calls without a
// stored sentiment or tone (still processing, pre-v2 shapes, a model that gave none) drop out of
// that distribution alone instead of showing up as a null bucket.
import type { Db } from '../store/database.js';
import { conversationMetricRows, vibeCounts } from '../store/repos/analytics.js';

export const DEFAULT_VIBE_DAYS = 30;
export const MAX_VIBE_DAYS = 3650;

export type Distribution = Record<string, number>;

export interface VibeReport {
  sentimentDistribution: Distribution;
  userSentimentDistribution: Distribution;
  contactSentimentDistribution: Distribution;
  sentimentTrend: Array<{ week: string; counts: Distribution }>;
  toneProfile: { formality: Distribution; energy: Distribution; pace: Distribution };
  conversationMetrics: ConversationAverages;
}

export interface RoleAverages {
  callCount: number;
  averageTalkShare: number | null;
  averageTalkSeconds: number | null;
  averageWordsPerMinute: number | null;
  averageInterruptionCount: number | null;
  averageResponseLatencySeconds: number | null;
}

/** Means of the analyses' conversationMetrics (analyses without them, older ones, are left out). */
export interface ConversationAverages {
  callCount: number;
  averageDurationSeconds: number | null;
  averageTurnCount: number | null;
  averageInterruptionCount: number | null;
  averageSilenceShare: number | null;
  averageResponseLatencySeconds: number | null;
  averageLongestMonologueSeconds: number | null;
  /** By speaker role (USER, CONTACT, UNKNOWN), over the calls with a party of that role. */
  byRole: Record<string, RoleAverages>;
}

export async function vibeReport(db: Db, userId: string, days: number): Promise<VibeReport> {
  const rows = await vibeCounts(db, userId, days);

  const report: VibeReport = {
    sentimentDistribution: {},
    userSentimentDistribution: {},
    contactSentimentDistribution: {},
    sentimentTrend: [],
    toneProfile: { formality: {}, energy: {}, pace: {} },
    conversationMetrics: { callCount: 0, averageDurationSeconds: null, averageTurnCount: null, averageInterruptionCount: null, averageSilenceShare: null, averageResponseLatencySeconds: null, averageLongestMonologueSeconds: null, byRole: {} },
  };
  const weeks = new Map<string, Distribution>();
  for (const r of rows.rows) {
    switch (r.dim) {
      case 'sentiment':
        report.sentimentDistribution[r.value] = r.n;
        break;
      case 'userSentiment':
        report.userSentimentDistribution[r.value] = r.n;
        break;
      case 'contactSentiment':
        report.contactSentimentDistribution[r.value] = r.n;
        break;
      case 'trend': {
        const w = r.week!;
        const counts = weeks.get(w) ?? {};
        counts[r.value] = r.n;
        weeks.set(w, counts);
        break;
      }
      case 'formality':
      case 'energy':
      case 'pace':
        report.toneProfile[r.dim][r.value] = r.n;
        break;
    }
  }
  // Rows come ordered by week, so insertion order is chronological.
  report.sentimentTrend = [...weeks].map(([week, counts]) => ({ week, counts }));
  report.conversationMetrics = await conversationAverages(db, userId, days);
  return report;
}

const round3 = (v: number | null) => (v === null || v === undefined ? null : Math.round(Number(v) * 1000) / 1000);

async function conversationAverages(db: Db, userId: string, days: number): Promise<ConversationAverages> {
  const { overall, roles } = await conversationMetricRows(db, userId, days);

  const o = overall.rows[0] ?? {};
  const byRole: Record<string, RoleAverages> = {};
  for (const r of roles.rows) {
    byRole[String(r.role)] = {
      callCount: Number(r.callCount),
      averageTalkShare: round3(r.averageTalkShare as number | null),
      averageTalkSeconds: round3(r.averageTalkSeconds as number | null),
      averageWordsPerMinute: round3(r.averageWordsPerMinute as number | null),
      averageInterruptionCount: round3(r.averageInterruptionCount as number | null),
      averageResponseLatencySeconds: round3(r.averageResponseLatencySeconds as number | null),
    };
  }
  return {
    callCount: Number(o.callCount ?? 0),
    averageDurationSeconds: round3(o.averageDurationSeconds ?? null),
    averageTurnCount: round3(o.averageTurnCount ?? null),
    averageInterruptionCount: round3(o.averageInterruptionCount ?? null),
    averageSilenceShare: round3(o.averageSilenceShare ?? null),
    averageResponseLatencySeconds: round3(o.averageResponseLatencySeconds ?? null),
    averageLongestMonologueSeconds: round3(o.averageLongestMonologueSeconds ?? null),
    byRole,
  };
}

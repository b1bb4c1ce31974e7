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
import { sql } from 'kysely';
import type { Db } from '../store/database.js';

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

type Dim = 'sentiment' | 'userSentiment' | 'contactSentiment' | 'trend' | 'formality' | 'energy' | 'pace';

export async function vibeReport(db: Db, userId: string, days: number): Promise<VibeReport> {
  // The string value at a JSON path, or NULL when it is absent, not a string, or blank.
  const at = (path: string) => sql`(CASE WHEN jsonb_typeof(a.body #> ${path}::text[]) = 'string' THEN nullif(btrim(a.body #>> ${path}::text[]), '') END)`;
  const overall = at('{sentiment,overall}');

  const rows = await sql<{ dim: Dim; week: string | null; value: string; n: number }>`
    WITH a AS (
      SELECT c.created_at, x.body
      FROM calls c
      JOIN call_artifacts x ON x.call_id = c.id AND x.user_id = c.user_id AND x.kind = 'analysis'
      WHERE c.user_id = ${userId}
        AND c.created_at >= now() - make_interval(days => ${days}::int)
    )
    SELECT v.dim, v.week, v.value, count(*)::int AS n
    FROM a
    CROSS JOIN LATERAL (VALUES
      ('sentiment', NULL::text, ${overall}),
      ('userSentiment', NULL, ${at('{sentiment,userSentiment,overall}')}),
      ('contactSentiment', NULL, ${at('{sentiment,contactSentiment,overall}')}),
      ('trend', to_char(date_trunc('week', a.created_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD'), ${overall}),
      ('formality', NULL, ${at('{tone,formality}')}),
      ('energy', NULL, ${at('{tone,energy}')}),
      ('pace', NULL, ${at('{tone,pace}')})
    ) AS v(dim, week, value)
    WHERE v.value IS NOT NULL
    GROUP BY v.dim, v.week, v.value
    ORDER BY v.dim, v.week, v.value
  `.execute(db);

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

// A number at a JSON path of x, or NULL when it is absent or not a number (never a cast error).
const num = (x: string, path: string) => sql.raw(`(CASE WHEN jsonb_typeof(${x} #> '${path}') = 'number' THEN (${x} #>> '${path}')::float8 END)`);
const round3 = (v: number | null) => (v === null || v === undefined ? null : Math.round(Number(v) * 1000) / 1000);

async function conversationAverages(db: Db, userId: string, days: number): Promise<ConversationAverages> {
  const m = "a.body -> 'conversationMetrics'";
  const base = sql`
    SELECT c.id, x.body
    FROM calls c
    JOIN call_artifacts x ON x.call_id = c.id AND x.user_id = c.user_id AND x.kind = 'analysis'
    WHERE c.user_id = ${userId}
      AND c.created_at >= now() - make_interval(days => ${days}::int)
      AND jsonb_typeof(x.body -> 'conversationMetrics') = 'object'`;
  const overall = await sql<Record<string, number | null>>`
    WITH a AS (${base})
    SELECT count(*)::int AS "callCount",
      avg(${num(m, '{durationSeconds}')}) AS "averageDurationSeconds",
      avg(${num(m, '{turnCount}')}) AS "averageTurnCount",
      avg(${num(m, '{interruptionCount}')}) AS "averageInterruptionCount",
      avg(${num(m, '{silenceShare}')}) AS "averageSilenceShare",
      avg(${num(m, '{responseLatency,averageSeconds}')}) AS "averageResponseLatencySeconds",
      avg(${num(m, '{longestMonologue,seconds}')}) AS "averageLongestMonologueSeconds"
    FROM a`.execute(db);
  // Per call and role first (a call may hold two parties of one role), then over calls.
  const roles = await sql<Record<string, number | string | null>>`
    WITH a AS (${base}),
    per_call AS (
      SELECT a.id, p ->> 'role' AS role,
        sum(${num('p', '{talkShare}')}) AS talk_share,
        sum(${num('p', '{talkSeconds}')}) AS talk_seconds,
        sum(${num('p', '{wordCount}')}) * 60 / nullif(sum(${num('p', '{talkSeconds}')}), 0) AS wpm,
        sum(${num('p', '{interruptionCount}')}) AS interruptions,
        avg(${num('p', '{averageResponseLatencySeconds}')}) AS latency
      FROM a
      CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(a.body -> 'conversationMetrics' -> 'parties') = 'array' THEN a.body -> 'conversationMetrics' -> 'parties' ELSE '[]'::jsonb END) AS p
      WHERE jsonb_typeof(p -> 'role') = 'string'
      GROUP BY a.id, p ->> 'role'
    )
    SELECT role, count(*)::int AS "callCount", avg(talk_share) AS "averageTalkShare", avg(talk_seconds) AS "averageTalkSeconds",
      avg(wpm) AS "averageWordsPerMinute", avg(interruptions) AS "averageInterruptionCount", avg(latency) AS "averageResponseLatencySeconds"
    FROM per_call GROUP BY role ORDER BY role`.execute(db);

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

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
  return report;
}

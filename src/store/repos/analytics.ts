// The analytics aggregates, computed in SQL over the user's stored analysis artifacts (see
// domain/analytics.ts for the window and counting rules). Every statement takes the owner id.
import { sql } from 'kysely';
import type { Db } from '../database.js';

export type Dim = 'sentiment' | 'userSentiment' | 'contactSentiment' | 'trend' | 'formality' | 'energy' | 'pace';

/** Counts of each string value per dimension (per week for the trend) over the window. */
export async function vibeCounts(db: Db, userId: string, days: number) {
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
  return rows;
}

// A number at a JSON path of x, or NULL when it is absent or not a number (never a cast error).
const num = (x: string, path: string) => sql.raw(`(CASE WHEN jsonb_typeof(${x} #> '${path}') = 'number' THEN (${x} #>> '${path}')::float8 END)`);
/** Averages of conversationMetrics over the window: overall, and per call and role then over calls. */
export async function conversationMetricRows(db: Db, userId: string, days: number) {
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
  return { overall, roles };
}

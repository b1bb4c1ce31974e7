// The counters of the user's stats (GET /api/users/me/stats, see domain/account.ts computeStats).
import { sql } from 'kysely';
import type { Executor } from './executor.js';

export async function userStatsCounters(db: Executor, userId: string) {
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
  return { calls, items };
}

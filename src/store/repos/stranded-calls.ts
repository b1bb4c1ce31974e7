// The statements of the stranded-call sweep (domain/stranded-calls.ts): calls in a processing
// status with no live pg-boss job on either of their queues (the call job runs the speech stages,
// the analysis job analysis and completion), and completed calls whose requested analysis has no
// live job.
import { sql } from 'kysely';
import type { Db } from '../database.js';
import { ANALYSIS_QUEUE, CALL_QUEUE } from '../queue.js';
import { ACTIVE_CALL_STATUSES } from '../schema.js';
import type { Executor } from './executor.js';

/** Both queues' jobs of a call carry the call's id as their singleton key. */
const QUEUES = [CALL_QUEUE, ANALYSIS_QUEUE];

/** The job states in which pg-boss will still run a job. */
const liveJob = (callId: unknown, queues: readonly string[]) => sql<boolean>`EXISTS (
  SELECT 1 FROM pgboss.job j
  WHERE j.name IN (${sql.join(queues)}) AND j.singleton_key = ${callId}::text AND j.state IN ('created', 'retry', 'active'))`;

/** Whether some job of the call on `queues` is live, and the state of its latest one (null when there is none). */
async function jobState(db: Executor, callId: string, queues: readonly string[]): Promise<{ live: boolean; state: string | null }> {
  const { rows } = await sql<{ live: boolean; state: string | null }>`
    SELECT ${liveJob(callId, queues)} AS live,
      (SELECT j.state::text FROM pgboss.job j WHERE j.name IN (${sql.join(queues)}) AND j.singleton_key = ${callId}::text ORDER BY j.created_on DESC LIMIT 1) AS state`.execute(db);
  return { live: Boolean(rows[0]?.live), state: rows[0]?.state ?? null };
}

/** Up to 500 calls in a processing status, unchanged for `graceSeconds`, with no live job on either queue. */
export async function strandedCallCandidates(db: Db, graceSeconds: number): Promise<Array<{ id: string; userId: string }>> {
  return db
    .selectFrom('calls as c')
    .select(['c.id', 'c.userId'])
    .where('c.status', 'in', ACTIVE_CALL_STATUSES)
    .where('c.updatedAt', '<', sql<Date>`now() - ${graceSeconds}::int * interval '1 second'`)
    .where(sql<boolean>`NOT ${liveJob(sql.ref('c.id'), QUEUES)}`)
    .limit(500)
    .execute();
}

/** Whether the call has a live job on either queue, and the state of its latest job. */
export async function callJobState(db: Executor, callId: string): Promise<{ live: boolean; state: string | null }> {
  return jobState(db, callId, QUEUES);
}

/**
 * Up to 500 completed calls whose analysis is pending (a corrected transcript's), with no live
 * analysis job and no processing event for `graceSeconds` (the correction that asked for it
 * wrote one).
 */
export async function strandedAnalysisCandidates(db: Db, graceSeconds: number): Promise<Array<{ id: string; userId: string }>> {
  return db
    .selectFrom('calls as c')
    .select(['c.id', 'c.userId'])
    .where('c.analysisRequestedRevision', 'is not', null)
    .where('c.status', '=', 'COMPLETED')
    .where(sql<boolean>`NOT ${liveJob(sql.ref('c.id'), [ANALYSIS_QUEUE])}`)
    .where(
      sql<boolean>`NOT EXISTS (SELECT 1 FROM processing_events e WHERE e.call_id = c.id AND e.created_at > now() - ${graceSeconds}::int * interval '1 second')`,
    )
    .limit(500)
    .execute();
}

/** Whether the call's analysis job is live, and the state of its latest one. */
export async function analysisJobState(db: Executor, callId: string): Promise<{ live: boolean; state: string | null }> {
  return jobState(db, callId, [ANALYSIS_QUEUE]);
}

// The statements of the stranded-call sweep (domain/stranded-calls.ts): calls in a processing
// status whose pg-boss job is no longer live.
import { sql } from 'kysely';
import type { Db } from '../database.js';
import { CALL_QUEUE } from '../queue.js';
import { ACTIVE_CALL_STATUSES } from '../schema.js';
import type { Executor } from './executor.js';

/** The job states in which pg-boss will still run the call's job. */
const liveJob = (callId: unknown) => sql<boolean>`EXISTS (
  SELECT 1 FROM pgboss.job j
  WHERE j.name = ${CALL_QUEUE} AND j.singleton_key = ${callId}::text AND j.state IN ('created', 'retry', 'active'))`;

/** Up to 500 calls in a processing status, unchanged for `graceSeconds`, whose job is not live. */
export async function strandedCallCandidates(db: Db, graceSeconds: number): Promise<Array<{ id: string; userId: string }>> {
  return db
    .selectFrom('calls as c')
    .select(['c.id', 'c.userId'])
    .where('c.status', 'in', ACTIVE_CALL_STATUSES)
    .where('c.updatedAt', '<', sql<Date>`now() - ${graceSeconds}::int * interval '1 second'`)
    .where(sql<boolean>`NOT ${liveJob(sql.ref('c.id'))}`)
    .limit(500)
    .execute();
}

/** Whether the call's job is live, and the state of its latest job (null when there is none). */
export async function callJobState(db: Executor, callId: string): Promise<{ live: boolean; state: string | null }> {
  const { rows } = await sql<{ live: boolean; state: string | null }>`
    SELECT ${liveJob(callId)} AS live,
      (SELECT j.state::text FROM pgboss.job j WHERE j.name = ${CALL_QUEUE} AND j.singleton_key = ${callId}::text ORDER BY j.created_on DESC LIMIT 1) AS state`.execute(db);
  return { live: Boolean(rows[0]?.live), state: rows[0]?.state ?? null };
}

// Reconciliation of calls whose processing job is gone. A call in a processing status normally
// has a live job (waiting, running or due for a retry) that ends it COMPLETED or FAILED. pg-boss can
// end a job without the handler having the last word: a job that expires on every attempt (its
// worker killed each time) is failed by the queue's maintenance, and a handler's failure that
// cannot be recorded (the database down at that moment) leaves the job to expire the same way.
// Such a call would stay QUEUED/PROCESSING/TRANSCRIBING/ANALYZING for ever, holding one of the
// user's active-call slots, and no `call.failed` webhook would be sent.
//
// The sweep ends such calls: FAILED with errorReason `internal_error`, a processing event
// (PIPELINE/FAILED, cause `job_lost`) and the call.failed deliveries, in one transaction that locks
// the call row and checks again that it is still in processing and still has no live job. A job
// that is waiting, running or scheduled for a retry is live, however long it has been so.
import { sql } from 'kysely';
import type { Db } from '../store/database.js';
import type { JobQueue } from '../store/queue.js';
import { CALL_QUEUE } from '../store/queue.js';
import { ACTIVE_CALL_STATUSES } from '../store/schema.js';
import { recordEvent } from './calls.js';
import { enqueueCallEvent } from './webhooks.js';

/** The errorReason of a call whose job ended without a result (one of the documented reasons). */
export const STRANDED_CALL_REASON = 'internal_error';

/** The job states in which pg-boss will still run the call's job. */
const liveJob = (callId: unknown) => sql<boolean>`EXISTS (
  SELECT 1 FROM pgboss.job j
  WHERE j.name = ${CALL_QUEUE} AND j.singleton_key = ${callId}::text AND j.state IN ('created', 'retry', 'active'))`;

/**
 * Fails every call in a processing status, unchanged for at least `graceSeconds`, whose job is
 * not live (failed, completed, cancelled or deleted). Returns the ids of the calls it failed.
 */
export async function failStrandedCalls(db: Db, queue: Pick<JobQueue, 'enqueueWebhook'>, opts: { graceSeconds: number }): Promise<string[]> {
  const candidates = await db
    .selectFrom('calls as c')
    .select(['c.id', 'c.userId'])
    .where('c.status', 'in', ACTIVE_CALL_STATUSES)
    .where('c.updatedAt', '<', sql<Date>`now() - ${opts.graceSeconds}::int * interval '1 second'`)
    .where(sql<boolean>`NOT ${liveJob(sql.ref('c.id'))}`)
    .limit(500)
    .execute();
  const failed: string[] = [];
  for (const { id, userId } of candidates) {
    const done = await db.transaction().execute(async (trx) => {
      const call = await trx.selectFrom('calls').select(['status']).where('id', '=', id).where('userId', '=', userId).forUpdate().executeTakeFirst();
      if (!call || !ACTIVE_CALL_STATUSES.includes(call.status)) return false;
      const { rows } = await sql<{ live: boolean; state: string | null }>`
        SELECT ${liveJob(id)} AS live,
          (SELECT j.state::text FROM pgboss.job j WHERE j.name = ${CALL_QUEUE} AND j.singleton_key = ${id}::text ORDER BY j.created_on DESC LIMIT 1) AS state`.execute(trx);
      if (rows[0]?.live) return false;
      await trx
        .updateTable('calls')
        .set({ status: 'FAILED', errorReason: STRANDED_CALL_REASON, updatedAt: sql`now()`, completedAt: sql`now()` })
        .where('id', '=', id)
        .where('userId', '=', userId)
        .execute();
      await recordEvent(trx, userId, id, 'PIPELINE', 'FAILED', { reason: STRANDED_CALL_REASON, cause: 'job_lost', jobState: rows[0]?.state ?? 'gone', statusBefore: call.status });
      await enqueueCallEvent(trx, queue, userId, { id, status: 'FAILED', errorReason: STRANDED_CALL_REASON });
      return true;
    });
    if (done) failed.push(id);
  }
  return failed;
}

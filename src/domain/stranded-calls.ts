// Reconciliation of calls whose processing job is gone. A call in a processing status normally
// has a live job (waiting, running or due for a retry) that ends it COMPLETED or FAILED: its call
// job (CALL_QUEUE) while the speech stages run, then its analysis job (ANALYSIS_QUEUE), enqueued in
// the transaction that moves the call to ANALYZING. pg-boss can
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
//
// The same can happen to the analysis of a corrected transcript (speaker corrections): a
// COMPLETED call whose analysis is pending (analysisPending) with no live analysis job would say
// so for ever. The sweep gives such an analysis up as its job does when its retries are spent:
// the pending mark cleared, the previous analysis kept, an ANALYZE/FAILED event (cause job_lost).
import type { Db } from '../store/database.js';
import type { JobQueue } from '../store/queue.js';
import { clearAnalysisRequest, failCall, lockCallRevision } from '../store/repos/calls.js';
import { analysisJobState, callJobState, strandedAnalysisCandidates, strandedCallCandidates } from '../store/repos/stranded-calls.js';
import { ACTIVE_CALL_STATUSES } from '../store/schema.js';
import { recordEvent } from './calls.js';
import { enqueueCallEvent } from './webhooks.js';

/** The errorReason of a call whose job ended without a result (one of the documented reasons). */
export const STRANDED_CALL_REASON = 'internal_error';

/**
 * Fails every call in a processing status, unchanged for at least `graceSeconds`, whose jobs are
 * not live (failed, completed, cancelled or deleted), and gives up every pending analysis of a
 * completed call whose analysis job is not live and which had no processing event for
 * `graceSeconds` (releaseStrandedAnalyses). Returns the ids of the calls it failed.
 */
export async function failStrandedCalls(db: Db, queue: Pick<JobQueue, 'enqueueWebhook'>, opts: { graceSeconds: number }): Promise<string[]> {
  const candidates = await strandedCallCandidates(db, opts.graceSeconds);
  const failed: string[] = [];
  for (const { id, userId } of candidates) {
    const done = await db.transaction().execute(async (trx) => {
      const call = await lockCallRevision(trx, userId, id);
      if (!call || !ACTIVE_CALL_STATUSES.includes(call.status)) return false;
      const job = await callJobState(trx, id);
      if (job.live) return false;
      await failCall(trx, userId, id, STRANDED_CALL_REASON);
      await recordEvent(trx, userId, id, 'PIPELINE', 'FAILED', { reason: STRANDED_CALL_REASON, cause: 'job_lost', jobState: job.state ?? 'gone', statusBefore: call.status });
      await enqueueCallEvent(trx, queue, userId, { id, status: 'FAILED', errorReason: STRANDED_CALL_REASON });
      return true;
    });
    if (done) failed.push(id);
  }
  await releaseStrandedAnalyses(db, opts);
  return failed;
}

/** The pending analyses with no live job given up (see above). Returns the ids of their calls. */
export async function releaseStrandedAnalyses(db: Db, opts: { graceSeconds: number }): Promise<string[]> {
  const candidates = await strandedAnalysisCandidates(db, opts.graceSeconds);
  const released: string[] = [];
  for (const { id, userId } of candidates) {
    const done = await db.transaction().execute(async (trx) => {
      const call = await lockCallRevision(trx, userId, id);
      if (!call || call.status !== 'COMPLETED' || call.analysisRequestedRevision === null) return false;
      const job = await analysisJobState(trx, id);
      if (job.live) return false;
      await clearAnalysisRequest(trx, userId, id);
      await recordEvent(trx, userId, id, 'ANALYZE', 'FAILED', { trigger: 'SPEAKERS', reason: STRANDED_CALL_REASON, cause: 'job_lost', jobState: job.state ?? 'gone', revision: call.transcriptRevision });
      return true;
    });
    if (done) released.push(id);
  }
  return released;
}

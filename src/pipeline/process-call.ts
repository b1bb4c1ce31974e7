// The jobs that run a call's pipeline: the call job (CALL_QUEUE) runs the speech stages, QUEUED →
// PROCESSING (decode) → TRANSCRIBING (recognition, diarization, voice matching, naming), and hands
// the call to its analysis job (ANALYSIS_QUEUE), ANALYZING → COMPLETED; either may end the call
// FAILED with a stable reason. The stages themselves are src/pipeline/stages/ (one module each,
// listed once in stages/index.ts, each naming the job that runs it); this adds the jobs' rules:
// retries, the failure record, the log and the metrics.
//
// Every write is idempotent (stage outputs and artifacts are upserts; AI action items are merged in
// the completing transaction, keeping the user's edits), so a job that runs again after its worker
// died produces one result, resuming at the first stage that had not finished.
// A job for a call that is already terminal, or deleted, does nothing.
import { reachedTimeLimit, type CallJobContext, type CallJobHandler } from '../store/queue.js';
import { failCall } from '../store/repos/calls.js';
import { PipelineError, type PipelineFailureReason } from './types.js';
import { findCall, recordEvent } from '../domain/calls.js';
import { enqueueCallEvent } from '../domain/webhooks.js';
import type { Call } from '../store/schema.js';
import { observeCallFailed, observeCallProcessed } from '../observability/metrics.js';
import { CallGone, type Deps, type StageJob } from './stages/stage.js';
import { runStages } from './stages/run.js';

/** The job of one part of a call's stages (StageJob), for a call not yet terminal. */
export type StageJobHandler = (call: Call, job: CallJobContext) => Promise<void>;

export function createStageJobHandler(deps: Deps, part: StageJob): StageJobHandler {
  const { database, log } = deps;
  const db = database.db;

  async function fail(call: Call, reason: PipelineFailureReason, detail: Record<string, unknown>): Promise<void> {
    await db.transaction().execute(async (trx) => {
      await failCall(trx, call.userId, call.id, reason);
      await recordEvent(trx, call.userId, call.id, 'PIPELINE', 'FAILED', { reason, ...detail });
      await enqueueCallEvent(trx, deps.queue, call.userId, { id: call.id, status: 'FAILED', errorReason: reason });
    });
  }

  async function run(call: Call, job: CallJobContext): Promise<void> {
    const result = await runStages(deps, call, job, part);
    if (result.kind === 'not_ready') log.debug({ callId: call.id }, 'analysis job before the speech stages finished; the call job hands the call over');
    // The call's processing is over once the analysis job's stages (the last ones) finished.
    if (result.kind !== 'finished' || result.job !== 'analysis') return;
    const { timings, totalMs, audioSeconds } = result;
    log.info({ callId: call.id, totalMs, timings, audioSeconds }, 'call processed');
    observeCallProcessed(timings, totalMs, audioSeconds);
  }

  return async (call, job) => {
    try {
      await run(call, job);
    } catch (err) {
      if (err instanceof CallGone) return;
      const stillThere = await findCall(db, call.userId, call.id);
      if (!stillThere || stillThere.status === 'COMPLETED' || stillThere.status === 'FAILED') return;
      // A job stopped at its time limit is retried like any retryable failure (the queue would
      // retry it at the limit anyway), whatever error the interrupted step raised; a shutdown
      // leaves the call to the next worker.
      const timedOut = reachedTimeLimit(job.signal);
      const pe = timedOut
        ? new PipelineError('internal_error', 'processing reached the job time limit', true)
        : err instanceof PipelineError
          ? err
          : new PipelineError('internal_error', (err as Error)?.message ?? 'unknown error', true);
      const lastAttempt = job.retryCount >= job.retryLimit;
      const shuttingDown = job.signal.aborted && !timedOut;
      if (timedOut) log.warn({ callId: call.id, timeLimitSeconds: job.timeLimitSeconds(), attempt: job.retryCount + 1 }, 'call processing reached the job time limit');
      if (pe.retryable && !lastAttempt && !shuttingDown) {
        await recordEvent(db, call.userId, call.id, 'PIPELINE', 'RETRY_SCHEDULED', { reason: pe.reason, attempt: job.retryCount + 1, ...(part === 'call' ? {} : { job: part }) });
        log.warn({ callId: call.id, reason: pe.reason, attempt: job.retryCount + 1, job: part }, 'call processing failed; will retry');
        observeCallFailed('retry', pe.reason);
        throw pe;
      }
      if (shuttingDown) throw pe; // leave the call for the next worker
      log.warn({ callId: call.id, reason: pe.reason, job: part }, 'call processing failed');
      if (!(err instanceof PipelineError)) log.error({ err }, 'unexpected pipeline error');
      await fail(call, pe.reason, { attempt: job.retryCount + 1 });
      observeCallFailed('failed', pe.reason);
    }
  };
}

/** The job of CALL_QUEUE: the call's speech stages, then the hand-over to its analysis job. */
export function createCallProcessor(deps: Deps): CallJobHandler {
  const runPart = createStageJobHandler(deps, 'call');
  return async (data, job) => {
    const call = await findCall(deps.database.db, data.userId, data.callId);
    if (!call || call.status === 'COMPLETED' || call.status === 'FAILED') return;
    await runPart(call, job);
  };
}

// The job of ANALYSIS_QUEUE, one per call at a time (coalesced), for two kinds of analysis:
// - a call in processing (ANALYZING, handed over by its call job): the pipeline's analysis stages
//   (analyze, complete), run by the stage runner with the call job's rules (createStageJobHandler:
//   retries, failure of the call, resume from call_stages);
// - a COMPLETED call whose corrected transcript waits for its analysis (speaker corrections):
//   analyzeStoredTranscript (domain/reanalysis.ts), which runs the analyze stage's core as
//   re-analysis does; a provider that may recover is retried by the queue, a failure for good
//   clears the pending mark.
import type { AnalysisJobHandler } from '../store/queue.js';
import { AnalysisFailed, analyzeStoredTranscript, giveUpAnalysis } from '../domain/reanalysis.js';
import { findCall } from '../domain/calls.js';
import { ErrorCode } from '../domain/errors.js';
import type { Deps } from './stages/stage.js';
import { createStageJobHandler } from './process-call.js';

export function createAnalysisProcessor(deps: Deps): AnalysisJobHandler {
  const db = deps.database.db;
  const log = deps.log.child({ component: 'analysis' });
  const firstAnalysis = createStageJobHandler(deps, 'analysis');
  const stageDeps = { db, analyzer: deps.pipeline.analyzer, log };
  return async (data, job) => {
    const call = await findCall(db, data.userId, data.callId);
    if (!call || call.status === 'FAILED') return;
    if (call.status !== 'COMPLETED') return firstAnalysis(call, job);
    try {
      const outcome = await analyzeStoredTranscript(stageDeps, data.userId, data.callId, { onlyIfPending: true, trigger: 'SPEAKERS', signal: job.signal });
      if (outcome.kind === 'superseded') log.debug({ callId: data.callId }, 'analysis superseded by a newer correction');
    } catch (err) {
      const failed = err instanceof AnalysisFailed ? err : null;
      const retryable = failed ? failed.code === ErrorCode.ServiceUnavailable : true;
      if (job.signal.aborted) throw err; // shutting down or at its time limit: the queue hands the job to the next worker
      if (retryable && job.retryCount < job.retryLimit) {
        log.warn({ callId: data.callId, reason: failed?.reason ?? 'internal_error', attempt: job.retryCount + 1 }, 'analysis failed; will retry');
        throw err;
      }
      log.warn({ callId: data.callId, reason: failed?.reason ?? 'internal_error' }, 'analysis failed for good');
      await giveUpAnalysis(db, data.userId, data.callId, failed?.revision ?? null, failed?.reason ?? 'internal_error');
    }
  };
}

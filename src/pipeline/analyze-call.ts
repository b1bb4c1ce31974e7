// The job of ANALYSIS_QUEUE: the analysis of a completed call's corrected transcript, requested by
// speaker corrections (src/domain/speaker-corrections.ts). The stage itself is the domain's
// analyzeStoredTranscript, which re-analysis runs too; this adds the queue's rules: a provider
// that may recover is retried by the queue, a failure for good clears the pending mark.
import type { Logger } from 'pino';
import type { Db } from '../store/database.js';
import type { AnalysisJobHandler } from '../store/queue.js';
import type { Analyzer } from './types.js';
import { AnalysisFailed, analyzeStoredTranscript, giveUpAnalysis } from '../domain/reanalysis.js';
import { ErrorCode } from '../domain/errors.js';

export function createAnalysisProcessor(deps: { db: Db; analyzer: Analyzer; log: Logger }): AnalysisJobHandler {
  const { db, log } = deps;
  return async (data, job) => {
    try {
      const outcome = await analyzeStoredTranscript(deps, data.userId, data.callId, { onlyIfPending: true, trigger: 'SPEAKERS', signal: job.signal });
      if (outcome.kind === 'superseded') log.debug({ callId: data.callId }, 'analysis superseded by a newer correction');
    } catch (err) {
      const failed = err instanceof AnalysisFailed ? err : null;
      const retryable = failed ? failed.code === ErrorCode.ServiceUnavailable : true;
      if (job.signal.aborted) throw err; // shutting down: the queue hands the job to the next worker
      if (retryable && job.retryCount < job.retryLimit) {
        log.warn({ callId: data.callId, reason: failed?.reason ?? 'internal_error', attempt: job.retryCount + 1 }, 'analysis failed; will retry');
        throw err;
      }
      log.warn({ callId: data.callId, reason: failed?.reason ?? 'internal_error' }, 'analysis failed for good');
      await giveUpAnalysis(db, data.userId, data.callId, failed?.revision ?? null, failed?.reason ?? 'internal_error');
    }
  };
}

// Running the analysis again on a stored (possibly corrected) transcript: the analysis that
// speaker corrections enqueue (ANALYSIS_QUEUE, run by src/pipeline/analyze-call.ts) and that
// re-analysis (non-production) runs within its request. Both run the analyze stage's core
// (analyzeTranscript, src/pipeline/stages/analyze.ts), as a call's first analysis does: one
// analysis path. The model runs outside any transaction
// (it can take long and must not hold locks); the embedded analyzer runs in a worker thread
// (src/pipeline/analysis/threaded.ts), so neither blocks the event loop.
//
// Ordering: every write of a corrected transcript increments calls.transcript_revision, and an
// analysis is stored only if the revision it was made from is still the current one, so an older
// analysis never overwrites a newer one. calls.analysis_requested_revision is the revision waiting
// for its analysis (the call detail's analysisPending); storing the current revision's analysis
// clears it.
import type { Analysis } from './analysis.js';
import type { Transcript } from './transcript.js';
import type { Call, User } from '../store/schema.js';
import type { Db, Tx } from '../store/database.js';
import { getArtifact } from '../store/repos/artifacts.js';
import { bumpTranscriptRevision, clearAnalysisRequest, lockCallRevision } from '../store/repos/calls.js';
import { getDisplayName } from '../store/repos/users.js';
import type { JobQueue } from '../store/queue.js';
import { storeAnalysis } from './call-results.js';
import { findCall, recordEvent } from './calls.js';
import { ErrorCode, ServiceError } from './errors.js';
import { PipelineError, type Analyzer } from '../pipeline/types.js';
import { analyzeTranscript } from '../pipeline/stages/analyze.js';

/** Only warn is used, so a request logger or a pino instance will do. */
type WarnLogger = { warn(obj: object, msg: string): void };

/** analyzeAgain's error: the ServiceError the routes answer with, and the pipeline's reason. */
export class AnalysisFailed extends ServiceError {
  constructor(
    code: ErrorCode,
    readonly reason: string,
  ) {
    super(code);
  }

  /** The transcript revision that was being analysed, once known. */
  revision: number | null = null;
}

/** The analysis of `transcript`, or an AnalysisFailed: 503 when the provider may recover, else 500. */
export async function analyzeAgain(analyzer: Analyzer, transcript: Transcript, call: Call, user: Pick<User, 'displayName'>, log: WarnLogger, signal?: AbortSignal): Promise<Analysis> {
  try {
    return await analyzeTranscript(analyzer, transcript, call, user, { signal });
  } catch (err) {
    // The reason only: a provider message may quote transcript content.
    const reason = err instanceof PipelineError ? err.reason : 'analysis_failed';
    log.warn({ reason }, 're-analysis failed');
    throw new AnalysisFailed(err instanceof PipelineError && err.retryable ? ErrorCode.ServiceUnavailable : ErrorCode.InternalError, reason);
  }
}

/**
 * Marks the call's transcript as rewritten and its analysis as due, inside the transaction that
 * stores the corrected transcript, and enqueues the analysis job with it (coalesced per call).
 */
export async function requestAnalysis(trx: Tx, queue: Pick<JobQueue, 'enqueueAnalysis'>, userId: string, callId: string): Promise<number> {
  const revision = await bumpTranscriptRevision(trx, userId, callId);
  await queue.enqueueAnalysis(trx, { userId, callId });
  return revision;
}

export type AnalysisOutcome =
  | { kind: 'stored'; call: Call }
  /** Nothing to do: no analysis is pending (another job stored it). */
  | { kind: 'nothing' }
  /** The transcript changed while the model ran; the result was dropped (a newer request follows). */
  | { kind: 'superseded' }
  | { kind: 'missing' }
  | { kind: 'no_transcript' }
  | { kind: 'not_completed'; status: Call['status'] };

export interface AnalysisStageDeps {
  db: Db;
  analyzer: Analyzer;
  log: WarnLogger;
}

/**
 * The analysis stage on a completed call's stored transcript: loads the transcript and its
 * revision, runs the analyzer, and stores the analysis (artifact, action items merged as
 * replaceAiActionItems keeps the user's work, title, summary) if the revision is still current.
 * `onlyIfPending`: do nothing unless an analysis is pending (queued requests). Analyzer failures
 * throw analyzeAgain's ServiceError.
 */
export async function analyzeStoredTranscript(
  deps: AnalysisStageDeps,
  userId: string,
  callId: string,
  opts: { onlyIfPending: boolean; trigger: 'SPEAKERS' | 'REANALYZE'; signal?: AbortSignal },
): Promise<AnalysisOutcome> {
  const { db } = deps;
  // Call row and transcript from one snapshot, so the revision is the transcript's.
  const input = await db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (trx) => {
      const call = await findCall(trx, userId, callId);
      if (!call) return { kind: 'missing' } as const;
      if (call.status !== 'COMPLETED') return { kind: 'not_completed', status: call.status } as const;
      if (opts.onlyIfPending && call.analysisRequestedRevision === null) return { kind: 'nothing' } as const;
      const transcript = await getArtifact<Transcript>(trx, userId, callId, 'transcript');
      if (!transcript) return { kind: 'no_transcript' } as const;
      const user = await getDisplayName(trx, userId);
      return { kind: 'input', call, transcript, user } as const;
    });
  if (input.kind !== 'input') return input;
  const { call, transcript, user } = input;

  const started = Date.now();
  let analysis: Analysis;
  try {
    analysis = await analyzeAgain(deps.analyzer, transcript, call, user, deps.log, opts.signal);
  } catch (err) {
    if (err instanceof AnalysisFailed) err.revision = call.transcriptRevision;
    throw err;
  }

  return db.transaction().execute(async (trx): Promise<AnalysisOutcome> => {
    // The call may have been deleted, reprocessed or corrected again while the model ran.
    const current = await lockCallRevision(trx, userId, callId);
    if (!current) return { kind: 'missing' };
    if (current.status !== 'COMPLETED') return { kind: 'not_completed', status: current.status };
    if (current.transcriptRevision !== call.transcriptRevision) return { kind: 'superseded' };
    await storeAnalysis(trx, userId, callId, analysis);
    await clearAnalysisRequest(trx, userId, callId);
    await recordEvent(trx, userId, callId, 'ANALYZE', 'COMPLETED', {
      trigger: opts.trigger,
      provider: deps.analyzer.provider,
      actionItems: analysis.actionItems?.length ?? 0,
      revision: call.transcriptRevision,
      ms: Date.now() - started,
    });
    const stored = await findCall(trx, userId, callId);
    return stored ? { kind: 'stored', call: stored } : { kind: 'missing' };
  });
}

/**
 * An analysis request that failed for good (retries spent, or not retryable) on `revision`: the previous
 * analysis stays, the call no longer says an analysis is pending (unless a newer correction asked
 * for another), and the failure is recorded for the call's processing events.
 */
export async function giveUpAnalysis(db: Db, userId: string, callId: string, revision: number | null, reason: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const current = await lockCallRevision(trx, userId, callId);
    if (!current || current.analysisRequestedRevision === null) return;
    // A newer correction's request is its own job's to answer.
    if (revision !== null && current.analysisRequestedRevision !== revision) return;
    await clearAnalysisRequest(trx, userId, callId);
    await recordEvent(trx, userId, callId, 'ANALYZE', 'FAILED', { trigger: 'SPEAKERS', reason, revision: current.transcriptRevision });
  });
}

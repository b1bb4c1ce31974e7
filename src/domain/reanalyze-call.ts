// Re-analysis on request (POST /api/calls/{id}/reanalyze, non-production): the same analysis stage
// that speaker corrections enqueue (analyzeStoredTranscript), awaited. The analyzer runs off the
// event loop (the embedded one in a worker thread). A correction landing while the model runs
// makes the result stale; the stage drops it and runs again on the new transcript, up to 3 times.
import type { Call } from '../store/schema.js';
import { ErrorCode, errors } from './errors.js';
import { analyzeStoredTranscript, type AnalysisStageDeps } from './reanalysis.js';

export async function reanalyzeCall(deps: AnalysisStageDeps, userId: string, callId: string): Promise<Call> {
  for (let round = 0; round < 3; round++) {
    const outcome = await analyzeStoredTranscript(deps, userId, callId, { onlyIfPending: false, trigger: 'REANALYZE' });
    switch (outcome.kind) {
      case 'stored':
        return outcome.call;
      case 'missing':
      case 'no_transcript':
        throw errors.callNotFound();
      case 'not_completed':
        throw errors.of(ErrorCode.CallNotReanalyzable, { status: outcome.status });
      case 'superseded':
      case 'nothing':
        continue;
    }
  }
  throw errors.of(ErrorCode.ServiceUnavailable);
}

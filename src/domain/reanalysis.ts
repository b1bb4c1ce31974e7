// Running the analysis again on a stored (possibly corrected) transcript, outside any
// transaction: the model can take long and must not hold locks. Shared by re-analysis
// (non-production) and speaker corrections (every environment), so both behave alike.
import type { Analysis } from './analysis.js';
import type { Transcript } from './transcript.js';
import type { Call, User } from '../store/schema.js';
import { analysisContextOf } from './call-results.js';
import { ErrorCode, ServiceError } from './errors.js';
import { PipelineError, type Analyzer } from '../pipeline/types.js';
import { validateAnalysis } from '../pipeline/analysis/validate.js';

/** Only warn is used, so a request logger or a pino instance will do. */
type WarnLogger = { warn(obj: object, msg: string): void };

/** The analysis of `transcript`, or a ServiceError: 503 when the provider may recover, else 500. */
export async function analyzeAgain(analyzer: Analyzer, transcript: Transcript, call: Call, user: Pick<User, 'displayName'>, log: WarnLogger): Promise<Analysis> {
  try {
    const analysis = await analyzer.analyze(transcript, analysisContextOf(call, user));
    const checked = validateAnalysis(analysis);
    if (!checked.ok) throw new PipelineError('analysis_failed', 'analysis failed validation');
    return checked.value;
  } catch (err) {
    // The reason only: a provider message may quote transcript content.
    const reason = err instanceof PipelineError ? err.reason : 'analysis_failed';
    log.warn({ reason }, 're-analysis failed');
    throw new ServiceError(err instanceof PipelineError && err.retryable ? ErrorCode.ServiceUnavailable : ErrorCode.InternalError);
  }
}

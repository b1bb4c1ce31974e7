// The embedded analyzer run in worker threads (src/pipeline/thread-pool.ts), so that its
// synchronous, CPU-bound work (about 12 s on a 3-hour transcript) never blocks the event loop that
// serves requests and runs jobs (issue 22). The service's process only copies the transcript to a
// thread and the analysis back.
import type { Analysis, AnalysisContext } from '../../domain/analysis.js';
import type { Transcript } from '../../domain/transcript.js';
import { ThreadPool, threadEntry } from '../thread-pool.js';
import type { Analyzer } from '../types.js';
import { EMBEDDED_MODEL } from './embedded/index.js';

export interface AnalysisRequest {
  transcript: Transcript;
  context: AnalysisContext;
}

export class ThreadedAnalyzer implements Analyzer {
  readonly provider = 'embedded';
  readonly model = EMBEDDED_MODEL;
  private readonly pool: ThreadPool<AnalysisRequest, Analysis>;

  constructor(size = 1) {
    this.pool = new ThreadPool(threadEntry(import.meta.url, 'embedded/thread'), size, { work: 'analysis', lostReason: 'analysis_failed' });
  }

  analyze(transcript: Transcript, context: AnalysisContext, signal?: AbortSignal): Promise<Analysis> {
    return this.pool.run({ transcript, context }, signal);
  }

  /** Ends every thread; analyses running or waiting fail as retryable. */
  close(): Promise<void> {
    return this.pool.close();
  }

  /** Threads alive now (for tests). */
  threads(): number {
    return this.pool.threads();
  }
}

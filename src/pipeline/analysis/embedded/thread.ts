// The worker-thread side of ThreadedAnalyzer (../threaded.ts): runs the embedded analyzer on the
// transcripts it is sent, one at a time.
import { serveThread } from '../../thread-pool.js';
import type { AnalysisRequest } from '../threaded.js';
import { EmbeddedAnalyzer } from './index.js';

const analyzer = new EmbeddedAnalyzer();

serveThread(({ transcript, context }: AnalysisRequest) => analyzer.analyze(transcript, context));

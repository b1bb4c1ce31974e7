// The worker-thread side of ThreadedAnalyzer (../threaded.ts): runs the embedded analyzer on the
// transcripts it is sent, one at a time, and answers with the analysis or the error's name,
// message and pipeline reason.
import { parentPort } from 'node:worker_threads';
import { EmbeddedAnalyzer } from './index.js';
import { PipelineError } from '../../types.js';
import type { ThreadReply, ThreadRequest } from '../threaded.js';

const analyzer = new EmbeddedAnalyzer();

parentPort!.on('message', async (req: ThreadRequest) => {
  let reply: ThreadReply;
  try {
    reply = { id: req.id, ok: true, analysis: await analyzer.analyze(req.transcript, req.context) };
  } catch (err) {
    const e = err as Error;
    reply = {
      id: req.id,
      ok: false,
      error: { message: e?.message ?? String(err), ...(err instanceof PipelineError ? { reason: err.reason, retryable: err.retryable } : {}) },
    };
  }
  parentPort!.postMessage(reply);
});

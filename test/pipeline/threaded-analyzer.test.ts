// The embedded analyzer in worker threads (src/pipeline/analysis/threaded.ts): the same analysis
// as in the calling thread, the event loop free while it runs, aborts, and closing.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { ThreadedAnalyzer } from '../../src/pipeline/analysis/threaded.js';
import { EmbeddedAnalyzer } from '../../src/pipeline/analysis/embedded/index.js';
import { transcriptFor } from '../fixtures/seed.js';
import type { Transcript } from '../../src/domain/transcript.js';
import type { AnalysisContext } from '../../src/domain/analysis.js';

const context: AnalysisContext = { userDisplayName: 'Olivia Park', contactName: 'Bayview Logistics', phoneNumber: null, direction: 'INCOMING', recordedAt: '2025-03-25T09:00:00.000Z', title: 'Demo call' };
const analyzer = new ThreadedAnalyzer(1);
after(() => analyzer.close());

test('a thread gives the analysis the calling thread gives, and the event loop keeps turning meanwhile', async () => {
  const transcript = transcriptFor(crypto.randomUUID()) as Transcript;
  let ticks = 0;
  const ticker = setInterval(() => ticks++, 1);
  const threaded = await analyzer.analyze(transcript, context);
  clearInterval(ticker);
  assert.deepEqual(threaded, await new EmbeddedAnalyzer().analyze(transcript, context));
  // Loading the analyzer's modules in the thread alone takes many milliseconds; the timer fired
  // during them, which a synchronous analysis in this thread would not allow.
  assert.ok(ticks > 0);
  assert.equal(analyzer.threads(), 1);
});

test('an aborted analysis rejects with the signal\'s reason and the next one gets a fresh thread', async () => {
  const transcript = transcriptFor(crypto.randomUUID()) as Transcript;
  const ac = new AbortController();
  const running = analyzer.analyze(transcript, context, ac.signal);
  ac.abort(new Error('stop now'));
  await assert.rejects(running, /stop now/);
  const again = await analyzer.analyze(transcript, context);
  assert.ok(Array.isArray(again.actionItems));
});

test('a closed analyzer ends its threads and refuses work as retryable', async () => {
  const own = new ThreadedAnalyzer(2);
  const transcript = transcriptFor(crypto.randomUUID()) as Transcript;
  await own.analyze(transcript, context);
  await own.close();
  assert.equal(own.threads(), 0);
  await assert.rejects(own.analyze(transcript, context), (err: any) => err.retryable === true);
});

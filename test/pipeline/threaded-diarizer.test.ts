// The embedded diarizer in worker threads (src/pipeline/diarization/threaded.ts): the attribution
// the calling thread gives, for file-backed mono and two-channel audio and for samples in memory;
// the event loop free while it runs; aborts and closing.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { decodeAudio, readWavMono } from '../../src/pipeline/audio/decode.js';
import { ArrayPcm } from '../../src/pipeline/audio/pcm.js';
import { createDiarizer } from '../../src/pipeline/diarization/index.js';
import { ThreadedDiarizer } from '../../src/pipeline/diarization/threaded.js';
import type { DecodedAudio, RecognizedWord } from '../../src/pipeline/types.js';
import { corpusFile, ensureCorpus, loadTruth } from '../support/corpus.js';

const ID = 'car-repair';
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'threaded-diarizer-'));
const diarizer = new ThreadedDiarizer(1);
let words: RecognizedWord[];

before(() => {
  ensureCorpus([ID]);
  // The truth turns' words spread over each turn by length (no recogniser needed).
  words = loadTruth(ID).turns.flatMap((t) => {
    const toks = t.text.split(/\s+/).filter(Boolean);
    const step = (t.endSeconds - t.startSeconds) / toks.length;
    return toks.map((word, i) => ({ word, start: t.startSeconds + i * step, end: t.startSeconds + (i + 1) * step, confidence: 1 }));
  });
});
after(async () => {
  await diarizer.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** The longest time (ms) between two turns of a 5 ms timer while `work` runs. */
async function longestStall(work: () => Promise<unknown>): Promise<number> {
  let last = performance.now();
  let longest = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 5);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return Math.max(longest, performance.now() - last);
}

test('a thread attributes the words of a decoded mono call as the calling thread does, and the event loop keeps turning', async () => {
  const audio = await decodeAudio(corpusFile(ID, 'call.m4a'), path.join(tmp, 'mono'), { timeoutMs: 60_000, maxSeconds: 600 });
  let threaded: Awaited<ReturnType<ThreadedDiarizer['diarize']>> | undefined;
  const threadStall = await longestStall(async () => (threaded = await diarizer.diarize(audio, words)));
  let local: typeof threaded;
  const localStall = await longestStall(async () => (local = await createDiarizer().diarize(audio, words)));
  assert.deepEqual(threaded, local);
  assert.equal(threaded!.speakers.length, 2);
  assert.equal(diarizer.threads(), 1);
  // In the calling thread the clustering holds the event loop for most of its run (seconds); in a
  // thread only the copying of words and answer does.
  assert.ok(threadStall < localStall / 2, `longest stall ${threadStall.toFixed(0)} ms in a thread, ${localStall.toFixed(0)} ms in the calling thread`);
});

test('two-channel files and samples in memory reach the thread too', async () => {
  const stereo = await decodeAudio(corpusFile(ID, 'stereo.wav'), path.join(tmp, 'stereo'), { timeoutMs: 60_000, maxSeconds: 600 });
  assert.ok(stereo.channels, 'the corpus stereo file decodes to two channels');
  assert.deepEqual(await diarizer.diarize(stereo, words), await createDiarizer().diarize(stereo, words));
  const { samples } = await readWavMono(corpusFile(ID, 'mono16k.wav'));
  const inMemory: DecodedAudio = { sampleRate: 16000, mono: new ArrayPcm(samples, 16000), durationSeconds: samples.length / 16000, wavPath: corpusFile(ID, 'mono16k.wav') };
  assert.deepEqual(await diarizer.diarize(inMemory, words), await createDiarizer().diarize(inMemory, words));
});

test('an aborted diarization rejects with the signal\'s reason, and a closed diarizer refuses work as retryable', async () => {
  const audio = await decodeAudio(corpusFile(ID, 'call.m4a'), path.join(tmp, 'abort'), { timeoutMs: 60_000, maxSeconds: 600 });
  const ac = new AbortController();
  const running = diarizer.diarize(audio, words, ac.signal);
  ac.abort(new Error('job time limit'));
  await assert.rejects(running, /job time limit/);
  assert.equal((await diarizer.diarize(audio, words)).speakers.length, 2);
  const own = new ThreadedDiarizer(1);
  await own.close();
  await assert.rejects(own.diarize(audio, words), (err: any) => err.retryable === true);
});

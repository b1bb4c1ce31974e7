// The embedded voice embedders in worker threads (src/pipeline/voice/threaded.ts): the vector the
// calling thread gives, "not enough speech" still an EmbeddingError, the event loop free meanwhile.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { readWavMono } from '../../src/pipeline/audio/decode.js';
import { createSpeakerEmbedder, EmbeddingError } from '../../src/pipeline/voice/embedder.js';
import { ThreadedEmbedder } from '../../src/pipeline/voice/threaded.js';
import { corpusFile, ensureCorpus } from '../support/corpus.js';

const local = await createSpeakerEmbedder({ provider: 'embedded' });
const threaded = new ThreadedEmbedder('embedded', local, 1);
after(() => threaded.close());

test('a thread gives the vector, id and decision constants of the calling thread\'s embedder', async () => {
  ensureCorpus(['car-repair']);
  const { samples } = await readWavMono(corpusFile('car-repair', 'mono16k.wav'));
  let ticks = 0;
  const timer = setInterval(() => ticks++, 1);
  const vector = await threaded.embed(samples, 16000, [{ start: 0, end: 20 }]);
  clearInterval(timer);
  assert.deepEqual(vector, await local.embed(samples, 16000, [{ start: 0, end: 20 }]));
  assert.equal(threaded.provider, local.provider);
  assert.deepEqual(threaded.normalization, local.normalization);
  assert.deepEqual(threaded.fusion, local.fusion);
  // Loading the embedder's modules in the thread alone takes many milliseconds; the timer fired
  // during them, which an embedding in this thread would not allow.
  assert.ok(ticks > 0);
  assert.equal(threaded.threads(), 1);
});

test('too little speech stays an EmbeddingError across the thread', async () => {
  await assert.rejects(threaded.embed(new Float32Array(16000 * 2), 16000), (err: unknown) => err instanceof EmbeddingError && err.reason === 'not_enough_speech');
});

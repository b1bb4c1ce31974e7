// Long calls through the OpenAI-compatible adapter in parts: cut at pauses, sent as FLAC under the
// size limit, overlap removed, word times back in call time, per-part retries. The mock server
// finds where each part lies in the call by matching its samples (every loop of the test audio has
// its own gain, so a position is unique), and names each word after its true call time, so the
// checks do not rely on the adapter's own arithmetic.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { OpenAiTranscriber } from '../../src/pipeline/transcription/openai.js';
import { mergeChunkWords, planChunks } from '../../src/pipeline/transcription/chunks.js';
import { readWavMono, writeWav16 } from '../../src/pipeline/audio/decode.js';
import { PipelineError, type StageProgress } from '../../src/pipeline/types.js';
import { corpusFile } from '../support/corpus.js';
import { soundRegions, startMockRecognizer, wordsBody, type MockRecognizer, type RecognizerRequest } from '../support/mock-recognizer.js';

const SR = 16000;
let tmp: string;
let longWav: string;
let full: Int16Array;
let duration: number;

/** Offset (samples) of `part` inside `full`, found by an exact match of 32 samples from its first loud sample. */
function locate(part: Int16Array): number {
  let a = 0;
  while (a < part.length && Math.abs(part[a]) < 500) a++;
  assert.ok(a + 32 < part.length, 'part without sound');
  outer: for (let j = a; j < full.length; j++) {
    if (full[j] !== part[a]) continue;
    for (let k = 1; k < 32; k++) if (full[j + k] !== part[a + k]) continue outer;
    return j - a;
  }
  throw new Error('part not found in the call');
}

/** Each sound region as a word named after its call time in centiseconds, timed relative to the part as a recogniser would. */
function labelledWords(req: RecognizerRequest) {
  const at = locate(req.pcm);
  // Frames on the call's own 10 ms grid, so a part finds exactly the regions the whole call has.
  const skip = (160 - (at % 160)) % 160;
  return soundRegions(req.pcm.subarray(skip), SR).map((r) => {
    const start = r.start + skip / SR;
    return { word: `t${Math.round((at / SR + start) * 100)}`, start, end: r.end + skip / SR };
  });
}

before(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'chunks-test-'));
  const base = (await readWavMono(corpusFile('car-repair', 'mono16k.wav'))).samples;
  const loops = 9;
  const pieces: Float32Array[] = [];
  for (let k = 0; k < loops; k++) {
    const gain = 0.95 - 0.04 * k;
    const piece = new Float32Array(base.length + Math.round(SR * 0.2 * k));
    for (let i = 0; i < base.length; i++) piece[i] = Math.round(base[i] * gain * 32767) / 32767;
    pieces.push(piece);
  }
  const samples = new Float32Array(pieces.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of pieces) {
    samples.set(p, at);
    at += p.length;
  }
  longWav = path.join(tmp, 'audio16k.wav');
  await writeWav16(longWav, samples, SR);
  full = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) full[i] = Math.round(samples[i] * 32767);
  duration = samples.length / SR;
});

after(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('OpenAiTranscriber in parts', () => {
  let mock: MockRecognizer;
  let failPart = -1;
  let failTimes = 0;
  before(async () => {
    mock = await startMockRecognizer((req) => {
      if (req.part === failPart && req.attempt <= failTimes) return { status: 503, body: { error: { code: 'overloaded' } } };
      // The third test sends another file, not found in the long call: plain words then.
      let words;
      try {
        words = labelledWords(req);
      } catch {
        words = soundRegions(req.pcm, SR).map((x) => ({ ...x, word: 'word' }));
      }
      return { status: 200, body: wordsBody(words) };
    });
  });
  after(() => mock.close());

  it('cuts a call at pauses, retries a part that fails twice, and returns every word once in call time', async () => {
    failPart = 2;
    failTimes = 2;
    mock.requests.length = 0;
    const progress: StageProgress[] = [];
    const t = new OpenAiTranscriber({ baseUrl: mock.baseUrl, model: 'm', timeoutMs: 30_000, maxChunkSeconds: 60, concurrency: 3, retryDelayMs: 20 });
    const r = await t.transcribe({ wavPath: longWav, durationSeconds: duration, onProgress: (p) => progress.push(p) });

    const parts = new Set(mock.requests.map((q) => q.part));
    assert.ok(parts.size >= 6, `${parts.size} parts for ${duration.toFixed(0)} s`);
    assert.ok(mock.requests.every((q) => q.fileName.endsWith('.flac') && q.mime === 'audio/flac'));
    assert.deepEqual(mock.requests.filter((q) => q.part === 2).map((q) => q.status), [503, 503, 200]);

    // Word times are call times: each word's label (its true call time) matches its start.
    for (const w of r.words) assert.ok(Math.abs(Number(w.word.slice(1)) / 100 - w.start) <= 0.021, `${w.word} at ${w.start}`);
    for (let i = 1; i < r.words.length; i++) assert.ok(r.words[i].start >= r.words[i - 1].end, `words overlap at ${r.words[i].start}`);
    // Exactly the sound regions of the whole call: nothing lost or doubled at the cuts.
    const expected = soundRegions(full, SR);
    assert.equal(r.words.length, expected.length);
    expected.forEach((e, i) => assert.ok(Math.abs(r.words[i].start - e.start) <= 0.021, `region at ${e.start} vs word at ${r.words[i].start}`));

    assert.ok(progress.length === parts.size);
    for (let i = 1; i < progress.length; i++) assert.ok(progress[i].doneSeconds > progress[i - 1].doneSeconds);
    assert.ok(Math.abs(progress.at(-1)!.doneSeconds - duration) < 1e-6);
  });

  it('fails the call naming the part once a part has used its retries', async () => {
    failPart = 1;
    failTimes = 99;
    mock.requests.length = 0;
    // Two at a time: the part running beside the failed one is stopped, and the error names the failed part.
    const t = new OpenAiTranscriber({ baseUrl: mock.baseUrl, model: 'm', timeoutMs: 30_000, maxChunkSeconds: 120, concurrency: 2, chunkRetries: 2, retryDelayMs: 10 });
    await assert.rejects(t.transcribe({ wavPath: longWav, durationSeconds: duration }), (e: unknown) => {
      assert.ok(e instanceof PipelineError);
      assert.equal(e.reason, 'transcription_provider_error');
      assert.equal(e.retryable, false);
      assert.match(e.message, /part 2 of \d+ \(\d\d:\d\d-\d\d:\d\d\) failed after 3 attempts: HTTP 503 \(overloaded\)/);
      return true;
    });
    assert.equal(mock.requests.filter((q) => q.part === 1).length, 3);
    // Parts after those running when it failed are not sent.
    assert.ok(mock.requests.every((q) => q.part <= 3), mock.requests.map((q) => q.part).join());
  });

  it('keeps every request under the byte limit by making parts shorter', async () => {
    failPart = -1;
    mock.requests.length = 0;
    const wav = corpusFile('car-repair', 'mono16k.wav');
    const seconds = (await readWavMono(wav)).samples.length / SR;
    const t = new OpenAiTranscriber({ baseUrl: mock.baseUrl, model: 'm', timeoutMs: 30_000, maxRequestBytes: 300_000, retryDelayMs: 10 });
    const r = await t.transcribe({ wavPath: wav, durationSeconds: seconds });
    assert.ok(mock.requests.length >= 5, `${mock.requests.length} requests`);
    assert.ok(mock.requests.every((q) => q.fileSize <= 300_000 && q.status === 200));
    assert.ok(r.words.length > 20);
  });
});

describe('part planning and merging', () => {
  it('cuts inside pauses and keeps parts within the length limit', async () => {
    const chunks = await planChunks(longWav, duration, { maxChunkSeconds: 60, overlapSeconds: 1 });
    const regions = soundRegions(full, SR);
    for (const c of chunks) {
      assert.ok(c.sendEnd - c.sendStart <= 60 + 1e-6);
      if (c.index > 0) assert.ok(!regions.some((r) => r.start < c.start && r.end > c.start), `cut at ${c.start} inside a sound`);
    }
    assert.equal(chunks.at(-1)!.end, duration);
  });

  it('keeps a word seen by two parts once', () => {
    const chunks = [
      { index: 0, start: 0, end: 10, sendStart: 0, sendEnd: 11 },
      { index: 1, start: 10, end: 20, sendStart: 9, sendEnd: 20 },
    ];
    const w = (word: string, start: number, end: number) => ({ word, start, end, confidence: 1 });
    // "here" straddles the cut; the second part times it 30 ms earlier, putting its middle on the other side.
    const merged = mergeChunkWords(chunks, [
      [w('hello', 1, 1.5), w('here', 9.8, 10.22), w('again', 10.5, 10.9)],
      [w('ere', 0, 0.2), w('here,', 0.77, 1.2), w('again', 1.5, 1.9), w('bye', 5, 5.5)],
    ]);
    assert.deepEqual(merged.map((x) => [x.word, x.start]), [['hello', 1], ['here', 9.8], ['again', 10.5], ['bye', 14]]);
  });
});

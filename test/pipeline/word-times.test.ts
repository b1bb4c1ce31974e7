import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { checkWordTimes, longestOrderedRun, WORD_TIME_WARNINGS } from '../../src/pipeline/word-times.js';
import { PocketsphinxTranscriber } from '../../src/pipeline/transcription/pocketsphinx.js';
import { readWavMono, writeWav16 } from '../../src/pipeline/audio/decode.js';
import { detectSpeech, speechUtterances } from '../../src/pipeline/diarization/vad.js';
import { createPipeline } from '../../src/pipeline/index.js';
import { transcribeCall } from '../../src/pipeline/speech.js';
import { finalizeAnalysis } from '../../src/pipeline/analysis/finalize.js';
import { loadConfig } from '../../src/config.js';
import type { RecognizedWord } from '../../src/pipeline/types.js';
import { corpusFile, ensureCorpus, loadScorer, loadTruth } from '../support/corpus.js';
import { timingViolations, wordTimingErrors } from '../support/word-timing.js';

let tmp: string;
before(() => {
  ensureCorpus();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'word-times-test-'));
});
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

const w = (word: string, start: number, end: number): RecognizedWord => ({ word, start, end, confidence: 0.9 });

function assertSane(words: RecognizedWord[], duration: number) {
  words.forEach((x, i) => {
    assert.ok(Number.isFinite(x.start) && Number.isFinite(x.end), JSON.stringify(x));
    assert.ok(x.start >= 0 && x.end >= x.start && x.end <= duration, JSON.stringify(x));
    if (i > 0) assert.ok(x.start >= words[i - 1].start, `word ${i} out of order`);
  });
}

describe('word-time check', () => {
  // Two utterances: 0.3-2.0 s and 3.0-6.0 s of a 7 s call.
  const regions = [{ start: 0.3, end: 2.0 }, { start: 3.0, end: 6.0 }];

  it('keeps words that fit the audio as they are', () => {
    const words = [w('hello', 0.3, 0.8), w('there', 0.9, 1.9), w('fine', 3.1, 3.6), w('thanks', 3.7, 5.9)];
    const r = checkWordTimes(words, regions, 7);
    assert.deepEqual(r.words, words);
    assert.deepEqual(r.warnings, []);
    assert.equal(r.retimed + r.unverified, 0);
  });

  it('moves a drifting last utterance back into its speech', () => {
    // The recogniser placed the second utterance 6 s late: in silence and past the end.
    const words = [w('hello', 0.3, 0.8), w('there', 0.9, 1.9), w('fine', 9.1, 9.6), w('thanks', 9.7, 11.9)];
    const r = checkWordTimes(words, regions, 7);
    assertSane(r.words, 7);
    assert.deepEqual(r.words.map((x) => x.word), ['hello', 'there', 'fine', 'thanks']);
    assert.deepEqual(r.words.slice(0, 2), words.slice(0, 2));
    assert.equal(r.retimed, 2);
    assert.deepEqual(r.warnings, [WORD_TIME_WARNINGS.retimed]);
    // Spread over the 3.0-6.0 s speech in proportion to their reported lengths (0.5 s, and 2.2 s
    // counted as 2 s: one word is never given more).
    assert.ok(Math.abs(r.words[2].start - 3.0) < 1e-9);
    assert.ok(Math.abs(r.words[2].end - (3.0 + (3 * 0.5) / 2.5)) < 1e-6, JSON.stringify(r.words[2]));
    assert.ok(Math.abs(r.words[3].end - 6.0) < 1e-9);
  });

  it('re-times one word reported out of order without disturbing the others', () => {
    const words = [w('a', 0.3, 0.6), w('b', 5.0, 5.4), w('c', 1.0, 1.4), w('d', 1.5, 1.9), w('e', 3.2, 3.5)];
    const r = checkWordTimes(words, regions, 7);
    assertSane(r.words, 7);
    assert.equal(r.retimed, 1);
    assert.ok(r.words[1].start >= 0.6 && r.words[1].end <= 1.0, JSON.stringify(r.words[1]));
    assert.deepEqual(r.words[4], words[4]);
  });

  it('flags words it cannot place and still keeps them inside the audio and in order', () => {
    const words = [w('x', -1, -0.5), w('y', 2.0, Number.NaN), w('z', 8, 9)];
    const r = checkWordTimes(words, [], 7);
    assertSane(r.words, 7);
    assert.equal(r.unverified, 3);
    assert.deepEqual(r.warnings, [WORD_TIME_WARNINGS.unverified]);
  });

  it('finds the longest ordered run', () => {
    assert.deepEqual(longestOrderedRun([1, 5, 2, 3, 3, 0, 4]), [0, 2, 3, 4, 6]);
    assert.deepEqual(longestOrderedRun([]), []);
  });
});

describe('pocketsphinx utterance decoding', () => {
  it('keeps a drifting decoder inside the utterances it was given', async () => {
    // A stand-in decoder that answers every utterance with words far past its end.
    const fake = path.join(tmp, 'fake-batch.sh');
    fs.writeFileSync(
      fake,
      '#!/bin/sh\nwhile [ $# -gt 0 ]; do case "$1" in -ctl) ctl="$2";; -hypseg) out="$2";; esac; shift 2; done\n' +
        'awk \'{ print $4 " S 0 T -1 A -1 L -1 0 -1 0 <s> 5000 -100 -1 late 9000 -100 -1 later 12000" }\' "$ctl" > "$out"\n',
      { mode: 0o755 },
    );
    const wav = path.join(tmp, 'two-seconds.wav');
    await writeWav16(wav, new Float32Array(32000), 16000);
    const t = new PocketsphinxTranscriber({ binary: fake });
    const utterances = [{ start: 0.1, end: 0.7 }, { start: 1.0, end: 1.8 }];
    const r = await t.transcribe({ wavPath: wav, durationSeconds: 2, utterances });
    assert.equal(r.words.length, 4);
    for (const x of r.words) assert.ok(utterances.some((u) => x.start >= u.start && x.end <= u.end + 1e-9), JSON.stringify(x));
  });
});

describe('word times through the speech stage', () => {
  let server: http.Server;
  let answer: unknown;
  before(async () => {
    server = http.createServer(async (req, res) => {
      for await (const _ of req);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('an OpenAI-compatible answer with words past the end of the audio is re-timed before it reaches the transcript', async () => {
    const id = 'car-repair';
    const truth = loadTruth(id);
    const turns = truth.turns.slice(0, 3);
    const clipEnd = turns[2].endSeconds + 0.4;
    const { samples } = await readWavMono(corpusFile(id, 'mono16k.wav'));
    const clip = path.join(tmp, 'clip.wav');
    await writeWav16(clip, samples.subarray(0, Math.round(clipEnd * 16000)), 16000);
    // The provider's words: the spoken text of each turn spread over the turn, the last turn 6 s late.
    const words = turns.flatMap((t, k) => {
      const tokens = t.text.split(/\s+/);
      const step = (t.endSeconds - t.startSeconds) / tokens.length;
      const shift = k === 2 ? 6 : 0;
      return tokens.map((word, i) => ({ word, start: t.startSeconds + shift + i * step, end: t.startSeconds + shift + (i + 1) * step }));
    });
    answer = { task: 'transcribe', language: 'english', duration: clipEnd + 6, text: turns.map((t) => t.text).join(' '), words };

    const config = loadConfig({
      ...process.env,
      DATA_DIR: path.join(tmp, 'data'),
      TRANSCRIPTION_PROVIDER: 'openai',
      TRANSCRIPTION_OPENAI_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      TRANSCRIPTION_OPENAI_API_KEY: 'test',
      TRANSCRIPTION_OPENAI_MODEL: 'whisper-1',
    });
    const pipeline = await createPipeline(config, pino({ level: 'silent' }));
    const workDir = fs.mkdtempSync(path.join(tmp, 'work-'));
    const speech = await transcribeCall(pipeline, {
      callId: '00000000-0000-4000-8000-000000000000',
      audioPath: clip,
      workDir,
      maxAudioSeconds: 3600,
      voiceProfile: null,
      context: { userDisplayName: null, contactName: null, phoneNumber: null, direction: null, voiceEmbeddingEnabled: false },
    });
    const t = speech.transcript;
    assert.deepEqual(t.qualityWarnings, [WORD_TIME_WARNINGS.retimed]);
    assert.deepEqual(timingViolations(speech.audio.durationSeconds, speech.recognition.words, t.segments), []);
    // Nothing of the provider's late times survives, and the last turn lands on its own speech.
    const last = t.segments[t.segments.length - 1];
    assert.ok(last.endSeconds <= speech.audio.durationSeconds);
    const scorer = await loadScorer();
    const timing = wordTimingErrors(turns, speech.recognition.words, scorer.normalizeText);
    assert.equal(timing.turns.length, 3);
    const third = timing.turns.find((x) => x.turn === 2)!;
    assert.ok(third.startError !== null && third.startError < 0.4 && third.endError !== null && third.endError < 0.4, JSON.stringify(third));
    assert.ok(timing.meanBoundaryError <= 0.3, JSON.stringify(timing));

    // The analysis reports the same warning, whichever analyzer produced it.
    const analysis = finalizeAnalysis({ schemaVersion: 3, qualityWarnings: ['very_short_call'] } as never, t);
    assert.deepEqual(analysis.qualityWarnings, ['very_short_call', WORD_TIME_WARNINGS.retimed]);
  });
});

describe('word-time error scoring', () => {
  it('measures turn boundaries from the words aligned to each turn by text', async () => {
    const scorer = await loadScorer();
    const turns = [
      { startSeconds: 0.5, endSeconds: 1.5, text: 'Hello there.' },
      { startSeconds: 2.0, endSeconds: 4.0, text: 'Five five five, thanks.' },
    ];
    const words = [w('hello', 0.6, 0.9), w('there', 1.0, 1.4), w('five', 2.3, 2.6), w('fine', 2.7, 3.0), w('five', 3.1, 3.4), w('thanks', 3.5, 4.2)];
    const r = wordTimingErrors(turns, words, scorer.normalizeText);
    assert.equal(r.turns.length, 2);
    assert.ok(Math.abs(r.meanBoundaryError - (0.1 + 0.1 + 0.3 + 0.2) / 4) < 1e-9, String(r.meanBoundaryError));
    assert.ok(Math.abs(r.maxBoundaryError - 0.3) < 1e-9);
    // A turn in another language is not measured; beside it only exactly recognised edge words count
    // ("their" for "there" ends turn 0: its end is not measured).
    const mixed = wordTimingErrors(
      [turns[0], { startSeconds: 1.8, endSeconds: 1.95, text: 'Grazie mille.', language: 'it' }, turns[1]],
      [w('hello', 0.6, 0.9), w('their', 1.0, 1.4), w('gracie', 1.8, 1.9), ...words.slice(2)],
      scorer.normalizeText,
    );
    assert.deepEqual(mixed.turns.map((t) => [t.turn, t.startError !== null, t.endError !== null]), [
      [0, true, false],
      [2, true, true],
    ]);
    assert.equal(mixed.edges, 3);
    assert.deepEqual(timingViolations(5, words, [{ startSeconds: 0.6, endSeconds: 1.4 }, { startSeconds: 2.3, endSeconds: 5.5 }]), ['segment 1 ends at 5.5 after the audio (5.000 s)']);
  });
});

// The decoded call is read window by window (src/pipeline/audio/pcm.ts): every windowed computation
// must give what the whole-array computation gives, including at window edges. Window sizes here
// divide neither the call's length nor each other.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { decodeAudio, readWavMono } from '../../src/pipeline/audio/decode.js';
import { ArrayPcm, readAllPcm, spanSquareSums, WavFilePcm } from '../../src/pipeline/audio/pcm.js';
import { frameEnergy, frameEnergyOf, frameGrid, mfccFrames, mfccFramesAt } from '../../src/pipeline/diarization/features.js';
import { detectSpeech, speechUtterances } from '../../src/pipeline/diarization/vad.js';
import { capRegions } from '../../src/pipeline/voice/match.js';
import type { DecodedAudio } from '../../src/pipeline/types.js';
import { corpusFile, ensureCorpus } from '../support/corpus.js';

const SR = 16000;
let tmp: string;
let audio: DecodedAudio;
let whole: Float32Array;

before(async () => {
  ensureCorpus();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pcm-test-'));
  audio = await decodeAudio(corpusFile('car-repair', 'call.m4a'), path.join(tmp, 'call'), { timeoutMs: 60_000, maxSeconds: 600 });
  whole = (await readWavMono(audio.wavPath)).samples;
});
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('windowed reading of decoded audio', () => {
  it('reads the same samples as the whole file, clipped at the ends', async () => {
    assert.ok(audio.mono instanceof WavFilePcm);
    assert.equal(audio.mono.length, whole.length);
    assert.deepEqual(await audio.mono.read(12345, 777), whole.subarray(12345, 12345 + 777));
    assert.deepEqual(await audio.mono.read(whole.length - 10, 100), whole.subarray(whole.length - 10));
    assert.equal((await audio.mono.read(whole.length + 5, 100)).length, 0);
    assert.deepEqual(await audio.mono.read(-5, 10), whole.subarray(0, 5));
  });

  it('gives the whole-array frame energies and MFCCs with windows of an odd number of frames', async () => {
    const opts = { frameSeconds: 0.025, hopSeconds: 0.01 };
    const grid = frameGrid(whole.length, SR, opts);
    assert.ok(grid.count % 777 !== 0);
    assert.deepEqual(await frameEnergyOf(audio.mono, opts, 777), frameEnergy(whole, SR, opts));
    // MFCCs of every third frame and of frames on both sides of each window edge.
    const mfccOpts = { ...opts, coefficients: 20, melBands: 40 };
    const reference = mfccFrames(whole, SR, mfccOpts);
    const frames = [...new Set([...Array.from({ length: Math.ceil(grid.count / 3) }, (_, i) => 3 * i), 776, 777, 778, 1553, 1554, grid.count - 1])].sort((a, b) => a - b);
    const got = await mfccFramesAt(audio.mono, frames, mfccOpts, [1, 20], 777);
    assert.equal(got.count, frames.length);
    assert.equal(got.dim, 19);
    assert.equal(got.data.length, frames.length * 19);
    frames.forEach((f, j) => assert.deepEqual(got.data.subarray(j * 19, (j + 1) * 19), reference[f].subarray(1, 20), `frame ${f}`));
  });

  it('finds the same speech and utterances with any read window', async () => {
    const reference = await detectSpeech(whole, SR, { windowSeconds: 1e6 });
    assert.ok(reference.length >= 5);
    assert.deepEqual(await detectSpeech(audio.mono, SR, { windowSeconds: 7.77 }), reference);
    assert.deepEqual(await detectSpeech(audio.mono, SR), reference);
    // Utterances cut at quiet points (maxSeconds small enough that cuts happen) read only windows.
    const cut = { maxSeconds: 4 };
    const fromFile = await speechUtterances(audio.mono, SR, reference, cut);
    assert.deepEqual(fromFile, await speechUtterances(new ArrayPcm(whole, SR), SR, reference, cut));
    assert.ok(fromFile.length > reference.length, 'long regions were cut');
  });

  it('sums squares over spans in one pass as a direct loop does', async () => {
    const spans = [
      { from: 0, to: 10 },
      { from: 1000, to: 50_000 },
      { from: 40_000, to: 40_001 },
      { from: 30_000, to: 30_000 },
      { from: whole.length - 100, to: whole.length },
      { from: whole.length - 50_000, to: whole.length - 49_500 },
      { from: whole.length + 10, to: whole.length + 20 },
    ];
    const sums = await spanSquareSums(audio.mono, spans, 3333);
    spans.forEach((s, i) => {
      let e = 0;
      for (let k = s.from; k < Math.min(s.to, whole.length); k++) e += whole[k] * whole[k];
      assert.equal(sums[i], e, `span ${i}`);
    });
  });

  it('keeps two-channel files on disk and mixes them as the average', async () => {
    const d = await decodeAudio(corpusFile('car-repair', 'stereo.wav'), path.join(tmp, 'stereo'), { timeoutMs: 60_000, maxSeconds: 600 });
    assert.ok(d.channels);
    const [l, r, m] = await Promise.all([d.channels[0].read(200_000, 5000), d.channels[1].read(200_000, 5000), d.mono.read(200_000, 5000)]);
    for (let i = 0; i < m.length; i++) assert.equal(m[i], Math.fround((l[i] + r[i]) / 2));
    assert.equal((await readAllPcm(d.mono)).length, d.mono.length);
  });

  it('caps the regions of a speaker evenly across the call', () => {
    const regions = Array.from({ length: 100 }, (_, i) => ({ start: 10 * i, end: 10 * i + 5 })); // 500 s of speech
    assert.equal(capRegions(regions.slice(0, 10), 300).length, 10);
    const capped = capRegions(regions, 100);
    const seconds = capped.reduce((a, r) => a + r.end - r.start, 0);
    assert.ok(seconds <= 100 && seconds >= 95, `${seconds} s`);
    assert.ok(capped[0].start < 100 && capped.at(-1)!.start > 900, 'spread over the call, not its start');
  });
});

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readWavInfo, readWavMono, writeWav16 } from '../../src/pipeline/audio/decode.js';
import { ArrayPcm } from '../../src/pipeline/audio/pcm.js';
import { foldUpperBand, highBandShare, isNarrowband, isNarrowbandSpeech, NARROWBAND_MAX_HIGH_SHARE, writeFoldedWav } from '../../src/pipeline/transcription/narrowband.js';
import { NARROWBAND_DECODER_ARGS, NARROWBAND_MLLR_PATH, PocketsphinxTranscriber, splitFeatureFlags, withFlags, withoutFlag } from '../../src/pipeline/transcription/pocketsphinx.js';

const RATE = 16000;

/** A deterministic speech-like signal: harmonics of `f0` up to `topHz`, amplitude falling with frequency, bursts and pauses. */
function harmonics(seconds: number, topHz: number, f0 = 140): Float32Array {
  const out = new Float32Array(Math.round(seconds * RATE));
  for (let i = 0; i < out.length; i++) {
    const t = i / RATE;
    const on = Math.floor(t / 0.5) % 2 === 0 ? 1 : 0; // half-second bursts and pauses
    let v = 0;
    for (let h = 1; h * f0 < topHz; h++) v += Math.sin(2 * Math.PI * h * f0 * t + h) / h;
    out[i] = 0.1 * on * v;
  }
  return out;
}

describe('telephone-band detection', () => {
  it('finds no high band in speech that stops at 3.4 kHz, and some in speech up to 7 kHz', () => {
    assert.ok(highBandShare(harmonics(4, 3400), RATE) < NARROWBAND_MAX_HIGH_SHARE);
    assert.ok(highBandShare(harmonics(4, 7000), RATE) > 10 * NARROWBAND_MAX_HIGH_SHARE);
    assert.equal(isNarrowband(harmonics(4, 3400), RATE), true);
    assert.equal(isNarrowband(harmonics(4, 7000), RATE), false);
  });

  it('judges by the speech, not by quiet wideband noise in the pauses', () => {
    const x = harmonics(4, 3400);
    // -70 dB white noise only where the speech pauses: below the speech frames' 30 dB window
    let s = 7;
    for (let i = 0; i < x.length; i++) {
      s = (s * 1103515245 + 12345) >>> 0;
      if (x[i] === 0) x[i] = 3e-5 * (s / 4294967296 - 0.5);
    }
    assert.equal(isNarrowband(x, RATE), true);
  });

  it('calls silence and audio too short for a frame wideband (nothing to change)', () => {
    assert.equal(isNarrowband(new Float32Array(RATE), RATE), false);
    assert.equal(isNarrowband(new Float32Array(100), RATE), false);
    assert.equal(highBandShare(new Float32Array(0), RATE), 0);
  });

  it('takes the 8 kHz rate itself as narrowband', () => {
    assert.equal(isNarrowband(harmonics(1, 3400).subarray(0, 8000), 8000), true);
  });

  it('reads only the utterances of a call', async () => {
    const wide = harmonics(2, 7000);
    const narrow = harmonics(2, 3400);
    const call = new Float32Array(wide.length + narrow.length);
    call.set(wide, 0);
    call.set(narrow, wide.length);
    const source = new ArrayPcm(call, RATE);
    assert.equal(await isNarrowbandSpeech(source, [{ start: 2, end: 4 }]), true);
    assert.equal(await isNarrowbandSpeech(source, [{ start: 0, end: 2 }]), false);
    assert.equal(await isNarrowbandSpeech(source, []), false);
  });
});

describe('decoder flags for narrowband calls', () => {
  it('replaces a flag already set and appends new ones', () => {
    assert.deepEqual(withFlags(['-lw', '5', '-remove_noise', 'no'], ['-lw', '7', '-upperf', '3500']), ['-lw', '7', '-remove_noise', 'no', '-upperf', '3500']);
    assert.deepEqual(withFlags(['-lw', '5'], []), ['-lw', '5']);
    assert.deepEqual(withoutFlag(['-dither', 'yes', '-mllr', 'x', '-seed', '1'], '-mllr'), ['-dither', 'yes', '-seed', '1']);
  });

  it('adapt the acoustic model to the telephone channel with the MLLR file beside the source', () => {
    const at = NARROWBAND_DECODER_ARGS.indexOf('-mllr');
    assert.ok(at >= 0 && at % 2 === 0);
    assert.equal(NARROWBAND_DECODER_ARGS[at + 1], NARROWBAND_MLLR_PATH);
    // pocketsphinx's format (ps_mllr.c): classes, streams, then per stream its length n, the n x n
    // matrix, the bias and the variance scales. One class (pocketsphinx applies only the first),
    // the model's three 13-wide streams (feat.params -svspec 0-12/13-25/26-38).
    const v = fs.readFileSync(NARROWBAND_MLLR_PATH, 'utf8').trim().split(/\s+/).map(Number);
    assert.ok(v.every(Number.isFinite));
    assert.deepEqual(v.slice(0, 3), [1, 3, 13]);
    assert.equal(v.length, 2 + 3 * (1 + 13 * 13 + 13 + 13));
    for (let f = 0; f < 3; f++) assert.equal(v[2 + f * 196], 13);
  });

  it('leave the MLLR file out for an acoustic model other than the default', () => {
    const own = new PocketsphinxTranscriber({ modelDir: '/elsewhere' }) as unknown as { narrowbandArgs: string[] };
    assert.deepEqual(own.narrowbandArgs, withoutFlag(NARROWBAND_DECODER_ARGS, '-mllr'));
    const deflt = new PocketsphinxTranscriber() as unknown as { narrowbandArgs: string[] };
    assert.deepEqual(deflt.narrowbandArgs, NARROWBAND_DECODER_ARGS);
  });
});

describe('front-end flags go into feat.params', () => {
  it('rewrites the lines feat.params has and leaves the other flags on the command line', () => {
    const params = '-lowerf 130\n-upperf 6800\n-nfilt 25\n-transform dct\n';
    const split = splitFeatureFlags(params, ['-remove_noise', 'no', '-upperf', '3500', '-lw', '5']);
    assert.equal(split.featParams, '-lowerf 130\n-upperf 3500\n-nfilt 25\n-transform dct\n');
    assert.deepEqual(split.args, ['-remove_noise', 'no', '-lw', '5']);
    assert.equal(split.changed, true);
    assert.deepEqual(splitFeatureFlags(params, ['-lw', '5']), { featParams: params, args: ['-lw', '5'], changed: false });
  });
});

describe('folding telephone-band audio above 4 kHz', () => {
  it('puts the mirrored band above the edge, enough to read as wideband', () => {
    const x = harmonics(4, 3400);
    const ints = Int16Array.from(x, (v) => Math.round(v * 32767));
    foldUpperBand(ints, 0.1);
    const folded = Float32Array.from(ints, (v) => v / 32768);
    assert.equal(isNarrowband(folded, RATE), false);
    assert.ok(highBandShare(folded, RATE) < 0.02);
  });

  it('alternates the sign by absolute sample index and saturates', () => {
    const a = Int16Array.from([100, 100, 32000, -32000]);
    foldUpperBand(a, 0.1, 1);
    assert.deepEqual([...a], [90, 110, 28800, -32768]);
  });

  it('writes a folded copy of a WAV file with the same header', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fold-test-'));
    try {
      const source = path.join(dir, 'in.wav');
      const target = path.join(dir, 'out.wav');
      await writeWav16(source, harmonics(2, 3400), RATE);
      const info = await readWavInfo(source);
      await writeFoldedWav(source, target, info.dataOffset, info.dataBytes, 0.1);
      assert.deepEqual(await readWavInfo(target), info);
      const { samples } = await readWavMono(target);
      assert.equal(isNarrowband(samples, RATE), false);
      const original = await readWavMono(source);
      assert.ok(Math.abs(samples[1] - original.samples[1] * 0.9) < 2 / 32768);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

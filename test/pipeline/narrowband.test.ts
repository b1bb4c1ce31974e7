import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ArrayPcm } from '../../src/pipeline/audio/pcm.js';
import { highBandShare, isNarrowband, isNarrowbandSpeech, NARROWBAND_MAX_HIGH_SHARE } from '../../src/pipeline/transcription/narrowband.js';
import { withFlags } from '../../src/pipeline/transcription/pocketsphinx.js';

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
  });
});

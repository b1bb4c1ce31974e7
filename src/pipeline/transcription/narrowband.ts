// Telephone-band detection for the embedded recogniser. pocketsphinx's en-us model was trained on
// wideband speech with a mel filterbank up to 6800 Hz (its feat.params); audio that went through a
// telephone channel (300-3400 Hz, sampled at 8 kHz) and was upsampled to the pipeline's 16 kHz has
// nothing above 4 kHz, so the upper filters are empty and the cepstra mismatch the model's.
// Whether a call is narrowband is read from the decoded samples, not the container: an 8 kHz call
// re-encoded into a 44.1 kHz m4a is still narrowband.
import fsp from 'node:fs/promises';
import { fft } from '../voice/dsp.js';
import type { PcmSource } from '../audio/pcm.js';
import type { TimeRange } from '../types.js';

const FRAME = 512;
/** Edge of the upper band: above a telephone channel's 3400 Hz and its 4 kHz Nyquist limit's roll-off. */
export const HIGH_BAND_EDGE_HZ = 3800;
/**
 * Below this share of speech energy above HIGH_BAND_EDGE_HZ a call counts as narrowband. Measured
 * on the synthetic corpus (12 calls) and the dev dialogues (26): every phone8k.wav file 5e-6 to 6e-6
 * (the band-limiting and upsampling filters' leakage and mu-law noise), every wideband file
 * (mono16k.wav and the m4a, mp3, ogg and aac encodings of it) 1e-3 to 3e-2; 1e-4 sits between with
 * more than a factor of ten on both sides.
 */
export const NARROWBAND_MAX_HIGH_SHARE = 1e-4;
/** Frames analysed at most (about 100 s of speech at 16 kHz), spread over the call. */
const MAX_FRAMES = 3000;

/**
 * The share of the speech frames' energy above `edgeHz`, from 100 Hz up (Hann-windowed 512-sample
 * frames). Speech frames are those within 30 dB of the 95th-percentile frame energy, so the
 * silences, whose high band is empty in any recording, do not count. 0 for silence.
 */
export function highBandShare(samples: Float32Array, sampleRate: number, edgeHz = HIGH_BAND_EDGE_HZ): number {
  const frames = Math.floor(samples.length / FRAME);
  const re = new Float64Array(FRAME);
  const im = new Float64Array(FRAME);
  const lowBin = Math.ceil((100 * FRAME) / sampleRate);
  const edgeBin = Math.round((edgeHz * FRAME) / sampleRate);
  const stats: Array<{ energy: number; low: number; high: number }> = [];
  for (let f = 0; f < frames; f++) {
    let energy = 0;
    for (let i = 0; i < FRAME; i++) {
      const s = samples[f * FRAME + i];
      energy += s * s;
      re[i] = s * (0.5 - 0.5 * Math.cos((2 * Math.PI * i) / FRAME));
      im[i] = 0;
    }
    if (energy === 0) continue;
    fft(re, im);
    let low = 0;
    let high = 0;
    for (let k = lowBin; k < FRAME / 2; k++) {
      const p = re[k] * re[k] + im[k] * im[k];
      if (k < edgeBin) low += p;
      else high += p;
    }
    stats.push({ energy, low, high });
  }
  if (stats.length === 0) return 0;
  const energies = stats.map((s) => s.energy).sort((a, b) => a - b);
  const floor = energies[Math.floor(0.95 * (energies.length - 1))] / 1000;
  let low = 0;
  let high = 0;
  for (const s of stats) {
    if (s.energy < floor) continue;
    low += s.low;
    high += s.high;
  }
  return low + high > 0 ? high / (low + high) : 0;
}

/** Whether speech with this high-band share is telephone-band; silence (share 0 of nothing) is not. */
export function isNarrowband(samples: Float32Array, sampleRate: number): boolean {
  if (sampleRate <= 2 * HIGH_BAND_EDGE_HZ) return true;
  const share = highBandShare(samples, sampleRate);
  return share > 0 && share < NARROWBAND_MAX_HIGH_SHARE;
}

/**
 * isNarrowband over a call's speech: up to MAX_FRAMES frames from its utterances, taken evenly
 * across the call, read window by window (the call may be hours long).
 */
export async function isNarrowbandSpeech(source: PcmSource, utterances: readonly TimeRange[]): Promise<boolean> {
  const spans = utterances
    .map((u) => ({ from: Math.max(0, Math.floor(u.start * source.sampleRate)), to: Math.min(source.length, Math.floor(u.end * source.sampleRate)) }))
    .filter((s) => s.to - s.from >= FRAME);
  const total = spans.reduce((n, s) => n + Math.floor((s.to - s.from) / FRAME), 0);
  if (total === 0) return false;
  const keepEvery = Math.max(1, Math.ceil(total / MAX_FRAMES));
  const kept: Float32Array[] = [];
  let index = 0;
  for (const s of spans) {
    const whole = Math.floor((s.to - s.from) / FRAME);
    const samples = await source.read(s.from, whole * FRAME);
    for (let f = 0; f < whole; f++, index++) if (index % keepEvery === 0) kept.push(samples.slice(f * FRAME, (f + 1) * FRAME));
  }
  const joined = new Float32Array(kept.length * FRAME);
  kept.forEach((k, i) => joined.set(k, i * FRAME));
  return isNarrowband(joined, source.sampleRate);
}

/**
 * Crude bandwidth extension of telephone-band audio at 16 kHz: adds the 0-4 kHz band mirrored about
 * 4 kHz (x[n] * (-1)^n is the spectrum reflected about half the sampling rate, 8 kHz - f; what lies
 * below 4 kHz lands above it), scaled by `gain`, so that the upper mel filters of the wideband model
 * see speech-shaped energy instead of nothing. `first` is the index of samples[0] in the whole signal
 * (the sign alternates with the absolute index). Works on 16-bit samples in place, saturating.
 */
export function foldUpperBand(samples: Int16Array, gain: number, first = 0): void {
  for (let i = 0; i < samples.length; i++) {
    const sign = (first + i) % 2 === 0 ? 1 : -1;
    const v = Math.round(samples[i] * (1 + sign * gain));
    samples[i] = v > 32767 ? 32767 : v < -32768 ? -32768 : v;
  }
}

/**
 * A copy of a mono 16-bit PCM WAV file (header bytes unchanged, so its data offset stays) with
 * foldUpperBand applied, read and written a megabyte at a time (the call may be hours long).
 */
export async function writeFoldedWav(source: string, target: string, dataOffset: number, dataBytes: number, gain: number): Promise<void> {
  const input = await fsp.open(source, 'r');
  const output = await fsp.open(target, 'w');
  try {
    const header = Buffer.alloc(dataOffset);
    await input.read(header, 0, dataOffset, 0);
    await output.write(header, 0, dataOffset, 0);
    const chunk = 1 << 20;
    for (let at = 0; at < dataBytes; at += chunk) {
      const length = Math.min(chunk, dataBytes - at) & ~1;
      if (length <= 0) break;
      const bytes = Buffer.alloc(length);
      const { bytesRead } = await input.read(bytes, 0, length, dataOffset + at);
      const samples = new Int16Array(bytesRead >> 1);
      for (let i = 0; i < samples.length; i++) samples[i] = bytes.readInt16LE(2 * i);
      foldUpperBand(samples, gain, at >> 1);
      for (let i = 0; i < samples.length; i++) bytes.writeInt16LE(samples[i], 2 * i);
      await output.write(bytes, 0, samples.length * 2, dataOffset + at);
      if (bytesRead < length) break;
    }
  } finally {
    await input.close();
    await output.close();
  }
}

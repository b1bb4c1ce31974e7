// Decoded audio as a source of samples read on demand. A call of hours is 230 MB of float PCM per
// hour per channel; the stages read it window by window from the decoded WAV file instead, so a
// worker's memory does not grow with the call's length.
import fsp from 'node:fs/promises';
import os from 'node:os';
import { readWavInfo, type WavInfo } from './decode.js';

/** Samples of one signal (a channel, or the mix of channels), read by position. */
export interface PcmSource {
  readonly sampleRate: number;
  /** Number of samples. */
  readonly length: number;
  /**
   * Samples [start, start + count), clipped to the signal (shorter near its end, empty past it).
   * The result may be a view of memory the source keeps: callers must not modify it.
   */
  read(start: number, count: number): Promise<Float32Array>;
}

/** A whole signal already in memory (short audio: voice samples, tests). */
export class ArrayPcm implements PcmSource {
  constructor(
    readonly samples: Float32Array,
    readonly sampleRate: number,
  ) {}

  get length(): number {
    return this.samples.length;
  }

  async read(start: number, count: number): Promise<Float32Array> {
    const a = Math.min(this.samples.length, Math.max(0, Math.floor(start)));
    const b = Math.min(this.samples.length, Math.max(a, Math.floor(start + count)));
    return this.samples.subarray(a, b);
  }
}

/**
 * One signal of a 16-bit PCM WAV file read from disk on demand: one channel, or the average of
 * all channels (`'mix'`), as floats s / 32768 (what reading the whole file would give).
 */
export class WavFilePcm implements PcmSource {
  readonly sampleRate: number;
  readonly length: number;

  private constructor(
    readonly file: string,
    private readonly info: WavInfo,
    readonly channel: number | 'mix',
  ) {
    this.sampleRate = info.sampleRate;
    this.length = Math.floor(info.dataBytes / (2 * info.channels));
  }

  static async open(file: string, channel: number | 'mix' = 'mix'): Promise<WavFilePcm> {
    const info = await readWavInfo(file);
    if (info.bitsPerSample !== 16 || info.formatTag !== 1) throw new Error('WavFilePcm reads 16-bit integer PCM only');
    if (channel !== 'mix' && (channel < 0 || channel >= info.channels)) throw new RangeError(`no channel ${channel} in a ${info.channels}-channel file`);
    return new WavFilePcm(file, info, channel);
  }

  async read(start: number, count: number): Promise<Float32Array> {
    const a = Math.min(this.length, Math.max(0, Math.floor(start)));
    const b = Math.min(this.length, Math.max(a, Math.floor(start + count)));
    const n = b - a;
    const out = new Float32Array(n);
    if (n === 0) return out;
    const c = this.info.channels;
    const buf = Buffer.allocUnsafe(n * c * 2);
    const fh = await fsp.open(this.file, 'r');
    let got = 0;
    try {
      while (got < buf.length) {
        const { bytesRead } = await fh.read(buf, got, buf.length - got, this.info.dataOffset + a * c * 2 + got);
        if (bytesRead === 0) break;
        got += bytesRead;
      }
    } finally {
      await fh.close();
    }
    if (got < buf.length) throw new Error('WAV file shorter than its header says');
    // Monomorphic loops over a typed view (a closure choosing the view per sample cost most of a
    // long call's diarization time); the arithmetic, and so every sample, is the same either way.
    const pcm = os.endianness() === 'LE' && buf.byteOffset % 2 === 0 ? new Int16Array(buf.buffer, buf.byteOffset, n * c) : int16Copy(buf, n * c);
    if (this.channel === 'mix' && c === 2) {
      for (let i = 0, j = 0; i < n; i++, j += 2) out[i] = (pcm[j] / 32768 + pcm[j + 1] / 32768) / 2;
    } else if (this.channel === 'mix' && c > 1) {
      for (let i = 0; i < n; i++) {
        let s = 0;
        for (let k = 0; k < c; k++) s += pcm[i * c + k] / 32768;
        out[i] = s / c;
      }
    } else {
      const k = this.channel === 'mix' ? 0 : this.channel;
      if (c === 1) for (let i = 0; i < n; i++) out[i] = pcm[i] / 32768;
      else for (let i = 0, j = k; i < n; i++, j += c) out[i] = pcm[j] / 32768;
    }
    return out;
  }
}

/** The first `count` little-endian 16-bit samples of `buf` as an Int16Array (big-endian hosts, unaligned buffers). */
function int16Copy(buf: Buffer, count: number): Int16Array {
  const out = new Int16Array(count);
  for (let i = 0; i < count; i++) out[i] = buf.readInt16LE(i * 2);
  return out;
}

/** `input` as a source: arrays are wrapped, sources passed through. */
export function pcmOf(input: Float32Array | PcmSource, sampleRate: number): PcmSource {
  return input instanceof Float32Array ? new ArrayPcm(input, sampleRate) : input;
}

/** The whole signal in memory: only for audio known to be short (a voice sample, a test clip). */
export async function readAllPcm(source: PcmSource): Promise<Float32Array> {
  if (source instanceof ArrayPcm) return source.samples;
  return source.read(0, source.length);
}

/** Window length used by the stages that scan a whole call: 30 s of 16 kHz audio (1.9 MB of floats). */
export const SCAN_WINDOW_SAMPLES = 30 * 16000;

/**
 * Calls `visit` for consecutive windows of the source, each `windowSamples` long (the last one
 * shorter), with the position of its first sample; the windows' buffers are not kept.
 */
export async function forEachWindow(source: PcmSource, windowSamples: number, visit: (samples: Float32Array, start: number) => void): Promise<void> {
  const step = Math.max(1, Math.floor(windowSamples));
  for (let start = 0; start < source.length; start += step) visit(await source.read(start, step), start);
}

/**
 * Sum of squared samples over each span [start, end) of sample positions, in one pass over the
 * source (the sum runs over the samples in order, as a whole-array loop would).
 */
export async function spanSquareSums(source: PcmSource, spans: ReadonlyArray<{ from: number; to: number }>, windowSamples = SCAN_WINDOW_SAMPLES): Promise<Float64Array> {
  const sums = new Float64Array(spans.length);
  const order = spans.map((_, i) => i).filter((i) => spans[i].to > spans[i].from).sort((x, y) => spans[x].from - spans[y].from);
  if (order.length === 0) return sums;
  let first = 0;
  const lastEnd = Math.min(source.length, Math.max(...order.map((i) => spans[i].to)));
  for (let w = Math.max(0, spans[order[0]].from - (spans[order[0]].from % windowSamples)); w < lastEnd; w += windowSamples) {
    const we = w + windowSamples;
    while (first < order.length && spans[order[first]].to <= w) first++;
    if (first >= order.length) break;
    if (spans[order[first]].from >= we) {
      // Nothing in this window: jump to the window holding the next span.
      const next = spans[order[first]].from;
      w = next - (next % windowSamples) - windowSamples;
      continue;
    }
    const buf = await source.read(w, windowSamples);
    for (let j = first; j < order.length && spans[order[j]].from < we; j++) {
      const s = spans[order[j]];
      const a = Math.max(s.from, w);
      const b = Math.min(s.to, w + buf.length);
      let e = sums[order[j]];
      for (let i = a; i < b; i++) e += buf[i - w] * buf[i - w];
      sums[order[j]] = e;
    }
  }
  return sums;
}

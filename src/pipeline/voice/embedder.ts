// Speaker embeddings. The embedded default summarises a speaker's speech with statistics of
// spectral features (MFCCs, their dynamics, long-term spectrum shape and pitch). It needs no model
// file and is deterministic, which keeps stored profiles comparable across restarts; a neural
// extractor (ONNX x-vector/ECAPA) can replace it behind the same `SpeakerEmbedder` interface.
import { detectSpeech } from '../diarization/vad.js';
import { frameEnergy, mfccFrames, type MfccOptions } from '../diarization/features.js';
import type { SpeakerEmbedder } from '../types.js';
import { PHONE_BANK, WIDE_BANK, analyzeFrames } from './dsp.js';
import { FEATURE_CENTER, FEATURE_SCALE } from './background.js';

export const EMBEDDED_PROVIDER = 'embedded-mfcc-stats-v1';

// Pinned explicitly rather than taken from the feature module's defaults: a stored profile is only
// comparable with call embeddings computed the same way, so any change here needs a new provider id.
const MFCC_OPTS: Required<MfccOptions> = {
  frameSeconds: 0.025,
  hopSeconds: 0.01,
  coefficients: 20,
  melBands: 40,
  preEmphasis: 0.97,
};
const CEPSTRA = MFCC_OPTS.coefficients - 1; // c0 is level, not voice
/** Frames more than this many dB below the loud (95th percentile) frames are pauses or breath. */
const GATE_DB = 30;
/** Less speech than this cannot be summarised reliably. */
export const MIN_SPEECH_SECONDS = 1;

/** The named blocks of the raw feature vector, in order. */
export const FEATURE_LAYOUT = [
  { name: 'nbMean', dim: 16 },
  { name: 'nbMeanVoiced', dim: 16 },
  { name: 'nbStd', dim: 16 },
  { name: 'pitchMed', dim: 1 },
  { name: 'pitchIqr', dim: 1 },
] as const;
export const FEATURE_DIM = FEATURE_LAYOUT.reduce((s, b) => s + b.dim, 0);
const NB_CEPSTRA = 16;

/** Relative weight of each block in the embedding (applied after standardisation). */
const BLOCK_WEIGHTS: Record<(typeof FEATURE_LAYOUT)[number]['name'], number> = {
  nbMean: 1,
  nbMeanVoiced: 0,
  nbStd: 0,
  pitchMed: 0.5,
  pitchIqr: 0,
};

export class EmbeddingError extends Error {
  constructor(
    readonly reason: 'not_enough_speech' | 'provider_unavailable',
    message: string,
  ) {
    super(message);
    this.name = 'EmbeddingError';
  }
}

type Span = { start: number; end: number };

function clipSpans(spans: Span[], duration: number): Span[] {
  const out: Span[] = [];
  for (const s of [...spans].sort((a, b) => a.start - b.start)) {
    const start = Math.max(0, s.start);
    const end = Math.min(duration, s.end);
    if (end <= start) continue;
    const last = out[out.length - 1];
    if (last && start <= last.end) last.end = Math.max(last.end, end);
    else out.push({ start, end });
  }
  return out;
}

function intersect(a: Span[], b: Span[]): Span[] {
  const out: Span[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const start = Math.max(a[i].start, b[j].start);
    const end = Math.min(a[i].end, b[j].end);
    if (end > start) out.push({ start, end });
    if (a[i].end < b[j].end) i++;
    else j++;
  }
  return out;
}

function percentile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return 0;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.min(sorted.length - 1, lo + 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

class Moments {
  readonly sum: Float64Array;
  readonly sq: Float64Array;
  n = 0;
  constructor(readonly dim: number) {
    this.sum = new Float64Array(dim);
    this.sq = new Float64Array(dim);
  }
  add(v: ArrayLike<number>, from = 0): void {
    for (let i = 0; i < this.dim; i++) {
      const x = v[from + i];
      this.sum[i] += x;
      this.sq[i] += x * x;
    }
    this.n++;
  }
  mean(): number[] {
    return Array.from(this.sum, (s) => (this.n ? s / this.n : 0));
  }
  std(): number[] {
    return Array.from(this.sum, (s, i) => {
      if (!this.n) return 0;
      const m = s / this.n;
      return Math.sqrt(Math.max(0, this.sq[i] / this.n - m * m));
    });
  }
}

/** Cepstral coefficients c1..c<count> (orthonormal DCT-II of a log mel row, c0 left out). */
function dct(row: Float32Array, count: number): Float32Array {
  const n = row.length;
  const out = new Float32Array(count);
  for (let k = 1; k <= count; k++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += row[i] * Math.cos((Math.PI * k * (i + 0.5)) / n);
    out[k - 1] = s * Math.sqrt(2 / n);
  }
  return out;
}

/** Regression deltas over +-2 frames within one contiguous segment. */
function deltas(frames: Float32Array[], from: number, dim: number): Float32Array[] {
  const n = frames.length;
  const out: Float32Array[] = [];
  for (let t = 0; t < n; t++) {
    const d = new Float32Array(dim);
    for (let k = 0; k < dim; k++) {
      let s = 0;
      for (let w = 1; w <= 2; w++) {
        const a = frames[Math.min(n - 1, t + w)][from + k];
        const b = frames[Math.max(0, t - w)][from + k];
        s += w * (a - b);
      }
      d[k] = s / 10;
    }
    out.push(d);
  }
  return out;
}

/**
 * The raw (unstandardised) feature vector of the speech in `samples`, restricted to `regions`
 * when given. Exposed for calibration; callers normally want `MfccStatsEmbedder.embed`.
 */
export async function speakerFeatures(samples: Float32Array, sampleRate: number, regions?: Span[]): Promise<{ features: Float64Array; speechSeconds: number }> {
  const duration = samples.length / sampleRate;
  let spans = regions ? clipSpans(regions, duration) : [{ start: 0, end: duration }];
  const vad = await detectSpeech(samples, sampleRate);
  const voiced = intersect(spans, clipSpans(vad, duration));
  // Diarized regions can be tight around words where the detector's smoothing drops short turns;
  // prefer the detector but never let it discard nearly everything the caller pointed at.
  const spanSeconds = spans.reduce((s, r) => s + r.end - r.start, 0);
  const voicedSeconds = voiced.reduce((s, r) => s + r.end - r.start, 0);
  if (voicedSeconds >= 0.5 * spanSeconds || voicedSeconds >= MIN_SPEECH_SECONDS * 3) spans = voiced;

  const segments: Float32Array[] = [];
  for (const s of spans) {
    const seg = samples.subarray(Math.floor(s.start * sampleRate), Math.ceil(s.end * sampleRate));
    if (seg.length >= 0.1 * sampleRate) segments.push(seg);
  }
  const analyses = segments.map((seg) => analyzeFrames(seg, sampleRate, { banks: [PHONE_BANK] }));
  // Reference level for the gate: the loud frames of all the speech together.
  const allE = Float64Array.from(analyses.flatMap((a) => Array.from(a.logEnergy))).sort();
  const gate = percentile(allE, 0.95) - (GATE_DB / 10) * Math.LN10; // natural-log power units

  const nb = new Moments(NB_CEPSTRA);
  const nbVoiced = new Moments(NB_CEPSTRA);
  const logF0: number[] = [];
  let speechFrames = 0;
  for (const fa of analyses) {
    for (let f = 0; f < fa.logEnergy.length; f++) {
      if (fa.logEnergy[f] < gate) continue;
      const cep = dct(fa.logMel[0][f], NB_CEPSTRA);
      nb.add(cep);
      speechFrames++;
      if (fa.f0[f] > 0) {
        nbVoiced.add(cep);
        logF0.push(12 * Math.log2(fa.f0[f] / 100)); // semitones re 100 Hz
      }
    }
  }
  const speechSeconds = speechFrames * (analyses[0]?.hopSeconds ?? 0);
  if (speechSeconds < MIN_SPEECH_SECONDS || logF0.length < 10) {
    throw new EmbeddingError('not_enough_speech', `not enough speech to build a voice embedding (${speechSeconds.toFixed(1)} s)`);
  }
  logF0.sort((a, b) => a - b);
  // Median and interquartile range: robust to the occasional octave error of the pitch tracker.
  const features = Float64Array.from([
    ...nb.mean(),
    ...nbVoiced.mean(),
    ...nb.std(),
    percentile(logF0, 0.5),
    percentile(logF0, 0.75) - percentile(logF0, 0.25),
  ]);
  return { features, speechSeconds };
}

/** Standardise with the background statistics, weight the blocks, L2-normalise. */
export function featuresToEmbedding(features: Float64Array): Float32Array {
  const out = new Float32Array(FEATURE_DIM);
  let i = 0;
  for (const block of FEATURE_LAYOUT) {
    const w = BLOCK_WEIGHTS[block.name] / Math.sqrt(block.dim);
    for (let k = 0; k < block.dim; k++, i++) {
      out[i] = (w * (features[i] - FEATURE_CENTER[i])) / FEATURE_SCALE[i];
    }
  }
  return l2normalize(out);
}

export function l2normalize(v: Float32Array): Float32Array {
  let s = 0;
  for (const x of v) s += x * x;
  const n = Math.sqrt(s);
  if (n > 0) for (let i = 0; i < v.length; i++) v[i] /= n;
  return v;
}

/** Statistics-of-spectral-features speaker embedder; the offline default. */
export class MfccStatsEmbedder implements SpeakerEmbedder {
  readonly provider = EMBEDDED_PROVIDER;
  readonly dimension = FEATURE_DIM;

  async embed(samples: Float32Array, sampleRate: number, regions?: Span[]): Promise<Float32Array> {
    const { features } = await speakerFeatures(samples, sampleRate, regions);
    return featuresToEmbedding(features);
  }
}

export interface SpeakerEmbedderConfig {
  provider: 'embedded' | 'onnx';
  /** Path of a neural speaker-embedding model (ONNX) for the 'onnx' provider. */
  modelPath?: string;
}

/**
 * The configured embedder. A neural provider is not bundled: asking for one fails with a clear
 * message rather than silently falling back, because profiles made by different providers are not
 * comparable and the operator has to know which one is in force.
 */
export async function createSpeakerEmbedder(cfg: SpeakerEmbedderConfig): Promise<SpeakerEmbedder> {
  if (cfg.provider === 'embedded') return new MfccStatsEmbedder();
  if (!cfg.modelPath) {
    throw new EmbeddingError('provider_unavailable', "voice embedding provider 'onnx' needs a model path; use provider 'embedded' for the built-in embedder");
  }
  const fs = await import('node:fs');
  if (!fs.existsSync(cfg.modelPath)) {
    throw new EmbeddingError('provider_unavailable', "voice embedding model file not found for provider 'onnx'; use provider 'embedded' for the built-in embedder");
  }
  try {
    // Resolved at run time so the runtime stays an optional dependency.
    const runtime = 'onnxruntime-node';
    await import(runtime);
  } catch {
    throw new EmbeddingError('provider_unavailable', "voice embedding provider 'onnx' needs the onnxruntime-node package, which is not installed; use provider 'embedded'");
  }
  throw new EmbeddingError('provider_unavailable', "voice embedding provider 'onnx' is not implemented yet; use provider 'embedded'");
}

// Opaque storage format: magic "VEMB", format version (u16), dimension (u16), float32 LE values.
const MAGIC = 0x564d4245; // "VEMB" read as a little-endian u32
const FORMAT_VERSION = 1;
const HEADER_BYTES = 8;

export function serializeEmbedding(v: Float32Array): Buffer {
  if (v.length === 0 || v.length > 0xffff) throw new RangeError('embedding dimension out of range');
  const buf = Buffer.alloc(HEADER_BYTES + v.length * 4);
  buf.writeUInt32LE(MAGIC, 0);
  buf.writeUInt16LE(FORMAT_VERSION, 4);
  buf.writeUInt16LE(v.length, 6);
  for (let i = 0; i < v.length; i++) buf.writeFloatLE(v[i], HEADER_BYTES + i * 4);
  return buf;
}

export function deserializeEmbedding(b: Buffer | Uint8Array): Float32Array {
  const buf = Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  if (buf.length < HEADER_BYTES || buf.readUInt32LE(0) !== MAGIC) throw new Error('not a serialized voice embedding');
  const version = buf.readUInt16LE(4);
  if (version !== FORMAT_VERSION) throw new Error(`unsupported voice embedding format version ${version}`);
  const dim = buf.readUInt16LE(6);
  if (buf.length !== HEADER_BYTES + dim * 4) throw new Error('voice embedding length does not match its header');
  const out = new Float32Array(dim);
  for (let i = 0; i < dim; i++) out[i] = buf.readFloatLE(HEADER_BYTES + i * 4);
  return out;
}

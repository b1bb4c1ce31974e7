// Speaker embeddings. The statistics embedder summarises a speaker's voice with statistics of
// telephone-band spectral features: the mean mel cepstrum over 300-3400 Hz (vocal tract shape)
// and the median pitch; the fitted one widens those statistics and whitens them with a model fitted
// on real speakers (voice-model.ts); the default (FusedStatsEmbedder) stores both and decides with
// both. They need no model file and are deterministic, which keeps stored profiles comparable
// across restarts; a neural extractor (ONNX x-vector/ECAPA) can replace them behind the same
// `SpeakerEmbedder` interface. docs/bench/voice.md has the statistics embedder's calibration and
// feature choice, docs/voice-embedders.md the others.
import { detectSpeech } from '../diarization/vad.js';
import type { SpeakerEmbedder } from '../types.js';
import { PHONE_BANK, analyzeFrames } from './dsp.js';
import { FEATURE_CENTER, FEATURE_SCALE } from './background.js';
import { VOICE_MODEL } from './voice-model.js';

/**
 * The statistics embedder (MfccStatsEmbedder): the default until issue 27, now opt-in alone
 * (VOICE_EMBEDDING_PROVIDER=embedded-stats) and the second half of the default fused profile.
 */
export const V1_PROVIDER = 'embedded-mfcc-stats-v1';

// Everything below defines what a stored profile means: a change to the features, the bank, the
// gate or the background statistics needs a new provider id, or old profiles silently mismatch.
const CEPSTRA = 16;
/** Frames more than this many dB below the loud (95th percentile) frames are pauses or breath. */
const GATE_DB = 30;
/** Less speech than this cannot be summarised reliably. */
export const MIN_SPEECH_SECONDS = 1;

/** The named blocks of the raw feature vector, in order. */
export const FEATURE_LAYOUT = [
  { name: 'cepstrumMean', dim: CEPSTRA },
  { name: 'pitchMedian', dim: 1 },
] as const;
export const V1_FEATURE_DIM = FEATURE_LAYOUT.reduce((s, b) => s + b.dim, 0);
/** Dimension of the statistics embedder's embeddings. */
export const FEATURE_DIM = V1_FEATURE_DIM;

/**
 * Weight of each block after standardisation. Pitch separates voices well but a single number
 * would dominate a cosine if weighted like the whole cepstrum; 0.5 gave the widest gap between
 * genuine and impostor scores on the calibration set.
 */
const BLOCK_WEIGHTS: Record<(typeof FEATURE_LAYOUT)[number]['name'], number> = {
  cepstrumMean: 1,
  pitchMedian: 0.5,
};

if (FEATURE_CENTER.length !== V1_FEATURE_DIM || FEATURE_SCALE.length !== V1_FEATURE_DIM) {
  throw new Error('voice background statistics do not match the feature layout; run bench/voice.ts --fit-background');
}

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

/** Sorted, clipped to [0, duration], with overlapping or nearly touching spans joined. */
export function normalizeSpans(spans: Span[], duration: number, joinGap = 0): Span[] {
  const out: Span[] = [];
  for (const s of [...spans].sort((a, b) => a.start - b.start)) {
    const start = Math.max(0, s.start);
    const end = Math.min(duration, s.end);
    if (!(end > start)) continue;
    const last = out[out.length - 1];
    if (last && start <= last.end + joinGap) last.end = Math.max(last.end, end);
    else out.push({ start, end });
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

/** Cepstral coefficients c1..c<count> (orthonormal DCT-II of a log mel row; c0 is level, not voice). */
function dct(row: Float32Array, count: number): Float64Array {
  const n = row.length;
  const table = dctTable(n, count);
  const out = new Float64Array(count);
  for (let k = 1; k <= count; k++) {
    const cos = table[k - 1];
    let s = 0;
    for (let i = 0; i < n; i++) s += row[i] * cos[i];
    out[k - 1] = s * Math.sqrt(2 / n);
  }
  return out;
}

/** The cosines of `dct`, computed once per size (the same values as computing them inline). */
const dctTables = new Map<string, Float64Array[]>();
function dctTable(n: number, count: number): Float64Array[] {
  const key = `${n}x${count}`;
  let t = dctTables.get(key);
  if (!t) {
    t = Array.from({ length: count }, (_, j) => Float64Array.from({ length: n }, (_, i) => Math.cos((Math.PI * (j + 1) * (i + 0.5)) / n)));
    dctTables.set(key, t);
  }
  return t;
}

/** The speech within `spans`: the detector's regions inside each span, when it finds enough. */
async function speechSpans(samples: Float32Array, sampleRate: number, spans: Span[]): Promise<Span[]> {
  const out: Span[] = [];
  for (const s of spans) {
    const from = Math.floor(s.start * sampleRate);
    const slice = samples.subarray(from, Math.ceil(s.end * sampleRate));
    const found = await detectSpeech(slice, sampleRate);
    for (const r of found) out.push({ start: s.start + r.start, end: Math.min(s.end, s.start + r.end) });
  }
  // Diarized regions can be tight around words, where the detector's smoothing may drop a short
  // turn entirely; never let it discard most of what the caller pointed at.
  const spanSeconds = spans.reduce((a, r) => a + r.end - r.start, 0);
  const speechSeconds = out.reduce((a, r) => a + r.end - r.start, 0);
  return speechSeconds >= 0.5 * spanSeconds ? out : spans;
}

/** Cepstra computed per frame: v1 uses c1-c16, the statistics of v2 c1-c20. */
const FRAME_CEPSTRA = 20;

/** Frames on each side of a frame that its delta (slope of each cepstral coefficient) is fitted over. */
const DELTA_SPAN = 2;

/**
 * The loud frames of the speech in `samples` (restricted to `regions` when given): per frame the
 * cepstral coefficients c1..c20 and their deltas (slope over +-2 frames of the same stretch), and
 * the pitch (semitones re 100 Hz) of the voiced ones. Both embedders summarise these; the fitting
 * scripts cache them so that summaries can be compared without analysing audio again.
 */
export async function speechFrames(samples: Float32Array, sampleRate: number, regions?: Span[]): Promise<SpeechFrames> {
  const duration = samples.length / sampleRate;
  // Turns of one speaker a breath apart are analysed as one stretch, so the detector sees context.
  const spans = normalizeSpans(regions ?? [{ start: 0, end: duration }], duration, 0.3);
  const speech = await speechSpans(samples, sampleRate, spans);

  const analyses = [];
  for (const s of speech) {
    const seg = samples.subarray(Math.floor(s.start * sampleRate), Math.ceil(s.end * sampleRate));
    if (seg.length >= 0.1 * sampleRate) analyses.push(analyzeFrames(seg, sampleRate, { banks: [PHONE_BANK] }));
  }
  // Reference level for the gate: the loud frames of all the speech together.
  const levels = Float64Array.from(analyses.flatMap((a) => Array.from(a.logEnergy))).sort();
  const gate = percentile(levels, 0.95) - (GATE_DB / 10) * Math.LN10; // natural-log power units

  const cep: Float64Array[] = [];
  const delta: Float64Array[] = [];
  const logF0: number[] = [];
  const D = DELTA_SPAN;
  const norm = (2 * Array.from({ length: D }, (_, i) => (i + 1) ** 2).reduce((a, x) => a + x, 0));
  for (const fa of analyses) {
    const n = fa.logEnergy.length;
    const all = Array.from({ length: n }, (_, f) => dct(fa.logMel[0][f], FRAME_CEPSTRA));
    for (let f = 0; f < n; f++) {
      if (fa.logEnergy[f] < gate) continue;
      cep.push(all[f]);
      const d = new Float64Array(FRAME_CEPSTRA);
      for (let t = 1; t <= D; t++) {
        const ahead = all[Math.min(n - 1, f + t)];
        const behind = all[Math.max(0, f - t)];
        for (let k = 0; k < FRAME_CEPSTRA; k++) d[k] += (t * (ahead[k] - behind[k])) / norm;
      }
      delta.push(d);
      if (fa.f0[f] > 0) logF0.push(12 * Math.log2(fa.f0[f] / 100)); // semitones re 100 Hz
    }
  }
  const speechSeconds = cep.length * (analyses[0]?.hopSeconds ?? 0);
  if (speechSeconds < MIN_SPEECH_SECONDS || logF0.length < 10) {
    throw new EmbeddingError('not_enough_speech', `not enough speech for a voice embedding (${speechSeconds.toFixed(1)} s, ${MIN_SPEECH_SECONDS} s needed)`);
  }
  logF0.sort((a, b) => a - b);
  return { cep, delta, logF0, speechSeconds };
}

export interface SpeechFrames {
  /** c1..c20 of each loud frame. */
  cep: Float64Array[];
  /** Their deltas. */
  delta: Float64Array[];
  /** Pitch of the voiced loud frames, semitones re 100 Hz, ascending. */
  logF0: number[];
  speechSeconds: number;
}

/**
 * The raw (unstandardised) v1 feature vector of the speech in `samples`, restricted to `regions`
 * when given. Exposed for calibration; callers normally want `MfccStatsEmbedder.embed`.
 */
export async function speakerFeatures(samples: Float32Array, sampleRate: number, regions?: Span[]): Promise<{ features: Float64Array; speechSeconds: number }> {
  const fr = await speechFrames(samples, sampleRate, regions);
  return { features: v1Features(fr), speechSeconds: fr.speechSeconds };
}

/** The raw v1 feature vector of analysed frames: mean c1-c16 and the median pitch. */
export function v1Features(fr: Pick<SpeechFrames, 'cep' | 'logF0'>): Float64Array {
  const sum = new Float64Array(CEPSTRA);
  for (const c of fr.cep) for (let k = 0; k < CEPSTRA; k++) sum[k] += c[k];
  // The median, not the mean: robust to the pitch tracker's occasional octave errors.
  return Float64Array.from([...Array.from(sum, (v) => v / fr.cep.length), percentile(fr.logF0, 0.5)]);
}

/**
 * Which summary of the frames the fitted model projects: `msp` cepstral means and deviations
 * c1-c20 with pitch median and 10-90 % range (42 numbers, `embedded-lda-snorm-v2`); `mspd` the same
 * and the deviations of the cepstral deltas, how fast the vocal tract moves (62 numbers).
 */
export type StatisticsKind = 'msp' | 'mspd';
export const STATISTICS_DIMS: Record<StatisticsKind, number> = { msp: 2 * FRAME_CEPSTRA + 2, mspd: 3 * FRAME_CEPSTRA + 2 };
/** Length of the v2 statistics vector: cepstral means and deviations c1-c20, pitch median and spread. */
export const STATISTICS_DIM = STATISTICS_DIMS.msp;

/** The statistics vector of analysed frames (see StatisticsKind). */
export function summariseFrames(fr: Pick<SpeechFrames, 'cep' | 'delta' | 'logF0'>, kind: StatisticsKind = 'msp'): Float64Array {
  const n = fr.cep.length;
  const moments = (rows: ArrayLike<number>[]) => {
    const sum = new Float64Array(FRAME_CEPSTRA);
    const sq = new Float64Array(FRAME_CEPSTRA);
    for (const c of rows) {
      for (let k = 0; k < FRAME_CEPSTRA; k++) {
        sum[k] += c[k];
        sq[k] += c[k] * c[k];
      }
    }
    const mean = Array.from(sum, (v) => v / n);
    const sd = Array.from(sq, (v, k) => Math.sqrt(Math.max(0, v / n - mean[k] * mean[k])));
    return { mean, sd };
  };
  const c = moments(fr.cep);
  const pitch = [percentile(fr.logF0, 0.5), percentile(fr.logF0, 0.9) - percentile(fr.logF0, 0.1)];
  if (kind === 'msp') return Float64Array.from([...c.mean, ...c.sd, ...pitch]);
  return Float64Array.from([...c.mean, ...c.sd, ...moments(fr.delta).sd, ...pitch]);
}

/**
 * The statistics vector (what the learned projection of `voice-model.ts` is applied to):
 * cepstral mean c1-c20 (vocal tract shape), cepstral standard deviation c1-c20 (how it moves),
 * for `mspd` the deviation of the deltas, pitch median and the 10-90 % pitch range, in semitones.
 */
export async function speakerStatistics(samples: Float32Array, sampleRate: number, regions?: Span[], kind: StatisticsKind = 'msp'): Promise<{ statistics: Float64Array; speechSeconds: number }> {
  const fr = await speechFrames(samples, sampleRate, regions);
  return { statistics: summariseFrames(fr, kind), speechSeconds: fr.speechSeconds };
}

/** Standardise with the background statistics, weight the blocks, L2-normalise. */
export function featuresToEmbedding(features: Float64Array): Float32Array {
  const out = new Float32Array(V1_FEATURE_DIM);
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

/** Statistics-of-spectral-features speaker embedder (opt-in alone as `embedded-stats`; half of the default fused profile). */
export class MfccStatsEmbedder implements SpeakerEmbedder {
  readonly provider = V1_PROVIDER;
  readonly dimension = V1_FEATURE_DIM;

  async embed(samples: Float32Array, sampleRate: number, regions?: Span[]): Promise<Float32Array> {
    const { features } = await speakerFeatures(samples, sampleRate, regions);
    return featuresToEmbedding(features);
  }
}

/**
 * What bench/fit-voice.ts learns from the training speakers (src/pipeline/voice/voice-model.ts):
 * the standardisation and speaker-discriminative projection (LDA) of the statistics vector, a
 * cohort of training-speaker embeddings for score normalisation, and the decision's threshold and
 * margin in normalised-score units.
 */
export interface VoiceModel {
  id: string;
  /** The summary of the frames that `center`, `scale` and `projection` apply to (absent: `msp`). */
  statistics?: StatisticsKind;
  center: readonly number[];
  scale: readonly number[];
  /** Rows: output dimensions; columns: standardised statistics. */
  projection: readonly (readonly number[])[];
  cohort: readonly (readonly number[])[];
  cohortTopK: number;
  threshold: number;
  margin: number;
}

/** Standardise, project, L2-normalise: the v2 embedding of a statistics vector. */
export function projectStatistics(statistics: ArrayLike<number>, model: Pick<VoiceModel, 'center' | 'scale' | 'projection'>): Float32Array {
  const out = new Float32Array(model.projection.length);
  for (let r = 0; r < model.projection.length; r++) {
    const row = model.projection[r];
    let s = 0;
    for (let i = 0; i < row.length; i++) s += row[i] * ((statistics[i] - model.center[i]) / model.scale[i]);
    out[r] = s;
  }
  return l2normalize(out);
}

/**
 * The fitted embedder (opt-in, `embedded-lda`): statistics of telephone-band cepstra and pitch, projected onto the
 * directions that separate real speakers and not microphones, codecs or words (LDA fitted on the
 * training speakers of bench/support/real-speakers.ts). Its scores are normalised against a cohort
 * of real voices (`VoiceModel.cohort`, src/pipeline/voice/match.ts).
 */
export class ProjectedStatsEmbedder implements SpeakerEmbedder {
  readonly provider: string;
  readonly dimension: number;
  readonly normalization: VoiceModel;
  constructor(readonly model: VoiceModel = VOICE_MODEL) {
    this.normalization = model;
    if (model.projection.length === 0) throw new Error('the voice model is not fitted; run bench/fit-voice.ts');
    this.provider = model.id;
    this.dimension = model.projection.length;
  }

  async embed(samples: Float32Array, sampleRate: number, regions?: Span[]): Promise<Float32Array> {
    const { statistics } = await speakerStatistics(samples, sampleRate, regions, this.model.statistics ?? 'msp');
    return projectStatistics(statistics, this.model);
  }
}

/**
 * Gate of the fused decision: only a party whose statistics-embedder [0,1] cosine score reaches this
 * can be named (or stand as the runner-up, src/pipeline/voice/match.ts fusedMatch). Chosen in the
 * training speakers' cross-validation only (`SWEEP_V1_GATE` of bench/fit-voice.ts, threshold and
 * margin refitted per gate, wrong party <= 0.1 %; owner named at <= 1 % owner-absent naming with gate
 * 0 / 0.75 / 0.8 / 0.85 / 0.9: 39.1 / 40.0 / 39.4 / 35.4 / 27.3 % on 38 speakers; with the gate
 * applied first, on 45: 46.7 / 46.6 / 47.1 / 42.0 / 32.9 %) by the rule "the strictest gate that
 * names the owner no less often than no gate": the gate is there for safety, so it is set as high as
 * it is free. Not part of what a stored profile means (both vectors are stored): changing it needs no new id.
 */
export const FUSED_V1_GATE = 0.8;

/** Provider id of the fused profiles: both vectors, one after the other. */
export const FUSED_PROVIDER = `${VOICE_MODEL.id}+${V1_PROVIDER}`;
/**
 * What the default VOICE_EMBEDDING_PROVIDER=embedded stores and scores: the fused decision since
 * issue 27 (docs/voice-embedders.md, "Why it is the default"). Profiles of the statistics embedder
 * made before are of another provider: reported REENROLLMENT_REQUIRED, never scored.
 */
export const EMBEDDED_PROVIDER = FUSED_PROVIDER;

/** How the fused embedder's vector is laid out and decided (src/pipeline/voice/match.ts fusedMatch). */
export interface Fusion {
  /** The fitted embedding's length: the vector's first `fittedDim` values; the default embedding follows. */
  fittedDim: number;
  /** The statistics embedder's [0,1] score a party must reach to be a candidate (FUSED_V1_GATE). */
  gate: number;
}

/**
 * The default (VOICE_EMBEDDING_PROVIDER=embedded, or its earlier opt-in name embedded-fused): one
 * frame analysis, two embeddings stored one after the other, the fitted model's
 * (`ProjectedStatsEmbedder`) and the statistics embedder's (`MfccStatsEmbedder`), each
 * L2-normalised. Only parties the statistics embedder scores at `FUSED_V1_GATE` or more are
 * candidates; among them the fitted decision (cohort-normalised scores, threshold and margin) names
 * the party (src/pipeline/voice/match.ts fusedMatch). The fitted model alone names voices far from
 * its real cohort (the synthetic flite voices of docs/bench/voice.md) against each other; the
 * statistics embedder alone names strangers on recorded people (docs/bench/voice-real.md); each
 * covers the other.
 */
export class FusedStatsEmbedder implements SpeakerEmbedder {
  readonly provider: string;
  readonly dimension: number;
  readonly normalization: VoiceModel;
  readonly fusion: Fusion;
  constructor(readonly model: VoiceModel = VOICE_MODEL, gate: number = FUSED_V1_GATE) {
    if (model.projection.length === 0) throw new Error('the voice model is not fitted; run bench/fit-voice.ts');
    this.normalization = model;
    this.fusion = { fittedDim: model.projection.length, gate };
    this.dimension = model.projection.length + V1_FEATURE_DIM;
    this.provider = `${model.id}+${V1_PROVIDER}`;
  }

  async embed(samples: Float32Array, sampleRate: number, regions?: Span[]): Promise<Float32Array> {
    return fuseFrames(await speechFrames(samples, sampleRate, regions), this.model);
  }
}

/** The fused vector of analysed frames: the fitted embedding, then the default one. */
export function fuseFrames(fr: SpeechFrames, model: VoiceModel = VOICE_MODEL): Float32Array {
  const fitted = projectStatistics(summariseFrames(fr, model.statistics ?? 'msp'), model);
  const plain = featuresToEmbedding(v1Features(fr));
  const out = new Float32Array(fitted.length + plain.length);
  out.set(fitted, 0);
  out.set(plain, fitted.length);
  return out;
}

export interface SpeakerEmbedderConfig {
  /**
   * `embedded` (default; `embedded-fused` is its earlier opt-in name): the fitted model gated by the
   * statistics embedder; `embedded-stats`: the statistics embedder alone (the default before issue
   * 27); `embedded-lda`: the fitted model alone.
   */
  provider: 'embedded' | 'embedded-fused' | 'embedded-stats' | 'embedded-lda' | 'onnx';
  /** Path of a neural speaker-embedding model (ONNX) for the 'onnx' provider. */
  modelPath?: string;
  /** Where to download the model once when the file does not exist (VOICE_EMBEDDING_MODEL_URL). */
  modelUrl?: string;
  /** Expected hex sha256 of the model file (VOICE_EMBEDDING_MODEL_SHA256). */
  modelSha256?: string;
  /** Folder for a downloaded model when no path is given (DATA_DIR/models). */
  modelDir?: string;
  log?: { info(obj: object, msg?: string): void };
}

/**
 * The configured embedder. A neural model is not bundled: when the 'onnx' provider cannot load its
 * model (no file, failed download, wrong format, runtime missing) this throws an EmbeddingError
 * saying why instead of returning another embedder, because profiles made by different providers
 * are not comparable and the caller has to know which one is in force (createPipeline logs the
 * reason and uses the embedded one; docs/voice-embedders.md).
 */
export async function createSpeakerEmbedder(cfg: SpeakerEmbedderConfig): Promise<SpeakerEmbedder> {
  // The default since issue 27: it names a stranger far less often on recorded people, and misses more owners (docs/voice-embedders.md).
  if (cfg.provider === 'embedded' || cfg.provider === 'embedded-fused') return new FusedStatsEmbedder();
  // Opt-in: the default before; names strangers in about a fifth of held-out real calls without the owner (docs/bench/voice-real.md).
  if (cfg.provider === 'embedded-stats') return new MfccStatsEmbedder();
  // Opt-in: better on recorded people (docs/bench/voice-real.md), worse on synthetic voices (docs/voice-embedders.md).
  if (cfg.provider === 'embedded-lda') return new ProjectedStatsEmbedder();
  // Loaded on demand so the embedded provider never loads the native ONNX runtime.
  const { OnnxSpeakerEmbedder } = await import('./onnx-embedder.js');
  return OnnxSpeakerEmbedder.create(cfg);
}

// Opaque storage format: magic "VEMB", format version (u16), dimension (u16), float32 LE values.
const MAGIC = 0x424d4556; // the bytes "VEMB" read as a little-endian u32
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

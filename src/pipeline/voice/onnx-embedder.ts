// Neural speaker embeddings from an ONNX model in the WeSpeaker / 3D-Speaker / sherpa-onnx export
// format: 80-dim Kaldi fbank of 16 kHz speech, mean-normalised over time, in as one float tensor
// [batch, frames, 80] (WeSpeaker names it `feats`, 3D-Speaker `x`), one embedding [batch, D] out
// (`embs`, `embedding`). The model file is the operator's: it is not bundled, may be downloaded
// once from a configured URL, and its name and hash go into the provider id stored with every
// voice profile, so profiles of different models are never compared. docs/voice-embedders.md has
// the configuration and what was verified.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import protobuf from 'protobufjs/minimal.js';
import { detectSpeech } from '../diarization/vad.js';
import { downloadModelFile } from '../model-download.js';
import type { SpeakerEmbedder } from '../types.js';
import { EmbeddingError, MIN_SPEECH_SECONDS, l2normalize, normalizeSpans } from './embedder.js';
import { KALDI_FBANK_80, KaldiFbank, subtractMean, type FeatureMatrix } from './fbank.js';

// The subset of onnxruntime-node used here, so its types stay out of our surface and the native
// runtime loads only when this provider is configured.
interface OrtTensor {
  readonly dims: readonly number[];
  readonly type: string;
  readonly data: unknown;
}
interface OrtValueMetadata {
  readonly name: string;
  readonly isTensor: boolean;
  readonly type?: string;
  readonly shape?: ReadonlyArray<number | string>;
}
interface OrtSession {
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  readonly inputMetadata?: readonly OrtValueMetadata[];
  readonly outputMetadata?: readonly OrtValueMetadata[];
  run(feeds: Record<string, OrtTensor>): Promise<Record<string, OrtTensor>>;
  release(): Promise<void>;
}
interface OrtModule {
  InferenceSession: { create(model: string | Uint8Array, options?: Record<string, unknown>): Promise<OrtSession> };
  Tensor: new (type: 'float32', data: Float32Array, dims: number[]) => OrtTensor;
}

/** Part of what a stored profile means: a change to the features, the cap or the pooling needs a new version. */
const FEATURE_VERSION = 'fbank80-v1';
/** Seconds of a speaker's speech embedded per call at most: more adds little and costs time. */
export const MAX_SPEECH_SECONDS = 60;
/** Frames per model run (20 s): bounds the activation memory of convolutional models. */
export const MAX_CHUNK_FRAMES = 2000;
/** The largest model file accepted from a download; the common exports are 7-110 MB. */
export const MAX_MODEL_BYTES = 512 * 1024 * 1024;
/** Output names the known exports use for the embedding; otherwise the model's only output. */
const EMBEDDING_OUTPUTS = ['embs', 'embedding', 'embeddings', 'output'];
/** Metadata `framework` values whose models take Kaldi fbank (sherpa-onnx's export convention). */
const FBANK_FRAMEWORKS = new Set(['wespeaker', '3d-speaker']);

type Span = { start: number; end: number };

export interface OnnxModelSource {
  /** The model file; when absent and a URL is given, `<modelDir>/<file name of the URL>`. */
  modelPath?: string;
  /** Where to download the model from when the file does not exist yet. */
  modelUrl?: string;
  /** Expected hex sha256 of the model file, checked after a download and before each load. */
  modelSha256?: string;
  /** Folder for downloaded models (the service passes DATA_DIR/models). */
  modelDir?: string;
}

export interface OnnxEmbedderOptions extends OnnxModelSource {
  /** What this module logs through: a subset of pino's API. */
  log?: { info(obj: object, msg?: string): void };
  /** Inference threads; default: up to 2 (the service shares its cores with recognition). */
  threads?: number;
  /** Download connect timeout, ms (default 15 000). */
  connectTimeoutMs?: number;
  /** A download that receives nothing for this long is abandoned, ms (default 60 000). */
  idleTimeoutMs?: number;
  maxModelBytes?: number;
  /** The runtime's module name; tests point it elsewhere to see a missing runtime reported. */
  runtimeModule?: string;
}

const unavailable = (message: string) => new EmbeddingError('provider_unavailable', message);

/** Resolves (and downloads, when configured and missing) the model file; returns its path. */
export async function ensureModelFile(opts: OnnxEmbedderOptions): Promise<string> {
  let file: string;
  if (opts.modelPath) file = path.resolve(opts.modelPath);
  else if (opts.modelUrl) {
    let name = '';
    try {
      name = path.basename(new URL(opts.modelUrl).pathname);
    } catch {
      throw unavailable('voice embedding model URL is not a valid URL');
    }
    file = path.resolve(opts.modelDir ?? path.join('data', 'models'), name.endsWith('.onnx') ? name : `${name || 'speaker-embedding'}.onnx`);
  } else {
    throw unavailable("voice embedding provider 'onnx' needs a model path (or a model URL to download it from); use provider 'embedded' for the built-in embedder");
  }
  if (fs.existsSync(file)) return file;
  if (!opts.modelUrl) {
    throw unavailable("voice embedding model file not found for provider 'onnx'; use provider 'embedded' for the built-in embedder");
  }
  await downloadModel(opts.modelUrl, file, opts);
  return file;
}

/** Downloads the model file (src/pipeline/model-download.ts) with this provider's limits and errors. */
export async function downloadModel(
  url: string,
  dest: string,
  opts: Pick<OnnxEmbedderOptions, 'modelSha256' | 'log' | 'connectTimeoutMs' | 'idleTimeoutMs' | 'maxModelBytes'> = {},
): Promise<void> {
  await downloadModelFile(url, dest, {
    what: 'voice embedding model',
    maxBytes: opts.maxModelBytes ?? MAX_MODEL_BYTES,
    sha256: opts.modelSha256,
    connectTimeoutMs: opts.connectTimeoutMs,
    idleTimeoutMs: opts.idleTimeoutMs,
    log: opts.log,
    fail: unavailable,
  });
}

/**
 * The model's `metadata_props` (ModelProto field 14: key/value strings), read from the top level
 * of the protobuf without decoding the graph. sherpa-onnx exports put `framework`, `sample_rate`,
 * `normalize_samples`, `feature_normalize_type` and `output_dim` there; plain exports have none.
 */
export function readModelMetadata(model: Uint8Array): Record<string, string> {
  const reader = protobuf.Reader.create(model);
  const out: Record<string, string> = {};
  while (reader.pos < reader.len) {
    const tag = reader.uint32();
    if (tag >>> 3 === 14 && (tag & 7) === 2) {
      const end = reader.uint32() + reader.pos;
      let key = '';
      let value = '';
      while (reader.pos < end) {
        const t = reader.uint32();
        if (t >>> 3 === 1 && (t & 7) === 2) key = reader.string();
        else if (t >>> 3 === 2 && (t & 7) === 2) value = reader.string();
        else reader.skipType(t & 7);
      }
      if (key) out[key] = value;
    } else {
      reader.skipType(tag & 7);
    }
  }
  return out;
}

async function loadRuntime(moduleName = 'onnxruntime-node'): Promise<OrtModule> {
  try {
    const imported = (await import(moduleName)) as unknown as OrtModule & { default?: OrtModule };
    return typeof imported.InferenceSession?.create === 'function' ? imported : (imported.default as OrtModule);
  } catch (err) {
    throw unavailable(`voice embedding provider 'onnx' needs the onnxruntime-node package, which does not load here (${(err as Error).message.split('\n')[0]}); use provider 'embedded'`);
  }
}

/** How the model's single input is laid out. */
interface InputLayout {
  name: string;
  /** true: [batch, 80, frames]; false: [batch, frames, 80] (WeSpeaker and 3D-Speaker). */
  featuresFirst: boolean;
}

function describeShape(shape: ReadonlyArray<number | string> | undefined): string {
  return shape && shape.length ? `[${shape.join(', ')}]` : '[unknown]';
}

/** The model's feature input, or a clear error for a model of another kind. */
function inputLayout(session: OrtSession, featureDim: number): InputLayout {
  const names = session.inputNames;
  if (names.length !== 1) {
    throw unavailable(
      `voice embedding model has ${names.length} inputs (${names.join(', ')}); expected one float input [batch, frames, ${featureDim}] of Kaldi fbank ('feats' in WeSpeaker exports, 'x' in 3D-Speaker exports)`,
    );
  }
  const meta = session.inputMetadata?.find((m) => m.name === names[0]);
  if (!meta) return { name: names[0], featuresFirst: false };
  if (!meta.isTensor || (meta.type && meta.type !== 'float32')) {
    throw unavailable(`voice embedding model input '${names[0]}' is ${meta.isTensor ? `a ${meta.type} tensor` : 'not a tensor'}; expected float32 [batch, frames, ${featureDim}]`);
  }
  const shape = meta.shape ?? [];
  if (shape.length === 0) return { name: names[0], featuresFirst: false }; // shape not recorded: assume the common layout
  if (shape.length !== 3) {
    throw unavailable(`voice embedding model input '${names[0]}' has shape ${describeShape(shape)}; expected [batch, frames, ${featureDim}]`);
  }
  const fixed = (d: number | string) => typeof d === 'number' && d > 0;
  if (fixed(shape[2])) {
    if (shape[2] === featureDim && !fixed(shape[1])) return { name: names[0], featuresFirst: false };
  } else if (shape[1] === featureDim) {
    return { name: names[0], featuresFirst: true };
  } else if (!fixed(shape[1])) {
    return { name: names[0], featuresFirst: false };
  }
  throw unavailable(`voice embedding model input '${names[0]}' has shape ${describeShape(shape)}; expected [batch, frames, ${featureDim}] with a free frame count`);
}

function embeddingOutput(session: OrtSession): string {
  const named = EMBEDDING_OUTPUTS.find((n) => session.outputNames.includes(n));
  if (named) return named;
  if (session.outputNames.length === 1) return session.outputNames[0];
  throw unavailable(`voice embedding model has outputs ${session.outputNames.join(', ')}; expected one embedding output ('embs' or 'embedding')`);
}


/** The detector's speech inside `spans`, unless it would drop most of what the caller pointed at. */
async function speechWithin(samples: Float32Array, sampleRate: number, spans: Span[]): Promise<Span[]> {
  const out: Span[] = [];
  for (const s of spans) {
    const slice = samples.subarray(Math.floor(s.start * sampleRate), Math.ceil(s.end * sampleRate));
    for (const r of await detectSpeech(slice, sampleRate)) out.push({ start: s.start + r.start, end: Math.min(s.end, s.start + r.end) });
  }
  // Diarized regions can be tight around words, where the detector's smoothing may drop a short turn.
  const given = spans.reduce((a, r) => a + r.end - r.start, 0);
  const kept = out.reduce((a, r) => a + r.end - r.start, 0);
  return kept >= 0.5 * given ? out : spans;
}

/** The first `maxSeconds` of `spans`, in time order. */
function capSpans(spans: Span[], maxSeconds: number): Span[] {
  const out: Span[] = [];
  let left = maxSeconds;
  for (const s of spans) {
    if (left <= 0) break;
    const end = Math.min(s.end, s.start + left);
    out.push({ start: s.start, end });
    left -= end - s.start;
  }
  return out;
}

/** The model file's sha256 and metadata; the bytes are released again before the runtime loads the file. */
async function inspectModel(file: string): Promise<{ digest: string; metadata: Record<string, string> | null }> {
  let bytes: Buffer;
  try {
    bytes = await fsp.readFile(file);
  } catch (err) {
    throw unavailable(`voice embedding model file cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const digest = createHash('sha256').update(bytes).digest('hex');
  try {
    return { digest, metadata: readModelMetadata(bytes) };
  } catch {
    return { digest, metadata: null };
  }
}

export class OnnxSpeakerEmbedder implements SpeakerEmbedder {
  private constructor(
    readonly provider: string,
    readonly dimension: number,
    private readonly ort: OrtModule,
    private readonly session: OrtSession,
    private readonly input: InputLayout,
    private readonly output: string,
    private readonly fbank: KaldiFbank,
  ) {}

  /**
   * Loads the model (downloading it first when configured and missing), checks that its input
   * and output fit the format, and learns the embedding dimension with one run on silence-level
   * features. Throws EmbeddingError('provider_unavailable') with the reason when any step fails.
   */
  static async create(opts: OnnxEmbedderOptions): Promise<OnnxSpeakerEmbedder> {
    // The runtime first: without it a model download would be wasted.
    const ort = await loadRuntime(opts.runtimeModule);
    const file = await ensureModelFile(opts);
    const { digest, metadata } = await inspectModel(file);
    if (opts.modelSha256 && digest !== opts.modelSha256.toLowerCase()) {
      throw unavailable(`voice embedding model has sha256 ${digest}, expected ${opts.modelSha256.toLowerCase()}`);
    }
    if (!metadata) throw unavailable('voice embedding model file is not an ONNX model');
    const fbankOptions = { ...KALDI_FBANK_80 };
    if (metadata.framework && !FBANK_FRAMEWORKS.has(metadata.framework)) {
      throw unavailable(`voice embedding model is a '${metadata.framework}' export; this provider supports WeSpeaker and 3D-Speaker models (80-dim Kaldi fbank input)`);
    }
    if (metadata.sample_rate && Number(metadata.sample_rate) !== KALDI_FBANK_80.sampleRate) {
      throw unavailable(`voice embedding model is for ${metadata.sample_rate} Hz audio; the pipeline provides ${KALDI_FBANK_80.sampleRate} Hz`);
    }
    if (metadata.feature_normalize_type && metadata.feature_normalize_type !== 'global-mean') {
      throw unavailable(`voice embedding model wants feature normalisation '${metadata.feature_normalize_type}'; only mean normalisation is supported`);
    }
    // sherpa-onnx's convention: 3D-Speaker models take samples in [-1, 1], WeSpeaker ones 16-bit integers.
    if (metadata.normalize_samples === '1') fbankOptions.sampleScale = 1;
    const fbank = new KaldiFbank(fbankOptions);

    let session: OrtSession;
    try {
      // From the path, not the bytes read above: a model whose weights sit in an external data
      // file next to it (large exports) is only found that way.
      session = await ort.InferenceSession.create(file, {
        intraOpNumThreads: opts.threads ?? Math.min(2, os.availableParallelism()),
        interOpNumThreads: 1,
        graphOptimizationLevel: 'all',
        logSeverityLevel: 3, // errors only: shape-inference notes would go to stderr, outside the service log
      });
    } catch (err) {
      throw unavailable(`voice embedding model does not load in onnxruntime (${(err as Error).message.split('\n')[0]})`);
    }
    try {
      const input = inputLayout(session, fbank.dim);
      const output = embeddingOutput(session);
      const stem = path.basename(file).replace(/\.onnx$/i, '');
      const provider = `onnx-${FEATURE_VERSION}:${stem}:${digest.slice(0, 12)}`;
      const probe = new OnnxSpeakerEmbedder(provider, 0, ort, session, input, output, fbank);
      // 2 s of constant features: enough frames for any pooling, and shows what the model returns.
      const embedding = await probe.run({ frames: 200, dim: fbank.dim, data: new Float32Array(200 * fbank.dim) });
      if (metadata.output_dim && Number(metadata.output_dim) !== embedding.length) {
        throw unavailable(`voice embedding model returns ${embedding.length} values where its metadata says ${metadata.output_dim}`);
      }
      opts.log?.info({ provider, dimension: embedding.length, input: input.name, output }, 'voice embedding model loaded');
      return new OnnxSpeakerEmbedder(provider, embedding.length, ort, session, input, output, fbank);
    } catch (err) {
      await session.release().catch(() => undefined);
      throw err;
    }
  }

  async embed(samples: Float32Array, sampleRate: number, regions?: Span[]): Promise<Float32Array> {
    if (sampleRate !== this.fbank.opts.sampleRate) {
      throw new RangeError(`the voice embedding model needs ${this.fbank.opts.sampleRate} Hz audio, got ${sampleRate} Hz`);
    }
    const duration = samples.length / sampleRate;
    // Turns of one speaker a breath apart are analysed as one stretch, so the detector sees context.
    const spans = normalizeSpans(regions ?? [{ start: 0, end: duration }], duration, 0.3);
    const speech = capSpans(await speechWithin(samples, sampleRate, spans), MAX_SPEECH_SECONDS);

    const pieces: FeatureMatrix[] = [];
    for (const s of speech) {
      const piece = this.fbank.compute(samples.subarray(Math.floor(s.start * sampleRate), Math.ceil(s.end * sampleRate)));
      if (piece.frames > 0) pieces.push(piece);
    }
    const frames = pieces.reduce((a, p) => a + p.frames, 0);
    const speechSeconds = (frames * this.fbank.geometry.shift) / sampleRate;
    if (speechSeconds < MIN_SPEECH_SECONDS) {
      throw new EmbeddingError('not_enough_speech', `not enough speech for a voice embedding (${speechSeconds.toFixed(1)} s, ${MIN_SPEECH_SECONDS} s needed)`);
    }
    const all: FeatureMatrix = { frames, dim: this.fbank.dim, data: new Float32Array(frames * this.fbank.dim) };
    let at = 0;
    for (const p of pieces) {
      all.data.set(p.data, at);
      at += p.data.length;
    }
    subtractMean(all);

    // Long speech runs in near-equal chunks; their unit embeddings are averaged, weighted by length.
    const chunks = Math.ceil(frames / MAX_CHUNK_FRAMES);
    const sum = new Float32Array(this.dimension);
    for (let c = 0; c < chunks; c++) {
      const from = Math.floor((c * frames) / chunks);
      const to = Math.floor(((c + 1) * frames) / chunks);
      // A copy, not a view: the runtime gets a buffer that starts at the chunk.
      const part = await this.run({ frames: to - from, dim: all.dim, data: all.data.slice(from * all.dim, to * all.dim) });
      l2normalize(part);
      for (let i = 0; i < sum.length; i++) sum[i] += part[i] * (to - from);
    }
    return l2normalize(sum);
  }

  /** One model run on mean-normalised features; the raw embedding (not normalised). */
  private async run(features: FeatureMatrix): Promise<Float32Array> {
    const { frames, dim } = features;
    let data = features.data;
    if (this.input.featuresFirst) {
      data = new Float32Array(frames * dim);
      for (let f = 0; f < frames; f++) for (let d = 0; d < dim; d++) data[d * frames + f] = features.data[f * dim + d];
    }
    const dims = this.input.featuresFirst ? [1, dim, frames] : [1, frames, dim];
    let result: Record<string, OrtTensor>;
    try {
      result = await this.session.run({ [this.input.name]: new this.ort.Tensor('float32', data, dims) });
    } catch (err) {
      throw unavailable(`voice embedding model run failed (${(err as Error).message.split('\n')[0]})`);
    }
    const out = result[this.output];
    if (!out || out.type !== 'float32' || !(out.data instanceof Float32Array)) {
      throw unavailable(`voice embedding model output '${this.output}' is not a float32 tensor`);
    }
    const size = out.dims.reduce((a, b) => a * b, 1);
    if (out.dims.length > 2 || (out.dims.length === 2 && out.dims[0] !== 1) || size < 2) {
      throw unavailable(`voice embedding model output '${this.output}' has shape [${out.dims.join(', ')}]; expected [1, D]`);
    }
    if (this.dimension && size !== this.dimension) {
      throw unavailable(`voice embedding model returned ${size} values, ${this.dimension} expected`);
    }
    const embedding = Float32Array.from(out.data);
    if (!embedding.every(Number.isFinite)) throw unavailable('voice embedding model returned non-finite values');
    return embedding;
  }

  async close(): Promise<void> {
    await this.session.release();
  }
}

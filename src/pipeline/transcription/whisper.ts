// Local whisper.cpp recognition through the @fugood/whisper.node binding. The binding is imported
// lazily so that deployments using pocketsphinx or a remote provider never load its native code,
// and a ggml model file is required (downloaded once when a URL is configured).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { downloadModelFile } from '../model-download.js';
import { PipelineError, type Recognition, type RecognizedWord, type Transcriber } from '../types.js';

export interface WhisperConfig {
  /** ggml model file, e.g. `data/models/ggml-base.en.bin`. */
  modelPath?: string;
  /** Where to fetch the model when modelPath does not exist yet. */
  modelUrl?: string;
  /** Expected hex sha256 of the model file; checked after download and before first use of a downloaded file. */
  modelSha256?: string;
  /** ISO-639-1 code, or `auto` for detection. */
  language: string;
  /** CPU threads for inference; default: all cores up to 4. */
  threads?: number;
  /** Folder for downloaded models when modelPath is absent (default `data/models`). */
  modelDir?: string;
  /** Time budget per audio second for one transcription, in ms (default 10 000). */
  timeoutMsPerAudioSecond?: number;
}

/** What this module logs through: a subset of pino's API. */
export interface TranscriptionLog {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

/** Initialisation failed: no model, a bad model, or a binding that does not load on this machine. */
export class WhisperInitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WhisperInitError';
  }
}

// The subset of the binding's API used here, so its types stay out of our public surface.
interface WhisperSegment {
  text: string;
  t0: number; // ms
  t1: number; // ms
}
interface WhisperContextLike {
  transcribeFile(
    file: string,
    options: Record<string, unknown>,
  ): { stop: () => Promise<void>; promise: Promise<{ language?: string; result: string; segments: WhisperSegment[]; isAborted: boolean }> };
  release(): Promise<void>;
}
interface WhisperModule {
  initWhisper(options: { filePath: string; useGpu?: boolean }): Promise<WhisperContextLike>;
}

/** Resolves the model file location from the config. */
export function resolveModelPath(cfg: WhisperConfig): string {
  if (cfg.modelPath) return path.resolve(cfg.modelPath);
  if (cfg.modelUrl) {
    const name = path.basename(new URL(cfg.modelUrl).pathname) || 'ggml-model.bin';
    return path.resolve(cfg.modelDir ?? path.join('data', 'models'), name);
  }
  throw new WhisperInitError('whisper needs a ggml model: set the model path (or a model URL to download it from)');
}

async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of fs.createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** The largest whisper model file accepted from a download (ggml large models are about 3 GB). */
export const MAX_WHISPER_MODEL_BYTES = 4 * 1024 * 1024 * 1024;

/** Downloads the ggml model (src/pipeline/model-download.ts), logging progress every 10 %. */
export async function downloadModel(url: string, dest: string, sha256: string | undefined, log: TranscriptionLog, connectTimeoutMs = 15_000): Promise<void> {
  await downloadModelFile(url, dest, {
    what: 'whisper model',
    maxBytes: MAX_WHISPER_MODEL_BYTES,
    sha256,
    connectTimeoutMs,
    log,
    fail: (message) => new WhisperInitError(message),
  });
}

// whisper.cpp emits annotations such as [BLANK_AUDIO], (music) or [_TT_150] as text.
const NON_SPEECH = /^(\[.*\]|\(.*\)|\*.*\*|♪+)$/;

/**
 * Words from whisper.cpp segments produced with `maxLen: 1, tokenTimestamps: true`, where each
 * segment is one token: a token that starts with a space begins a word, others continue it.
 */
export function wordsFromWhisperSegments(segments: WhisperSegment[]): RecognizedWord[] {
  const words: RecognizedWord[] = [];
  let current: RecognizedWord | null = null;
  for (const seg of segments) {
    const raw = seg.text ?? '';
    const trimmed = raw.trim();
    if (!trimmed) continue;
    if (NON_SPEECH.test(trimmed)) {
      current = null;
      continue;
    }
    const start = Math.max(0, seg.t0 / 1000);
    const end = Math.max(start, seg.t1 / 1000);
    // Multi-word segments (binding or model ignoring maxLen) are spread over their span.
    const parts = trimmed.split(/\s+/);
    if (parts.length > 1) {
      const step = (end - start) / parts.length;
      parts.forEach((p, i) => words.push({ word: p, start: start + i * step, end: start + (i + 1) * step, confidence: 1 }));
      current = words[words.length - 1];
      continue;
    }
    if (current && !/^\s/.test(raw)) {
      current.word += trimmed;
      current.end = Math.max(current.end, end);
    } else {
      current = { word: trimmed, start, end, confidence: 1 };
      words.push(current);
    }
  }
  return words;
}

export class WhisperCppTranscriber implements Transcriber {
  readonly provider = 'whisper.cpp';
  readonly model: string;
  /** whisper.cpp contexts are not re-entrant: transcriptions run one after another. */
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly ctx: WhisperContextLike,
    private readonly cfg: WhisperConfig,
    modelPath: string,
  ) {
    this.model = path.basename(modelPath).replace(/\.bin$/, '');
  }

  /** Loads (and if configured, downloads) the model; throws WhisperInitError when that is impossible. */
  static async create(cfg: WhisperConfig, log: TranscriptionLog): Promise<WhisperCppTranscriber> {
    const modelPath = resolveModelPath(cfg);
    if (!fs.existsSync(modelPath)) {
      if (!cfg.modelUrl) throw new WhisperInitError(`whisper model file not found at ${modelPath}`);
      await downloadModel(cfg.modelUrl, modelPath, cfg.modelSha256, log);
    } else if (cfg.modelSha256) {
      const digest = await sha256File(modelPath);
      if (digest.toLowerCase() !== cfg.modelSha256.toLowerCase()) {
        throw new WhisperInitError(`whisper model at ${modelPath} has sha256 ${digest}, expected ${cfg.modelSha256}`);
      }
    }
    let mod: WhisperModule;
    try {
      const imported = (await import('@fugood/whisper.node')) as unknown as WhisperModule & { default?: WhisperModule };
      mod = typeof imported.initWhisper === 'function' ? imported : (imported.default as WhisperModule);
    } catch (err) {
      throw new WhisperInitError(`the whisper.cpp binding (@fugood/whisper.node) does not load here (${(err as Error).message})`);
    }
    // whisper.cpp's own log (model loading details) goes to stderr: routing it into JS through the
    // binding's log callback keeps the event loop alive for good, so the process could not exit.
    let ctx: WhisperContextLike;
    try {
      ctx = await mod.initWhisper({ filePath: modelPath, useGpu: false });
    } catch (err) {
      throw new WhisperInitError(`whisper model ${path.basename(modelPath)} could not be loaded (${(err as Error).message})`);
    }
    return new WhisperCppTranscriber(ctx, cfg, modelPath);
  }

  transcribe(input: { wavPath: string; durationSeconds: number; signal?: AbortSignal }): Promise<Recognition> {
    const run = this.queue.then(() => this.run(input));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async run(input: { wavPath: string; durationSeconds: number; signal?: AbortSignal }): Promise<Recognition> {
    if (input.signal?.aborted) throw new PipelineError('transcription_failed', 'speech recognition was aborted', true);
    const { stop, promise } = this.ctx.transcribeFile(input.wavPath, {
      language: this.cfg.language || 'auto',
      maxLen: 1,
      tokenTimestamps: true,
      maxThreads: this.cfg.threads ?? Math.max(1, Math.min(4, os.availableParallelism())),
    });
    let timedOut = false;
    const budget = 60_000 + Math.max(0, input.durationSeconds) * (this.cfg.timeoutMsPerAudioSecond ?? 10_000);
    const timer = setTimeout(() => {
      timedOut = true;
      void stop();
    }, budget);
    const onAbort = () => void stop();
    input.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const result = await promise;
      if (result.isAborted || timedOut) {
        throw new PipelineError('transcription_failed', timedOut ? 'speech recognition timed out' : 'speech recognition was aborted', true);
      }
      const language = result.language && result.language !== 'auto' ? result.language : this.cfg.language && this.cfg.language !== 'auto' ? this.cfg.language : 'en';
      return { words: wordsFromWhisperSegments(result.segments ?? []), language, provider: this.provider, model: this.model };
    } catch (err) {
      if (err instanceof PipelineError) throw err;
      throw new PipelineError('transcription_failed', 'whisper.cpp recognition failed');
    } finally {
      clearTimeout(timer);
      input.signal?.removeEventListener('abort', onAbort);
    }
  }

  async close(): Promise<void> {
    await this.ctx.release();
  }
}

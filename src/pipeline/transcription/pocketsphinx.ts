// The embedded offline recogniser: CMU pocketsphinx as packaged by Debian (pocketsphinx +
// pocketsphinx-en-us). It is weak next to modern recognisers but needs no network, no model
// download and little memory, which is what the service's offline default must guarantee.
import fs from 'node:fs';
import path from 'node:path';
import { PipelineError, type Recognition, type RecognizedWord, type Transcriber } from '../types.js';
import { ChildProcessError, runChild } from '../audio/child.js';
import { buildCallDictionary } from './dictionary.js';

export const POCKETSPHINX_DEBIAN_PACKAGES = 'pocketsphinx pocketsphinx-en-us';
export const DEFAULT_POCKETSPHINX_BINARY = 'pocketsphinx_continuous';
export const DEFAULT_POCKETSPHINX_MODEL_DIR = '/usr/share/pocketsphinx/model/en-us';

export interface PocketsphinxConfig {
  /** Binary name or path; default `pocketsphinx_continuous` from PATH. */
  binary?: string;
  /** Folder holding the acoustic model folder `en-us/`, `en-us.lm.bin` and `cmudict-en-us.dict`. */
  modelDir?: string;
  /** Decoder flags replacing DEFAULT_DECODER_ARGS (name/value pairs, e.g. ['-lw', '8']). */
  decoderArgs?: string[];
  /**
   * Wall-clock budget per second of audio, in ms (default 3000: twelve times the 0.25 RTF measured
   * on an idle core, because a busy 2-core host slowed it six-fold in measurements).
   */
  timeoutMsPerAudioSecond?: number;
  /** Fixed part of the time budget, for model loading (default 60 000 ms). */
  timeoutBaseMs?: number;
}

/**
 * Decoder settings chosen on the synthetic corpus (12 calls, word error over all calls, whole-file
 * decoding): Debian defaults 25.1 % on mono16k.wav, 26.7 % on call.m4a, 57.7 % on phone8k.wav;
 * these 22.3 %, 27.4 %, 58.5 %. A lower language weight than the default 6.5/8.5/9.5 helps
 * (lw 9 gave 33 %, lw 4 22.8 %), and spectral noise removal only hurts on clean speech; the
 * compressed and telephone differences are within the per-call spread. A wider beam gained another
 * 0.3 points at twice the CPU time and was left out. CPU cost: 0.22 x real time versus 0.16.
 */
export const DEFAULT_DECODER_ARGS: readonly string[] = ['-remove_noise', 'no', '-lw', '5', '-fwdflatlw', '7', '-bestpathlw', '8'];

const FILLER = /^(<.*>|\[.*\]|\+\+.*\+\+|\+.*\+)$/;
const LINE = /^(\S+) (-?\d+(?:\.\d+)?) (-?\d+(?:\.\d+)?) (-?\d+(?:\.\d+)?(?:e[-+]?\d+)?)$/i;

/**
 * Words from `pocketsphinx_continuous -time yes` output: per utterance a hypothesis line followed
 * by one `word start end posterior` line per word. Fillers (<s>, </s>, <sil>, [NOISE], ++...++)
 * are dropped and alternate-pronunciation suffixes like `going(2)` removed.
 */
export function parsePocketsphinxOutput(stdout: string, rename: (token: string) => string | null = () => null): RecognizedWord[] {
  const words: RecognizedWord[] = [];
  for (const raw of stdout.split('\n')) {
    const m = LINE.exec(raw.trim());
    if (!m) continue;
    const token = rename(m[1]) ?? m[1].replace(/\(\d+\)$/, '');
    if (!token || FILLER.test(token)) continue;
    const start = Number(m[2]);
    const end = Number(m[3]);
    const p = Number(m[4]);
    if (!Number.isFinite(start) || !Number.isFinite(end)) continue;
    words.push({
      word: token,
      start,
      end: Math.max(start, end),
      // Posteriors are rounded in the output and can read 1.0001.
      confidence: Number.isFinite(p) ? Math.min(1, Math.max(0, p)) : 1,
    });
  }
  words.sort((a, b) => a.start - b.start);
  return words;
}

function modelName(modelDir: string): string {
  try {
    const params = fs.readFileSync(path.join(modelDir, 'en-us', 'feat.params'), 'utf8');
    const type = /-model\s+(\S+)/.exec(params)?.[1] ?? 'ptm';
    return `cmusphinx-en-us-${type}-5.2`;
  } catch {
    return 'cmusphinx-en-us-ptm-5.2';
  }
}

function onPath(binary: string): string | null {
  if (binary.includes('/')) return fs.existsSync(binary) ? binary : null;
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, binary);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // keep looking
    }
  }
  return null;
}

export interface PocketsphinxCheck {
  ok: boolean;
  binary: string | null;
  modelDir: string;
  /** Missing pieces, phrased for an operator. */
  problems: string[];
}

/** Whether the pocketsphinx binary and the en-us model are installed. */
export function checkPocketsphinx(cfg: PocketsphinxConfig = {}): PocketsphinxCheck {
  const modelDir = cfg.modelDir ?? DEFAULT_POCKETSPHINX_MODEL_DIR;
  const binary = onPath(cfg.binary ?? DEFAULT_POCKETSPHINX_BINARY);
  const problems: string[] = [];
  if (!binary) problems.push(`${cfg.binary ?? DEFAULT_POCKETSPHINX_BINARY} not found (install the Debian packages ${POCKETSPHINX_DEBIAN_PACKAGES})`);
  for (const f of ['en-us/mdef', 'en-us.lm.bin', 'cmudict-en-us.dict']) {
    if (!fs.existsSync(path.join(modelDir, f))) problems.push(`model file ${f} missing under ${modelDir} (Debian package pocketsphinx-en-us)`);
  }
  return { ok: problems.length === 0, binary, modelDir, problems };
}

export class PocketsphinxTranscriber implements Transcriber {
  readonly provider = 'pocketsphinx';
  readonly model: string;
  private readonly binary: string;
  private readonly modelDir: string;
  private readonly decoderArgs: readonly string[];
  private readonly perSecondMs: number;
  private readonly baseMs: number;

  constructor(cfg: PocketsphinxConfig = {}) {
    this.binary = cfg.binary ?? DEFAULT_POCKETSPHINX_BINARY;
    this.modelDir = cfg.modelDir ?? DEFAULT_POCKETSPHINX_MODEL_DIR;
    this.decoderArgs = cfg.decoderArgs ?? DEFAULT_DECODER_ARGS;
    this.perSecondMs = cfg.timeoutMsPerAudioSecond ?? 3000;
    this.baseMs = cfg.timeoutBaseMs ?? 60_000;
    this.model = modelName(this.modelDir);
  }

  async transcribe(input: { wavPath: string; durationSeconds: number; signal?: AbortSignal; vocabulary?: readonly string[] }): Promise<Recognition> {
    // The call's names that cmudict lacks, next to the call's audio (dictionary.ts).
    const baseDict = path.join(this.modelDir, 'cmudict-en-us.dict');
    const dict = input.vocabulary?.length ? await buildCallDictionary(baseDict, [...input.vocabulary], path.dirname(input.wavPath), { signal: input.signal }) : null;
    const args = [
      '-infile', input.wavPath,
      '-time', 'yes',
      '-hmm', path.join(this.modelDir, 'en-us'),
      '-lm', path.join(this.modelDir, 'en-us.lm.bin'),
      '-dict', dict?.path ?? baseDict,
      // The decoder log is large and can quote recognised text; it is never needed.
      '-logfn', '/dev/null',
      ...this.decoderArgs,
    ];
    const seconds = Math.max(0, input.durationSeconds || 0);
    let stdout: Buffer;
    try {
      ({ stdout } = await runChild(this.binary, args, {
        timeoutMs: Math.round(this.baseMs + seconds * this.perSecondMs),
        // Roughly 100 bytes per word and never more than a few words per second.
        maxStdoutBytes: 1024 * 1024 + Math.ceil(seconds) * 4096,
        maxStderrBytes: 4 * 1024 * 1024,
        signal: input.signal,
      }));
    } catch (err) {
      throw pocketsphinxFailure(err, this.binary);
    }
    return { words: parsePocketsphinxOutput(stdout.toString('utf8'), dict?.rename), language: 'en', provider: this.provider, model: this.model };
  }
}

function pocketsphinxFailure(err: unknown, binary: string): PipelineError {
  if (err instanceof ChildProcessError) {
    if (err.kind === 'spawn') {
      return new PipelineError(
        'transcription_failed',
        `speech recogniser ${path.basename(binary)} is not installed (${err.code ?? 'spawn failed'}); install the Debian packages ${POCKETSPHINX_DEBIAN_PACKAGES}`,
      );
    }
    if (err.kind === 'timeout') return new PipelineError('transcription_failed', 'speech recognition timed out', true);
    if (err.kind === 'aborted') return new PipelineError('transcription_failed', 'speech recognition was aborted', true);
    if (err.kind === 'output_limit') return new PipelineError('transcription_failed', 'speech recognition produced too much output');
    return new PipelineError('transcription_failed', `speech recognition failed (${err.message})`);
  }
  return new PipelineError('transcription_failed', 'speech recognition failed unexpectedly');
}

// The embedded offline recogniser: CMU pocketsphinx as packaged by Debian (pocketsphinx +
// pocketsphinx-en-us). It is weak next to modern recognisers but needs no network, no model
// download and little memory, which is what the service's offline default must guarantee.
//
// Word times by construction: the call is decoded as the project's VAD cuts it. One
// pocketsphinx_batch run (the model loads once) gets a control file of `file startFrame endFrame id`
// lines, one per utterance; the decoder reports frames from each utterance's start, so every word is
// placed by its utterance's known offset and clamped into it. (pocketsphinx_continuous over the whole
// file placed the words of a late utterance seconds off, past the end of the audio.) Decoding
// utterance by utterance is also more accurate here: mono16k.wav WER 22.3 -> 15.4 % on the
// recogniser's own output (docs/bench/speech.md).
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PIPELINE_SAMPLE_RATE, PipelineError, type Recognition, type RecognizedWord, type TimeRange, type Transcriber, type TranscriptionInput } from '../types.js';
import { ChildProcessError, runChild } from '../audio/child.js';
import { readWavInfo } from '../audio/decode.js';
import { WavFilePcm } from '../audio/pcm.js';
import { buildCallDictionary, buildDictationModel, dictationPieces, namesToWords, spliceDictation } from './dictionary.js';
import { detectSpeech, speechUtterances } from '../diarization/vad.js';
import { isNarrowbandSpeech, writeFoldedWav } from './narrowband.js';
import { findCallLanguageModel } from './call-language-model.js';

export const POCKETSPHINX_DEBIAN_PACKAGES = 'pocketsphinx pocketsphinx-en-us';
export const DEFAULT_POCKETSPHINX_BINARY = 'pocketsphinx_batch';
export const DEFAULT_POCKETSPHINX_MODEL_DIR = '/usr/share/pocketsphinx/model/en-us';

export interface PocketsphinxConfig {
  /** Binary name or path; default `pocketsphinx_batch` from PATH. */
  binary?: string;
  /** Folder holding the acoustic model folder `en-us/`, `en-us.lm.bin` and `cmudict-en-us.dict`. */
  modelDir?: string;
  /**
   * The first pass's language model: 'calls' (default) uses the phone-call model built from the
   * model folder's en-us.lm.bin (call-language-model.ts) when it has been built and the general
   * model otherwise; 'general' always uses en-us.lm.bin; any other value is a model file's path.
   */
  languageModel?: 'calls' | 'general' | (string & {});
  /** Decoder flags replacing DEFAULT_DECODER_ARGS (name/value pairs, e.g. ['-lw', '8']). */
  decoderArgs?: string[];
  /**
   * Flags set on top of the decoder flags when the call is telephone-band (narrowband.ts), replacing
   * NARROWBAND_DECODER_ARGS; [] decodes narrowband calls like wideband ones.
   */
  narrowbandArgs?: string[];
  /** Gain of the mirrored band added to telephone-band audio (narrowband.ts foldUpperBand), replacing NARROWBAND_FOLD_GAIN; 0 turns it off. */
  narrowbandFoldGain?: number;
  /**
   * Wall-clock budget per second of audio, in ms (default 3000: twelve times the 0.25 RTF measured
   * on an idle core, because a busy 2-core host slowed it six-fold in measurements).
   */
  timeoutMsPerAudioSecond?: number;
  /** Fixed part of the time budget, for model loading (default 60 000 ms). */
  timeoutBaseMs?: number;
  /** Told what each recognition cost (benchmarks: the dictation pass's share of the time). */
  onStats?: (stats: RecognitionStats) => void;
}

/** What one recognition cost, and where the dictation pass went. */
export interface RecognitionStats {
  /** Pieces of speech decoded by the first pass. */
  pieces: number;
  /** Pieces the dictation pass decoded again, and their seconds of audio. */
  decodedAgain: number;
  secondsDecodedAgain: number;
  /** Wall time of the first pass and of the dictation pass (model building included), in ms. */
  firstPassMs: number;
  dictationMs: number;
  /** Per piece: its first-pass words, whether it was decoded again, whether the splice changed its words. */
  perPiece: Array<{ words: string[]; again: boolean; changed: boolean }>;
}

/**
 * Decoder settings chosen on the synthetic corpus (12 calls, word error over all calls, measured
 * with whole-file decoding by pocketsphinx_continuous; kept for utterance decoding): Debian
 * defaults 25.1 % on mono16k.wav, 26.7 % on call.m4a, 57.7 % on phone8k.wav; these 22.3 %,
 * 27.4 %, 58.5 %. A lower language weight than the default 6.5/8.5/9.5 helps (lw 9 gave 33 %,
 * lw 4 22.8 %), and spectral noise removal only hurts on clean speech; the
 * compressed and telephone differences are within the per-call spread. A wider beam gained another
 * 0.3 points at twice the CPU time and was left out. CPU cost: 0.22 x real time versus 0.16.
 */
export const DEFAULT_DECODER_ARGS: readonly string[] = ['-remove_noise', 'no', '-lw', '5', '-fwdflatlw', '7', '-bestpathlw', '8'];

/**
 * MLLR transform of the acoustic model to the telephone channel (narrowband.mllr beside this file,
 * made by scripts/build-narrowband-adaptation.ts from Debian packages: other voices than the scored
 * ones, rendered through the corpus's telephone channel). It fits Debian's en-us model only, so a
 * configured modelDir other than the default does not get it.
 */
export const NARROWBAND_MLLR_PATH = path.join(path.dirname(fileURLToPath(import.meta.url)), 'narrowband.mllr');

/**
 * Flags for telephone-band calls (narrowband.ts detects them from the decoded speech): the model's
 * MLLR transform to the telephone channel (NARROWBAND_MLLR_PATH), for both passes. Upsampled 8 kHz
 * audio leaves the model's mel filters above 4 kHz (feat.params: 25 filters, 130-6800 Hz) nearly
 * empty, so the cepstra of telephone speech sit away from the model's means; the transform moves
 * the means there. Measured by bench/fit-narrowband.ts, pooled WER on phone8k.wav, first pass +
 * dictation pass, VAD utterances, no call dictionary, the call language model: dev dialogues (26,
 * bench/dialogues minus HELD_OUT_IDS) 41.9 -> 30.0 % (763 -> 547 errors of 1823 words); corpus
 * (12 calls) 41.3 -> 33.7 % (492 -> 401 of 1191), both against the dither flags used before.
 * Chosen on dev among: the recipe's plain transform 32.5 % (corpus 34.1), the transform with the
 * adaptation voices cancelled (build-narrowband-adaptation.ts --mode channel) with dither 30.8 %
 * (33.8), a second alignment round 31.1 %, and without dither (this) 30.0 %. The adaptation speech
 * (38 min of espeak-ng, festival and Tux Paint readers) shares no voice and no text with the dev or
 * corpus dialogues, so neither set is in-sample for the transform itself.
 * Before MLLR, dither (-dither yes -seed 1: +-1 LSB of seeded noise as a floor for the empty
 * filters) was the telephone setting: corpus (in-sample) 48.3 -> 46.4 %, dev 50.0 -> 48.7 % with
 * the general language model. Tried and worse on the corpus then: matching the filterbank to the
 * band (-upperf 3500 in feat.params: 98.2 %, the model's cepstra no longer fit), the 0-4 kHz band
 * mirrored above 4 kHz at -20 dB (foldUpperBand, 50.3 %), white noise above 4.5 kHz at -40 dB re
 * the loud speech frames (49.0 %).
 * Wideband calls never get these flags: every wideband file of the corpus and dev sets (mono16k.wav,
 * call.m4a/mp3/ogg/aac) has 1e-3 or more of its speech energy above 3.8 kHz, so their recognition
 * is unchanged.
 */
export const NARROWBAND_DECODER_ARGS: readonly string[] = ['-mllr', NARROWBAND_MLLR_PATH];
/** Off: mirroring the band made telephone calls worse (above). */
export const NARROWBAND_FOLD_GAIN = 0;

/**
 * pocketsphinx takes the front-end settings the acoustic model lists in its feat.params (-upperf,
 * -nfilt, ...) from that file even when the command line sets them (measured: -upperf 3500 on the
 * command line left every hypothesis and score unchanged). So the flags feat.params names are moved
 * into a rewritten copy of it; the other flags stay on the command line.
 */
export function splitFeatureFlags(featParams: string, args: readonly string[]): { featParams: string; args: string[]; changed: boolean } {
  const lines = featParams.split('\n');
  const rest: string[] = [];
  let changed = false;
  for (let k = 0; k + 1 < args.length; k += 2) {
    const at = lines.findIndex((l) => l.trim().split(/\s+/)[0] === args[k]);
    if (at >= 0) {
      lines[at] = `${args[k]} ${args[k + 1]}`;
      changed = true;
    } else rest.push(args[k], args[k + 1]);
  }
  return { featParams: lines.join('\n'), args: rest, changed };
}

/**
 * The acoustic model folder and command-line flags for one call: when `args` set front-end
 * parameters of feat.params, a folder in `dir` holding links to the model's files and the rewritten
 * feat.params.
 */
async function modelFor(hmmDir: string, args: readonly string[], dir: string): Promise<{ hmmDir: string; args: string[] }> {
  const featParams = await fsp.readFile(path.join(hmmDir, 'feat.params'), 'utf8').catch(() => null);
  if (featParams === null) return { hmmDir, args: [...args] };
  const split = splitFeatureFlags(featParams, args);
  if (!split.changed) return { hmmDir, args: split.args };
  const variant = path.join(dir, 'hmm');
  await fsp.mkdir(variant);
  for (const f of await fsp.readdir(hmmDir)) {
    if (f !== 'feat.params') await fsp.symlink(path.resolve(hmmDir, f), path.join(variant, f));
  }
  await fsp.writeFile(path.join(variant, 'feat.params'), split.featParams);
  return { hmmDir: variant, args: split.args };
}

/** `args` (name/value pairs) without the flag `name`. */
export function withoutFlag(args: readonly string[], name: string): string[] {
  return args.flatMap((v, i) => (i % 2 === 0 ? (v === name ? [] : [v, args[i + 1]]) : []));
}

/** `base` with every flag of `extra` set to extra's value (replaced in place, or appended). */
export function withFlags(base: readonly string[], extra: readonly string[]): string[] {
  const out = [...base];
  for (let k = 0; k + 1 < extra.length; k += 2) {
    const at = out.findIndex((v, i) => i % 2 === 0 && v === extra[k]);
    if (at >= 0) out[at + 1] = extra[k + 1];
    else out.push(extra[k], extra[k + 1]);
  }
  return out;
}

const FILLER = /^(<.*>|\[.*\]|\+\+.*\+\+|\+.*\+)$/;
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
  private readonly narrowbandArgs: readonly string[];
  private readonly narrowbandFoldGain: number;
  private readonly perSecondMs: number;
  private readonly baseMs: number;
  private readonly onStats: PocketsphinxConfig['onStats'];
  /** The first pass's language model file. */
  readonly languageModelPath: string;
  /** Whether that is the phone-call model (false: the general one, e.g. not built yet). */
  readonly usesCallModel: boolean;
  /** The pronunciation dictionary: the call model's (cmudict and the words it adds) or cmudict. */
  private readonly dictionaryPath: string;

  constructor(cfg: PocketsphinxConfig = {}) {
    this.binary = cfg.binary ?? DEFAULT_POCKETSPHINX_BINARY;
    this.modelDir = cfg.modelDir ?? DEFAULT_POCKETSPHINX_MODEL_DIR;
    this.decoderArgs = cfg.decoderArgs ?? DEFAULT_DECODER_ARGS;
    this.narrowbandArgs = cfg.narrowbandArgs ?? (this.modelDir === DEFAULT_POCKETSPHINX_MODEL_DIR ? NARROWBAND_DECODER_ARGS : withoutFlag(NARROWBAND_DECODER_ARGS, '-mllr'));
    this.narrowbandFoldGain = cfg.narrowbandFoldGain ?? NARROWBAND_FOLD_GAIN;
    this.perSecondMs = cfg.timeoutMsPerAudioSecond ?? 3000;
    this.baseMs = cfg.timeoutBaseMs ?? 60_000;
    this.onStats = cfg.onStats;
    const general = path.join(this.modelDir, 'en-us.lm.bin');
    const choice = cfg.languageModel ?? 'calls';
    const calls = choice === 'calls' ? findCallLanguageModel(general) : null;
    this.languageModelPath = calls?.path ?? (choice === 'calls' || choice === 'general' ? general : choice);
    this.usesCallModel = calls !== null;
    this.dictionaryPath = calls?.dictPath ?? path.join(this.modelDir, 'cmudict-en-us.dict');
    // The model's name says which language model recognised the call (and keys recognition caches).
    this.model = calls ? `${modelName(this.modelDir)}+calls-${calls.key.slice(0, 8)}` : modelName(this.modelDir);
  }

  async transcribe(input: TranscriptionInput): Promise<Recognition> {
    const seconds = Math.max(0, input.durationSeconds || 0);
    if (!onPath(this.binary)) throw pocketsphinxFailure(new ChildProcessError('spawn', path.basename(this.binary), 'not found', null, null, '', 'ENOENT'), this.binary);
    const info = await readWavInfo(input.wavPath).catch(() => null);
    if (!info || info.channels !== 1 || info.bitsPerSample !== 16 || info.formatTag !== 1 || info.sampleRate !== PIPELINE_SAMPLE_RATE) {
      throw new PipelineError('transcription_failed', 'speech recognition needs 16 kHz mono 16-bit PCM WAV input');
    }
    const utterances = input.utterances ?? (await findUtterances(input.wavPath));
    const pieces = controlPieces(utterances, info.dataBytes / 2 / PIPELINE_SAMPLE_RATE);
    if (pieces.length === 0) return { words: [], language: 'en', provider: this.provider, model: this.model };
    // Telephone-band audio is decoded with its own front-end flags, by both passes.
    const narrowband = (this.narrowbandArgs.length > 0 || this.narrowbandFoldGain > 0) && (await isNarrowbandSpeech(await WavFilePcm.open(input.wavPath), utterances));
    const callArgs = narrowband ? withFlags(this.decoderArgs, this.narrowbandArgs) : [...this.decoderArgs];

    const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'pocketsphinx-'));
    try {
      // The call's names that cmudict lacks, pronounced for this run only (dictionary.ts).
      const baseDict = this.dictionaryPath;
      const dict = input.vocabulary?.length ? await buildCallDictionary(baseDict, [...input.vocabulary], dir, { signal: input.signal }) : null;
      const model = await modelFor(path.join(this.modelDir, 'en-us'), callArgs, dir);
      // The control file names audio by a path relative to -cepdir, split on spaces: a link with a
      // fixed name keeps any caller's path out of it.
      if (narrowband && this.narrowbandFoldGain > 0) await writeFoldedWav(input.wavPath, path.join(dir, 'audio.wav'), info.dataOffset, info.dataBytes, this.narrowbandFoldGain);
      else await fsp.symlink(path.resolve(input.wavPath), path.join(dir, 'audio.wav'));
      await fsp.writeFile(path.join(dir, 'utterances.ctl'), controlFile('audio', pieces));
      const args = [
        '-ctl', path.join(dir, 'utterances.ctl'),
        '-cepdir', dir,
        '-cepext', '.wav',
        '-adcin', 'yes',
        '-adchdr', String(info.dataOffset),
        // A file, not /dev/stdout: Node gives children sockets, which that path cannot open.
        '-hypseg', path.join(dir, 'hypseg.txt'),
        ...this.modelArgs(model, dict?.path ?? baseDict),
      ];
      const t0 = performance.now();
      try {
        await runChild(this.binary, args, {
          timeoutMs: Math.round(this.baseMs + seconds * this.perSecondMs),
          maxStdoutBytes: 1024 * 1024,
          maxStderrBytes: 4 * 1024 * 1024,
          signal: input.signal,
        });
      } catch (err) {
        throw pocketsphinxFailure(err, this.binary);
      }
      const hypseg = await fsp.readFile(path.join(dir, 'hypseg.txt'), 'utf8').catch(() => null);
      if (hypseg === null) throw new PipelineError('transcription_failed', 'speech recognition wrote no result');
      const words = parseHypseg(hypseg, pieces, dict?.rename);
      const firstPassMs = performance.now() - t0;
      const final = await this.dictationPass(words, pieces, input, dir, baseDict, dict, firstPassMs, model);
      return { words: final, language: 'en', provider: this.provider, model: this.model };
    } finally {
      await fsp.rm(dir, { recursive: true, force: true });
    }
  }

  /**
   * The dictation pass (dictionary.ts): the pieces whose words (or the previous piece's) suggest a
   * dictated address or number, decoded again with the call's own small language model; what it
   * hears as a whole address or digit string replaces the first pass's words there. An aid: when it
   * fails (other than by being aborted), the first pass's words stand.
   */
  private async dictationPass(
    words: RecognizedWord[],
    pieces: ControlPiece[],
    input: TranscriptionInput,
    dir: string,
    baseDict: string,
    dict: Awaited<ReturnType<typeof buildCallDictionary>>,
    firstPassMs: number,
    acoustic: { hmmDir: string; args: readonly string[] },
  ): Promise<RecognizedWord[]> {
    const t0 = performance.now();
    // Each piece's words by binary search over the words sorted by start: a filter of every word per
    // piece would cost pieces x words, seconds of blocked event loop on a call of hours.
    const byStart = [...words].sort((a, b) => a.start - b.start);
    const inPiece = (p: ControlPiece) => {
      const from = p.startFrame / FRAMES_PER_SECOND;
      const to = p.endFrame / FRAMES_PER_SECOND;
      let lo = 0;
      let hi = byStart.length;
      while (lo < hi) {
        const m = (lo + hi) >> 1;
        if (byStart[m]!.start < from) lo = m + 1;
        else hi = m;
      }
      const out: string[] = [];
      for (let k = lo; k < byStart.length && byStart[k]!.start < to; k++) out.push(byStart[k]!.word);
      return out;
    };
    const pieceWords = pieces.map(inPiece);
    const again = dictationPieces(pieceWords, new Set(namesToWords([...(input.vocabulary ?? [])])));
    const chosen = pieces.filter((_, k) => again[k]);
    const report = (out: RecognizedWord[]) => {
      if (!this.onStats) return out;
      // a piece changed when a word in it was removed or added (by start time)
      const key = (w: RecognizedWord) => `${w.word}@${w.start}-${w.end}`;
      const before = new Set(words.map(key));
      const after = new Set(out.map(key));
      const moved = [...words.filter((w) => !after.has(key(w))), ...out.filter((w) => !before.has(key(w)))];
      this.onStats({
        pieces: pieces.length,
        decodedAgain: chosen.length,
        secondsDecodedAgain: chosen.reduce((s, p) => s + (p.endFrame - p.startFrame) / FRAMES_PER_SECOND, 0),
        firstPassMs,
        dictationMs: performance.now() - t0,
        perPiece: pieces.map((p, k) => ({
          words: pieceWords[k],
          again: again[k],
          changed: moved.some((w) => w.start >= p.startFrame / FRAMES_PER_SECOND && w.start < p.endFrame / FRAMES_PER_SECOND),
        })),
      });
      return out;
    };
    if (chosen.length === 0 || words.length === 0) return report(words);
    const names = [...(input.vocabulary ?? [])];
    try {
      const model = await buildDictationModel(baseDict, words.map((w) => w.word), names, dir, dict);
      await fsp.writeFile(path.join(dir, 'dictation.ctl'), controlFile('audio', chosen));
      const seconds = chosen.reduce((s, p) => s + (p.endFrame - p.startFrame) / FRAMES_PER_SECOND, 0);
      await runChild(
        this.binary,
        [
          '-ctl', path.join(dir, 'dictation.ctl'),
          '-cepdir', dir,
          '-cepext', '.wav',
          '-adcin', 'yes',
          '-adchdr', String((await readWavInfo(path.join(dir, 'audio.wav')))!.dataOffset),
          '-hypseg', path.join(dir, 'dictation.txt'),
          ...this.modelArgs(acoustic, model.dictPath, model.lmPath),
        ],
        { timeoutMs: Math.round(this.baseMs + seconds * this.perSecondMs), maxStdoutBytes: 1024 * 1024, maxStderrBytes: 4 * 1024 * 1024, signal: input.signal },
      );
      const second = parseHypseg(await fsp.readFile(path.join(dir, 'dictation.txt'), 'utf8'), chosen);
      return report(spliceDictation(words, second, names));
    } catch (err) {
      if (input.signal?.aborted || (err instanceof ChildProcessError && err.kind === 'aborted')) throw pocketsphinxFailure(err, this.binary);
      return report(words);
    }
  }

  /** Model and decoder flags shared by both passes (acoustic: this call's model folder and flags, narrowband or not). */
  private modelArgs(acoustic: { hmmDir: string; args: readonly string[] }, dictPath: string, lmPath = this.languageModelPath): string[] {
    return [
      '-hmm', acoustic.hmmDir,
      '-lm', lmPath,
      '-dict', dictPath,
      // The decoder log is large and can quote recognised text; it is never needed.
      '-logfn', '/dev/null',
      ...acoustic.args,
    ];
  }
}

/** The speech pieces of a WAV file found by the project's VAD (used when the caller gives none). */
async function findUtterances(wavPath: string): Promise<TimeRange[]> {
  // Read window by window: the file may hold hours of audio.
  const source = await WavFilePcm.open(wavPath);
  return speechUtterances(source, source.sampleRate, await detectSpeech(source, source.sampleRate));
}

/** A piece of audio to decode, in 10 ms frames (pocketsphinx's -frate 100). */
export interface ControlPiece {
  id: string;
  startFrame: number;
  endFrame: number;
}

const FRAMES_PER_SECOND = 100;

/** Utterances as whole frames inside the audio, in order, without overlap; empty ones dropped. */
export function controlPieces(utterances: TimeRange[], audioSeconds: number): ControlPiece[] {
  const lastFrame = Math.floor(audioSeconds * FRAMES_PER_SECOND);
  const pieces: ControlPiece[] = [];
  let floor = 0;
  for (const u of [...utterances].sort((a, b) => a.start - b.start)) {
    if (!Number.isFinite(u.start) || !Number.isFinite(u.end)) continue;
    const startFrame = Math.max(floor, Math.floor(u.start * FRAMES_PER_SECOND));
    const endFrame = Math.min(lastFrame, Math.ceil(u.end * FRAMES_PER_SECOND));
    // Shorter than 0.1 s holds no word the decoder could finish.
    if (endFrame - startFrame < 10) continue;
    pieces.push({ id: `u${pieces.length}`, startFrame, endFrame });
    floor = endFrame;
  }
  return pieces;
}

/** A pocketsphinx_batch control file: `file startFrame endFrame uttid` per line. */
export function controlFile(file: string, pieces: ControlPiece[]): string {
  return pieces.map((p) => `${file} ${p.startFrame} ${p.endFrame} ${p.id}\n`).join('');
}

/**
 * Words from pocketsphinx_batch `-hypseg` output: per utterance `uttid S s T total A ascr L lscr`
 * followed by `startFrame ascr lscr word` per word and the utterance's frame count. Frames count
 * from the start of the utterance, so each word is placed by its piece's known offset and clamped
 * into the piece: no word can leave it, whatever the decoder reports.
 */
export function parseHypseg(text: string, pieces: ControlPiece[], rename: (token: string) => string | null = () => null): RecognizedWord[] {
  const byId = new Map(pieces.map((p) => [p.id, p]));
  const words: RecognizedWord[] = [];
  for (const line of text.split('\n')) {
    const tokens = line.trim().split(/\s+/);
    const piece = byId.get(tokens[0]);
    if (!piece || tokens[7] !== 'L') continue;
    const lengthFrames = piece.endFrame - piece.startFrame;
    const entries: Array<{ frame: number; ascr: number; word: string }> = [];
    let i = 9;
    for (; i + 3 < tokens.length; i += 4) {
      entries.push({ frame: Number(tokens[i]), ascr: Number(tokens[i + 1]), word: tokens[i + 3] });
    }
    const total = Number(tokens[i]);
    const endOfUtterance = Number.isFinite(total) ? Math.min(total, lengthFrames) : lengthFrames;
    entries.forEach((e, k) => {
      const token = rename(e.word) ?? e.word.replace(/\(\d+\)$/, '');
      if (!token || FILLER.test(token) || !Number.isFinite(e.frame)) return;
      const next = k + 1 < entries.length ? entries[k + 1].frame : endOfUtterance;
      const startFrame = Math.min(Math.max(0, e.frame), lengthFrames);
      const endFrame = Math.min(Math.max(startFrame, Number.isFinite(next) ? next : lengthFrames), lengthFrames);
      words.push({
        word: token,
        start: (piece.startFrame + startFrame) / FRAMES_PER_SECOND,
        end: (piece.startFrame + endFrame) / FRAMES_PER_SECOND,
        confidence: acousticConfidence(e.ascr, endFrame - startFrame),
      });
    });
  }
  words.sort((a, b) => a.start - b.start || a.end - b.end);
  return words;
}

/**
 * pocketsphinx_batch reports no word posteriors, only acoustic scores (log base 1.0001). A word the
 * model fits poorly scores low per frame; ACOUSTIC_CONFIDENCE turns that into the chance that the
 * word is right.
 */
export function acousticConfidence(ascr: number, frames: number): number {
  if (!Number.isFinite(ascr) || frames <= 0) return 1;
  const perFrame = ascr / frames;
  const { midpoint, scale } = ACOUSTIC_CONFIDENCE;
  return Math.round((1 / (1 + Math.exp(-(perFrame - midpoint) / scale))) * 1000) / 1000;
}

/**
 * Logistic fit of "the word is right" on the per-frame acoustic score over the synthetic corpus
 * (mono16k.wav, 1123 words, 84 % right): words scoring above -18 000 per frame were right 94 % of
 * the time, below -42 000 66 %.
 */
export const ACOUSTIC_CONFIDENCE = { midpoint: -65650, scale: 20500 };

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

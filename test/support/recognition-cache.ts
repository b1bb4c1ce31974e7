// A transcriber that remembers the real recogniser's answers on disk, so that tests and benchmarks
// processing many calls pay for each recognition once per machine. Everything after recognition
// runs for real every time.
//
// The key is everything the answer depends on: the decoded WAV's bytes, the utterances and the
// vocabulary the pipeline hands the recogniser, the recogniser's provider and model, and the
// recogniser's version and settings (a hash of src/pipeline/transcription/: its sources, word
// lists and telephone MLLR transform; and the decoder arguments). A change to any of them misses
// the cache instead of publishing a stale figure.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Recognition, Transcriber, TranscriptionInput } from '../../src/pipeline/types.js';
import { DEFAULT_DECODER_ARGS } from '../../src/pipeline/transcription/pocketsphinx.js';
import { projectRoot } from './corpus.js';

const cacheDir = path.join(projectRoot, '.cache/recognitions');

/** A hash of every source file under `dirs` (relative to the project), in a stable order. */
export function sourceVersion(dirs: string[]): string {
  const hash = crypto.createHash('sha256');
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (['.ts', '.txt', '.mllr'].some((ext) => entry.name.endsWith(ext))) hash.update(`${path.relative(projectRoot, full)}\n`).update(fs.readFileSync(full));
    }
  };
  for (const d of dirs) walk(path.join(projectRoot, d));
  return hash.digest('hex').slice(0, 16);
}

/** The recogniser's version and settings: its source and its decoder arguments. */
export function recogniserVersion(settings: readonly string[] = DEFAULT_DECODER_ARGS): string {
  return crypto.createHash('sha256').update(sourceVersion(['src/pipeline/transcription'])).update(JSON.stringify(settings)).digest('hex').slice(0, 16);
}

/**
 * The version of the whole speech stage (decoding, VAD, recognition, diarization, voice matching,
 * naming, normalisation): for caches of finished transcripts, e.g. a benchmark that scores analyses
 * of recognised transcripts. Everything under src/pipeline except the analysis stage's folder.
 */
export function speechPipelineVersion(): string {
  const dirs = fs.readdirSync(path.join(projectRoot, 'src/pipeline'), { withFileTypes: true }).filter((e) => e.isDirectory() && e.name !== 'analysis').map((e) => `src/pipeline/${e.name}`);
  const top = fs.readdirSync(path.join(projectRoot, 'src/pipeline')).filter((f) => f.endsWith('.ts')).sort();
  const hash = crypto.createHash('sha256').update(sourceVersion(dirs)).update(JSON.stringify(DEFAULT_DECODER_ARGS));
  for (const f of top) hash.update(f).update(fs.readFileSync(path.join(projectRoot, 'src/pipeline', f)));
  return hash.digest('hex').slice(0, 16);
}

export interface CachingOptions {
  /** The inner recogniser's settings when they are not the defaults (e.g. a decoder argument list under test). */
  settings?: readonly string[];
}

export function cachingTranscriber(inner: Transcriber, opts: CachingOptions = {}): Transcriber & { hits: number; misses: number } {
  const version = recogniserVersion(opts.settings);
  const self = {
    provider: inner.provider,
    model: inner.model,
    hits: 0,
    misses: 0,
    async transcribe(input: TranscriptionInput): Promise<Recognition> {
      const key = crypto
        .createHash('sha256')
        .update(`${inner.provider}\n${inner.model}\n${version}\n`)
        .update(JSON.stringify({ utterances: input.utterances ?? null, vocabulary: input.vocabulary ?? null }))
        .update(await fs.promises.readFile(input.wavPath))
        .digest('hex');
      const file = path.join(cacheDir, `${key}.json`);
      try {
        const cached = JSON.parse(await fs.promises.readFile(file, 'utf8')) as Recognition;
        self.hits++;
        return cached;
      } catch {
        // not cached yet
      }
      const result = await inner.transcribe(input);
      self.misses++;
      await fs.promises.mkdir(cacheDir, { recursive: true });
      const tmp = `${file}.${process.pid}.tmp`;
      await fs.promises.writeFile(tmp, JSON.stringify(result));
      await fs.promises.rename(tmp, file);
      return result;
    },
  };
  return self;
}

/**
 * Makes `transcriber` recognise each distinct input once per process: a later request with the
 * same decoded audio, utterances and vocabulary gets the first request's result (a failed one is
 * forgotten); `distinctInputs` counts the inputs recognised so far. For a test file that uploads the same recording several times to prove something
 * after recognition: the real recogniser still runs, once per audio, on every run of the file.
 */
export function recogniseOncePerAudio(transcriber: Transcriber): { readonly distinctInputs: number } {
  const recognitions = new Map<string, Promise<Recognition>>();
  const transcribe = transcriber.transcribe.bind(transcriber);
  transcriber.transcribe = (input) => {
    const key = crypto
      .createHash('sha256')
      .update(JSON.stringify({ utterances: input.utterances ?? null, vocabulary: input.vocabulary ?? null }))
      .update(fs.readFileSync(input.wavPath))
      .digest('hex');
    let r = recognitions.get(key);
    if (!r) {
      r = transcribe(input);
      recognitions.set(key, r);
      r.catch(() => recognitions.delete(key));
    }
    return r;
  };
  return {
    get distinctInputs() {
      return recognitions.size;
    },
  };
}

// A transcriber that remembers the real recogniser's answers on disk, keyed by the decoded WAV's
// bytes and the recogniser's provider and model, so that tests processing many calls pay for
// each recognition once per machine. Everything after recognition runs for real every time.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Recognition, Transcriber } from '../../src/pipeline/types.js';
import { projectRoot } from './corpus.js';

const cacheDir = path.join(projectRoot, '.cache/recognitions');

export function cachingTranscriber(inner: Transcriber): Transcriber & { hits: number; misses: number } {
  const self = {
    provider: inner.provider,
    model: inner.model,
    hits: 0,
    misses: 0,
    async transcribe(input: { wavPath: string; durationSeconds: number; signal?: AbortSignal }): Promise<Recognition> {
      const key = crypto.createHash('sha256').update(`${inner.provider}\n${inner.model}\n`).update(await fs.promises.readFile(input.wavPath)).digest('hex');
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

// A deliberately worse recogniser, to show that a test's accuracy thresholds catch a regression:
// it replaces a fixed share of the recognised words by a word no call says (a substitution for
// the corpus scorer), chosen by a hash of the word's position and text so runs repeat exactly.
// Times and everything else stay as recognised. Used only when a test is asked to (e.g.
// CORPUS_E2E_CORRUPT_WORDS=0.2 for test/e2e/corpus.test.ts).
import crypto from 'node:crypto';
import type { Recognition, Transcriber, TranscriptionInput } from '../../src/pipeline/types.js';

export const CORRUPT_WORD = 'zyzzyva';

export function degradedTranscriber(inner: Transcriber, share: number): Transcriber {
  return {
    provider: inner.provider,
    model: inner.model,
    async transcribe(input: TranscriptionInput): Promise<Recognition> {
      const r = await inner.transcribe(input);
      const words = r.words.map((w, i) => {
        const h = crypto.createHash('sha256').update(`${i}\n${w.word}`).digest().readUInt32BE(0) / 2 ** 32;
        return h < share ? { ...w, word: CORRUPT_WORD } : w;
      });
      return { ...r, words };
    },
  };
}

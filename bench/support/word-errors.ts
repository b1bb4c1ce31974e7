// Word errors of a recognition against a call's truth, speakers ignored: the recogniser's words as
// one segment of one speaker, scored by the corpus's own scorer (score.mjs), so every fitting
// script counts WER the way the reports do.
import type { loadScorer } from '../../test/support/corpus.js';

export interface WordErrors {
  errors: number;
  refWords: number;
  wer: number;
}

export function wordErrors(scorer: Awaited<ReturnType<typeof loadScorer>>, truth: unknown, words: ReadonlyArray<{ word: string }>): WordErrors {
  const durationSeconds = (truth as { durationSeconds: number }).durationSeconds;
  const text = words.map((w) => w.word).join(' ');
  const score = scorer.scoreTranscript(truth, { segments: [{ speakerId: 'S0', startSeconds: 0, endSeconds: durationSeconds, text }], speakers: [{ speakerId: 'S0', role: 'UNKNOWN' }] });
  return { errors: score.details.words.errors, refWords: score.details.words.refWords, wer: score.wer };
}

/** Errors summed over calls, and their pooled rate. */
export class PooledWordErrors {
  errors = 0;
  refWords = 0;
  add(e: WordErrors): void {
    this.errors += e.errors;
    this.refWords += e.refWords;
  }
  /** Pooled WER in percent with one decimal, or 'n/a' with no reference words. */
  percent(): string {
    return this.refWords ? ((100 * this.errors) / this.refWords).toFixed(1) : 'n/a';
  }
}

// Words for the diarizer benches when the recogniser is left out: the truth turns' words spread over
// each turn's span in proportion to their length, and those words grouped back into utterances the
// way the pipeline groups recognised words before naming the speakers.
import type { Utterance } from '../../src/pipeline/resolution/index.js';
import type { AttributedWord, RecognizedWord } from '../../src/pipeline/types.js';

interface TimedTurns {
  turns: ReadonlyArray<{ text: string; startSeconds: number; endSeconds: number }>;
}

export function truthTurnWords(truth: TimedTurns): RecognizedWord[] {
  return truth.turns.flatMap((t) => {
    const toks = t.text.split(/\s+/).filter(Boolean);
    const lens = toks.map((x) => x.length + 1);
    const total = lens.reduce((a, b) => a + b, 0);
    let acc = 0;
    return toks.map((w, k) => {
      const start = t.startSeconds + ((t.endSeconds - t.startSeconds) * acc) / total;
      acc += lens[k];
      return { word: w, start, end: t.startSeconds + ((t.endSeconds - t.startSeconds) * acc) / total, confidence: 1 };
    });
  });
}

/** Consecutive words of one speaker less than a second apart make one utterance. */
export function wordUtterances(words: readonly AttributedWord[]): Utterance[] {
  const utterances: Utterance[] = [];
  for (const w of words) {
    const last = utterances.at(-1);
    if (last && last.sourceSpeakerId === w.speaker && w.start - last.end < 1) {
      last.text += ` ${w.word}`;
      last.end = w.end;
    } else utterances.push({ sourceSpeakerId: w.speaker, text: w.word, start: w.start, end: w.end });
  }
  return utterances;
}

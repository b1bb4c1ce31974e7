// Word-time error against the corpus truth (same truth format as ../shared/corpus/score.mjs).
//
// Words are attributed to truth turns by their text, not their times (times are what is measured):
// the recognised words are aligned to the reference words of all turns by edit distance, after the
// scorer's own normalisation, and a recognised word matched or substituted against a word of turn k
// belongs to turn k. For each turn with at least one such word, the errors are |first word's start -
// turn start| and |last word's end - turn end|; the turn-boundary error is the mean of both over all
// those turns.
//
// Turns spoken in another language than the recogniser's (the real-voice set, `language` other than
// `en`) have no text to align and are not measured here (the benchmark checks instead that words
// fall inside truth turns). Beside such a turn its garbled words could align as substitutions to
// this turn's edges, so there an edge counts only when the turn's own first (last) word was
// recognised exactly, and is measured from that word.

export interface TimedWord {
  word: string;
  start: number;
  end: number;
}

export interface TruthTurnTimes {
  startSeconds: number;
  endSeconds: number;
  text: string;
  /** Language of the turn; absent means the recogniser's. */
  language?: string;
}

export interface TurnTiming {
  turn: number;
  /** null when the edge could not be attributed (see the rule beside foreign turns). */
  startError: number | null;
  endError: number | null;
}

export interface WordTimingResult {
  /** Mean of the start and end errors over the turn edges that got words (seconds). */
  meanBoundaryError: number;
  /** Largest single start or end error (seconds). */
  maxBoundaryError: number;
  turns: TurnTiming[];
  /** Turns no recognised word was aligned to. */
  turnsWithoutWords: number;
  /** Turn edges (start or end) measured. */
  edges: number;
}

/** Aligns hypothesis tokens to reference tokens; returns, per hypothesis token, the reference index it matched or replaced (or -1). */
function alignTokens(ref: string[], hyp: string[]): number[] {
  const n = ref.length;
  const m = hyp.length;
  const cost = new Uint32Array((n + 1) * (m + 1));
  const at = (i: number, j: number) => i * (m + 1) + j;
  for (let i = 0; i <= n; i++) cost[at(i, 0)] = i;
  for (let j = 0; j <= m; j++) cost[at(0, j)] = j;
  for (let i = 1; i <= n; i++) {
    for (let j = 1; j <= m; j++) {
      const sub = cost[at(i - 1, j - 1)] + (ref[i - 1] === hyp[j - 1] ? 0 : 1);
      cost[at(i, j)] = Math.min(sub, cost[at(i - 1, j)] + 1, cost[at(i, j - 1)] + 1);
    }
  }
  const matched = new Array<number>(m).fill(-1);
  let i = n;
  let j = m;
  while (i > 0 && j > 0) {
    const c = cost[at(i, j)];
    if (c === cost[at(i - 1, j - 1)] + (ref[i - 1] === hyp[j - 1] ? 0 : 1)) {
      matched[j - 1] = i - 1;
      i--;
      j--;
    } else if (c === cost[at(i - 1, j)] + 1) i--;
    else j--;
  }
  return matched;
}

export function wordTimingErrors(turns: TruthTurnTimes[], words: TimedWord[], normalizeText: (s: string) => string[], language = 'en'): WordTimingResult {
  const ref: string[] = [];
  const refTurn: number[] = [];
  const foreign = (t: TruthTurnTimes) => t.language !== undefined && t.language !== language;
  turns.forEach((t, k) => {
    if (foreign(t)) return;
    for (const tok of normalizeText(t.text)) {
      ref.push(tok);
      refTurn.push(k);
    }
  });
  const hyp: string[] = [];
  const hypWord: number[] = [];
  words.forEach((w, k) => {
    for (const tok of normalizeText(w.word)) {
      hyp.push(tok);
      hypWord.push(k);
    }
  });
  const matched = alignTokens(ref, hyp);
  const besideForeign = (k: number) => (k > 0 && foreign(turns[k - 1])) || (k + 1 < turns.length && foreign(turns[k + 1]));
  const firstToken = new Map<number, number>();
  const lastToken = new Map<number, number>();
  refTurn.forEach((k, r) => {
    if (!firstToken.has(k)) firstToken.set(k, r);
    lastToken.set(k, r);
  });
  const first = new Map<number, TimedWord>();
  const last = new Map<number, TimedWord>();
  matched.forEach((r, j) => {
    if (r < 0) return;
    const turn = refTurn[r];
    const w = words[hypWord[j]];
    const strict = besideForeign(turn);
    if (!strict || (ref[r] === hyp[j] && r === firstToken.get(turn))) {
      const f = first.get(turn);
      if (!f || w.start < f.start) first.set(turn, w);
    }
    if (!strict || (ref[r] === hyp[j] && r === lastToken.get(turn))) {
      const l = last.get(turn);
      if (!l || w.end > l.end) last.set(turn, w);
    }
  });
  const result: TurnTiming[] = [];
  turns.forEach((t, k) => {
    const f = first.get(k);
    const l = last.get(k);
    if (!f && !l) return;
    result.push({ turn: k, startError: f ? Math.abs(f.start - t.startSeconds) : null, endError: l ? Math.abs(l.end - t.endSeconds) : null });
  });
  const errors = result.flatMap((r) => [r.startError, r.endError]).filter((e): e is number => e !== null);
  return {
    meanBoundaryError: errors.length ? errors.reduce((s, e) => s + e, 0) / errors.length : 0,
    maxBoundaryError: errors.length ? Math.max(...errors) : 0,
    turns: result,
    turnsWithoutWords: turns.length - result.length,
    edges: errors.length,
  };
}

/** The acceptance checks on a transcript and its words: what is wrong, empty when nothing is. */
export function timingViolations(
  durationSeconds: number,
  words: TimedWord[],
  segments: Array<{ startSeconds: number; endSeconds: number }>,
): string[] {
  const problems: string[] = [];
  // Segment times are rounded to milliseconds.
  const limit = durationSeconds + 0.001;
  segments.forEach((s, i) => {
    if (s.endSeconds > limit) problems.push(`segment ${i} ends at ${s.endSeconds} after the audio (${durationSeconds.toFixed(3)} s)`);
    if (i > 0 && s.startSeconds < segments[i - 1].startSeconds) problems.push(`segment ${i} starts before segment ${i - 1}`);
  });
  words.forEach((w, i) => {
    if (w.start < 0) problems.push(`word ${i} starts before 0`);
    if (w.end > limit) problems.push(`word ${i} ends after the audio`);
    if (w.end < w.start) problems.push(`word ${i} ends before it starts`);
    if (i > 0 && w.start < words[i - 1].start) problems.push(`word ${i} is out of order`);
  });
  return problems;
}

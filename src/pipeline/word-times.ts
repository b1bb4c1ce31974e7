// The word-time check every recogniser answer passes before its words are attributed to speakers
// (the first step of transcript normalisation). Recognisers report times that can drift from the
// audio (pocketsphinx_continuous placed the words of a last utterance ~6 s late; API answers can run
// past the end), and word times decide speakers, segment boundaries and cleanText timestamps. So:
//
// 1. Times must be numbers inside [0, duration] and in the recogniser's order (its text order is
//    trusted, its times are not): a word starting before the previous one is a timing fault.
// 2. Each word must sit in speech the project's VAD found (within TOLERANCE_SECONDS): a word in
//    silence or past the end does not fit the audio energy.
// 3. A run of misplaced words between two well-placed ones (or the call's start and end) is re-timed
//    over the speech in that gap (speech regions holding no well-placed word first), in order, each
//    word given time in proportion to its length;
//    misplaced words with no speech in their gap keep clamped, ordered times and are flagged.
//
// What happened is reported as transcript quality warnings (WORD_TIME_WARNINGS).
import type { RecognizedWord, TimeRange } from './types.js';

/** Quality warnings this check can raise; carried by the transcript and the analysis. */
export const WORD_TIME_WARNINGS = {
  /** Some word times did not fit the audio and were moved into the speech around them. */
  retimed: 'word_times_adjusted',
  /** Some word times did not fit the audio and no speech was found to move them to. */
  unverified: 'word_times_unverified',
} as const;

/** How far outside a VAD speech region a word's middle may fall: the VAD trims soft onsets and tails. */
export const TOLERANCE_SECONDS = 0.3;
/** Time a re-timed word gets at least, relative to the others (a word of 0 s still takes some). */
const MIN_WEIGHT_SECONDS = 0.08;

export interface WordTimeCheck {
  words: RecognizedWord[];
  /** Words moved into speech. */
  retimed: number;
  /** Words that did not fit the audio and could not be moved (left clamped and in order). */
  unverified: number;
  warnings: string[];
}

function insideSpeech(w: RecognizedWord, regions: TimeRange[]): boolean {
  const mid = (w.start + w.end) / 2;
  return regions.some((r) => mid >= r.start - TOLERANCE_SECONDS && mid <= r.end + TOLERANCE_SECONDS);
}

/** The speech inside [lo, hi] as ordered pieces. */
function speechBetween(regions: TimeRange[], lo: number, hi: number): TimeRange[] {
  const out: TimeRange[] = [];
  for (const r of regions) {
    const start = Math.max(lo, r.start);
    const end = Math.min(hi, r.end);
    if (end > start) out.push({ start, end });
  }
  return out;
}

/** Maps a position along the concatenated pieces (seconds of speech) to call time. */
function timeAt(pieces: TimeRange[], offset: number): number {
  let left = offset;
  for (const p of pieces) {
    const len = p.end - p.start;
    if (left <= len) return p.start + left;
    left -= len;
  }
  return pieces[pieces.length - 1].end;
}

/**
 * Checks and, where needed, re-times recognised words against the audio: `speechRegions` are the
 * VAD's speech regions of the call and `durationSeconds` its length. Words keep the recogniser's
 * order; the result's times are finite, inside [0, duration], non-decreasing, with end >= start.
 */
export function checkWordTimes(input: RecognizedWord[], speechRegions: TimeRange[], durationSeconds: number): WordTimeCheck {
  const duration = Number.isFinite(durationSeconds) && durationSeconds > 0 ? durationSeconds : 0;
  const regions = [...speechRegions].filter((r) => r.end > r.start).sort((a, b) => a.start - b.start);
  const clamp = (t: number) => Math.min(duration, Math.max(0, t));

  // Fit: a word is well placed when its reported times are sane, inside the audio and in speech,
  // and it belongs to the longest run of such words whose starts keep the recogniser's order (one
  // word reported far off cannot make all the others look out of order).
  const candidates: number[] = [];
  input.forEach((w, i) => {
    const sane = Number.isFinite(w.start) && Number.isFinite(w.end) && w.start >= 0 && w.end >= w.start && w.end <= duration + 0.01;
    if (sane && insideSpeech(w, regions)) candidates.push(i);
  });
  const fits = new Array<boolean>(input.length).fill(false);
  for (const i of longestOrderedRun(candidates.map((i) => input[i].start))) fits[candidates[i]] = true;

  const freeRegions = regions.filter((r) => !input.some((x, i) => fits[i] && insideSpeech(x, [r])));
  const words: RecognizedWord[] = input.map((w, i) => (fits[i] ? { ...w, start: clamp(w.start), end: clamp(w.end) } : { ...w }));
  let retimed = 0;
  let unverified = 0;
  for (let i = 0; i < words.length; ) {
    if (fits[i]) {
      i++;
      continue;
    }
    let j = i;
    while (j < words.length && !fits[j]) j++;
    // Misplaced words i..j-1 belong between the well-placed neighbours.
    const lo = i > 0 ? words[i - 1].end : 0;
    const hi = j < words.length ? words[j].start : duration;
    // Speech no well-placed word sits in comes first: misplaced words are most often a whole
    // utterance reported in the wrong place, and the tail of the neighbour's utterance is not it.
    const free = speechBetween(freeRegions, lo, Math.max(lo, hi));
    const pieces = free.length > 0 ? free : speechBetween(regions, lo, Math.max(lo, hi));
    const run = words.slice(i, j);
    const weights = run.map((w) => Math.max(MIN_WEIGHT_SECONDS, Number.isFinite(w.end - w.start) ? Math.min(2, w.end - w.start) : 0));
    const total = weights.reduce((s, x) => s + x, 0);
    if (pieces.length > 0) {
      const speech = pieces.reduce((s, p) => s + (p.end - p.start), 0);
      let at = 0;
      run.forEach((w, k) => {
        const start = timeAt(pieces, at);
        at += (speech * weights[k]) / total;
        w.start = start;
        w.end = Math.max(start, timeAt(pieces, at));
      });
      retimed += run.length;
    } else {
      // Nowhere to put them: keep what was reported where it is possible, else spread them over the gap.
      let prevEnd = lo;
      run.forEach((w, k) => {
        const s = Number.isFinite(w.start) ? clamp(w.start) : NaN;
        const e = Number.isFinite(w.end) ? clamp(w.end) : NaN;
        if (Number.isFinite(s) && Number.isFinite(e) && s >= prevEnd && e >= s && e <= Math.max(lo, hi)) {
          w.start = s;
          w.end = e;
        } else {
          const left = Math.max(0, Math.max(lo, hi) - prevEnd);
          const share = (left * weights[k]) / weights.slice(k).reduce((a, b) => a + b, 0);
          w.start = prevEnd;
          w.end = prevEnd + share;
        }
        prevEnd = w.end;
      });
      unverified += run.length;
    }
    i = j;
  }

  const warnings: string[] = [];
  if (retimed > 0) warnings.push(WORD_TIME_WARNINGS.retimed);
  if (unverified > 0) warnings.push(WORD_TIME_WARNINGS.unverified);
  return { words, retimed, unverified, warnings };
}

/** Indexes of a longest non-decreasing subsequence of `values` (patience method, O(n log n)). */
export function longestOrderedRun(values: number[]): number[] {
  const tailIndex: number[] = [];
  const previous = new Array<number>(values.length).fill(-1);
  values.forEach((v, i) => {
    // The first tail whose value is greater than v (non-decreasing: equal values extend).
    let lo = 0;
    let hi = tailIndex.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (values[tailIndex[mid]] <= v) lo = mid + 1;
      else hi = mid;
    }
    previous[i] = lo > 0 ? tailIndex[lo - 1] : -1;
    tailIndex[lo] = i;
  });
  const out: number[] = [];
  for (let k = tailIndex.length ? tailIndex[tailIndex.length - 1] : -1; k >= 0; k = previous[k]) out.push(k);
  return out.reverse();
}

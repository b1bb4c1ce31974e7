// Turning frame-level speaker labels into what the pipeline consumes: words with speakers, speaker
// ids in order of first appearance, and per-speaker speech regions.
import type { AttributedWord, RecognizedWord } from '../types.js';
import { mergeRegions, type SpeechRegion } from './vad.js';

/** Frame labels on a regular grid: label[i] is a cluster index, or -1 for non-speech. */
export interface FrameLabels {
  labels: Int32Array;
  /** Time of frame i's centre = offset + i * hop. */
  offset: number;
  hop: number;
}

function frameIndex(t: number, fl: FrameLabels): number {
  return Math.round((t - fl.offset) / fl.hop);
}

/**
 * Cluster of each word: the majority label of the speech frames inside its span; a word with no
 * speech frames (the recogniser's times drift a little) takes the nearest labelled frame.
 */
export function labelWords(words: RecognizedWord[], fl: FrameLabels): number[] {
  const n = fl.labels.length;
  return words.map((w) => {
    const a = Math.max(0, frameIndex(w.start, fl));
    const b = Math.min(n - 1, frameIndex(w.end, fl));
    const votes = new Map<number, number>();
    for (let i = a; i <= b; i++) {
      const l = fl.labels[i];
      if (l >= 0) votes.set(l, (votes.get(l) ?? 0) + 1);
    }
    let best = -1;
    let bestVotes = 0;
    for (const [l, v] of votes) if (v > bestVotes) [best, bestVotes] = [l, v];
    if (best >= 0) return best;
    const mid = Math.min(n - 1, Math.max(0, frameIndex((w.start + w.end) / 2, fl)));
    for (let d = 1; d < n; d++) {
      if (mid - d >= 0 && fl.labels[mid - d] >= 0) return fl.labels[mid - d];
      if (mid + d < n && fl.labels[mid + d] >= 0) return fl.labels[mid + d];
    }
    return 0;
  });
}

/**
 * A short word tightly surrounded by words of one other speaker is almost always a labelling
 * slip at a phone boundary, not a one-word interjection (those come with pauses around them).
 */
export function smoothShortWords(words: RecognizedWord[], labels: number[], maxWordSeconds = 0.25, maxGapSeconds = 0.12): number[] {
  const out = labels.slice();
  for (let i = 1; i + 1 < words.length; i++) {
    const w = words[i];
    if (w.end - w.start > maxWordSeconds) continue;
    const p = out[i - 1];
    const q = labels[i + 1];
    if (p !== q || p === labels[i]) continue;
    if (w.start - words[i - 1].end <= maxGapSeconds && words[i + 1].start - w.end <= maxGapSeconds) out[i] = p;
  }
  return out;
}

/** Runs of equally labelled frames as regions per cluster. */
export function labelRegions(fl: FrameLabels, mergeGap = 0.3, minLength = 0.1): Map<number, SpeechRegion[]> {
  const byLabel = new Map<number, SpeechRegion[]>();
  let runStart = -1;
  for (let i = 0; i <= fl.labels.length; i++) {
    const l = i < fl.labels.length ? fl.labels[i] : -2;
    const prev = i > 0 ? fl.labels[i - 1] : -2;
    if (l !== prev) {
      if (prev >= 0 && runStart >= 0) {
        const list = byLabel.get(prev) ?? [];
        list.push({ start: fl.offset + (runStart - 0.5) * fl.hop, end: fl.offset + (i - 0.5) * fl.hop });
        byLabel.set(prev, list);
      }
      runStart = i;
    }
  }
  for (const [l, list] of byLabel) byLabel.set(l, mergeRegions(list, mergeGap, minLength).map((r) => ({ start: Math.max(0, r.start), end: r.end })));
  return byLabel;
}

/**
 * Names clusters `S0`, `S1`, ... in order of first appearance: by the first word when there are
 * words, otherwise (or for clusters without words) by the first region.
 */
export function assembleDiarization(
  words: RecognizedWord[],
  wordClusters: number[],
  regions: Map<number, SpeechRegion[]>,
): { speakers: string[]; words: AttributedWord[]; speakerRegions: Record<string, SpeechRegion[]> } {
  const first = new Map<number, number>();
  words.forEach((w, i) => {
    const c = wordClusters[i];
    if (!first.has(c)) first.set(c, w.start);
  });
  if (words.length === 0) for (const [c, rs] of regions) if (rs.length) first.set(c, rs[0].start);
  const order = [...first.entries()].sort((a, b) => a[1] - b[1]).map(([c]) => c);
  const ids = new Map(order.map((c, i) => [c, `S${i}`]));
  const speakerRegions: Record<string, SpeechRegion[]> = {};
  for (const c of order) speakerRegions[ids.get(c)!] = regions.get(c) ?? [];
  return {
    speakers: order.map((c) => ids.get(c)!),
    words: words.map((w, i) => ({ ...w, speaker: ids.get(wordClusters[i])! })),
    speakerRegions,
  };
}

export interface FrameScores {
  /** Grid indexes of the scored frames, ascending. */
  frames: number[];
  /** frames.length × k log-likelihoods. */
  logLik: Float64Array;
  /** The frame-level decision for each scored frame. */
  labels: ArrayLike<number>;
  k: number;
  offset: number;
  hop: number;
}

function lowerBound(a: number[], x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (a[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Word-level Viterbi: each word scores each speaker by the summed frame log-likelihoods inside
 * its span, and changing speaker between words costs `penalty` (`penalty * pauseFactor` across a
 * pause of at least `pauseSeconds`). Deciding per word rather than per frame puts speaker changes
 * exactly on word boundaries instead of a few frames late. A word without speech frames (the
 * recogniser sometimes places a word in the pause next to it) leans, by `emptyBias`, towards the
 * speaker of the nearest speech frame.
 */
export function viterbiWords(words: RecognizedWord[], s: FrameScores, penalty: number, pauseFactor: number, pauseSeconds: number, emptyBias = 10): number[] {
  const { k } = s;
  const n = words.length;
  if (n === 0) return [];
  if (k <= 1) return words.map(() => 0);
  const emit = new Float64Array(n * k);
  // Speech extent of each word, so a pause is measured in the audio, not in the recogniser's
  // word times (which often stretch a word over the silence after it).
  const first = new Float64Array(n).fill(NaN);
  const last = new Float64Array(n).fill(NaN);
  words.forEach((w, i) => {
    const a = lowerBound(s.frames, Math.ceil((w.start - s.offset) / s.hop));
    const b = lowerBound(s.frames, Math.floor((w.end - s.offset) / s.hop) + 1);
    if (b > a) {
      first[i] = s.offset + s.frames[a] * s.hop;
      last[i] = s.offset + s.frames[b - 1] * s.hop;
    }
    for (let j = a; j < b; j++) for (let c = 0; c < k; c++) emit[i * k + c] += s.logLik[j * k + c];
    if (b > a) {
      let max = -Infinity;
      for (let c = 0; c < k; c++) max = Math.max(max, emit[i * k + c]);
      for (let c = 0; c < k; c++) emit[i * k + c] -= max;
    } else if (s.frames.length) {
      const t = (w.start + w.end) / 2;
      const time = (j: number) => s.offset + s.frames[j] * s.hop;
      let j = Math.min(a, s.frames.length - 1);
      if (j > 0 && Math.abs(time(j - 1) - t) < Math.abs(time(j) - t)) j--;
      for (let c = 0; c < k; c++) emit[i * k + c] = c === s.labels[j] ? 0 : -emptyBias;
    }
  });
  const back = new Int32Array(n * k);
  let score = Float64Array.from({ length: k }, (_, c) => emit[c]);
  for (let i = 1; i < n; i++) {
    const gap = Number.isNaN(first[i]) || Number.isNaN(last[i - 1]) ? Infinity : first[i] - last[i - 1];
    const pen = gap >= pauseSeconds ? penalty * pauseFactor : penalty;
    const next = new Float64Array(k);
    for (let c = 0; c < k; c++) {
      let best = score[c];
      let arg = c;
      for (let p = 0; p < k; p++) {
        if (p !== c && score[p] - pen > best) {
          best = score[p] - pen;
          arg = p;
        }
      }
      next[c] = best + emit[i * k + c];
      back[i * k + c] = arg;
    }
    score = next;
  }
  const out = new Array<number>(n);
  let c = 0;
  for (let j = 1; j < k; j++) if (score[j] > score[c]) c = j;
  for (let i = n - 1; i >= 0; i--) {
    out[i] = c;
    c = back[i * k + c];
  }
  return out;
}

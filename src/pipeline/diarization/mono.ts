// Speaker diarization of a single-channel call without a neural model:
//   VAD -> MFCC frames (call-level mean/variance normalisation) -> sliding-window statistics ->
//   k-means into speaker clusters -> GMM re-segmentation with a Viterbi switch penalty (repeated)
//   -> BIC check on the number of speakers -> word-by-word attribution.
import type { DecodedAudio, Diarization, Diarizer, RecognizedWord } from '../types.js';
import { assembleDiarization, labelRegions, labelWords, smoothShortWords, viterbiWords, type FrameLabels } from './attribution.js';
import { decimateBy2, frameEnergy, frameGrid, highBandShare, mfccFrames, pitchTrack } from './features.js';
import { DiagGmm, deltaBic, kmeans, sqDist, type Vec } from './gmm.js';
import { detectSpeech, type SpeechRegion } from './vad.js';

export interface MonoDiarizationOptions {
  /** Cepstral coefficients used, c1..cN (c0 is loudness, not voice). Default 19. */
  coefficients: number;
  melBands: number;
  /** Telephone-band handling: 'auto' detects it from the spectrum. */
  narrowband: 'auto' | 'on' | 'off';
  /** Mel filters when analysing telephone-band audio at 8 kHz. */
  narrowMelBands: number;
  /** Frames quieter than the loudest speech by more than this are ignored. Default 40 dB. */
  energyRangeDb: number;
  /** Sliding window for the first clustering pass. */
  windowSeconds: number;
  windowHopSeconds: number;
  /** Most speakers considered; a phone call has two. */
  maxSpeakers: number;
  /** GMM components per speaker in re-segmentation. */
  gmmComponents: number;
  resegmentIterations: number;
  /** Viterbi cost (nats) of a speaker change between adjacent speech frames. */
  switchPenalty: number;
  /** How words get their speaker: word-level Viterbi on the frame scores, or majority of frame labels. */
  wordDecoding: 'viterbi' | 'majority';
  /** Word-level Viterbi cost of a speaker change between adjacent words. */
  wordSwitchPenalty: number;
  /** Fraction of the switch penalty charged when the change falls in a pause. */
  pauseSwitchFactor: number;
  /** BIC penalty weight for accepting one more speaker. Larger favours fewer speakers. */
  bicLambda: number;
  /** Per-frame log-likelihood ratio two clusters need to count as two voices. */
  minSpeakerDistance: number;
  /** A cluster with less speech than this share is merged away. */
  minSpeakerShare: number;
  vadAggressiveness: 0 | 1 | 2 | 3;
}

export const DEFAULT_MONO_OPTIONS: MonoDiarizationOptions = {
  coefficients: 19,
  melBands: 40,
  narrowband: 'auto',
  narrowMelBands: 24,
  energyRangeDb: 40,
  windowSeconds: 1.5,
  windowHopSeconds: 0.25,
  maxSpeakers: 3,
  gmmComponents: 16,
  resegmentIterations: 3,
  switchPenalty: 60,
  pauseSwitchFactor: 0.2,
  wordDecoding: 'viterbi',
  wordSwitchPenalty: 30,
  bicLambda: 1.0,
  minSpeakerDistance: 1.2,
  minSpeakerShare: 0.05,
  vadAggressiveness: 2,
};

const HOP = 0.01;
/** Power share above 3.8 kHz below which audio counts as telephone band (corpus: wideband >= 8e-4, phone8k ~6e-6). */
const NARROWBAND_SHARE = 1e-4;
const FRAME = 0.025;

export interface MonoDebug {
  regions: SpeechRegion[];
  frameLabels: FrameLabels;
  clusters: number;
  /** Per-frame log-likelihood ratios of the speaker-count decisions. */
  bic: number[];
  /** Grid indexes of the speech frames, and their log-likelihood under each cluster's model. */
  speechFrames: number[];
  logLik: Float64Array;
}

/** Frame-level diarization of a mono signal: labels per 10 ms frame (-1 = non-speech). */
export async function diarizeFrames(
  samples: Float32Array,
  sampleRate: number,
  options: Partial<MonoDiarizationOptions> = {},
): Promise<MonoDebug> {
  const o = { ...DEFAULT_MONO_OPTIONS, ...options };
  const regions = await detectSpeech(samples, sampleRate, { aggressiveness: o.vadAggressiveness });
  const grid = frameGrid(samples.length, sampleRate, { frameSeconds: FRAME, hopSeconds: HOP });
  const offset = grid.frameSeconds / 2;
  const hop = grid.hopSeconds;
  const labels = new Int32Array(grid.count).fill(-1);
  const empty: MonoDebug = { regions, frameLabels: { labels, offset, hop }, clusters: 0, bic: [], speechFrames: [], logLik: new Float64Array(0) };
  if (regions.length === 0 || grid.count === 0) return empty;

  // Speech frames: inside a VAD region and loud enough to carry voice (drops inter-word gaps).
  const energy = frameEnergy(samples, sampleRate, { frameSeconds: FRAME, hopSeconds: HOP });
  const inRegion = new Uint8Array(grid.count);
  for (const r of regions) {
    const a = Math.max(0, Math.ceil((r.start - offset) / hop));
    const b = Math.min(grid.count - 1, Math.floor((r.end - offset) / hop));
    for (let i = a; i <= b; i++) inRegion[i] = 1;
  }
  const speechEnergies = Array.from(energy).filter((_, i) => inRegion[i]).sort((a, b) => a - b);
  const loud = speechEnergies[Math.floor(0.95 * (speechEnergies.length - 1))] ?? 0;
  const speechIdx: number[] = [];
  for (let i = 0; i < grid.count; i++) if (inRegion[i] && energy[i] > loud - o.energyRangeDb) speechIdx.push(i);
  if (speechIdx.length < 50) {
    for (const i of speechIdx) labels[i] = 0;
    return { ...empty, clusters: speechIdx.length ? 1 : 0, speechFrames: speechIdx, logLik: new Float64Array(speechIdx.length) };
  }

  // Telephone-band audio is analysed at 8 kHz so the mel filters cover only the band that
  // carries voice (see highBandShare).
  const narrow = o.narrowband === 'on' || (o.narrowband === 'auto' && sampleRate >= 16000 && highBandShare(samples, sampleRate) < NARROWBAND_SHARE);
  const mfcc = narrow
    ? mfccFrames(decimateBy2(samples), sampleRate / 2, { frameSeconds: FRAME, hopSeconds: HOP, coefficients: o.coefficients + 1, melBands: o.narrowMelBands })
    : mfccFrames(samples, sampleRate, { frameSeconds: FRAME, hopSeconds: HOP, coefficients: o.coefficients + 1, melBands: o.melBands });
  // Both grids have the same hop; the 8 kHz one can be a frame shorter at the end.
  while (speechIdx.length && speechIdx[speechIdx.length - 1] >= mfcc.length) speechIdx.pop();
  const dim = o.coefficients;
  // Call-level mean and variance normalisation removes the channel and loudness, keeping timbre.
  const feats: Vec[] = speechIdx.map((i) => mfcc[i].subarray(1, dim + 1).slice());
  normaliseColumns(feats);

  // First pass: statistics of sliding windows of speech frames, clustered with k-means.
  const windowFrames = Math.round(o.windowSeconds / hop);
  const stepFrames = Math.round(o.windowHopSeconds / hop);
  const windows: Array<{ from: number; to: number }> = []; // indexes into speechIdx
  for (let s = 0; s < speechIdx.length; ) {
    // Windows stay inside one contiguous stretch of speech (no jump over a pause > 0.3 s).
    let e = s;
    while (e + 1 < speechIdx.length && e - s + 1 < windowFrames && speechIdx[e + 1] - speechIdx[e] < 30) e++;
    windows.push({ from: s, to: e + 1 });
    if (e + 1 >= speechIdx.length) break;
    s = speechIdx[e + 1] - speechIdx[e] >= 30 ? e + 1 : s + stepFrames;
  }
  const winVecs: Vec[] = windows.map(({ from, to }) => {
    const v = new Float32Array(2 * dim);
    const n = to - from;
    for (let k = from; k < to; k++) for (let d = 0; d < dim; d++) v[d] += feats[k][d] / n;
    for (let k = from; k < to; k++) for (let d = 0; d < dim; d++) v[dim + d] += (feats[k][d] - v[d]) ** 2 / n;
    for (let d = 0; d < dim; d++) v[dim + d] = Math.sqrt(v[dim + d]);
    return v;
  });
  normaliseColumns(winVecs);

  const k0 = Math.min(2, o.maxSpeakers);
  const km2 = kmeans(winVecs, k0, { restarts: 10, seed: 11 });
  if (process.env.DIAR_DEBUG) {
    let sw = 0;
    let pairs = 0;
    for (let w = 1; w < windows.length; w++) {
      if (windows[w].from >= windows[w - 1].to) continue; // not overlapping: different stretch
      pairs++;
      if (km2.labels[w] !== km2.labels[w - 1]) sw++;
    }
    console.error('switchRate', (sw / Math.max(1, pairs)).toFixed(3), 'windows', windows.length);
  }
  let frameLab = windowsToFrames(windows, km2.labels, speechIdx.length, k0);
  let logLik: Float64Array;
  ({ labels: frameLab, logLik } = resegment(feats, speechIdx, frameLab, k0, o));

  // Speaker count. Two clusters are two speakers only when they differ by more than the spread
  // within one voice: the per-frame log-likelihood ratio of separate full-covariance Gaussians
  // against a shared one is 0.5-0.9 for halves of one flite voice and 1.6-3.8 between voices on
  // the corpus, and ΔBIC must agree. A third speaker must be that far from both others.
  const bic: number[] = [];
  let k = k0;
  if (process.env.DIAR_DEBUG) {
    const wl = Int32Array.from(windows, ({ from, to }) => {
      let c1 = 0;
      for (let i = from; i < to; i++) c1 += frameLab[i];
      return c1 * 2 >= to - from ? 1 : 0;
    });
    const f0 = pitchTrack(samples, sampleRate, { frameSeconds: FRAME, hopSeconds: HOP });
    const med = (c: number) => {
      const v: number[] = [];
      speechIdx.forEach((fi, j) => {
        if (frameLab[j] === c && f0[fi] > 0) v.push(12 * Math.log2(f0[fi] / 100));
      });
      v.sort((p, q) => p - q);
      return [v[Math.floor(v.length * 0.25)], v[Math.floor(v.length / 2)], v[Math.floor(v.length * 0.75)], v.length / Math.max(1, frameLab.filter((l) => l === c).length)];
    };
    const m0 = med(0);
    const m1 = med(1);
    console.error('f0', m0.map((z) => z?.toFixed(1)).join(','), '|', m1.map((z) => z?.toFixed(1)).join(','), 'diff', Math.abs(m0[1] - m1[1]).toFixed(1));
    const cv = heldOutSeparation(feats, frameLab, 0, 1, o);
    const ins = heldOutSeparation(feats, frameLab, 0, 1, o, true);
    const cv32 = heldOutSeparation(feats, frameLab, 0, 1, { ...o, gmmComponents: 32 });
    console.error('cv', cv.toFixed(2), 'in', ins.toFixed(2), 'ratio', (cv / ins).toFixed(3), 'cv32', cv32.toFixed(2));
    console.error('sil', silhouette(winVecs, wl).toFixed(3), 'silMean', silhouette(winVecs.map((v) => v.subarray(0, dim)), wl).toFixed(3));
  }
  if (k === 2 && !distinctSpeakers(feats, frameLab, 0, 1, o, bic)) {
    frameLab.fill(0);
    logLik = new Float64Array(speechIdx.length);
    k = 1;
  }
  if (k === 2 && o.maxSpeakers >= 3) {
    const km3 = kmeans(winVecs, 3, { restarts: 10, seed: 13 });
    let lab3 = windowsToFrames(windows, km3.labels, speechIdx.length, 3);
    let ll3: Float64Array;
    ({ labels: lab3, logLik: ll3 } = resegment(feats, speechIdx, lab3, 3, o));
    let ok = true;
    for (let a = 0; a < 3; a++) for (let c = a + 1; c < 3; c++) if (!distinctSpeakers(feats, lab3, a, c, o, bic)) ok = false;
    if (ok) {
      frameLab = lab3;
      logLik = ll3;
      k = 3;
    }
  }
  if (process.env.DIAR_DEBUG) console.error("glr", bic.map((b) => b.toFixed(2)).join(" "), "k", k);
  speechIdx.forEach((fi, j) => (labels[fi] = frameLab[j]));
  return { regions, frameLabels: { labels, offset, hop }, clusters: k, bic, speechFrames: speechIdx, logLik };
}

function share(lab: Int32Array, c: number): number {
  let n = 0;
  for (const l of lab) if (l === c) n++;
  return n / lab.length;
}

/**
 * Whether clusters a and b hold different voices; pushes the per-frame log-likelihood ratio to
 * `trace`. Frames are subsampled so the full-covariance estimates stay cheap; every third frame
 * is still strongly correlated with its neighbours, so the statistics keep their meaning.
 */
function distinctSpeakers(feats: Vec[], lab: Int32Array, a: number, b: number, o: MonoDiarizationOptions, trace: number[]): boolean {
  if (share(lab, a) < o.minSpeakerShare || share(lab, b) < o.minSpeakerShare) {
    trace.push(0);
    return false;
  }
  const A: Vec[] = [];
  const B: Vec[] = [];
  for (let i = 0; i < feats.length; i += 3) {
    if (lab[i] === a) A.push(feats[i]);
    else if (lab[i] === b) B.push(feats[i]);
  }
  const dim = feats[0].length;
  if (A.length < 2 * dim || B.length < 2 * dim) {
    trace.push(0);
    return false;
  }
  const glr = deltaBic(A, B, 0);
  const perFrame = glr / (A.length + B.length);
  trace.push(perFrame);
  const selfA = selfSplitDistance(feats, lab, a);
  const selfB = selfSplitDistance(feats, lab, b);
  if (process.env.DIAR_DEBUG) console.error('pair', perFrame.toFixed(2), 'self', selfA.toFixed(2), selfB.toFixed(2), 'ratio', (perFrame / Math.max(selfA, selfB)).toFixed(2));
  return perFrame >= o.minSpeakerDistance && deltaBic(A, B, o.bicLambda) > 0;
}

/**
 * The same per-frame distance between the two halves of the best split of one cluster: how far
 * apart one voice's own material can be pushed, the yardstick for "two different voices".
 */
function selfSplitDistance(feats: Vec[], lab: Int32Array, c: number): number {
  const idx: number[] = [];
  for (let i = 0; i < feats.length; i++) if (lab[i] === c) idx.push(i);
  const chunk = 100;
  const dim = feats[0].length;
  const chunks: number[][] = [];
  for (let s = 0; s < idx.length; s += chunk) chunks.push(idx.slice(s, s + chunk));
  if (chunks.length < 4) return NaN;
  const vecs = chunks.map((ch) => {
    const v = new Float32Array(2 * dim);
    for (const i of ch) for (let d = 0; d < dim; d++) v[d] += feats[i][d] / ch.length;
    for (const i of ch) for (let d = 0; d < dim; d++) v[dim + d] += (feats[i][d] - v[d]) ** 2 / ch.length;
    for (let d = 0; d < dim; d++) v[dim + d] = Math.sqrt(v[dim + d]);
    return v;
  });
  normaliseColumns(vecs);
  const km = kmeans(vecs, 2, { restarts: 5, seed: 23 });
  const A: Vec[] = [];
  const B: Vec[] = [];
  chunks.forEach((ch, j) => {
    for (let t = 0; t < ch.length; t += 3) (km.labels[j] === 0 ? A : B).push(feats[ch[t]]);
  });
  if (A.length < 2 * dim || B.length < 2 * dim) return NaN;
  return deltaBic(A, B, 0) / (A.length + B.length);
}

function windowsToFrames(windows: Array<{ from: number; to: number }>, winLabels: Int32Array, n: number, k: number): Int32Array {
  const votes = new Float32Array(n * k);
  windows.forEach(({ from, to }, w) => {
    for (let i = from; i < to; i++) votes[i * k + winLabels[w]]++;
  });
  const out = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    let best = 0;
    for (let c = 1; c < k; c++) if (votes[i * k + c] > votes[i * k + best]) best = c;
    out[i] = best;
  }
  return out;
}

/** Per-speaker GMMs trained on the current labels, then a Viterbi pass with a switch penalty. */
function resegment(feats: Vec[], speechIdx: number[], lab: Int32Array, k: number, o: MonoDiarizationOptions): { labels: Int32Array; logLik: Float64Array } {
  let cur = lab;
  let last = new Float64Array(feats.length * k);
  for (let it = 0; it < o.resegmentIterations; it++) {
    const models: Array<DiagGmm | null> = [];
    for (let c = 0; c < k; c++) {
      const data = feats.filter((_, i) => cur[i] === c);
      models.push(data.length >= 4 * feats[0].length ? DiagGmm.train(data, o.gmmComponents, { seed: 17 + c }) : null);
    }
    const live = models.map((m) => m !== null);
    const ll = new Float64Array(feats.length * k);
    for (let i = 0; i < feats.length; i++)
      for (let c = 0; c < k; c++) ll[i * k + c] = models[c] ? models[c]!.logLikelihood(feats[i]) : -1e9;
    const next = viterbi(ll, k, speechIdx, o, live);
    last = ll;
    let changed = 0;
    for (let i = 0; i < next.length; i++) if (next[i] !== cur[i]) changed++;
    cur = next;
    if (changed === 0) break;
  }
  return { labels: cur, logLik: last };
}

function viterbi(ll: Float64Array, k: number, speechIdx: number[], o: MonoDiarizationOptions, live: boolean[]): Int32Array {
  const n = speechIdx.length;
  const back = new Int32Array(n * k);
  let score = new Float64Array(k);
  for (let c = 0; c < k; c++) score[c] = live[c] ? ll[c] : -Infinity;
  for (let i = 1; i < n; i++) {
    const gap = speechIdx[i] - speechIdx[i - 1];
    const pen = gap > 15 ? o.switchPenalty * o.pauseSwitchFactor : o.switchPenalty;
    const next = new Float64Array(k);
    for (let c = 0; c < k; c++) {
      let best = score[c];
      let arg = c;
      for (let p = 0; p < k; p++) {
        if (p === c) continue;
        const s = score[p] - pen;
        if (s > best) {
          best = s;
          arg = p;
        }
      }
      next[c] = best + ll[i * k + c];
      back[i * k + c] = arg;
    }
    score = next;
  }
  const out = new Int32Array(n);
  let c = 0;
  for (let j = 1; j < k; j++) if (score[j] > score[c]) c = j;
  for (let i = n - 1; i >= 0; i--) {
    out[i] = c;
    c = back[i * k + c];
  }
  return out;
}

function normaliseColumns(rows: Vec[]): void {
  if (!rows.length) return;
  const dim = rows[0].length;
  const n = rows.length;
  for (let d = 0; d < dim; d++) {
    let m = 0;
    for (const r of rows) m += r[d];
    m /= n;
    let v = 0;
    for (const r of rows) v += (r[d] - m) ** 2;
    const sd = Math.sqrt(v / n) || 1;
    for (const r of rows) r[d] = (r[d] - m) / sd;
  }
}

/** Mono diarization: unsupervised clustering of the call's own voices, attributed per word. */
export class MfccClusterDiarizer implements Diarizer {
  readonly provider = 'embedded';
  readonly model = 'vad-mfcc-gmm-v1';
  constructor(private readonly options: Partial<MonoDiarizationOptions> = {}) {}

  async diarize(audio: DecodedAudio, words: RecognizedWord[]): Promise<Diarization> {
    const dbg = await diarizeFrames(audio.mono, audio.sampleRate, this.options);
    const o = { ...DEFAULT_MONO_OPTIONS, ...this.options };
    const wordClusters =
      o.wordDecoding === 'viterbi'
        ? viterbiWords(
            words,
            {
              frames: dbg.speechFrames,
              logLik: dbg.logLik,
              labels: dbg.speechFrames.map((f) => dbg.frameLabels.labels[f]),
              k: Math.max(1, dbg.clusters),
              offset: dbg.frameLabels.offset,
              hop: dbg.frameLabels.hop,
            },
            o.wordSwitchPenalty,
            o.pauseSwitchFactor,
            0.2,
          )
        : smoothShortWords(words, labelWords(words, dbg.frameLabels));
    const regions = labelRegions(dbg.frameLabels);
    return { provider: this.provider, model: this.model, ...assembleDiarization(words, wordClusters, regions) };
  }
}

/** Mean silhouette (Euclidean) of a labelling. */
export function silhouette(x: Vec[], lab: Int32Array): number {
  const n = x.length;
  const k = Math.max(...lab) + 1;
  if (k < 2) return 0;
  let total = 0;
  for (let i = 0; i < n; i++) {
    const sum = new Float64Array(k);
    const cnt = new Float64Array(k);
    for (let j = 0; j < n; j++) {
      if (j === i) continue;
      sum[lab[j]] += Math.sqrt(sqDist(x[i], x[j]));
      cnt[lab[j]]++;
    }
    const a = cnt[lab[i]] ? sum[lab[i]] / cnt[lab[i]] : 0;
    let b = Infinity;
    for (let c = 0; c < k; c++) if (c !== lab[i] && cnt[c]) b = Math.min(b, sum[c] / cnt[c]);
    total += b === Infinity ? 0 : (b - a) / Math.max(a, b);
  }
  return total / n;
}

/**
 * Cross-validated separation of clusters a and b: GMMs trained on alternate one-second chunks
 * score the chunks they did not see; the result is the mean per-frame log-likelihood margin of a
 * frame's own cluster over the other. Unlike an in-sample likelihood ratio it does not grow with
 * model size or shrink with call length through overfitting.
 */
export function heldOutSeparation(feats: Vec[], lab: Int32Array, a: number, b: number, o: MonoDiarizationOptions, inSample = false): number {
  const chunk = 100;
  let total = 0;
  let count = 0;
  for (let fold = inSample ? -1 : 0; fold < (inSample ? 0 : 2); fold++) {
    const train = (c: number) => feats.filter((_, i) => lab[i] === c && (fold < 0 || Math.floor(i / chunk) % 2 !== fold));
    const ta = train(a);
    const tb = train(b);
    const dim = feats[0].length;
    if (ta.length < 4 * dim || tb.length < 4 * dim) return 0;
    const ga = DiagGmm.train(ta, o.gmmComponents, { seed: 31 });
    const gb = DiagGmm.train(tb, o.gmmComponents, { seed: 37 });
    for (let i = 0; i < feats.length; i++) {
      if (fold >= 0 && Math.floor(i / chunk) % 2 !== fold) continue;
      if (lab[i] !== a && lab[i] !== b) continue;
      const m = ga.logLikelihood(feats[i]) - gb.logLikelihood(feats[i]);
      total += lab[i] === a ? m : -m;
      count++;
    }
  }
  return count ? total / count : 0;
}

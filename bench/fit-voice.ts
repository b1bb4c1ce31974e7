// Fits the embedded voice model (src/pipeline/voice/voice-model.ts) on the TRAINING speakers of
// bench/support/real-speakers.ts only: standardisation and projection (WCCN, or LDA) of the
// statistics vector, the score-normalisation cohort, and the decision threshold and margin. The
// held-out speakers are never read here; bench/voice-real.ts scores them.
//
//   node --import tsx bench/fit-voice.ts            # fit, print the cross-validation, write the model
//   node --import tsx bench/fit-voice.ts --no-write # print only
//   node --import tsx bench/fit-voice.ts --sweep    # cross-validate statistics, projection, shrinkage, cohort size
//     (SWEEP_KIND, SWEEP_DIMS (0 = WCCN), SWEEP_SHRINK, SWEEP_TOPK, SWEEP_WEIGHT: comma lists)
//   VOICE_FIT_FRAMES=1 node --import tsx bench/fit-voice.ts --backends   # scoring backends and their sums (issue 27)
//     (BACKEND_COMBOS, PLDA_SHRINK, PLDA_DIMS, SWEEP_TOPK, SWEEP_WRONG, GSV_*, MCOV_*, PROFILE_AVERAGE,
//     BACKEND_BREAKDOWN; VOICE_FIT_CV_FIT / VOICE_FIT_CV_SCORE speaker-name prefixes and
//     VOICE_FIT_CV_FIT_SHARE / _SEED to fit on fewer speakers; without VOICE_FIT_FRAMES only cos, plda and v1)
//
// Training material: each training speaker's recordings cut into stretches of 4, 8 and 15 s of
// speech, each rendered through microphone chains and encodings (16 kHz, m4a, 8 kHz telephone; see
// `renderings`), so that what varies within one speaker (microphone, level, codec, bandwidth, words)
// is what the projection learns to ignore. Analysed frames are cached under .cache/voice27-frames-v1
// (bench/support/voice-frames.ts), so refits and sweeps take about a minute. Constants and threshold
// come from a speaker-wise cross-validation: projection and cohort fitted without a fold's speakers,
// trials scored on that fold only.
import fs from 'node:fs';
import path from 'node:path';
import { STATISTICS_DIMS, featuresToEmbedding, projectStatistics, summariseFrames, v1Features, type StatisticsKind, type VoiceModel } from '../src/pipeline/voice/embedder.js';
import { cosine } from '../src/pipeline/voice/match.js';
import { VOICE_MODEL } from '../src/pipeline/voice/voice-model.js';
import { projectRoot } from '../test/support/corpus.js';
import { ENCODINGS, MIC_NAMES, SR, TRAINING_SPEAKERS, encode, speakerGroup, takeSpeech, throughMic, utteranceFiles, type Encoding, type Mic } from './support/real-speakers.js';
import { cachedFrames } from './support/voice-frames.js';
import { fitPlda, ldaWithValues, pca, rng, trainUbm, wccn } from './support/voice-linalg.js';
import { FRAME_DIM, correlations, meanSupervector, pldaProject, pldaScore, skewness } from './support/voice-backends.js';

export const MODEL_ID = 'embedded-lda-snorm-v4';
const SEGMENT_SECONDS = [4, 8, 15];
/** Fitting constants; chosen by `--sweep` (speaker-wise cross-validation on the training speakers). */
let KIND: StatisticsKind = (process.env.VOICE_FIT_KIND as StatisticsKind) ?? 'mspd';
// v3 (19 ktuberling readers), --sweep of 2026-11-26 (cross-validated on the training speakers,
// owner named at <= 1 % / 2 % owner-absent naming): WCCN on the 62 mspd statistics, shrink 3, S-norm
// over the 100 closest cohort voices 40.2 / 43.8 %; LDA to 12-18 dimensions (with or without PLDA
// weighting) at best 34.1 / 38.7 %, msp statistics 1-3 points below mspd.
// v4 (38 speakers: + 16 KLettres readers, + 3 asterisk voices), --sweep of 2026-11-26 (mspd; WCCN
// shrink 0.3/1/3, LDA 20/30 dimensions, with or without PLDA weighting, top 100/300): WCCN shrink 1,
// top 100 39.2 / 46.7 % (shrink 3: 38.5 / 46.6); LDA at best 28.9 / 37.8 %. A cap on the runner-up's
// score (nobody named when both parties resemble the profile) lowered owner naming at every bound.
// More speakers helped: scored on the ktuberling readers, fitting on all 38 instead of those 19 raised
// owner naming at <= 2 % from 42.9 to 49.2 % (VOICE_FIT_CV_FIT / VOICE_FIT_CV_SCORE below).
// A gate on the default embedder's score of the named party (SWEEP_V1_GATE; wrong <= 0.1 %) costs
// nothing at <= 1 % owner-absent naming up to 0.8 (gate 0 / 0.75 / 0.8 / 0.85 / 0.9: owner named
// 39.1 / 40.0 / 39.4 / 35.4 / 27.3 %): a way to make this embedder safe on the synthetic voices too
// (the default scores every synthetic impostor below 0.749). Built as the opt-in fused decision
// (VOICE_EMBEDDING_PROVIDER=embedded-fused) with gate 0.8 and v4's own threshold and margin, not
// refitted: `--fused` prints its cross-validation (2026-11-26, gate 0 / 0.75 / 0.8 / 0.85 / 0.9:
// owner named 39.1 / 37.8 / 36.1 / 31.5 / 23.1 %, named when absent 0.96 / 0.74 / 0.66 / 0.61 / 0.47 %).
// The gate applied first (issue 27, making the fused decision the default): a party under the gate
// is no rival for the margin. Why: on the synthetic phone8k calls v4 scores the kal16 profile against
// the male rms / awb telephone parties at 2.6-5.7 (its owner 4.0-4.8) while the default embedder
// scores them 0.49-0.72, under the gate: as rivals they hid the owner (8 of 72 missed). Every
// synthetic owner's own phone8k score against its wideband profile is 3.6-11.9, above the threshold:
// v4's telephone-band margin was not the cause. (A debugging run over the corpus calls with
// FusedStatsEmbedder, normalizedScores and scoreSpeakers per part; not kept as a script.) `--fused` of
// 2026-11-26 on the 45 training speakers of today (the 38 + 7 Tux Paint readers; 741480 owner-present
// / 2033544 owner-absent trials), gate 0.8, v4's threshold 2.8 and margin 1.2:
//   veto (as first built)  owner named 42.8 % (317312), wrong 0.03 % (201), named when absent 0.70 % (14324)
//   gate first             owner named 42.8 % (317493), wrong 0.03 % (202), named when absent 0.70 % (14324)
// i.e. 181 more owners named, one more wrong party, no more owner-absent naming: free on real voices.
// Gate 0 / 0.75 / 0.8 / 0.85 / 0.9 with the gate first and threshold and margin refitted (<= 1 %
// absent-named, wrong <= 0.1 %): owner named 46.7 / 46.6 / 47.1 / 42.0 / 32.9 %: 0.8 is still the
// strictest gate that costs nothing. The refit for gate 0.8 (threshold 2.4, margin 0.2: owner named
// 47.1 %, wrong 0.09 %, named when absent 0.98 %) was not taken: it spends the safety headroom (v3's
// held-out absent naming ran up to five times its cross-validated rate) for 4 points of owner naming.
// Issue 27 levers, `--backends` of 2026-11-26 (all 38 training speakers, the same 4 folds; owner
// named at <= 1 / 2 / 5 % owner-absent naming, wrong party <= 0.1 %; "best": the owner outscores
// the other party, whatever the threshold):
//   cos (v4 as built)                      39.2 / 44.2 / 44.2, best 88.0 %
//   plda (two-covariance, on v4's vectors) 19.2 / 26.7 / 31.3 (within shrink 1; 0.05: 19.0 / 22.3 / 22.3)
//   v1 (default embedder, S-normalised)    23.7 / 24.6 / 24.6, best 83.6 %
//   gsv (32-component UBM of c1-c20 and deltas, MAP means, PCA 150, WCCN)  20.1 / 23.1 / 23.1, best 82.7 %
//   mcov (mspd + the 190 correlations of c1-c20, WCCN shrink 1)            43.6 / 46.2 / 46.2, best 88.9 %
//   mcov+cos (S-normalised scores summed)  47.9 / 52.9 / 55.0, best 89.7 %  <- the best found
//   mcov+cos with delta correlations too 48.5 / 54.8 / 56.8; topK 30 / 50 / 200 / 300: 45.6 / 46.3 / 47.2 / 46.5; mcov shrink 3 46.7;
//   12 or 16 cepstra 46.3 / 46.6; with the skewness of c1-c20 (MCOV_SKEW=1) 46.4; adding gsv, v1 or
//   gsv-PLDA at weight 0.5 lowers it (45.0 / 44.4 / 43.8).
// What limits every backend is that the owner outscores the other party in only 83-90 % of
// owner-present calls, so the never-the-wrong-party bound stops owner naming far below 85 %; with
// a 1 % instead of 0.1 % wrong-party allowance mcov+cos reaches 61.5 % at <= 5 %. Party length
// barely matters (cos, owner best with 4 s / 8 s parties: 88.5 / 89.4 % at 16 kHz, 86.0 / 85.9 %
// at 8 kHz); enrolment does: two enrolment samples averaged (PROFILE_AVERAGE=2, speakers with two
// long stretches) against one sample of the same profiles: cos 34.2 -> 45.4 %, mcov+cos 44.9 -> 53.2 %
// at <= 1 %. Leaving out trials whose voices may be one person (VOICE_FIT_GROUP_TRIALS=1) changes
// cos by 0.1 point. Cost of mcov on top of v4: about 14 ms per 8 s party (correlations, a 252x252
// projection, 784 cohort cosines) beside 224 ms of frame analysis shared by all.
// More training speakers (issue 27), `--backends` of 2026-11-26 with VOICE_FIT_FRAMES=1 GSV=0
// PLDA_SHRINK=1: + 7 Tux Paint stamp-name readers (45 speakers; the 38's folds unchanged). Owner
// named at <= 1 / 2 / 5 % owner-absent naming, fitted on the 38 (VOICE_FIT_CV_FIT=tux-,klet-,ast-) -> on all 45:
//   scored on the 38's trials (VOICE_FIT_CV_SCORE=tux-,klet-,ast-)
//     cos 39.0 / 44.2 / 44.2 -> 40.4 / 46.9 / 47.2; plda 19.2 / 26.7 / 31.4 -> 25.4 / 35.2 / 38.3;
//     v1 23.7 / 24.3 / 24.3 -> 24.9 / 24.9 / 24.9; mcov 43.5 / 46.2 / 46.2 -> 43.8 / 47.0 / 47.0;
//     mcov+cos 47.9 / 52.9 / 54.9 -> 46.5 / 52.4 / 55.7 (owner best 89.7 -> 89.5 %)
//   scored on all 45's trials
//     cos 45.2 / 51.9 / 51.9 -> 46.8 / 54.6 / 56.1; plda 27.0 / 34.2 / 36.9 -> 32.1 / 41.3 / 45.1;
//     v1 28.7 / 31.0 / 31.0 -> 28.8 / 31.2 / 31.2; mcov 50.1 / 53.8 / 54.7 -> 48.9 / 53.2 / 53.9;
//     mcov+cos 53.8 / 58.8 / 61.9 -> 53.4 / 58.8 / 62.3 (owner best 91.2 -> 91.1 %)
//   So 7 more speakers leave the best backend (mcov+cos) where it was; they help PLDA (5-8 points)
//   and v4's cosine (1-4 points), which stay below it.
// With the Danish Tux Paint reader too (46 speakers; likely one person with klet-nds, see
// bench/support/real-speakers.ts), on which the runs below were made: topK 50 / 100 / 200 / 400,
// mcov+cos 51.7 / 52.7 / 52.8 / 51.7 at <= 1 %.
// Learning curve (46 speakers' trials; each fold fitted on a seeded share of its out-of-fold
// speakers, VOICE_FIT_CV_FIT_SHARE 0.25 / 0.5 / 0.75 / 1 = 8 / 17 / 25 / 33 speakers in fold 0; mean of 2 / 3 / 3 / 1 draws):
//   mcov+cos 25.5 / 44.0 / 49.1 / 52.7 at <= 1 %, 31.4 / 48.7 / 53.5 / 56.3 at <= 5 %; cos 22.6 / 38.3 / 42.6 / 45.0;
//   mcov 23.7 / 37.3 / 42.7 / 48.0; plda 7.0 / 16.0 / 24.9 / 30.1 (at <= 1 %); draws of one share differ by up to 12 points.
//   The same on the 45 (one draw, VOICE_FIT_CV_FIT_SEED=1): mcov+cos 26.0 / 48.5 / 49.9 / 53.4 at <= 1 %,
//   46.3 / 55.3 / 55.0 / 62.3 at <= 5 %.
//   Owner best stays 89-91 % (mcov+cos) at every share: more speakers do not lift that ceiling.
//   Projection on the share, cohort from all out-of-fold speakers (VOICE_FIT_CV_COHORT_ALL=1):
//   mcov+cos 49.2 / 49.7 / 51.8 at <= 1 % for 0.25 / 0.5 / 0.75 (cos 44.0 / 43.8 / 45.0). Projection on
//   all, cohort from a share (VOICE_FIT_CV_COHORT_SHARE, one draw): 0.25 / 0.5 -> 32.2 / 50.6.
//   The gain from more speakers is almost all the S-norm cohort's (voices near each test voice),
//   and it flattens from half the pool on; WCCN is saturated at 8 speakers; PLDA still needs more
//   (10.0 / 26.3 / 32.1 with the full cohort).
let DIMS = Number(process.env.VOICE_FIT_DIMS ?? 0);
let SHRINK = Number(process.env.VOICE_FIT_SHRINK ?? 1);
let TOP_K = Number(process.env.VOICE_FIT_TOPK ?? 100);
let WEIGHT = process.env.VOICE_FIT_WEIGHT ?? 'none';
/**
 * Target share of owner-absent two-party trials in which someone is named (the bound is
 * 5 %). 1 %, not v3's 2 %: the training trials (single words and letters) are unlike the held-out
 * prompts, and v3's held-out rate of naming somebody when the owner is absent ran up to five times
 * its cross-validated 2 % (docs/bench/voice-real.md at v3), so the bound needs that headroom. Set
 * once, before v4 was scored on the held-out speakers.
 */
const TARGET_FALSE_NAMING = Number(process.env.VOICE_FIT_TARGET ?? 0.01);
const FOLDS = 4;
/**
 * Most owner-present trials in which the other party may be named, in cross-validation. The issue
 * asks for never; 0.1 % rather than v3's 0.5 %: in the cross-validation of v4 it cost 0.1 point of
 * owner naming (39.2 -> 39.1 % at <= 1 % owner-absent naming) and raised the margin from 0.2 to 1.2
 * (0.05 %: 36.3 %; 0: 14.4 %). Changed after v4 with 0.5 % had been scored on the held-out speakers
 * (it named the other party 18 / 19 / 10 times in 2016): a second candidate, chosen on this
 * cross-validation, both reported in docs/voice-embedders.md.
 */
let WRONG_MAX = Number(process.env.VOICE_FIT_WRONG ?? 0.001);
/** Sweep only: nobody is named when the runner-up's normalised score reaches this (both resemble the profile). */
let SECOND_CAP = Infinity;
/**
 * Sweep only: nobody is named unless the default embedder's [0,1] cosine score of the best party
 * also reaches this: a possible fusion for voices far from the real cohort (the synthetic flite
 * voices, on which the default embedder separates every impostor below 0.749, docs/bench/voice.md).
 */
let V1_GATE = 0;
/**
 * Speech used per training speaker from the sources added after v3 (KLettres, further asterisk
 * voices): the first analysis of every rendering is the slow part of a fit, and more speakers teach
 * more than more words of one speaker. The ktuberling readers keep all their words.
 */
const MAX_SPEECH_SECONDS_NEW = 60;

/** `v1`: the default embedder's vector of the same rendering (for the sweep's gate on its score). */
export interface Segment { speaker: string; index: number; seconds: number; mic: Mic; encoding: Encoding; statistics: Record<StatisticsKind, number[]>; v1: Float32Array; frames?: Float32Array }

/** With VOICE_FIT_FRAMES=1 (`--backends` gsv): each rendering keeps its frames, c1-c20 mean-normalised and their deltas, 40 values a frame. */
const KEEP_FRAMES = process.env.VOICE_FIT_FRAMES === '1';
function flatFrames(fr: { cep: Float64Array[]; delta: Float64Array[] }): Float32Array {
  const n = fr.cep.length;
  const mean = new Float64Array(20);
  for (const c of fr.cep) for (let k = 0; k < 20; k++) mean[k] += c[k] / n;
  const out = new Float32Array(n * FRAME_DIM);
  for (let f = 0; f < n; f++) {
    for (let k = 0; k < 20; k++) out[f * FRAME_DIM + k] = fr.cep[f][k] - mean[k];
    for (let k = 0; k < 20; k++) out[f * FRAME_DIM + 20 + k] = fr.delta[f][k];
  }
  return out;
}

/**
 * Renderings of one stretch of a training speaker: profile-length stretches as the benchmark
 * enrols (studio and handset microphone at 16 kHz) and through a codec; the shorter ones as call
 * parties, through two microphone chains, each in every encoding. What varies within a speaker
 * (microphone, level, codec, bandwidth, words) is what the projection learns to ignore.
 */
function renderings(k: number, seconds: number): Array<{ mic: Mic; encoding: Encoding }> {
  if (seconds >= 12) return [{ mic: 'studio', encoding: '16 kHz' }, { mic: 'handset', encoding: '16 kHz' }, { mic: MIC_NAMES[k % 4], encoding: 'm4a' }, { mic: MIC_NAMES[(k + 1) % 4], encoding: '8 kHz phone' }];
  return [MIC_NAMES[k % 4], MIC_NAMES[(k + 2) % 4]].flatMap((mic) => ENCODINGS.map((encoding) => ({ mic, encoding })));
}

/** Statistics of every training segment rendering (frames cached under .cache/voice27-frames-*). */
async function trainingSegments(): Promise<Segment[]> {
  const out: Segment[] = [];
  // VOICE_FIT_SPEAKERS (comma list): analyse only these, e.g. to fill the frame cache in parallel.
  const only = process.env.VOICE_FIT_SPEAKERS?.split(',');
  for (const speaker of TRAINING_SPEAKERS.filter((s) => !only || only.includes(s))) {
    const files = utteranceFiles(speaker);
    const budget = speaker.startsWith('tux-') ? Infinity : MAX_SPEECH_SECONDS_NEW;
    let used = 0;
    let at = 0;
    for (let k = 0; at < files.length && used < budget; k++) {
      const target = SEGMENT_SECONDS[k % SEGMENT_SECONDS.length];
      const { pcm, next, speechSeconds } = takeSpeech(files, at, target);
      at = next;
      used += speechSeconds;
      if (speechSeconds < 2) break;
      for (const { mic, encoding } of renderings(k, speechSeconds)) {
        const key = `${speaker}-${target}-${k}-${mic}-${encoding}`;
        const fr = await cachedFrames(key, () => encode(throughMic(pcm, mic), encoding, k * 7 + MIC_NAMES.indexOf(mic)), SR);
        if (!fr) continue; // too little speech after gating
        const statistics = Object.fromEntries((Object.keys(STATISTICS_DIMS) as StatisticsKind[]).map((kind) => [kind, Array.from(summariseFrames(fr, kind))])) as Segment['statistics'];
        out.push({ speaker, index: k, seconds: speechSeconds, mic, encoding, statistics, v1: featuresToEmbedding(v1Features(fr)), ...(KEEP_FRAMES ? { frames: flatFrames(fr) } : {}) });
      }
    }
    process.stderr.write(`${speaker}: ${out.filter((s) => s.speaker === speaker).length} renderings\n`);
  }
  return out;
}

type Fitted = Omit<VoiceModel, 'threshold' | 'margin' | 'id'>;

/** Standardisation, projection and cohort from the given segments. */
function fitProjection(segs: Segment[]): Fitted {
  const stats = segs.map((s) => s.statistics[KIND]);
  const d = stats[0].length;
  const center = new Array<number>(d).fill(0);
  const scale = new Array<number>(d).fill(0);
  for (const x of stats) for (let i = 0; i < d; i++) center[i] += x[i] / stats.length;
  for (const x of stats) for (let i = 0; i < d; i++) scale[i] += (x[i] - center[i]) ** 2 / stats.length;
  for (let i = 0; i < d; i++) scale[i] = Math.sqrt(scale[i]) || 1;
  const xs = stats.map((x) => x.map((v, i) => (v - center[i]) / scale[i]));
  const classes = new Set(segs.map((s) => s.speaker)).size;
  // DIMS 0: WCCN, every dimension kept; otherwise LDA to DIMS dimensions (at most speakers - 1).
  let projection;
  if (DIMS === 0) projection = wccn(xs, segs.map((s) => s.speaker), SHRINK);
  else {
    const l = ldaWithValues(xs, segs.map((s) => s.speaker), Math.min(DIMS, classes - 1), SHRINK);
    // PLDA weighting: with the within-speaker covariance the identity and between-speaker variance b
    // along a direction, the two-covariance model's cross term weighs that direction b / (1 + 2b);
    // the cosine of rows scaled by its square root is that score's speaker-dependent part (S-norm
    // removes the terms of each side alone). Directions where speakers hardly differ count less.
    projection = WEIGHT === 'plda' ? l.projection.map((row, k) => row.map((x) => x * Math.sqrt(l.values[k] / (1 + 2 * l.values[k])))) : l.projection;
  }
  // Cohort: the training renderings of the longer stretches.
  const cohort: number[][] = [];
  for (const s of segs) if (s.seconds >= 6) cohort.push(Array.from(projectStatistics(s.statistics[KIND], { center, scale, projection })).map((v) => Number(v.toFixed(5))));
  return { statistics: KIND, center, scale, projection, cohort, cohortTopK: Math.min(TOP_K, cohort.length) };
}

/** Mean and deviation of an embedding's cosines with its `topK` closest cohort voices (as src/pipeline/voice/match.ts). */
function cohortStats(v: Float32Array, cohort: Float32Array[], topK: number): { mean: number; sd: number } {
  const sims = cohort.map((c) => cosine(v, c)).sort((x, y) => y - x).slice(0, topK);
  const mean = sims.reduce((acc, x) => acc + x, 0) / sims.length;
  const sd = Math.sqrt(sims.reduce((acc, x) => acc + (x - mean) ** 2, 0) / sims.length);
  return { mean, sd: Math.max(sd, 1e-3) };
}

/**
 * Two-party trials among `test` segments, as bench/voice-real.ts builds them: profiles are the
 * long stretches enrolled at 16 kHz (studio, handset), parties the shorter ones; every pair of
 * parties of two different speakers in one encoding is a call. Returns the normalised scores
 * (S-norm, the formula of `normalizedScores`) of each (profile, call).
 */
function trials(model: Fitted, test: Segment[]): Array<{ present: boolean; ownerKey: string | null; scores: Record<string, number>; v1: Record<string, number> }> {
  const cohort = model.cohort.map((c) => Float32Array.from(c));
  const prep = (s: Segment) => {
    const e = projectStatistics(s.statistics[model.statistics ?? 'msp'], model);
    return { s, e, n: cohortStats(e, cohort, model.cohortTopK) };
  };
  const profiles = test.filter((s) => s.seconds >= 12 && s.encoding === '16 kHz').map(prep);
  const parties = test.filter((s) => s.seconds < 12).map(prep);
  const out = [];
  for (const p of profiles) {
    const z = parties.map((t) => {
      const c = cosine(p.e, t.e);
      return 0.5 * ((c - p.n.mean) / p.n.sd + (c - t.n.mean) / t.n.sd);
    });
    for (let i = 0; i < parties.length; i++) {
      for (let j = i + 1; j < parties.length; j++) {
        const a = parties[i].s;
        const b = parties[j].s;
        if (a.speaker === b.speaker || a.encoding !== b.encoding) continue;
        if (GROUP_TRIALS && !distinctPeople(p.s.speaker, a.speaker, b.speaker)) continue;
        const ownerKey = a.speaker === p.s.speaker ? 'A' : b.speaker === p.s.speaker ? 'B' : null;
        out.push({ present: ownerKey !== null, ownerKey, scores: { A: z[i], B: z[j] }, v1: { A: (1 + cosine(p.s.v1, a.v1)) / 2, B: (1 + cosine(p.s.v1, b.v1)) / 2 } });
      }
    }
  }
  return out;
}

/**
 * VOICE_FIT_GROUP_TRIALS=1: leave out trials whose voices may be one person (bench/support/real-speakers.ts
 * `speakerGroup`: a ktuberling and a KLettres reader of one language): two parties of one group,
 * or a party of the profile's group that is not the profile's speaker, whose "impostor" score may
 * be a genuine one. The folds already keep a group together, so such trials occur within a fold.
 */
const GROUP_TRIALS = process.env.VOICE_FIT_GROUP_TRIALS === '1';
function distinctPeople(owner: string, a: string, b: string): boolean {
  const g = speakerGroup(owner);
  if (speakerGroup(a) === speakerGroup(b)) return false;
  return (a === owner || speakerGroup(a) !== g) && (b === owner || speakerGroup(b) !== g);
}

/** Best and runner-up score of each trial, and whether the best is the owner: enough to sweep a two-party decision fast. */
function summarise(ts: ReturnType<typeof trials>) {
  const n = ts.length;
  const best = new Float64Array(n);
  const second = new Float64Array(n);
  const present = new Uint8Array(n);
  const bestIsOwner = new Uint8Array(n);
  const bestV1 = new Float64Array(n);
  ts.forEach((t, i) => {
    const ranked = Object.entries(t.scores).sort((a, b) => b[1] - a[1]);
    best[i] = ranked[0]?.[1] ?? -Infinity;
    second[i] = ranked[1]?.[1] ?? -Infinity;
    present[i] = t.present ? 1 : 0;
    bestIsOwner[i] = ranked[0]?.[0] === t.ownerKey ? 1 : 0;
    bestV1[i] = ranked[0] ? t.v1[ranked[0][0]] : 0;
  });
  return { n, best, second, present, bestIsOwner, bestV1 };
}

/**
 * The fused decision with the gate applied first (src/pipeline/voice/match.ts fusedMatch): only
 * parties whose default-embedder [0,1] score reaches `gate` are candidates, and the fitted decision
 * (threshold, margin over the runner-up) is taken among them. A party under the gate is neither
 * named nor a rival. The rates and grids below then apply unchanged (bestV1 is set to pass any gate).
 */
function summariseEligible(ts: ReturnType<typeof trials>, gate: number) {
  const n = ts.length;
  const best = new Float64Array(n);
  const second = new Float64Array(n);
  const present = new Uint8Array(n);
  const bestIsOwner = new Uint8Array(n);
  const bestV1 = new Float64Array(n).fill(1);
  ts.forEach((t, i) => {
    const ranked = Object.entries(t.scores).filter(([k]) => t.v1[k] >= gate).sort((a, b) => b[1] - a[1]);
    best[i] = ranked[0]?.[1] ?? -Infinity;
    second[i] = ranked[1]?.[1] ?? -Infinity;
    present[i] = t.present ? 1 : 0;
    bestIsOwner[i] = ranked[0] !== undefined && ranked[0][0] === t.ownerKey ? 1 : 0;
  });
  return { n, best, second, present, bestIsOwner, bestV1 };
}

/** The decision of matchUserVoice on summarised trials. */
function rates(s: ReturnType<typeof summarise>, threshold: number, margin: number) {
  let named = 0;
  let wrong = 0;
  let falseNamed = 0;
  let present = 0;
  let absent = 0;
  for (let i = 0; i < s.n; i++) {
    const fires = s.best[i] >= threshold && s.best[i] - s.second[i] >= margin && s.bestV1[i] >= V1_GATE;
    if (s.present[i]) {
      present++;
      if (fires && s.bestIsOwner[i]) named++;
      else if (fires) wrong++;
    } else {
      absent++;
      if (fires) falseNamed++;
    }
  }
  return { named: named / present, wrong: wrong / present, falseNamed: falseNamed / absent, present, absent };
}

async function main(): Promise<void> {
  const write = !process.argv.includes('--no-write');
  const segs = await trainingSegments();
  const speakers: string[] = [...new Set(segs.map((s) => s.speaker))];
  // Folds by speaker group (bench/support/real-speakers.ts `speakerGroup`): possibly one person is never on both sides.
  const groups = [...new Set(speakers.map(speakerGroup))];
  const foldOf = (speaker: string) => groups.indexOf(speakerGroup(speaker)) % FOLDS;
  console.log(`${segs.length} segment renderings of ${new Set(segs.map((s) => s.speaker)).size} training speakers`);

  // What more speakers buy: VOICE_FIT_CV_FIT / VOICE_FIT_CV_SCORE (comma lists of speaker-name
  // prefixes) restrict which training speakers the cross-validation fits on / scores, e.g. fit on
  // `tux-` only or on all, both scored on `tux-`.
  const prefixFilter = (name: string) => {
    const prefixes = process.env[name]?.split(',');
    return (s: string) => !prefixes || prefixes.some((p) => s.startsWith(p));
  };
  const fittedOn = prefixFilter('VOICE_FIT_CV_FIT');
  const scored = prefixFilter('VOICE_FIT_CV_SCORE');
  // Speaker-wise cross-validation: every trial is scored by a model that never saw its speakers.
  const crossValidate = () => {
    const cv: ReturnType<typeof trials> = [];
    for (let f = 0; f < FOLDS; f++) {
      const testSpeakers = new Set(speakers.filter((s) => foldOf(s) === f && scored(s)));
      const model = fitProjection(segs.filter((s) => foldOf(s.speaker) !== f && fittedOn(s.speaker)));
      for (const t of trials(model, segs.filter((s) => testSpeakers.has(s.speaker)))) cv.push(t);
    }
    return cv;
  };
  /** Owner named (wrong party at most 0.5 %) at each bound on owner-absent naming, over a grid of threshold and margin (2-D counts, so a sweep stays cheap). */
  const bestAt = (cv: ReturnType<typeof summarise>, targets: number[]) => {
    const NT = 71; // thresholds -1 .. 6 step 0.1
    const NM = 21; // margins 0 .. 4 step 0.2
    const h = [0, 1, 2].map(() => Array.from({ length: NT + 1 }, () => new Float64Array(NM + 1)));
    let present = 0;
    let absent = 0;
    for (let i = 0; i < cv.n; i++) {
      const ti = Math.min(NT - 1, Math.floor((cv.best[i] + 1) / 0.1 + 1e-9));
      const mi = Math.min(NM - 1, Math.floor((cv.best[i] - cv.second[i]) / 0.2 + 1e-9));
      if (cv.present[i]) present++;
      else absent++;
      if (ti < 0 || mi < 0 || cv.second[i] >= SECOND_CAP || cv.bestV1[i] < V1_GATE) continue;
      h[cv.present[i] ? (cv.bestIsOwner[i] ? 0 : 1) : 2][ti][mi]++;
    }
    for (const m of h) for (let t = NT - 1; t >= 0; t--) for (let j = NM - 1; j >= 0; j--) m[t][j] += m[t + 1][j] + m[t][j + 1] - m[t + 1][j + 1];
    return targets.map((target) => {
      let named = 0;
      for (let t = 0; t < NT; t++) for (let j = 0; j < NM; j++) if (h[2][t][j] <= target * absent && h[1][t][j] <= WRONG_MAX * present && h[0][t][j] > named) named = h[0][t][j];
      return (100 * named / present).toFixed(1);
    });
  };
  if (process.argv.includes('--sweep')) {
    const list = (name: string, dflt: string) => (process.env[name] ?? dflt).split(',');
    for (const kind of list('SWEEP_KIND', 'msp,mspd') as StatisticsKind[]) for (const dims of list('SWEEP_DIMS', '0,12,18').map(Number)) for (const shrink of list('SWEEP_SHRINK', '0.05,0.3,1').map(Number)) for (const k of list('SWEEP_TOPK', '30,1000').map(Number)) for (const weight of dims === 0 ? ['none'] : list('SWEEP_WEIGHT', 'none,plda')) {
      WEIGHT = weight;
      KIND = kind;
      DIMS = dims;
      SHRINK = shrink;
      TOP_K = k;
      const cv = summarise(crossValidate());
      for (const [cap, wrongMax] of list('SWEEP_SECOND_CAP', 'Infinity').map(Number).flatMap((c) => list('SWEEP_WRONG', String(WRONG_MAX)).map((w) => [c, Number(w)]))) for (const gate of list('SWEEP_V1_GATE', '0').map(Number)) {
        V1_GATE = gate;
        SECOND_CAP = cap;
        WRONG_MAX = wrongMax;
        const [a1, a2, a5] = bestAt(cv, [0.01, 0.02, 0.05]);
        console.log(`kind ${kind} dims ${dims} shrink ${shrink} topK ${k} weight ${weight} second-cap ${cap} wrong<=${wrongMax} v1-gate ${gate}: owner named at <=1 % absent-named ${a1}, <=2 % ${a2}, <=5 % ${a5}`);
      }
    }
    return;
  }
  if (process.argv.includes('--backends')) {
    backendSweep(segs, speakers, foldOf, bestAt, fittedOn, scored);
    return;
  }
  if (process.argv.includes('--fused')) {
    // The fused decision (src/pipeline/voice/match.ts fusedMatch), per gate on the default
    // embedder's [0,1] score, two rules: `veto` (as first built: the fitted decision names a party
    // among all, the gate can only veto it) and `first` (the gate applies first: a party under it is
    // neither named nor a rival). Each at v4's own threshold and margin, and with threshold and
    // margin refitted for that rule and gate (the most owner naming with owner-absent naming <=
    // TARGET_FALSE_NAMING and wrong party <= WRONG_MAX, on the grid of the fit below).
    const all = crossValidate();
    const pct = (x: number, d = 2) => (100 * x).toFixed(d);
    const show = (r: ReturnType<typeof rates>) => `owner named ${pct(r.named, 1)} % (${Math.round(r.named * r.present)}/${r.present}), wrong ${pct(r.wrong)} % (${Math.round(r.wrong * r.present)}), named when absent ${pct(r.falseNamed)} % (${Math.round(r.falseNamed * r.absent)}/${r.absent})`;
    for (const rule of ['veto', 'first'] as const) for (const gate of [0, 0.75, 0.8, 0.85, 0.9]) {
      V1_GATE = rule === 'veto' ? gate : 0;
      const e = rule === 'veto' ? summarise(all) : summariseEligible(all, gate);
      let fit = { threshold: VOICE_MODEL.threshold, margin: VOICE_MODEL.margin, named: -1 };
      for (let t = 0; t <= 60; t++) for (let m = 1; m <= 20; m++) {
        const q = rates(e, t / 10, m / 5);
        if (q.falseNamed <= TARGET_FALSE_NAMING && q.wrong <= WRONG_MAX && q.named > fit.named) fit = { threshold: t / 10, margin: m / 5, named: q.named };
      }
      const [a1, a2, a5] = bestAt(e, [0.01, 0.02, 0.05]);
      console.log(`fused ${rule} gate ${gate}: at threshold ${VOICE_MODEL.threshold}, margin ${VOICE_MODEL.margin}: ${show(rates(e, VOICE_MODEL.threshold, VOICE_MODEL.margin))}; refitted ${fit.threshold.toFixed(1)} / ${fit.margin.toFixed(1)}: ${show(rates(e, fit.threshold, fit.margin))}; owner named at <= 1 / 2 / 5 % absent-named ${a1} / ${a2} / ${a5} (cross-validated, training speakers)`);
    }
    V1_GATE = 0;
    return;
  }
  const cv = summarise(crossValidate());
  // Threshold and margin: the most owner-present naming with at most TARGET_FALSE_NAMING owner-absent naming.
  let best = { threshold: 3, margin: 1, named: 0, falseNamed: 0, wrong: 0 };
  for (let threshold = 0; threshold <= 6; threshold += 0.1) {
    for (let margin = 0.2; margin <= 4; margin += 0.2) {
      const r = rates(cv, threshold, margin);
      if (r.falseNamed <= TARGET_FALSE_NAMING && r.wrong <= WRONG_MAX && r.named > best.named) best = { threshold, margin, named: r.named, falseNamed: r.falseNamed, wrong: r.wrong };
    }
  }
  const r = rates(cv, best.threshold, best.margin);
  console.log(`cross-validated (${FOLDS} speaker folds, ${r.present} owner-present / ${r.absent} owner-absent trials): threshold ${best.threshold.toFixed(1)}, margin ${best.margin.toFixed(1)} -> owner named ${(100 * r.named).toFixed(1)} %, wrong ${(100 * r.wrong).toFixed(1)} %, named when absent ${(100 * r.falseNamed).toFixed(1)} %`);

  const fitted = fitProjection(segs);
  const model: VoiceModel = { id: MODEL_ID, ...fitted, threshold: Number(best.threshold.toFixed(2)), margin: Number(best.margin.toFixed(2)) };
  if (!write) return;
  const fmt = (xs: readonly number[]) => `[${xs.map((x) => Number(x.toPrecision(7))).join(', ')}]`;
  const text = [
    '// Generated by `node --import tsx bench/fit-voice.ts` from the training speakers of',
    '// bench/support/real-speakers.ts; do not edit by hand. Part of what a stored profile means: a refit',
    '// that changes center, scale or projection needs a new id (profiles of another id are not scored).',
    `// Cross-validated on the training speakers: owner named ${(100 * r.named).toFixed(1)} %, named when absent ${(100 * r.falseNamed).toFixed(1)} %.`,
    "import type { VoiceModel } from './embedder.js';",
    '',
    'export const VOICE_MODEL: VoiceModel = {',
    `  id: '${model.id}',`,
    `  statistics: '${model.statistics}',`,
    `  center: ${fmt(model.center)},`,
    `  scale: ${fmt(model.scale)},`,
    '  projection: [',
    ...model.projection.map((row) => `    ${fmt(row)},`),
    '  ],',
    '  cohort: [',
    ...model.cohort.map((row) => `    ${fmt(row)},`),
    '  ],',
    `  cohortTopK: ${model.cohortTopK},`,
    `  threshold: ${model.threshold},`,
    `  margin: ${model.margin},`,
    '};',
    '',
  ].join('\n');
  const out = path.join(projectRoot, 'src/pipeline/voice/voice-model.ts');
  fs.writeFileSync(out, text);
  console.log(`wrote ${path.relative(projectRoot, out)} (${model.projection.length} dimensions, cohort of ${model.cohort.length})`);
}


/**
 * `--backends` only: VOICE_FIT_CV_FIT_SHARE (0-1) fits each fold on that share of its out-of-fold
 * training speakers (a seeded draw, VOICE_FIT_CV_FIT_SEED), scored on the same trials as with all of
 * them: whether owner naming still grows with the number of training speakers (is more data the lever).
 */
function fitSubset(candidates: string[], share = Number(process.env.VOICE_FIT_CV_FIT_SHARE ?? 1)): Set<string> {
  if (share >= 1) return new Set(candidates);
  const r = rng(Number(process.env.VOICE_FIT_CV_FIT_SEED ?? 1));
  const order = candidates.map((s) => ({ s, key: r() })).sort((a, b) => a.key - b.key).map((x) => x.s);
  return new Set(order.slice(0, Math.max(2, Math.round(share * candidates.length))));
}

function l2n(v: Float32Array): Float32Array {
  let q = 0;
  for (const x of v) q += x * x;
  q = Math.sqrt(q) || 1;
  for (let i = 0; i < v.length; i++) v[i] /= q;
  return v;
}

/**
 * `--backends` (issue 27): scoring backends over the same cross-validation folds, each S-normalised
 * against the training cohort of its fold (adaptive, top K), alone and summed with the others.
 *   cos    the cosine of the fitted (WCCN) embeddings: v4 as built
 *   plda   two-covariance PLDA on the fitted embeddings (length-normalised), PLDA_SHRINK, PLDA_DIMS
 *   v1     the default embedder's cosine, S-normalised against the training speakers' v1 vectors
 * BACKEND_COMBOS: comma list of `name*weight+name*weight` sums, e.g. `cos,plda,plda+v1*0.5`.
 */
function backendSweep(segs: Segment[], speakers: string[], foldOf: (s: string) => number, bestAt: (cv: ReturnType<typeof summarise>, targets: number[]) => string[], fittedOn: (s: string) => boolean, scored: (s: string) => boolean): void {
  const list = (name: string, dflt: string) => (process.env[name] ?? dflt).split(',');
  const PROFILE_AVERAGE = Number(process.env.PROFILE_AVERAGE ?? 1);
  const combos = list('BACKEND_COMBOS', 'cos,plda,v1,cos+v1*0.5,plda+v1*0.5,plda+v1');
  const pldaShrinks = list('PLDA_SHRINK', '0.05,1').map(Number);
  const pldaDims = list('PLDA_DIMS', '0').map(Number);
  const topKs = list('SWEEP_TOPK', String(TOP_K)).map(Number);
  for (const pShrink of pldaShrinks) for (const pDims of pldaDims) for (const topK of topKs) {
    // Per fold, per backend: the S-normalised score matrix of profiles x parties.
    const zs: Array<{ profiles: Segment[]; parties: Segment[]; z: Record<string, Float64Array[]> }> = [];
    for (let f = 0; f < FOLDS; f++) {
      const fitSpeakers = fitSubset(speakers.filter((s) => foldOf(s) !== f && fittedOn(s)));
      const train = segs.filter((s) => fitSpeakers.has(s.speaker));
      const test = segs.filter((s) => foldOf(s.speaker) === f && scored(s.speaker));
      const model = fitProjection(train);
      const emb = (s: Segment) => projectStatistics(s.statistics[model.statistics ?? 'msp'], model);
      const trainEmb = train.map(emb);
      const plda = fitPlda(trainEmb.map((v) => Array.from(v)), train.map((s) => s.speaker), pShrink, pDims);
      // VOICE_FIT_CV_COHORT_ALL=1 (with VOICE_FIT_CV_FIT_SHARE): the cohort from every out-of-fold
      // speaker while the projection fits on the share: which of the two more speakers improve.
      // (gsv keeps its cohort from the fitted speakers.)
      // VOICE_FIT_CV_COHORT_SHARE: the reverse, the cohort from a seeded share of the fitted speakers.
      const cohortShare = Number(process.env.VOICE_FIT_CV_COHORT_SHARE ?? 1);
      const cohortSpeakers = cohortShare < 1 ? fitSubset([...fitSpeakers], cohortShare) : null;
      const cohortSegs = process.env.VOICE_FIT_CV_COHORT_ALL === '1' ? segs.filter((s) => foldOf(s.speaker) !== f && fittedOn(s.speaker) && s.seconds >= 6) : train.filter((s) => s.seconds >= 6 && (!cohortSpeakers || cohortSpeakers.has(s.speaker)));
      const cohortEmb = cohortSegs.map(emb);
      const cohortIdx = train.map((s, i) => (s.seconds >= 6 ? i : -1)).filter((i) => i >= 0);
      const single = test.filter((s) => s.seconds >= 12 && s.encoding === '16 kHz');
      const profileGroups: Segment[][] = [];
      if (PROFILE_AVERAGE > 1) {
        const byKey = new Map<string, Segment[]>();
        for (const s of single) byKey.set(`${s.speaker}/${s.mic}`, [...(byKey.get(`${s.speaker}/${s.mic}`) ?? []), s]);
        for (const g of byKey.values()) for (let i = 0; i + PROFILE_AVERAGE <= g.length; i += PROFILE_AVERAGE) profileGroups.push(g.slice(i, i + PROFILE_AVERAGE));
      }
      const profiles = PROFILE_AVERAGE > 1 ? profileGroups.map((g) => g[0]) : single;
      const parties = test.filter((s) => s.seconds < 12);
      const backends: Record<string, { vec: (s: Segment, i?: number) => ArrayLike<number>; score: (a: ArrayLike<number>, b: ArrayLike<number>) => number; cohort: ArrayLike<number>[] }> = {
        cos: { vec: emb, score: (a, b) => cosine(a as Float32Array, b as Float32Array), cohort: cohortEmb },
        plda: { vec: (s) => pldaProject(emb(s), plda), score: (a, b) => pldaScore(a, b, plda.between), cohort: cohortEmb.map((v) => pldaProject(v, plda)) },
        v1: { vec: (s) => s.v1, score: (a, b) => cosine(a as Float32Array, b as Float32Array), cohort: cohortSegs.map((s) => s.v1) },
      };
      if (segs[0].frames) {
        // gsv: mean supervectors against a UBM of this fold's training frames, PCA, WCCN, cosine.
        const t0 = Date.now();
        const C = Number(process.env.GSV_C ?? 32);
        const step = Number(process.env.GSV_STEP ?? 10);
        const sub = train.map((s) => {
          const fr = s.frames as Float32Array;
          const n = Math.floor(fr.length / FRAME_DIM);
          const out = new Float32Array(Math.ceil(n / step) * FRAME_DIM);
          for (let t = 0, j = 0; t < n; t += step, j++) out.set(fr.subarray(t * FRAME_DIM, (t + 1) * FRAME_DIM), j * FRAME_DIM);
          return out;
        });
        const useGsv = process.env.GSV !== '0';
        const ubm = trainUbm(useGsv ? sub : sub.slice(0, 1), FRAME_DIM, C, useGsv ? Number(process.env.GSV_ITER ?? 10) : 0, 7 + f);
        const sv = new Map<Segment, Float64Array>();
        if (useGsv) for (const s of [...train, ...single, ...parties]) if (!sv.has(s)) sv.set(s, meanSupervector(s.frames as Float32Array, ubm, Number(process.env.GSV_RELEVANCE ?? 16)));
        const { mean: pm, components } = useGsv ? pca(train.map((s) => sv.get(s) as Float64Array), Number(process.env.GSV_PCA ?? 150)) : { mean: new Float64Array(0), components: [new Float64Array(0)] };
        const proj = (x: Float64Array) => components.map((c) => {
          let q = 0;
          for (let i = 0; i < c.length; i++) q += c[i] * (x[i] - pm[i]);
          return q;
        });
        const pcs = new Map<Segment, number[]>();
        for (const [s, x] of sv) pcs.set(s, proj(x));
        const w = useGsv ? wccn(train.map((s) => pcs.get(s) as number[]), train.map((s) => s.speaker), Number(process.env.GSV_SHRINK ?? 1)) : [];
        const gemb = new Map<Segment, Float32Array>();
        for (const [s, x] of pcs) gemb.set(s, l2n(Float32Array.from(w, (row) => row.reduce((a, v, i) => a + v * x[i], 0))));
        const gtrain = train.map((s) => Array.from(gemb.get(s) ?? [0]));
        const gplda = useGsv ? fitPlda(gtrain, train.map((s) => s.speaker), pShrink, pDims) : { mean: [], transform: [], between: [] };
        if (useGsv) backends.gsv = { vec: (s) => gemb.get(s) as Float32Array, score: (a, b) => cosine(a as Float32Array, b as Float32Array), cohort: cohortIdx.map((i) => gemb.get(train[i]) as Float32Array) };
        if (useGsv) backends.gsvplda = { vec: (s) => pldaProject(gemb.get(s) as Float32Array, gplda), score: (a, b) => pldaScore(a, b, gplda.between), cohort: cohortIdx.map((i) => pldaProject(gemb.get(train[i]) as Float32Array, gplda)) };
        // mcov: the mspd statistics and the correlations between cepstral coefficients c1-c20
        // (how the vocal tract's shape covaries, less affected by a fixed channel than the means),
        // standardised and whitened for the within-speaker covariance (WCCN) like v4.
        const corrDims = Number(process.env.MCOV_CEPSTRA ?? 20);
        const mcovOf = new Map<Segment, number[]>();
        // MCOV_DELTA=1: also the correlations of the cepstral deltas (how the movements covary).
        const withDelta = process.env.MCOV_DELTA === '1';
        // MCOV_SKEW=1: also the skewness of c1-c20 (asymmetry of each coefficient's distribution).
        const withSkew = process.env.MCOV_SKEW === '1';
        for (const s of new Set([...train, ...cohortSegs, ...single, ...parties])) mcovOf.set(s, [...s.statistics.mspd, ...correlations(s.frames as Float32Array, corrDims), ...(withDelta ? correlations(s.frames as Float32Array, corrDims, 20) : []), ...(withSkew ? skewness(s.frames as Float32Array, 20) : [])]);
        const mx = train.map((s) => mcovOf.get(s) as number[]);
        const dd = mx[0].length;
        const mc = new Array<number>(dd).fill(0);
        const ms = new Array<number>(dd).fill(0);
        for (const x of mx) for (let i = 0; i < dd; i++) mc[i] += x[i] / mx.length;
        for (const x of mx) for (let i = 0; i < dd; i++) ms[i] += (x[i] - mc[i]) ** 2 / mx.length;
        for (let i = 0; i < dd; i++) ms[i] = Math.sqrt(ms[i]) || 1;
        const mw = wccn(mx.map((x) => x.map((v, i) => (v - mc[i]) / ms[i])), train.map((s) => s.speaker), Number(process.env.MCOV_SHRINK ?? SHRINK));
        const memb = new Map<Segment, Float32Array>();
        for (const [s, x] of mcovOf) memb.set(s, projectStatistics(x, { center: mc, scale: ms, projection: mw }));
        backends.mcov = { vec: (s) => memb.get(s) as Float32Array, score: (a, b) => cosine(a as Float32Array, b as Float32Array), cohort: cohortSegs.map((s) => memb.get(s) as Float32Array) };
        process.stderr.write(`fold ${f}: gsv in ${((Date.now() - t0) / 1000).toFixed(0)} s\n`);
      }
      const z: Record<string, Float64Array[]> = {};
      for (const [name, be] of Object.entries(backends)) {
        const stats = (v: ArrayLike<number>) => {
          const sims = be.cohort.map((c) => be.score(v, c)).sort((x, y) => y - x).slice(0, topK);
          const mean = sims.reduce((a, x) => a + x, 0) / sims.length;
          const sd = Math.sqrt(sims.reduce((a, x) => a + (x - mean) ** 2, 0) / sims.length);
          return { mean, sd: Math.max(sd, 1e-3) };
        };
        // PROFILE_AVERAGE=k: a profile enrolled from k separate samples (stretches of one speaker
        // through one microphone), the mean of their vectors: what a longer enrolment would buy.
        const pv = PROFILE_AVERAGE > 1 ? profileGroups.map((g) => {
          // PROFILE_FIRST_ONLY=1: the same profiles' first sample alone (the baseline on the same speakers).
          const vs = (process.env.PROFILE_FIRST_ONLY === '1' ? g.slice(0, 1) : g).map((s) => be.vec(s));
          const out = new Float32Array(vs[0].length);
          for (const v of vs) for (let i = 0; i < out.length; i++) out[i] += v[i] / vs.length;
          return name.includes('plda') ? out : l2n(out);
        }) : profiles.map((s) => be.vec(s));
        const tv = parties.map((s) => be.vec(s));
        const pn = pv.map(stats);
        const tn = tv.map(stats);
        z[name] = pv.map((p, i) => Float64Array.from(tv, (t, j) => {
          const c = be.score(p, t);
          return 0.5 * ((c - pn[i].mean) / pn[i].sd + (c - tn[j].mean) / tn[j].sd);
        }));
      }
      zs.push({ profiles, parties, z });
      if (f === 0) process.stderr.write(`fold 0: fitted on ${fitSpeakers.size} speakers, scored on ${new Set(test.map((s) => s.speaker)).size}\n`);
    }
    for (const combo of combos) {
      const terms = combo.split('+').map((t) => {
        const [name, w] = t.split('*');
        return { name, w: Number(w ?? 1) };
      });
      const ts: ReturnType<typeof trials> = [];
      const conds: string[] = [];
      for (const { profiles, parties, z } of zs) {
        for (let pi = 0; pi < profiles.length; pi++) {
          const p = profiles[pi];
          const score = (j: number) => terms.reduce((a, t) => a + t.w * z[t.name][pi][j], 0);
          for (let i = 0; i < parties.length; i++) {
            for (let j = i + 1; j < parties.length; j++) {
              const a = parties[i];
              const b = parties[j];
              if (a.speaker === b.speaker || a.encoding !== b.encoding) continue;
              if (GROUP_TRIALS && !distinctPeople(p.speaker, a.speaker, b.speaker)) continue;
              const ownerKey = a.speaker === p.speaker ? 'A' : b.speaker === p.speaker ? 'B' : null;
              ts.push({ present: ownerKey !== null, ownerKey, scores: { A: score(i), B: score(j) }, v1: { A: 1, B: 1 } });
              conds.push(`${a.encoding}, parties ${a.seconds >= 6 ? 8 : 4}/${b.seconds >= 6 ? 8 : 4} s`);
            }
          }
        }
      }
      const cv = summarise(ts);
      // bestAt's grid: thresholds -1..6 and margins 0..4 in normalised units; rescale sums so it fits.
      const scale = terms.reduce((a, t) => a + t.w, 0);
      for (let i = 0; i < cv.n; i++) {
        cv.best[i] /= scale;
        cv.second[i] /= scale;
      }
      let present = 0;
      let rank1 = 0;
      for (let i = 0; i < cv.n; i++) if (cv.present[i]) {
        present++;
        rank1 += cv.bestIsOwner[i];
      }
      if (process.env.BACKEND_BREAKDOWN) {
        // Owner best (rank 1) and owner-absent best score per condition: what limits the decision.
        const by = new Map<string, { present: number; rank1: number }>();
        for (let i = 0; i < cv.n; i++) if (cv.present[i]) {
          const e = by.get(conds[i]) ?? { present: 0, rank1: 0 };
          e.present++;
          e.rank1 += cv.bestIsOwner[i];
          by.set(conds[i], e);
        }
        for (const [k, e] of [...by].sort()) console.log(`  ${combo} ${k}: owner best in ${(100 * e.rank1 / e.present).toFixed(1)} % of ${e.present}`);
      }
      const keepWrong = WRONG_MAX;
      for (const wrongMax of list('SWEEP_WRONG', String(WRONG_MAX)).map(Number)) {
        WRONG_MAX = wrongMax;
        const [a1, a2, a5] = bestAt(cv, [0.01, 0.02, 0.05]);
        console.log(`backend ${combo} plda-shrink ${pShrink} plda-dims ${pDims} topK ${topK}: owner named at <=1 % absent-named ${a1}, <=2 % ${a2}, <=5 % ${a5} (wrong <= ${WRONG_MAX}; owner scores best in ${(100 * rank1 / present).toFixed(1)} % of owner-present trials)`);
      }
      WRONG_MAX = keepWrong;
    }
  }
}

await main();

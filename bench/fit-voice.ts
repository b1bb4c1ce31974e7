// Fits the embedded voice model (src/pipeline/voice/voice-model.ts) on the TRAINING speakers of
// bench/support/real-speakers.ts only: standardisation and LDA projection of the statistics vector,
// the score-normalisation cohort, and the decision threshold and margin. The held-out speakers are
// never read here; bench/voice-real.ts scores them.
//
//   node --import tsx bench/fit-voice.ts            # fit, print the cross-validation, write the model
//   node --import tsx bench/fit-voice.ts --no-write # print only
//
// Training material: each training speaker's recordings cut into stretches of 4, 8 and 15 s of
// speech, each rendered twice through different microphone chains and encodings (16 kHz, m4a,
// 8 kHz telephone), so that what varies within one speaker (microphone, codec, words) is what the
// projection learns to ignore. Threshold and margin come from a speaker-wise cross-validation:
// projection and cohort fitted without a fold's speakers, trials scored on that fold only.
import fs from 'node:fs';
import path from 'node:path';
import { STATISTICS_DIM, projectStatistics, speakerStatistics, type VoiceModel } from '../src/pipeline/voice/embedder.js';
import { normalizedScores } from '../src/pipeline/voice/match.js';
import { projectRoot } from '../test/support/corpus.js';
import { ENCODINGS, MIC_NAMES, SR, TRAINING_SPEAKERS, encode, takeSpeech, throughMic, utteranceFiles, type Encoding, type Mic } from './support/real-speakers.js';
import { lda } from './support/voice-linalg.js';

export const MODEL_ID = 'embedded-lda-snorm-v2';
const SEGMENT_SECONDS = [4, 8, 15];
const STATISTICS_VERSION = 1;
let DIMS = Number(process.env.VOICE_FIT_DIMS ?? 18);
let SHRINK = Number(process.env.VOICE_FIT_SHRINK ?? 0.5);
let TOP_K = Number(process.env.VOICE_FIT_TOPK ?? 400);
/** Target share of owner-absent two-party trials in which someone is named (the bound is 5 %). */
const TARGET_FALSE_NAMING = 0.02;
const FOLDS = 4;

export interface Segment { speaker: string; index: number; seconds: number; mic: Mic; encoding: Encoding; statistics: number[] }

/** Statistics of every training segment rendering (cached: rendering is the slow part). */
async function trainingSegments(): Promise<Segment[]> {
  const cache = path.join(projectRoot, '.cache/voice-real/training-segments.json');
  // Bump STATISTICS_VERSION when speakerStatistics changes: the cache holds its output.
  const key = `${TRAINING_SPEAKERS.join(',')}|${SEGMENT_SECONDS.join(',')}|${STATISTICS_DIM}|${STATISTICS_VERSION}`;
  if (fs.existsSync(cache)) {
    const c = JSON.parse(fs.readFileSync(cache, 'utf8'));
    if (c.key === key) return c.segments;
  }
  const out: Segment[] = [];
  for (const speaker of TRAINING_SPEAKERS) {
    const files = utteranceFiles(speaker);
    let at = 0;
    for (let k = 0; at < files.length; k++) {
      const target = SEGMENT_SECONDS[k % SEGMENT_SECONDS.length];
      const { pcm, next, speechSeconds } = takeSpeech(files, at, target);
      at = next;
      if (speechSeconds < 2) break;
      for (let r = 0; r < 2; r++) {
        const mic = MIC_NAMES[(k + 2 * r) % MIC_NAMES.length];
        const encoding = ENCODINGS[(k + r) % ENCODINGS.length];
        try {
          const { statistics } = await speakerStatistics(encode(throughMic(pcm, mic), encoding, k * 7 + r), SR);
          out.push({ speaker, index: k, seconds: speechSeconds, mic, encoding, statistics: Array.from(statistics) });
        } catch {
          // Too little speech after gating: not a usable segment.
        }
      }
    }
    process.stderr.write(`${speaker}: ${out.filter((s) => s.speaker === speaker).length} segments\n`);
  }
  fs.mkdirSync(path.dirname(cache), { recursive: true });
  fs.writeFileSync(cache, JSON.stringify({ key, segments: out }));
  return out;
}

/** Standardisation, projection and cohort from the given segments. */
function fitProjection(segs: Segment[]): Omit<VoiceModel, 'threshold' | 'margin' | 'id'> {
  const d = segs[0].statistics.length;
  const center = new Array<number>(d).fill(0);
  const scale = new Array<number>(d).fill(0);
  for (const s of segs) for (let i = 0; i < d; i++) center[i] += s.statistics[i] / segs.length;
  for (const s of segs) for (let i = 0; i < d; i++) scale[i] += (s.statistics[i] - center[i]) ** 2 / segs.length;
  for (let i = 0; i < d; i++) scale[i] = Math.sqrt(scale[i]) || 1;
  const xs = segs.map((s) => s.statistics.map((v, i) => (v - center[i]) / scale[i]));
  const classes = new Set(segs.map((s) => s.speaker)).size;
  const projection = DIMS === 0 ? xs[0].map((_, i) => xs[0].map((_, j) => (i === j ? 1 : 0))) : lda(xs, segs.map((s) => s.speaker), Math.min(DIMS, classes - 1), SHRINK);
  // Cohort: one embedding per training speaker and segment length class (its longer stretches).
  const cohort: number[][] = [];
  for (const s of segs) if (s.seconds >= 6) cohort.push(Array.from(projectStatistics(s.statistics, { center, scale, projection })).map((v) => Number(v.toFixed(5))));
  return { center, scale, projection, cohort, cohortTopK: Math.min(TOP_K, cohort.length) };
}

export interface TrialOutcome { present: boolean; named: string | null; owner: string | null }

/**
 * Two-party trials among `test` segments: profiles are the long (15 s) stretches, parties the
 * shorter ones; every pair of parties from two different speakers is a call. Returns the
 * normalised scores of each (profile, call) for the decision to be swept.
 */
function trials(model: Omit<VoiceModel, 'threshold' | 'margin' | 'id'>, test: Segment[]): Array<{ present: boolean; ownerKey: string | null; scores: Record<string, number> }> {
  const emb = (s: Segment) => projectStatistics(s.statistics, model);
  const profiles = test.filter((s) => s.seconds >= 12);
  const parties = test.filter((s) => s.seconds < 12);
  const pe = parties.map(emb);
  const out = [];
  for (const p of profiles) {
    const e = emb(p);
    for (let i = 0; i < parties.length; i++) {
      for (let j = i + 1; j < parties.length; j++) {
        const a = parties[i];
        const b = parties[j];
        if (a.speaker === b.speaker || a.encoding !== b.encoding) continue;
        // A stretch never scores against a rendering of itself.
        if ((a.speaker === p.speaker && a.index === p.index) || (b.speaker === p.speaker && b.index === p.index)) continue;
        const scores = normalizedScores(e, { A: pe[i], B: pe[j] }, model);
        const ownerKey = a.speaker === p.speaker ? 'A' : b.speaker === p.speaker ? 'B' : null;
        out.push({ present: ownerKey !== null, ownerKey, scores });
      }
    }
  }
  return out;
}

/** Best and runner-up score of each trial, and whether the best is the owner: enough to sweep a two-party decision fast. */
function summarise(ts: ReturnType<typeof trials>) {
  const n = ts.length;
  const best = new Float64Array(n);
  const second = new Float64Array(n);
  const present = new Uint8Array(n);
  const bestIsOwner = new Uint8Array(n);
  ts.forEach((t, i) => {
    const ranked = Object.entries(t.scores).sort((a, b) => b[1] - a[1]);
    best[i] = ranked[0]?.[1] ?? -Infinity;
    second[i] = ranked[1]?.[1] ?? -Infinity;
    present[i] = t.present ? 1 : 0;
    bestIsOwner[i] = ranked[0]?.[0] === t.ownerKey ? 1 : 0;
  });
  return { n, best, second, present, bestIsOwner };
}

/** The decision of matchUserVoice on summarised trials. */
function rates(s: ReturnType<typeof summarise>, threshold: number, margin: number) {
  let named = 0;
  let wrong = 0;
  let falseNamed = 0;
  let present = 0;
  let absent = 0;
  for (let i = 0; i < s.n; i++) {
    const fires = s.best[i] >= threshold && s.best[i] - s.second[i] >= margin;
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
  const speakers: string[] = [...TRAINING_SPEAKERS];
  console.log(`${segs.length} segment renderings of ${new Set(segs.map((s) => s.speaker)).size} training speakers`);

  // Speaker-wise cross-validation: every trial is scored by a model that never saw its speakers.
  const crossValidate = () => {
    const cv: ReturnType<typeof trials> = [];
    for (let f = 0; f < FOLDS; f++) {
      const testSpeakers = new Set(speakers.filter((_, i) => i % FOLDS === f));
      const model = fitProjection(segs.filter((s) => !testSpeakers.has(s.speaker)));
      cv.push(...trials(model, segs.filter((s) => testSpeakers.has(s.speaker))));
    }
    return cv;
  };
  if (process.argv.includes('--sweep')) {
    for (const dims of [0, 4, 8, 12, 18]) for (const shrink of dims ? [0.01, 0.1, 0.5] : [0]) for (const k of [10, 40, 400]) {
      DIMS = dims;
      SHRINK = shrink;
      TOP_K = k;
      const cv = summarise(crossValidate());
      const at = (target: number) => {
        let named = 0;
        for (let threshold = -1; threshold <= 6; threshold += 0.1) for (let margin = 0; margin <= 4; margin += 0.2) {
          const r = rates(cv, threshold, margin);
          if (r.falseNamed <= target && r.wrong <= 0.005 && r.named > named) named = r.named;
        }
        return (100 * named).toFixed(1);
      };
      console.log(`dims ${dims} shrink ${shrink} topK ${k}: named at <=2 % ${at(0.02)}, at <=5 % ${at(0.05)}`);
    }
    return;
  }
  const cv = summarise(crossValidate());
  // Threshold and margin: the most owner-present naming with at most TARGET_FALSE_NAMING owner-absent naming.
  let best = { threshold: 3, margin: 1, named: 0, falseNamed: 0, wrong: 0 };
  for (let threshold = 0; threshold <= 6; threshold += 0.1) {
    for (let margin = 0.2; margin <= 4; margin += 0.2) {
      const r = rates(cv, threshold, margin);
      if (r.falseNamed <= TARGET_FALSE_NAMING && r.wrong <= 0.005 && r.named > best.named) best = { threshold, margin, named: r.named, falseNamed: r.falseNamed, wrong: r.wrong };
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

await main();

// Calibration of the voice embedder and matcher on the synthetic corpus.
//
//   node --import tsx bench/voice.ts                 # the statistics embedder: run, print, write docs/bench/voice.md
//   node --import tsx bench/voice.ts --embedder v4   # the opt-in fitted embedder alone: docs/bench/voice-lda.md
//   node --import tsx bench/voice.ts --embedder fused  # the fused decision (the default): docs/bench/voice-fused.md
//   node --import tsx bench/voice.ts --no-write      # print only
//   node --import tsx bench/voice.ts --fit-background  # re-estimate src/pipeline/voice/background.ts
//
// Enrollment samples are synthesised per corpus voice with flite from sentences that do not occur
// in the corpus (Harvard sentences), converted the way the corpus render does. Each call speaker
// is embedded from the TRUTH turn regions, so the numbers measure the embedder, not the diarizer.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { decodeAudio, readWavMono } from '../src/pipeline/audio/decode.js';
import { createDiarizer } from '../src/pipeline/diarization/index.js';
import { corpusFile, corpusIds, ensureCorpus, loadTruth, projectRoot, type Truth } from '../test/support/corpus.js';
import { V1_FEATURE_DIM as FEATURE_DIM, FEATURE_LAYOUT, FUSED_V1_GATE, FusedStatsEmbedder, MfccStatsEmbedder, ProjectedStatsEmbedder, createSpeakerEmbedder, speakerFeatures } from '../src/pipeline/voice/embedder.js';
import { DEFAULT_VOICE_MATCH_MARGIN, DEFAULT_VOICE_MATCH_THRESHOLD, embedCallSpeakers, fusedMatch, matchUserVoice, normalizedMatch, normalizedScores, scoreSpeakers as cosineScores, type VoiceMatch } from '../src/pipeline/voice/match.js';

// The statistics embedder (v1; the default until issue 27, now opt-in alone as `embedded-stats` and
// the gate of the default), for which this calibration and its background statistics were written,
// unless `--embedder v4` (or `v2`, `lda`: the opt-in fitted model alone, cohort-normalised scores
// mapped to [0,1] by normalizedMatch) or `--embedder fused` (the default since issue 27: among the
// parties whose statistics score reaches a gate, the fitted model decides; fusedMatch). Each embedder writes its own report (REPORTS below), so bench/run.ts
// regenerates all three and bench/voice-real.ts points at them instead of quoting them.
const EMBEDDER_ARG = process.argv.includes('--embedder') ? process.argv[process.argv.indexOf('--embedder') + 1] : 'v1';
const EMBEDDERS: Record<string, 'v1' | 'v2' | 'fused'> = { v1: 'v1', stats: 'v1', v2: 'v2', v4: 'v2', lda: 'v2', fused: 'fused' };
const EMBEDDER = EMBEDDERS[EMBEDDER_ARG ?? ''];
if (!EMBEDDER) {
  console.error(`--embedder ${EMBEDDER_ARG}: expected one of ${Object.keys(EMBEDDERS).join(', ')}`);
  process.exit(2);
}
const V2 = EMBEDDER === 'v2';
const V1 = EMBEDDER === 'v1';
/** The report each embedder's run writes, and the command that writes it. */
export const REPORTS = { v1: 'voice.md', v2: 'voice-lda.md', fused: 'voice-fused.md' } as const;
const REPORT = REPORTS[EMBEDDER];
const COMMAND = `node --import tsx bench/voice.ts${V1 ? '' : ` --embedder ${EMBEDDER === 'v2' ? 'v4' : 'fused'}`}`;
const makeEmbedder = () => (V2 ? new ProjectedStatsEmbedder() : V1 ? new MfccStatsEmbedder() : new FusedStatsEmbedder());
const EMBEDDED_PROVIDER = makeEmbedder().provider;
/** The provider `VOICE_EMBEDDING_PROVIDER=embedded` gives (set in main): the reports say whether theirs is it. */
let defaultProvider = '';
/** Scores and the pipeline's decision (src/pipeline/speech.ts matchVoice) at a threshold and margin on the [0,1] scale. */
function decideSpeakers(profile: Float32Array, embs: Record<string, Float32Array>, threshold = DEFAULT_VOICE_MATCH_THRESHOLD, margin = DEFAULT_VOICE_MATCH_MARGIN): { scores: Record<string, number>; match: VoiceMatch } {
  if (V1) {
    const scores = cosineScores(profile, embs);
    return { scores, match: matchUserVoice(scores, threshold, margin) };
  }
  const e = makeEmbedder() as ProjectedStatsEmbedder | FusedStatsEmbedder;
  // The fitted decisions' margin is the fitted one (mapped to DEFAULT_VOICE_MATCH_MARGIN); only the threshold moves.
  if (e instanceof FusedStatsEmbedder) return fusedMatch(profile, embs, e.model, e.fusion, threshold);
  return normalizedMatch(normalizedScores(profile, embs, e.model), e.model, threshold);
}
function scoreSpeakers(profile: Float32Array, embs: Record<string, Float32Array>): Record<string, number> {
  return decideSpeakers(profile, embs).scores;
}
import { provenanceLine, startProvenance, type Provenance } from './support/provenance.js';
import { headlineMarker } from './support/headline.js';

/** The threshold, margin and features were chosen on these very trials: every figure here is in-sample. */
const DATASET = 'synthetic corpus (12 calls, 4 flite voices) with flite enrollment samples of Harvard sentences';

export const VOICES = ['slt', 'kal16', 'rms', 'awb'] as const;

// Harvard sentences (IEEE 1969): none of them occurs in the corpus dialogues.
export const ENROLLMENT_TEXTS = [
  'The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background. It is easy to tell the depth of a well. These days a chicken leg is a rare dish. Rice is often served in round bowls. The juice of lemons makes fine punch.',
  'The box was thrown beside the parked truck. The hogs were fed chopped corn and garbage. Four hours of steady work faced us. A large size in stockings is hard to sell. The boy was there when the sun rose. A rod is used to catch pink salmon.',
  'The source of the huge river is the clear spring. Kick the ball straight and follow through. Help the woman get back to her feet. A pot of tea helps to pass the evening. Smoky fires lack flame and heat. The soft cushion broke the man\'s fall.',
];
/** Sentences only used for the background statistics, never for scoring. */
const BACKGROUND_TEXTS = [
  'The salt breeze came across from the sea. The girl at the booth sold fifty bonds. The small pup gnawed a hole in the sock. The fish twisted and turned on the bent hook. Press the pants and sew a button on the vest. The swan dive was far short of perfect.',
  'The beauty of the view stunned the young boy. Two blue fish swam in the tank. Her purse was full of useless trash. The colt reared and threw the tall rider. It snowed, rained, and hailed the same morning. Read verse out loud for pleasure.',
];
/** espeak-ng voice variants (a different synthesiser, so speakers disjoint from the corpus). */
const BACKGROUND_ESPEAK = ['m1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7', 'f1', 'f2', 'f3', 'f4', 'f5'];
/** Pitch shifts (cents) of the flite voices: pseudo-speakers that move the centre towards flite. */
const BACKGROUND_SHIFTS = [-300, 300];

const cacheDir = path.join(projectRoot, '.cache/voice-bench');

/** A flite sample converted like the corpus render: 16 kHz mono 16-bit, pauses trimmed, -3 dBFS peak. */
export function synthesize(voice: string, text: string, out: string, extraSox: string[] = []): string {
  if (fs.existsSync(out)) return out;
  fs.mkdirSync(path.dirname(out), { recursive: true });
  const raw = `${out}.raw.wav`;
  const txt = `${out}.txt`;
  fs.writeFileSync(txt, text + '\n');
  execFileSync('flite', ['-voice', voice, '-f', txt, '-o', raw]);
  soxConvert(raw, `${out}.tmp.wav`, extraSox);
  fs.renameSync(`${out}.tmp.wav`, out);
  fs.rmSync(raw);
  fs.rmSync(txt);
  return out;
}

async function readMono(file: string): Promise<Float32Array> {
  const { samples, sampleRate } = await readWavMono(file);
  if (sampleRate !== 16000) throw new Error(`expected 16 kHz audio in ${path.basename(file)}`);
  return samples;
}

function regionsOf(truth: Truth, speaker: 'A' | 'B') {
  return truth.turns.filter((t) => t.speaker === speaker).map((t) => ({ start: t.startSeconds, end: t.endSeconds }));
}

interface Stats { n: number; min: number; p5: number; p25: number; median: number; mean: number; p75: number; p95: number; max: number }
function stats(xs: number[]): Stats {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number) => {
    const pos = (s.length - 1) * p;
    const lo = Math.floor(pos);
    const hi = Math.min(s.length - 1, lo + 1);
    return s[lo] + (s[hi] - s[lo]) * (pos - lo);
  };
  return { n: s.length, min: s[0], p5: q(0.05), p25: q(0.25), median: q(0.5), mean: s.reduce((a, b) => a + b, 0) / s.length, p75: q(0.75), p95: q(0.95), max: s[s.length - 1] };
}

interface Trial { call: string; variant: string; enrollment: string; enrolledVoice: string; speaker: 'A' | 'B'; speakerVoice: string; score: number }

type Variant = 'mono16k' | 'stereo' | 'm4a' | 'phone8k';

async function main(): Promise<void> {
  const args = new Set(process.argv.slice(2));
  const t0 = Date.now();
  const provenance = startProvenance(DATASET, 'in-sample');
  ensureCorpus();
  defaultProvider = (await createSpeakerEmbedder({ provider: 'embedded' })).provider;
  const embedder = makeEmbedder();

  if (args.has('--fit-background')) {
    await fitBackground();
    return;
  }

  // Enrollment profiles: every voice x every enrollment text.
  const profiles: Array<{ id: string; voice: string; emb: Float32Array }> = [];
  for (const voice of VOICES) {
    for (let i = 0; i < ENROLLMENT_TEXTS.length; i++) {
      const file = synthesize(voice, ENROLLMENT_TEXTS[i], path.join(cacheDir, `enroll-${voice}-${i}.wav`));
      const samples = await readMono(file);
      profiles.push({ id: `${voice}#${i}`, voice, emb: await embedder.embed(samples, 16000) });
    }
  }

  const variants: Variant[] = args.has('--quick') ? ['mono16k'] : ['mono16k', 'stereo', 'm4a', 'phone8k'];
  const trials: Trial[] = [];
  const callEmb: Record<string, Record<string, Record<string, Float32Array>>> = {};
  const voicesOf: Record<string, Record<'A' | 'B', string>> = {};
  for (const id of corpusIds()) {
    const truth = loadTruth(id);
    voicesOf[id] = { A: truth.speakers.A.voice, B: truth.speakers.B.voice };
    for (const variant of variants) {
      const file = corpusFile(id, variant === 'm4a' ? 'call.m4a' : variant === 'phone8k' ? 'phone8k.wav' : variant === 'stereo' ? 'stereo.wav' : 'mono16k.wav');
      const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'voice-bench-'));
      let embs: Record<string, Float32Array>;
      try {
        const audio = await decodeAudio(file, workDir, { timeoutMs: 60_000, maxSeconds: 600 });
        if (variant === 'stereo' && !audio.channels) throw new Error('stereo.wav did not decode to two channels');
        embs = await embedCallSpeakers(embedder, audio, { A: regionsOf(truth, 'A'), B: regionsOf(truth, 'B') });
      } finally {
        fs.rmSync(workDir, { recursive: true, force: true });
      }
      (callEmb[variant] ??= {})[id] = embs;
      for (const p of profiles) {
        const scores = scoreSpeakers(p.emb, embs);
        for (const sp of ['A', 'B'] as const) {
          trials.push({ call: id, variant, enrollment: p.id, enrolledVoice: p.voice, speaker: sp, speakerVoice: voicesOf[id][sp], score: scores[sp] });
        }
      }
    }
  }

  const diarized = args.has('--no-diarizer') ? null : await diarizerRun(profiles, args.has('--quick') ? ['mono16k'] : ['mono16k', 'm4a', 'phone8k']);
  const report = analyse(trials, profiles, callEmb, voicesOf, variants, diarized);
  const seconds = (Date.now() - t0) / 1000;
  console.log(report.text);
  console.log(`\n(${trials.length} trials, ${seconds.toFixed(1)} s)`);
  if (!args.has('--no-write')) {
    const doc = path.join(projectRoot, 'docs/bench', REPORT);
    fs.mkdirSync(path.dirname(doc), { recursive: true });
    fs.writeFileSync(doc, report.markdown(seconds, provenance.finish()));
    console.log(`wrote ${path.relative(projectRoot, doc)}`);
  }
}

/** Equal-error point, and the gap between the lowest genuine and the highest impostor score. */
function separation(genuine: number[], impostor: number[]) {
  const cands = [...genuine, ...impostor].sort((a, b) => a - b);
  let eer = { threshold: 0, far: 1, frr: 0, gap: Infinity };
  for (const t of cands) {
    const far = impostor.filter((s) => s >= t).length / impostor.length;
    const frr = genuine.filter((s) => s < t).length / genuine.length;
    if (Math.abs(far - frr) < eer.gap) eer = { threshold: t, far, frr, gap: Math.abs(far - frr) };
  }
  const minGenuine = Math.min(...genuine);
  const maxImpostor = Math.max(...impostor);
  return { eer, minGenuine, maxImpostor, separated: minGenuine > maxImpostor, midpoint: (minGenuine + maxImpostor) / 2 };
}

type Profile = { id: string; voice: string; emb: Float32Array };
type CallSet = Record<string, Record<string, Float32Array>>;
type VoicesOf = Record<string, Record<'A' | 'B', string>>;

/** Decisions as the pipeline makes them: per call and profile, one MATCHED speaker or NO_MATCH. */
function decisionAccuracy(profiles: Profile[], calls: CallSet, voicesOf: VoicesOf, threshold: number, margin: number) {
  let present = 0, presentOk = 0, absent = 0, absentOk = 0, wrongSpeaker = 0, missed = 0, falseMatch = 0;
  const margins: number[] = [];
  for (const [id, embs] of Object.entries(calls)) {
    for (const p of profiles) {
      const truthSpeaker = (['A', 'B'] as const).find((s) => voicesOf[id][s] === p.voice) ?? null;
      const { scores, match: m } = decideSpeakers(p.emb, embs, threshold, margin);
      if (truthSpeaker) {
        present++;
        const other = truthSpeaker === 'A' ? 'B' : 'A';
        margins.push(scores[truthSpeaker] - scores[other]);
        if (m.matchedSpeaker === truthSpeaker) presentOk++;
        else if (m.matchedSpeaker) wrongSpeaker++;
        else missed++;
      } else {
        absent++;
        if (m.status === 'NO_MATCH') absentOk++;
        else falseMatch++;
      }
    }
  }
  return { present, presentOk, absent, absentOk, wrongSpeaker, missed, falseMatch, accuracy: (presentOk + absentOk) / (present + absent), minMargin: Math.min(...margins) };
}

type DiarizedResult = Record<string, ReturnType<typeof emptyTally>>;
function emptyTally() {
  return { present: 0, presentOk: 0, wrongSpeaker: 0, missed: 0, absent: 0, absentOk: 0, falseMatch: 0, unembedded: 0 };
}

/** Seconds of overlap between a set of regions and another. */
function overlap(a: Array<{ start: number; end: number }>, b: Array<{ start: number; end: number }>): number {
  let s = 0;
  for (const x of a) for (const y of b) s += Math.max(0, Math.min(x.end, y.end) - Math.max(x.start, y.start));
  return s;
}

/**
 * End to end with the pipeline's own diarizer (mono clustering, no words) instead of truth regions:
 * a MATCHED source speaker counts as right when most of its regions lie in the truth turns of the
 * enrolled voice. A snapshot of the diarizer as it is today.
 */
async function diarizerRun(profiles: Profile[], variants: Variant[]): Promise<DiarizedResult> {
  const diarizer = createDiarizer();
  const embedder = makeEmbedder();
  const out: DiarizedResult = {};
  for (const variant of variants) {
    const tally = (out[variant] = emptyTally());
    for (const id of corpusIds()) {
      const truth = loadTruth(id);
      const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'voice-bench-'));
      try {
        const file = corpusFile(id, variant === 'm4a' ? 'call.m4a' : variant === 'phone8k' ? 'phone8k.wav' : 'mono16k.wav');
        const audio = await decodeAudio(file, workDir, { timeoutMs: 60_000, maxSeconds: 600 });
        const d = await diarizer.diarize(audio, []);
        const embs = await embedCallSpeakers(embedder, audio, d.speakerRegions);
        for (const p of profiles) {
          const truthSpeaker = (['A', 'B'] as const).find((s) => truth.speakers[s].voice === p.voice) ?? null;
          const m = decideSpeakers(p.emb, embs).match;
          if (truthSpeaker) {
            tally.present++;
            if (!m.matchedSpeaker) tally.missed++;
            else {
              const mine = overlap(d.speakerRegions[m.matchedSpeaker], regionsOf(truth, truthSpeaker));
              const other = overlap(d.speakerRegions[m.matchedSpeaker], regionsOf(truth, truthSpeaker === 'A' ? 'B' : 'A'));
              if (mine > other) tally.presentOk++;
              else tally.wrongSpeaker++;
            }
          } else {
            tally.absent++;
            if (m.status === 'NO_MATCH') tally.absentOk++;
            else tally.falseMatch++;
          }
        }
        tally.unembedded += d.speakers.filter((sp) => !embs[sp]).length;
      } finally {
        fs.rmSync(workDir, { recursive: true, force: true });
      }
    }
  }
  return out;
}

const VARIANT_NOTE: Record<Variant, string> = {
  mono16k: 'the 16 kHz master',
  stereo: 'speaker A left, B right: each speaker embedded from its own channel',
  m4a: 'AAC-LC 32 kbit/s',
  phone8k: 'telephone band 300-3400 Hz, 8 kHz, mu-law, noise: profiles are still wideband',
};

function analyse(trials: Trial[], profiles: Profile[], callEmb: Record<string, CallSet>, voicesOf: VoicesOf, variants: Variant[], diarized: DiarizedResult | null) {
  const f = (x: number) => x.toFixed(3);
  const statRow = (name: string, s: Stats) => `| ${name} | ${s.n} | ${f(s.min)} | ${f(s.p5)} | ${f(s.p25)} | ${f(s.median)} | ${f(s.mean)} | ${f(s.p75)} | ${f(s.p95)} | ${f(s.max)} |`;
  const header = ['| trials | n | min | p5 | p25 | median | mean | p75 | p95 | max |', '|---|---|---|---|---|---|---|---|---|---|'];
  const gen = (v?: Variant) => trials.filter((t) => (!v || t.variant === v) && t.enrolledVoice === t.speakerVoice).map((t) => t.score);
  const imp = (v?: Variant) => trials.filter((t) => (!v || t.variant === v) && t.enrolledVoice !== t.speakerVoice).map((t) => t.score);

  const pooled = separation(gen(), imp());
  const perVariant = Object.fromEntries(
    variants.map((v) => [v, { gen: stats(gen(v)), imp: stats(imp(v)), sep: separation(gen(v), imp(v)), acc: decisionAccuracy(profiles, callEmb[v], voicesOf, DEFAULT_VOICE_MATCH_THRESHOLD, DEFAULT_VOICE_MATCH_MARGIN) }]),
  ) as Record<Variant, { gen: Stats; imp: Stats; sep: ReturnType<typeof separation>; acc: ReturnType<typeof decisionAccuracy> }>;
  const sweep = [0.7, 0.75, 0.8, 0.85, 0.9, 0.95].map((t) => ({
    t,
    acc: variants.map((v) => decisionAccuracy(profiles, callEmb[v], voicesOf, t, DEFAULT_VOICE_MATCH_MARGIN).accuracy),
  }));
  const pairs = VOICES.map((ev) => {
    const row = VOICES.map((sv) => stats(trials.filter((t) => t.variant === 'mono16k' && t.enrolledVoice === ev && t.speakerVoice === sv).map((t) => t.score)));
    return `| ${ev} | ${row.map((s) => `${f(s.mean)} (${f(s.min)}-${f(s.max)})`).join(' | ')} |`;
  });

  const closest = { pair: '', mean: -1, max: -1 };
  for (const a of VOICES) for (const b of VOICES) {
    if (a === b) continue;
    const s = stats(trials.filter((t) => t.variant === 'mono16k' && t.enrolledVoice === a && t.speakerVoice === b).map((t) => t.score));
    if (s.mean > closest.mean) Object.assign(closest, { pair: `profile ${a} vs speaker ${b}`, mean: s.mean, max: s.max });
  }
  const lines: string[] = [`voices ${VOICES.join(',')}; ${profiles.length} enrollment profiles; embedding dim ${makeEmbedder().dimension}`];
  for (const v of variants) {
    const p = perVariant[v];
    lines.push(`${v.padEnd(8)} genuine  min ${f(p.gen.min)} p5 ${f(p.gen.p5)} median ${f(p.gen.median)} max ${f(p.gen.max)}`);
    lines.push(`${v.padEnd(8)} impostor min ${f(p.imp.min)} median ${f(p.imp.median)} p95 ${f(p.imp.p95)} max ${f(p.imp.max)}`);
    const a = p.acc;
    lines.push(`${v.padEnd(8)} @${DEFAULT_VOICE_MATCH_THRESHOLD}/${DEFAULT_VOICE_MATCH_MARGIN}: present ${a.presentOk}/${a.present} (wrong ${a.wrongSpeaker}, missed ${a.missed}), absent ${a.absentOk}/${a.absent}; accuracy ${(100 * a.accuracy).toFixed(1)} %; min margin ${f(a.minMargin)}`);
  }
  lines.push(`pooled: lowest genuine ${f(pooled.minGenuine)}, highest impostor ${f(pooled.maxImpostor)}, midpoint ${f(pooled.midpoint)}, EER point ${f(pooled.eer.threshold)} (far ${f(pooled.eer.far)}, frr ${f(pooled.eer.frr)})`);
  lines.push('threshold sweep (accuracy per variant): ' + sweep.map((r) => `${r.t}: ${r.acc.map((x) => (100 * x).toFixed(0)).join('/')}`).join('  '));
  if (diarized) for (const [v, t] of Object.entries(diarized)) lines.push(`diarizer ${v}: present ${t.presentOk}/${t.present} (wrong ${t.wrongSpeaker}, missed ${t.missed}), absent ${t.absentOk}/${t.absent} (false match ${t.falseMatch}); speakers without embedding ${t.unembedded}`);
  lines.push('', 'enrolled \\ call speaker (mono16k): mean (min-max)', ...pairs);

  const markdown = (seconds: number, provenance: Provenance) => {
    const stamp = provenanceLine(provenance, COMMAND);
    const isDefault = EMBEDDED_PROVIDER === defaultProvider;
    const label = `${isDefault ? 'default' : 'opt-in'} ${EMBEDDED_PROVIDER}`;
    const md: string[] = [];
    md.push(V1 ? '# Voice embedding and matching: calibration' : `# Voice matching on the synthetic corpus: ${V2 ? 'the fitted embedder alone' : 'the fused decision'} (${isDefault ? 'default' : 'opt-in'})`, '');
    md.push(`Generated by \`${COMMAND}\` (${seconds.toFixed(0)} s on this machine). Embedder \`${EMBEDDED_PROVIDER}\` (${isDefault ? 'the default, `VOICE_EMBEDDING_PROVIDER=embedded`' : `opt-in, \`VOICE_EMBEDDING_PROVIDER=${V2 ? 'embedded-lda' : V1 ? 'embedded-stats' : 'embedded-fused'}\``}), ${makeEmbedder().dimension} dimensions.${V1 ? '' : ` The same trials as the statistics embedder's calibration (docs/bench/voice.md, \`node --import tsx bench/voice.ts\`) and ${V2 ? 'the fused decision\'s (docs/bench/voice-fused.md)' : 'the fitted embedder alone\'s (docs/bench/voice-lda.md)'}.`}`, '');
    if (V1) md.push('**In-sample.** The features, their normalisation, the threshold and the margin were chosen on these trials (four synthetic voices), so these figures show how well the matcher fits them, not how it does on people: `docs/bench/voice-real.md` measures real voices.', '');
    else md.push(`**In-sample.** The fitted model's constants${V2 ? '' : ' and the gate'} were fitted on real training speakers only (bench/fit-voice.ts), never on these voices, but these trials were read while the embedders were compared and the default chosen, so they are labelled in-sample. Real voices the model never saw: \`docs/bench/voice-real.md\`.`, '');
    md.push('## Setup', '');
    md.push(`- Enrollment: for each corpus voice (${VOICES.join(', ')}) ${ENROLLMENT_TEXTS.length} separate flite samples of six Harvard sentences each (none occurs in the corpus), 13-17 s, converted like \`render.sh\` (16 kHz mono 16-bit, pauses trimmed, -3 dBFS peak): ${profiles.length} profiles.`);
    md.push('- Call speakers: each speaker A and B of the 12 calls, decoded with `decodeAudio` and embedded with `embedCallSpeakers` from its TRUTH turn regions (so this measures the embedder, not the diarizer).');
    if (V1) md.push('- Score: cosine similarity of the L2-normalised embeddings mapped to [0,1] as (1 + cos) / 2 (`scoreSpeakers`).');
    else if (V2) md.push('- Score: the fitted model\'s cohort-normalised score mapped to [0,1] (`normalizedMatch`: its fitted threshold lands on 0.85, its fitted margin spans 0.05); decision: that threshold and margin.');
    else md.push(`- Score and decision (\`fusedMatch\`, ${isDefault ? 'the default `VOICE_EMBEDDING_PROVIDER=embedded`' : 'opt-in `VOICE_EMBEDDING_PROVIDER=embedded-fused`'}): only parties that score at least ${FUSED_V1_GATE} with the statistics embedder \`embedded-mfcc-stats-v1\` (cosine mapped to [0,1]; the gate chosen in the training speakers' cross-validation, bench/fit-voice.ts) are candidates; among them the fitted model (\`${new ProjectedStatsEmbedder().provider}\`, fitted on real training speakers, not on these voices) decides with its cohort-normalised score mapped to [0,1] (its fitted threshold lands on 0.85, its fitted margin spans 0.05 over the runner-up candidate). A party under the gate is reported with its statistics score, so a score at or above the threshold means both embedders agree.`);
    md.push(`- Trials per variant: ${profiles.length} profiles x 24 call speakers; genuine = same voice (72), impostor = different voice (216).`);
    md.push(`- Variants: ${variants.map((v) => `\`${v}\` (${VARIANT_NOTE[v]})`).join('; ')}. The stereo numbers equal the mono ones because corpus turns never overlap, so within a speaker's turns its channel holds the same samples as the mix, and the features ignore level.`, '');
    md.push('## Score distributions', '');
    for (const v of variants) {
      const p = perVariant[v];
      md.push(`### ${v}`, '', ...header, statRow('genuine', p.gen), statRow('impostor', p.imp), '');
      md.push(stamp, '');
      md.push(`Lowest genuine ${f(p.sep.minGenuine)}, highest impostor ${f(p.sep.maxImpostor)}: ${p.sep.separated ? `fully separated (gap ${f(p.sep.minGenuine - p.sep.maxImpostor)})` : `overlapping; equal-error point ${f(p.sep.eer.threshold)} (false accept ${f(p.sep.eer.far)}, false reject ${f(p.sep.eer.frr)})`}.`, '');
    }
    md.push('### Mean score per voice pair (mono16k)', '', `| enrolled \\ speaker | ${VOICES.join(' | ')} |`, `|---|${VOICES.map(() => '---').join('|')}|`, ...pairs, '', stamp, '');
    md.push(`Closest impostor pair: ${closest.pair} (mean ${f(closest.mean)}, max ${f(closest.max)}).`, '');
    md.push('## Threshold', '');
    md.push(`Over all variants the lowest genuine score is ${f(pooled.minGenuine)} and the highest impostor score ${f(pooled.maxImpostor)} (midpoint ${f(pooled.midpoint)}). \`DEFAULT_VOICE_MATCH_THRESHOLD = ${DEFAULT_VOICE_MATCH_THRESHOLD}\` ${pooled.minGenuine >= DEFAULT_VOICE_MATCH_THRESHOLD && pooled.maxImpostor < DEFAULT_VOICE_MATCH_THRESHOLD ? 'sits in that gap' : '**does not sit in a gap between them**'}${V1 ? ', above the midpoint on purpose' : ''}: a false match puts the user's name on the other party, while a miss only falls back to text-based naming, and real voices vary more between an enrollment sample and a call than one synthetic voice does. \`DEFAULT_VOICE_MATCH_MARGIN = ${DEFAULT_VOICE_MATCH_MARGIN}\`: the best speaker must also beat the runner-up by this much (smallest observed genuine-minus-other margin: ${variants.map((v) => `${v} ${f(perVariant[v].acc.minMargin)}`).join(', ')}).`, '');
    md.push(`| threshold | ${variants.join(' | ')} |`, `|---|${variants.map(() => '---').join('|')}|`);
    for (const r of sweep) md.push(`| ${r.t} | ${r.acc.map((x) => `${(100 * x).toFixed(1)} %`).join(' | ')} |`);
    md.push('', stamp, '');
    md.push('## Decision accuracy', '');
    md.push(`At the defaults (${DEFAULT_VOICE_MATCH_THRESHOLD}, margin ${DEFAULT_VOICE_MATCH_MARGIN}), for each call and each enrollment profile: when the profile's voice speaks in the call, is exactly that speaker MATCHED; when it does not, is NO_MATCH returned.`, '');
    md.push('| variant | voice present: right speaker | wrong speaker | missed | voice absent: NO_MATCH | false match | accuracy |', '|---|---|---|---|---|---|---|');
    for (const v of variants) {
      const a = perVariant[v].acc;
      md.push(`| ${v} | ${a.presentOk}/${a.present} | ${a.wrongSpeaker} | ${a.missed} | ${a.absentOk}/${a.absent} | ${a.falseMatch} | ${(100 * a.accuracy).toFixed(1)} % |`);
    }
    md.push('', stamp);
    for (const v of variants) {
      const a = perVariant[v].acc;
      md.push(headlineMarker({ figure: `voice match decisions right, ${v} (false matches when the owner is absent)`, value: `${(100 * a.accuracy).toFixed(1)} % (${a.falseMatch}/${a.absent}), ${label}`, data: DATASET, sample: 'in-sample', voices: 'synthetic', section: `${REPORT}#decision-accuracy` }));
    }
    if (diarized) {
      md.push('', '### With the pipeline\'s diarizer', '');
      md.push('The same decisions with the speaker regions of `createDiarizer()` (mono clustering, run without words) instead of the truth: a MATCHED speaker counts as right when most of its regions lie in the enrolled voice\'s truth turns. This is a snapshot of the diarizer at the time of the run.', '');
      md.push('| variant | voice present: right speaker | wrong speaker | missed | voice absent: NO_MATCH | false match | accuracy |', '|---|---|---|---|---|---|---|');
      for (const [v, t] of Object.entries(diarized)) {
        md.push(`| ${v} | ${t.presentOk}/${t.present} | ${t.wrongSpeaker} | ${t.missed} | ${t.absentOk}/${t.absent} | ${t.falseMatch} | ${((100 * (t.presentOk + t.absentOk)) / (t.present + t.absent)).toFixed(1)} % |`);
      }
      md.push('', stamp);
    }
    md.push('', ...(V1 ? NOTES : OPT_IN_NOTES));
    return md.join('\n') + '\n';
  };
  return { text: lines.join('\n'), markdown };
}

const NOTES = [
  '## How the features were chosen',
  '',
  'The features were chosen during development by comparing, on these trials, the gap between the lowest genuine and the highest impostor score for each candidate set (wideband MFCC statistics, pitch, spectral centroid, band-limited cepstra; with and without standardisation). Those comparisons were not kept as a script, so their numbers are not published here; the chosen features are the ones measured above.',
  '',
  '- MFCC standard deviations and delta statistics, cepstral means of voiced frames only, and pitch spread all narrowed the gap: they vary with the text and the amount of speech more than with the voice.',
  '- Wideband features separate wideband audio slightly better but collapse when the call is telephone-band and the profile is not (phone8k): the spectrum above 3.4 kHz is missing in the call and present in the profile. Real calls are often narrowband, so the embedding uses only 300-3400 Hz, which every channel keeps. For the same reason the shared `mfccFrames` (meyda, 0-8 kHz) is not used here; the band-limited filterbank is in `src/pipeline/voice/dsp.ts`.',
  '- Standardisation (`src/pipeline/voice/background.ts`, `--fit-background`) uses 20 background speakers that are never scored: 12 espeak-ng voices and the four flite voices pitch-shifted by +-3 semitones. The shifted voices are derived from the scored ones, so the background is not fully independent of the test set; with the espeak-ng voices alone the gaps shrank but stayed positive during development (not re-measured by this script).',
  '',
  '## Limits',
  '',
  '- Four synthetic voices are a very small speaker set, and a TTS voice is far more consistent between sessions than a person (microphone, distance, mood, illness). Genuine scores on real speech will be lower and impostor scores between similar real voices higher; the threshold should be re-checked on real enrollments before relying on it, and a neural extractor (the `onnx` provider slot of `createSpeakerEmbedder`) is the way to production-grade accuracy.',
  '- The corpus turns never overlap and the diarizer separates these voices cleanly. With diarization errors a speaker\'s embedding mixes in the other voice and its genuine score drops; the margin rule then prefers NO_MATCH to a guess.',
  '- Speakers with less than 1 s of speech get no embedding (`embedCallSpeakers` leaves them out).',
];

/** The fitted embedders' reports: how they were built is documented elsewhere, not chosen on these trials. */
const OPT_IN_NOTES = [
  '## Notes',
  '',
  '- How the fitted model and the fused decision are built, and why the fused decision is the default and the fitted model alone is not: docs/voice-embedders.md; their held-out figures on recorded people: docs/bench/voice-real.md (`bench/voice-real.ts`).',
  '- The four flite voices are few and very consistent between sessions; the fitted model was fitted on recorded people, so these trials are outside what it was fitted for (the statistics embedder\'s report, docs/bench/voice.md, says more about their limits).',
];

/** The corpus render's conversion (16 kHz mono 16-bit, pauses trimmed, -3 dBFS peak). */
function soxConvert(input: string, out: string, extra: string[] = []): void {
  execFileSync('sox', ['-R', '-D', '-V1', input, '-r', '16000', '-c', '1', '-b', '16', '-e', 'signed-integer', out,
    ...extra, 'silence', '1', '0.005', '-50d', 'reverse', 'silence', '1', '0.005', '-50d', 'reverse', 'norm', '-3']);
}

/**
 * Background statistics (centre and scale of each raw feature) from speakers that are not scored:
 * espeak-ng voices plus pitch-shifted flite voices, on sentences used nowhere else. Writes
 * src/pipeline/voice/background.ts. Needs espeak-ng (apt-get install espeak-ng).
 */
async function fitBackground(): Promise<void> {
  try {
    execFileSync('espeak-ng', ['--version'], { stdio: 'ignore' });
  } catch {
    throw new Error('--fit-background needs espeak-ng (apt-get install -y espeak-ng)');
  }
  const rows: Array<{ speaker: string; features: Float64Array }> = [];
  for (let i = 0; i < BACKGROUND_TEXTS.length; i++) {
    for (const v of BACKGROUND_ESPEAK) {
      const out = path.join(cacheDir, `bg-es-${v}-${i}.wav`);
      if (!fs.existsSync(out)) {
        fs.mkdirSync(cacheDir, { recursive: true });
        execFileSync('espeak-ng', ['-v', `en-us+${v}`, '-w', `${out}.raw.wav`, BACKGROUND_TEXTS[i]]);
        soxConvert(`${out}.raw.wav`, `${out}.tmp.wav`);
        fs.renameSync(`${out}.tmp.wav`, out);
        fs.rmSync(`${out}.raw.wav`);
      }
      rows.push({ speaker: `espeak-${v}`, features: (await speakerFeatures(await readMono(out), 16000)).features });
    }
    for (const v of VOICES) {
      for (const shift of BACKGROUND_SHIFTS) {
        const out = synthesize(v, BACKGROUND_TEXTS[i], path.join(cacheDir, `bg-${v}${shift}-${i}.wav`), ['pitch', String(shift)]);
        rows.push({ speaker: `${v}${shift}`, features: (await speakerFeatures(await readMono(out), 16000)).features });
      }
    }
  }
  const n = rows.length;
  const center = new Array<number>(FEATURE_DIM).fill(0);
  const scale = new Array<number>(FEATURE_DIM).fill(0);
  for (const r of rows) for (let i = 0; i < FEATURE_DIM; i++) center[i] += r.features[i] / n;
  for (const r of rows) for (let i = 0; i < FEATURE_DIM; i++) scale[i] += (r.features[i] - center[i]) ** 2 / n;
  for (let i = 0; i < FEATURE_DIM; i++) scale[i] = Math.sqrt(scale[i]);
  const fmt = (xs: number[]) => `[\n${xs.map((x) => `  ${x.toPrecision(7)},`).join('\n')}\n]`;
  const file = path.join(projectRoot, 'src/pipeline/voice/background.ts');
  fs.writeFileSync(
    file,
    `// Generated by \`node --import tsx bench/voice.ts --fit-background\`; do not edit by hand.
// Centre and scale of each raw speaker feature (layout: ${FEATURE_LAYOUT.map((b) => `${b.name}[${b.dim}]`).join(', ')}),
// estimated from ${n} samples of ${new Set(rows.map((r) => r.speaker)).size} background speakers (${BACKGROUND_ESPEAK.length} espeak-ng voices and
// the corpus flite voices shifted by ${BACKGROUND_SHIFTS.join('/')} cents), none of them a scored voice.
// Part of what a stored profile means: refitting needs a new embedder provider id.
export const FEATURE_CENTER: readonly number[] = ${fmt(center)};

export const FEATURE_SCALE: readonly number[] = ${fmt(scale)};
`,
  );
  console.log(`wrote ${path.relative(projectRoot, file)} from ${n} background samples`);
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('bench/voice.ts')) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}

// Calibration of the voice embedder and matcher on the synthetic corpus.
//
//   node --import tsx bench/voice.ts                 # run, print, write docs/bench/voice.md
//   node --import tsx bench/voice.ts --no-write      # print only
//   node --import tsx bench/voice.ts --fit-background  # re-estimate src/pipeline/voice/background.ts
//
// Enrollment samples are synthesised per corpus voice with flite from sentences that do not occur
// in the corpus (Harvard sentences), converted the way the corpus render does. Each call speaker
// is embedded from the TRUTH turn regions, so the numbers measure the embedder, not the diarizer.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { corpusFile, corpusIds, ensureCorpus, loadTruth, projectRoot, type Truth } from '../test/support/corpus.js';
import { FEATURE_DIM, FEATURE_LAYOUT, MfccStatsEmbedder, featuresToEmbedding, speakerFeatures } from '../src/pipeline/voice/embedder.js';
import { DEFAULT_VOICE_MATCH_MARGIN, DEFAULT_VOICE_MATCH_THRESHOLD, matchUserVoice, scoreSpeakers } from '../src/pipeline/voice/match.js';

export const VOICES = ['slt', 'kal16', 'rms', 'awb'] as const;

// Harvard sentences (IEEE 1969): none of them occurs in the corpus dialogues.
export const ENROLLMENT_TEXTS = [
  'The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background. It is easy to tell the depth of a well. These days a chicken leg is a rare dish. Rice is often served in round bowls. The juice of lemons makes fine punch.',
  'The box was thrown beside the parked truck. The hogs were fed chopped corn and garbage. Four hours of steady work faced us. A large size in stockings is hard to sell. The boy was there when the sun rose. A rod is used to catch pink salmon.',
  'The source of the huge river is the clear spring. Kick the ball straight and follow through. Help the woman get back to her feet. A pot of tea helps to pass the evening. Smoky fires lack flame and heat. The soft cushion broke the man\'s fall.',
];
/** Sentences only used to build the background statistics, never for scoring. */
const BACKGROUND_TEXTS = [
  'The salt breeze came across from the sea. The girl at the booth sold fifty bonds. The small pup gnawed a hole in the sock. The fish twisted and turned on the bent hook. Press the pants and sew a button on the vest. The swan dive was far short of perfect.',
];

const cacheDir = path.join(projectRoot, '.cache/voice-bench');

/** A flite sample converted like the corpus render: 16 kHz mono 16-bit, pauses trimmed, -3 dBFS peak. */
export function synthesize(voice: string, text: string, out: string, extraSox: string[] = []): string {
  if (fs.existsSync(out)) return out;
  fs.mkdirSync(path.dirname(out), { recursive: true });
  const raw = `${out}.raw.wav`;
  const txt = `${out}.txt`;
  fs.writeFileSync(txt, text + '\n');
  execFileSync('flite', ['-voice', voice, '-f', txt, '-o', raw]);
  execFileSync('sox', ['-R', '-D', '-V1', raw, '-r', '16000', '-c', '1', '-b', '16', '-e', 'signed-integer', `${out}.tmp.wav`,
    ...extraSox, 'silence', '1', '0.005', '-50d', 'reverse', 'silence', '1', '0.005', '-50d', 'reverse', 'norm', '-3']);
  fs.renameSync(`${out}.tmp.wav`, out);
  fs.rmSync(raw);
  fs.rmSync(txt);
  return out;
}

/** Any audio file to 16 kHz float channels via ffmpeg. */
export function readAudio(file: string, channels: 1 | 2 = 1): Float32Array[] {
  const buf = execFileSync('ffmpeg', ['-nostdin', '-hide_banner', '-loglevel', 'error', '-i', file, '-ac', String(channels), '-ar', '16000', '-f', 'f32le', '-'], {
    maxBuffer: 1 << 28,
  });
  const all = new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4);
  if (channels === 1) return [Float32Array.from(all)];
  const n = all.length / 2;
  const l = new Float32Array(n);
  const r = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    l[i] = all[2 * i];
    r[i] = all[2 * i + 1];
  }
  return [l, r];
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
  ensureCorpus();
  const embedder = new MfccStatsEmbedder();

  if (args.has('--fit-background')) {
    await fitBackground();
    return;
  }

  // Enrollment profiles: every voice x every enrollment text.
  const profiles: Array<{ id: string; voice: string; emb: Float32Array }> = [];
  for (const voice of VOICES) {
    for (let i = 0; i < ENROLLMENT_TEXTS.length; i++) {
      const file = synthesize(voice, ENROLLMENT_TEXTS[i], path.join(cacheDir, `enroll-${voice}-${i}.wav`));
      const [samples] = readAudio(file);
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
      const chans = readAudio(file, variant === 'stereo' ? 2 : 1);
      const embs: Record<string, Float32Array> = {};
      for (const sp of ['A', 'B'] as const) {
        const samples = variant === 'stereo' ? chans[sp === 'A' ? 0 : 1] : chans[0];
        embs[sp] = await embedder.embed(samples, 16000, regionsOf(truth, sp));
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

  const report = analyse(trials, profiles, callEmb, voicesOf, variants);
  const seconds = (Date.now() - t0) / 1000;
  console.log(report.text);
  console.log(`\n(${trials.length} trials, ${seconds.toFixed(1)} s)`);
  if (!args.has('--no-write')) {
    const doc = path.join(projectRoot, 'docs/bench/voice.md');
    fs.mkdirSync(path.dirname(doc), { recursive: true });
    fs.writeFileSync(doc, report.markdown(seconds));
    console.log(`wrote ${path.relative(projectRoot, doc)}`);
  }
}

/** Threshold candidates between the observed scores; returns the equal-error point and the best-accuracy point. */
function chooseThreshold(genuine: number[], impostor: number[]) {
  const cands = [...genuine, ...impostor].sort((a, b) => a - b);
  let eer = { threshold: 0, far: 1, frr: 0, gap: Infinity };
  for (const t of cands) {
    const far = impostor.filter((s) => s >= t).length / impostor.length;
    const frr = genuine.filter((s) => s < t).length / genuine.length;
    const gap = Math.abs(far - frr);
    if (gap < eer.gap) eer = { threshold: t, far, frr, gap };
  }
  const minGenuine = Math.min(...genuine);
  const maxImpostor = Math.max(...impostor);
  return { eer, minGenuine, maxImpostor, separated: minGenuine > maxImpostor, midpoint: (minGenuine + maxImpostor) / 2 };
}

/** Decision accuracy as the pipeline makes it: per call and enrolled profile, one MATCHED speaker or NO_MATCH. */
function decisionAccuracy(
  profiles: Array<{ id: string; voice: string; emb: Float32Array }>,
  calls: Record<string, Record<string, Float32Array>>,
  voicesOf: Record<string, Record<'A' | 'B', string>>,
  threshold: number,
  margin: number,
) {
  let present = 0, presentOk = 0, absent = 0, absentOk = 0, wrongSpeaker = 0, missed = 0, falseMatch = 0;
  for (const [id, embs] of Object.entries(calls)) {
    for (const p of profiles) {
      const truthSpeaker = (['A', 'B'] as const).find((s) => voicesOf[id][s] === p.voice) ?? null;
      const m = matchUserVoice(scoreSpeakers(p.emb, embs), threshold, margin);
      if (truthSpeaker) {
        present++;
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
  return { present, presentOk, absent, absentOk, wrongSpeaker, missed, falseMatch, accuracy: (presentOk + absentOk) / (present + absent) };
}

function analyse(
  trials: Trial[],
  profiles: Array<{ id: string; voice: string; emb: Float32Array }>,
  callEmb: Record<string, Record<string, Record<string, Float32Array>>>,
  voicesOf: Record<string, Record<'A' | 'B', string>>,
  variants: Variant[],
) {
  const lines: string[] = [];
  const md: string[] = [];
  const f = (x: number) => x.toFixed(3);
  const statRow = (name: string, s: Stats) => `| ${name} | ${s.n} | ${f(s.min)} | ${f(s.p5)} | ${f(s.median)} | ${f(s.mean)} | ${f(s.p95)} | ${f(s.max)} |`;
  const header = ['| set | n | min | p5 | median | mean | p95 | max |', '|---|---|---|---|---|---|---|---|'];

  const perVariant: Record<string, { gen: Stats; imp: Stats; choice: ReturnType<typeof chooseThreshold>; acc: ReturnType<typeof decisionAccuracy> }> = {};
  for (const v of variants) {
    const gen = trials.filter((t) => t.variant === v && t.enrolledVoice === t.speakerVoice).map((t) => t.score);
    const imp = trials.filter((t) => t.variant === v && t.enrolledVoice !== t.speakerVoice).map((t) => t.score);
    perVariant[v] = {
      gen: stats(gen),
      imp: stats(imp),
      choice: chooseThreshold(gen, imp),
      acc: decisionAccuracy(profiles, callEmb[v], voicesOf, DEFAULT_VOICE_MATCH_THRESHOLD, DEFAULT_VOICE_MATCH_MARGIN),
    };
  }
  const m = perVariant.mono16k;
  lines.push(`voices ${VOICES.join(',')}; ${profiles.length} enrollment profiles; embedding dim ${FEATURE_DIM}`);
  for (const v of variants) {
    const p = perVariant[v];
    lines.push(`${v.padEnd(8)} genuine  ${JSON.stringify(p.gen, (_, x) => (typeof x === 'number' && !Number.isInteger(x) ? +x.toFixed(3) : x))}`);
    lines.push(`${v.padEnd(8)} impostor ${JSON.stringify(p.imp, (_, x) => (typeof x === 'number' && !Number.isInteger(x) ? +x.toFixed(3) : x))}`);
    lines.push(`${v.padEnd(8)} EER ${f(p.choice.eer.threshold)} (far ${f(p.choice.eer.far)} frr ${f(p.choice.eer.frr)}); min genuine ${f(p.choice.minGenuine)} max impostor ${f(p.choice.maxImpostor)}`);
    lines.push(`${v.padEnd(8)} decisions @${DEFAULT_VOICE_MATCH_THRESHOLD}/${DEFAULT_VOICE_MATCH_MARGIN}: ${JSON.stringify(p.acc)}`);
  }
  // Per voice pair means, mono16k: where the confusions are.
  const pairs: string[] = [];
  for (const ev of VOICES) {
    const row = VOICES.map((sv) => {
      const xs = trials.filter((t) => t.variant === 'mono16k' && t.enrolledVoice === ev && t.speakerVoice === sv).map((t) => t.score);
      return xs.length ? stats(xs) : null;
    });
    pairs.push(`| ${ev} | ${row.map((s) => (s ? `${f(s.mean)} (${f(s.min)}-${f(s.max)})` : '-')).join(' | ')} |`);
  }
  lines.push('', 'enrolled \\ call speaker (mono16k): mean (min-max)', ...pairs);

  return {
    text: lines.join('\n'),
    markdown: (seconds: number) => {
      md.push('# Voice embedding and matching: calibration', '');
      md.push(`Generated by \`node --import tsx bench/voice.ts\` (${new Date().toISOString().slice(0, 10)}, ${seconds.toFixed(0)} s on this machine). Embedder \`embedded-mfcc-stats-v1\`, ${FEATURE_DIM} dimensions.`, '');
      md.push('## Setup', '');
      md.push(`- Enrollment: for each corpus voice (${VOICES.join(', ')}) ${ENROLLMENT_TEXTS.length} separate flite samples of six Harvard sentences each (none occurs in the corpus), 13-17 s, converted like \`render.sh\` (16 kHz mono 16-bit, pauses trimmed, -3 dBFS peak): ${profiles.length} profiles.`);
      md.push('- Call speakers: each speaker A and B of the 12 calls is embedded from its TRUTH turn regions (so this measures the embedder, not the diarizer). `stereo` embeds each speaker from its own channel (as `embedCallSpeakers` does); the other variants use the mono mix.');
      md.push('- Score: cosine similarity of the L2-normalised embeddings mapped to [0,1] as (1 + cos) / 2.');
      md.push('- Genuine trial: profile voice = call speaker voice; impostor trial: different voices.', '');
      md.push('## Score distributions', '');
      for (const v of variants) {
        const p = perVariant[v];
        md.push(`### ${v}`, '', ...header, statRow('genuine', p.gen), statRow('impostor', p.imp), '');
        md.push(`Equal-error point ${f(p.choice.eer.threshold)} (false accept ${f(p.choice.eer.far)}, false reject ${f(p.choice.eer.frr)}); lowest genuine ${f(p.choice.minGenuine)}, highest impostor ${f(p.choice.maxImpostor)}${p.choice.separated ? ': fully separated' : ': overlapping'}.`, '');
      }
      md.push('### Mean score per pair (mono16k)', '', `| enrolled \\ speaker | ${VOICES.join(' | ')} |`, `|---|${VOICES.map(() => '---').join('|')}|`, ...pairs, '');
      md.push('## Threshold', '');
      md.push(`\`DEFAULT_VOICE_MATCH_THRESHOLD = ${DEFAULT_VOICE_MATCH_THRESHOLD}\`, \`DEFAULT_VOICE_MATCH_MARGIN = ${DEFAULT_VOICE_MATCH_MARGIN}\` (src/pipeline/voice/match.ts). On mono16k the highest impostor score is ${f(m.choice.maxImpostor)} and the lowest genuine ${f(m.choice.minGenuine)}.`, '');
      md.push('## Decision accuracy', '');
      md.push('For each call and each enrollment profile: when the profile\'s voice speaks in the call, is exactly that speaker MATCHED; when it does not, is NO_MATCH returned.', '');
      md.push('| variant | voice present: right speaker | wrong speaker | missed | voice absent: NO_MATCH | false match | accuracy |', '|---|---|---|---|---|---|---|');
      for (const v of variants) {
        const a = perVariant[v].acc;
        md.push(`| ${v} | ${a.presentOk}/${a.present} | ${a.wrongSpeaker} | ${a.missed} | ${a.absentOk}/${a.absent} | ${a.falseMatch} | ${(100 * a.accuracy).toFixed(1)} % |`);
      }
      md.push('');
      md.push(...NOTES);
      return md.join('\n') + '\n';
    },
  };
}

const NOTES: string[] = [];

/** Background statistics: centre and scale of each raw feature, from speech not used for scoring. */
async function fitBackground(): Promise<void> {
  const rows: Float64Array[] = [];
  for (const voice of VOICES) {
    for (let i = 0; i < BACKGROUND_TEXTS.length; i++) {
      const file = synthesize(voice, BACKGROUND_TEXTS[i], path.join(cacheDir, `bg-${voice}-${i}.wav`));
      const [samples] = readAudio(file);
      rows.push((await speakerFeatures(samples, 16000)).features);
    }
  }
  const n = rows.length;
  const center = new Array<number>(FEATURE_DIM).fill(0);
  const scale = new Array<number>(FEATURE_DIM).fill(0);
  for (const r of rows) for (let i = 0; i < FEATURE_DIM; i++) center[i] += r[i] / n;
  for (const r of rows) for (let i = 0; i < FEATURE_DIM; i++) scale[i] += (r[i] - center[i]) ** 2 / n;
  for (let i = 0; i < FEATURE_DIM; i++) scale[i] = Math.sqrt(scale[i]);
  console.log(JSON.stringify({ n, layout: FEATURE_LAYOUT, center, scale }));
  void featuresToEmbedding;
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('bench/voice.ts')) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}

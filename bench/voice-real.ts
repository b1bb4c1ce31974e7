// Voice matching on REAL voices the model never saw: the HELD-OUT speakers of
// bench/support/real-speakers.ts (asterisk prompt readers and ktuberling word readers). The
// embedded model (src/pipeline/voice/voice-model.ts) is fitted by bench/fit-voice.ts on the other,
// TRAINING speakers only.
//
//   node --import tsx bench/voice-real.ts              # run, print, write docs/bench/voice-real.md
//   node --import tsx bench/voice-real.ts --no-write   # print only
//
// Profiles: per held-out speaker, two stretches of about 15 s of speech (12 s for the word readers,
// who have less) through two enrolment microphones (studio, handset). Call parties: three further
// stretches of about 8 s per speaker, through the four microphone chains in turn, then encoded
// (16 kHz, m4a, 8 kHz telephone). A two-party call is any two parties of different speakers in the
// same encoding; each party is embedded from its own speech, as the pipeline does from the truth
// regions (this measures embedder and decision, not the diarizer). Also scored: the project's six
// two-party real-voice calls (test/support/real-voices.ts), whose voices are all held-out.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { readWavMono } from '../src/pipeline/audio/decode.js';
import { FUSED_PROVIDER, FUSED_V1_GATE, MfccStatsEmbedder, createSpeakerEmbedder, featuresToEmbedding, projectStatistics, speechFrames, summariseFrames, v1Features } from '../src/pipeline/voice/embedder.js';
import { DEFAULT_VOICE_MATCH_MARGIN, DEFAULT_VOICE_MATCH_THRESHOLD, fusedMatch, matchUserVoice, normalizedScores, scoreSpeakers } from '../src/pipeline/voice/match.js';
import { VOICE_MODEL } from '../src/pipeline/voice/voice-model.js';
import { projectRoot } from '../test/support/corpus.js';
import { REAL_VOICE_CALLS, loadRealVoiceTruth, realVoiceFile, type RealVoiceFile } from '../test/support/real-voices.js';
import { provenanceLine, startProvenance } from './support/provenance.js';
import { cachedFrames, type CachedFrames } from './support/voice-frames.js';
import { voiceHeadline } from './support/headline.js';
import { ENCODINGS, HELD_OUT_SPEAKERS, MIC_NAMES, SR, TRAINING_SPEAKERS, encode, takeSpeech, throughMic, utteranceFiles, type Encoding, type Mic } from './support/real-speakers.js';

const ENROL_MICS: Mic[] = ['studio', 'handset'];
/**
 * The same embedders on the synthetic flite voices are measured by bench/voice.ts, each in its own
 * report (`npm run bench -- --only voice,voice-lda,voice-fused`); this script measures real voices
 * only and points at those reports rather than quoting them.
 */
const SYNTHETIC_REPORTS = '`docs/bench/voice.md` (the statistics embedder, `bench/voice.ts`), `docs/bench/voice-lda.md` (the fitted embedder alone, `bench/voice.ts --embedder v4`) and `docs/bench/voice-fused.md` (the fused decision, `bench/voice.ts --embedder fused`)';
const PROFILE_STRETCHES = 2;
const PARTY_STRETCHES = 3;
const PARTY_SECONDS = 8;
const CALL_FILES: Record<Encoding, RealVoiceFile> = { '16 kHz': 'mono16k.wav', m4a: 'call.m4a', '8 kHz phone': 'phone8k.wav' };

/**
 * The decisions compared: the statistics embedder with its fixed threshold (v1, the default before
 * issue 27's fusion), the fitted one alone (v2, opt-in), and the fused default (the fitted decision
 * among the parties whose statistics-embedder score reaches a gate: src/pipeline/voice/match.ts fusedMatch).
 */
type Method = 'v1' | 'v2' | 'fused';
const METHODS: Method[] = ['v1', 'v2', 'fused'];
/** The embedder VOICE_EMBEDDING_PROVIDER=embedded gives (the texts below say which one is the default). */
const DEFAULT_PROVIDER = (await createSpeakerEmbedder({ provider: 'embedded' })).provider;
const FUSED_IS_DEFAULT = DEFAULT_PROVIDER === FUSED_PROVIDER;
interface Emb { v1: Float32Array; v2: Float32Array }

const v1 = new MfccStatsEmbedder();
const e2dim = VOICE_MODEL.projection.length;

/** Both embeddings from one frame analysis: what MfccStatsEmbedder and ProjectedStatsEmbedder compute. */
function embedFrames(fr: CachedFrames): Emb {
  return { v1: featuresToEmbedding(v1Features(fr)), v2: projectStatistics(summariseFrames(fr, VOICE_MODEL.statistics ?? 'msp'), VOICE_MODEL) };
}

async function embedBoth(pcm: Float32Array, regions?: Array<{ start: number; end: number }>): Promise<Emb | null> {
  try {
    return embedFrames(await speechFrames(pcm, SR, regions));
  } catch {
    return null; // too little speech: left out, as the pipeline leaves such a party out
  }
}

/** A rendering of a held-out stretch; its frames are cached (the analysis does not depend on the fitted model). */
async function embedRendering(key: string, render: () => Float32Array): Promise<Emb | null> {
  const fr = await cachedFrames(`heldout-${key}`, render, SR);
  return fr ? embedFrames(fr) : null;
}

function decide(method: Method, profile: Emb, parties: Record<string, Emb>): string | null {
  if (method === 'fused') {
    const cat = (e: Emb) => Float32Array.from([...e.v2, ...e.v1]);
    return fusedMatch(cat(profile), Object.fromEntries(Object.entries(parties).map(([k, e]) => [k, cat(e)])), VOICE_MODEL, { fittedDim: e2dim, gate: FUSED_V1_GATE }).match.matchedSpeaker;
  }
  if (method === 'v1') return matchUserVoice(scoreSpeakers(profile.v1, Object.fromEntries(Object.entries(parties).map(([k, e]) => [k, e.v1])))).matchedSpeaker;
  const z = normalizedScores(profile.v2, Object.fromEntries(Object.entries(parties).map(([k, e]) => [k, e.v2])), VOICE_MODEL);
  return matchUserVoice(z, VOICE_MODEL.threshold, VOICE_MODEL.margin).matchedSpeaker;
}

interface Decision { set: 'pairs' | 'calls'; method: Method; encoding: Encoding; owner: string; expected: string | null; got: string | null }

/** The acceptance of issue 27 on the fitted embedder's two-party calls, per encoding, from the decisions themselves. */
function acceptanceReading(decisions: Decision[], method: Method, name: string): string {
  const parts = ENCODINGS.map((enc) => {
    const ds = decisions.filter((d) => d.set === 'pairs' && d.method === method && d.encoding === enc);
    const present = ds.filter((d) => d.expected !== null);
    const absent = ds.filter((d) => d.expected === null);
    const named = present.filter((d) => d.got === d.expected).length / Math.max(1, present.length);
    const wrong = present.filter((d) => d.got !== null && d.got !== d.expected).length;
    const falseNamed = absent.filter((d) => d.got !== null).length / Math.max(1, absent.length);
    const misses = [
      ...(falseNamed > 0.05 ? [`a party named in ${(100 * falseNamed).toFixed(1)} % of owner-absent calls (bound 5 %)`] : []),
      ...(named < 0.85 ? [`the owner named in ${(100 * named).toFixed(1)} % (bound 85 %)`] : []),
      ...(wrong > 0 ? [`the wrong party named ${wrong} times`] : []),
    ];
    return { enc, misses };
  });
  const met = parts.filter((p) => p.misses.length === 0).map((p) => p.enc);
  const failing = parts.filter((p) => p.misses.length > 0).map((p) => `${p.enc}: ${p.misses.join(', ')}`);
  return failing.length === 0
    ? `- Acceptance of issue 27 (owner absent: a party named in at most 5 %; owner present: named in at least 85 %, never the wrong party) is **reached** by ${name} in every encoding on these held-out speakers.`
    : `- Acceptance of issue 27 (owner absent: a party named in at most 5 %; owner present: named in at least 85 %, never the wrong party) is **not reached** by ${name}${met.length ? ` (met in ${met.join(', ')})` : ''}: ${failing.join('; ')}. `;
}

/** What the gate changed on the held-out two-party calls, per encoding: fused against the fitted decision alone. */
function gateEffect(decisions: Decision[]): string {
  const parts = ENCODINGS.map((enc) => {
    const of = (m: Method) => decisions.filter((d) => d.set === 'pairs' && d.method === m && d.encoding === enc);
    const fitted = of('v2');
    const fused = of('fused');
    const ownerLost = fitted.filter((d, i) => d.expected !== null && d.got === d.expected && fused[i].got !== d.got).length;
    const absentKept = fitted.filter((d, i) => d.expected === null && d.got !== null && fused[i].got === null).length;
    const wrongKept = fitted.filter((d, i) => d.expected !== null && d.got !== null && d.got !== d.expected && fused[i].got === null).length;
    // With the gate applied first a rival under it no longer blocks a naming: the fused decision can
    // name where the fitted one alone names nobody.
    const ownerGained = fitted.filter((d, i) => d.expected !== null && d.got !== d.expected && fused[i].got === d.expected).length;
    const absentAdded = fitted.filter((d, i) => d.expected === null && d.got === null && fused[i].got !== null).length;
    const wrongAdded = fitted.filter((d, i) => d.expected !== null && (d.got === null || d.got === d.expected) && fused[i].got !== null && fused[i].got !== d.expected).length;
    const present = fitted.filter((d) => d.expected !== null).length;
    return `${enc}: ${ownerLost} of ${present} owner namings lost (${((100 * ownerLost) / Math.max(1, present)).toFixed(1)} points) and ${ownerGained} gained, ${absentKept} owner-absent and ${wrongKept} wrong-party namings prevented, ${absentAdded} owner-absent and ${wrongAdded} wrong-party namings added`;
  });
  return `${parts.join('; ')} (a lost naming is an owner whom the statistics embedder scores under the gate against their own profile; a gained or added one a call where the fitted decision alone preferred, or could not tell from the named party, a party that the statistics embedder scores under the gate). In the training speakers' cross-validation the gate cost nothing only with threshold and margin refitted for it; with the fitted decision's own threshold and margin it cost owner namings there too, and applying the gate first (so that a party under it is no rival) changed almost nothing there (\`node --import tsx bench/fit-voice.ts --fused\` prints that cross-validation, recorded in that script's header)`;
}

async function samples16k(file: string): Promise<Float32Array> {
  const tmp = path.join(os.tmpdir(), `voice-real-${process.pid}.wav`);
  try {
    execFileSync('ffmpeg', ['-nostdin', '-loglevel', 'error', '-y', '-i', file, '-ac', '1', '-ar', String(SR), '-c:a', 'pcm_s16le', tmp], { timeout: 120_000 });
    return (await readWavMono(tmp)).samples;
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

async function main(): Promise<void> {
  const write = !process.argv.includes('--no-write');
  const prov = startProvenance(`held-out real speakers (${HELD_OUT_SPEAKERS.join(', ')}) of bench/support/real-speakers.ts`, 'held-out');
  const t0 = Date.now();

  const profiles: Array<{ id: string; speaker: string; emb: Emb; seconds: number }> = [];
  const parties: Array<{ id: string; speaker: string; mic: Mic; seconds: number; emb: Partial<Record<Encoding, Emb>> }> = [];
  for (const speaker of HELD_OUT_SPEAKERS) {
    const files = utteranceFiles(speaker);
    const profileSeconds = speaker.startsWith('tux-') ? 12 : 15;
    let at = 0;
    for (let i = 0; i < PROFILE_STRETCHES; i++) {
      const { pcm, next, speechSeconds } = takeSpeech(files, at, profileSeconds);
      at = next;
      for (const mic of ENROL_MICS) {
        const emb = await embedRendering(`${speaker}-p${i}-${mic}`, () => throughMic(pcm, mic));
        if (emb) profiles.push({ id: `${speaker}/${mic}#${i}`, speaker, emb, seconds: speechSeconds });
      }
    }
    for (let k = 0; k < PARTY_STRETCHES; k++) {
      const { pcm, next, speechSeconds } = takeSpeech(files, at, PARTY_SECONDS);
      at = next;
      if (speechSeconds < 2) break;
      const mic = MIC_NAMES[(HELD_OUT_SPEAKERS.indexOf(speaker) + k) % MIC_NAMES.length];
      const party = { id: `${speaker}#${k}`, speaker, mic, seconds: speechSeconds, emb: {} as Partial<Record<Encoding, Emb>> };
      let miced: Float32Array | null = null;
      for (const enc of ENCODINGS) {
        const e = await embedRendering(`${speaker}-c${k}-${mic}-${enc}`, () => encode((miced ??= throughMic(pcm, mic)), enc, 1000 + k));
        if (e) party.emb[enc] = e;
      }
      parties.push(party);
    }
    process.stderr.write(`${speaker}: ${profiles.filter((p) => p.speaker === speaker).length} profiles, ${parties.filter((p) => p.speaker === speaker).length} parties\n`);
  }

  const decisions: Decision[] = [];
  for (const enc of ENCODINGS) {
    for (let i = 0; i < parties.length; i++) {
      for (let j = i + 1; j < parties.length; j++) {
        const a = parties[i];
        const b = parties[j];
        if (a.speaker === b.speaker) continue;
        const call: Record<string, Emb> = {};
        if (a.emb[enc]) call.A = a.emb[enc]!;
        if (b.emb[enc]) call.B = b.emb[enc]!;
        for (const p of profiles) {
          const expected = a.speaker === p.speaker ? 'A' : b.speaker === p.speaker ? 'B' : null;
          for (const method of METHODS) decisions.push({ set: 'pairs', method, encoding: enc, owner: p.speaker, expected, got: decide(method, p.emb, call) });
        }
      }
    }
  }
  // The project's two-party real-voice calls, parties embedded from their truth turns.
  for (const c of REAL_VOICE_CALLS.filter((x) => x.kind === 'two-party')) {
    const truth = loadRealVoiceTruth(c.id);
    for (const enc of ENCODINGS) {
      const pcm = await samples16k(realVoiceFile(c.id, CALL_FILES[enc]));
      const call: Record<string, Emb> = {};
      for (const sp of ['A', 'B'] as const) {
        const e = await embedBoth(pcm, truth.turns.filter((t) => t.speaker === sp).map((t) => ({ start: t.startSeconds, end: t.endSeconds })));
        if (e) call[sp] = e;
      }
      for (const p of profiles) {
        const expected = Object.entries(truth.speakers).find(([, s]) => s.voice === p.speaker)?.[0] ?? null;
        for (const method of METHODS) decisions.push({ set: 'calls', method, encoding: enc, owner: p.speaker, expected, got: decide(method, p.emb, call) });
      }
    }
  }
  const provenance = prov.finish();

  const pct = (a: number, b: number) => (b ? `${((100 * a) / b).toFixed(1)} %` : 'n/a');
  const row = (ds: Decision[]) => {
    const present = ds.filter((d) => d.expected !== null);
    const absent = ds.filter((d) => d.expected === null);
    const named = present.filter((d) => d.got === d.expected).length;
    const wrong = present.filter((d) => d.got !== null && d.got !== d.expected).length;
    const falseNamed = absent.filter((d) => d.got !== null).length;
    return `${named}/${present.length} (${pct(named, present.length)}) | ${wrong} | ${falseNamed}/${absent.length} (${pct(falseNamed, absent.length)})`;
  };
  const table = (set: Decision['set'], method: Method) => [
    '| encoding | owner present: named | wrong party named | owner absent: a party named |',
    '|---|---|---|---|',
    ...ENCODINGS.map((enc) => `| ${enc} | ${row(decisions.filter((d) => d.set === set && d.method === method && d.encoding === enc))} |`),
  ];
  const perOwner = [
    `| owner | profiles | ${ENCODINGS.map((e) => `${e}: named / absent-named`).join(' | ')} |`,
    `|---|---|${ENCODINGS.map(() => '---').join('|')}|`,
    ...HELD_OUT_SPEAKERS.map((s) => {
      const cells = ENCODINGS.map((enc) => {
        const ds = decisions.filter((d) => d.set === 'pairs' && d.method === 'fused' && d.encoding === enc && d.owner === s);
        const present = ds.filter((d) => d.expected !== null);
        const absent = ds.filter((d) => d.expected === null);
        return `${pct(present.filter((d) => d.got === d.expected).length, present.length)} / ${pct(absent.filter((d) => d.got !== null).length, absent.length)}`;
      });
      return `| ${s} | ${profiles.filter((p) => p.speaker === s).length} | ${cells.join(' | ')} |`;
    }),
  ];
  const cmd = 'node --import tsx bench/voice-real.ts';
  const line = provenanceLine(provenance, cmd);
  // Headline lines (bench/run.ts): the default embedder, then the opt-in fitted one, beside the
  // synthetic-voice figure of bench/voice.ts.
  const headlineData = `real voices: ${HELD_OUT_SPEAKERS.length} held-out speakers, two-party pairs (bench/support/real-speakers.ts)`;
  const label = (m: Method) => {
    const provider = m === 'v1' ? v1.provider : m === 'v2' ? VOICE_MODEL.id : FUSED_PROVIDER;
    return `${provider === DEFAULT_PROVIDER ? 'default' : 'opt-in'} ${provider}`;
  };
  // The default's lines first, then the opt-in ones.
  const order = (['v1', 'fused', 'v2'] as Method[]).sort((a, b) => Number(label(b).startsWith('default')) - Number(label(a).startsWith('default')));
  const headlines = order.flatMap((m) => table('pairs', m).slice(2).map((r) => voiceHeadline(r, { data: headlineData, sample: 'held-out', section: 'voice-real.md', embedder: label(m) })));
  const fusedNote = `decision: among the parties that score at least ${FUSED_V1_GATE} with \`${v1.provider}\` (cosine mapped to [0,1]), the fitted model's decision (below) names one or none; the gate chosen in the training speakers' cross-validation (bench/fit-voice.ts, \`FUSED_V1_GATE\` in src/pipeline/voice/embedder.ts)`;
  const text = [
    '# Voice matching on real voices (held-out speakers)',
    '',
    `Generated by \`${cmd}\` (${((Date.now() - t0) / 1000).toFixed(0)} s). ${FUSED_IS_DEFAULT ? 'Default' : 'Opt-in'} embedder \`${FUSED_PROVIDER}\` (${FUSED_IS_DEFAULT ? '`VOICE_EMBEDDING_PROVIDER=embedded`' : '`VOICE_EMBEDDING_PROVIDER=embedded-fused`'}): two embeddings of one analysis, ${fusedNote}.`,
    `Its parts, each also scored alone: the fitted embedder \`${VOICE_MODEL.id}\` (opt-in alone: \`VOICE_EMBEDDING_PROVIDER=embedded-lda\`) (statistics \`${VOICE_MODEL.statistics ?? 'msp'}\` of telephone-band cepstra${VOICE_MODEL.statistics === 'mspd' ? ', their deltas' : ''} and pitch, ${VOICE_MODEL.projection.length === VOICE_MODEL.center.length ? 'within-speaker covariance normalisation (WCCN)' : 'LDA projection'} to ${VOICE_MODEL.projection.length} dimensions, S-norm against a cohort of ${VOICE_MODEL.cohort.length} training-speaker embeddings (the ${VOICE_MODEL.cohortTopK} closest of them: ${VOICE_MODEL.cohortTopK === VOICE_MODEL.cohort.length ? 'all, which cross-validated better than an adaptive subset' : 'adaptive'}); decision: best normalised score at least ${VOICE_MODEL.threshold} and ${VOICE_MODEL.margin} above the other party), fitted by \`bench/fit-voice.ts\` on the ${TRAINING_SPEAKERS.length} training speakers only;`,
    `and the statistics embedder \`${v1.provider}\` (${v1.provider === DEFAULT_PROVIDER ? 'the default' : 'the default before the fusion'}; cosine, threshold ${DEFAULT_VOICE_MATCH_THRESHOLD}, margin ${DEFAULT_VOICE_MATCH_MARGIN}), whose background statistics come from synthetic voices: these speakers are held-out for it too.`,
    '',
    `- Held-out speakers (${HELD_OUT_SPEAKERS.length}, the fixed list in bench/support/real-speakers.ts): ${HELD_OUT_SPEAKERS.join(', ')}. That is few: ${HELD_OUT_SPEAKERS.length} distinct people, so the trials below are many but strongly correlated, and one unusual voice moves a rate by several points.`,
    `- Profiles: ${profiles.length} = per speaker ${PROFILE_STRETCHES} stretches of about 15 s (12 s for the word readers) x ${ENROL_MICS.length} enrolment microphones (${ENROL_MICS.join(', ')}).`,
    `- Call parties: ${parties.length} = per speaker ${PARTY_STRETCHES} stretches of about ${PARTY_SECONDS} s of other recordings, microphone chains in turn (${MIC_NAMES.join(', ')}). Calls: every pair of parties of two different speakers, per encoding.`,
    '- Owner present: the profile\'s speaker is one of the two parties; right when that party is named. Owner absent: neither party is the profile\'s speaker; right when nobody is named.',
    '',
    `## Fused decision (${FUSED_IS_DEFAULT ? 'the default' : 'opt-in'}), two-party calls of held-out speakers`,
    '',
    ...table('pairs', 'fused'),
    '',
    line,
    '',
    `## Fused decision, the project's six real-voice calls`,
    '',
    'Parties embedded from the truth turns; the one-word answerers often have too little speech and are left out (then only the other party can be named).',
    '',
    ...table('calls', 'fused'),
    '',
    line,
    '',
    '## Fitted embedder alone (embedded-lda), same trials',
    '',
    'Two-party calls of held-out speakers:',
    '',
    ...table('pairs', 'v2'),
    '',
    line,
    '',
    'The project\'s six real-voice calls:',
    '',
    ...table('calls', 'v2'),
    '',
    line,
    '',
    `## Statistics embedder alone (${v1.provider}, fixed threshold${v1.provider === DEFAULT_PROVIDER ? '' : '; the default before the fusion'}), same trials`,
    '',
    'Two-party calls of held-out speakers:',
    '',
    ...table('pairs', 'v1'),
    '',
    line,
    '',
    'The project\'s six real-voice calls:',
    '',
    ...table('calls', 'v1'),
    '',
    line,
    '',
    '## Per owner (fused decision, two-party calls): owner named when present / a party named when absent',
    '',
    ...perOwner,
    '',
    line,
    '',
    '## Reading',
    '',
    acceptanceReading(decisions, 'fused', 'the fused decision'),
    acceptanceReading(decisions, 'v2', 'the fitted embedder alone'),
    acceptanceReading(decisions, 'v1', 'the statistics embedder alone'),
    '- History of the fitted embedder on these same held-out trials: v2 (LDA, 19 ktuberling readers) was scored here at commit 993464185c and v3 (WCCN on wider statistics, same 19 readers, target 2 % in cross-validation) at commit cadb75ac8f; those models are gone, so their figures are not re-measured: they are in the git history of this report (`git log -p docs/bench/voice-real.md`). v4 (the fitted-embedder-alone tables) is v3\'s recipe fitted on twice the speakers: the 19 ktuberling word readers, 16 KLettres letter and syllable readers (klettres-data; the languages whose readers may be those of held-out ktuberling languages left out) and three more asterisk voices (asterisk-prompt-es-co, -fr-armelle, -it-menardi-wav), with the threshold fitted for at most 1 % owner-absent naming in cross-validation instead of 2 %, because v3\'s held-out owner-absent rate had run well above its cross-validated one. Two v4 decisions were scored here, the only two: the first, fitted with the other party named in at most 0.5 % of cross-validated owner-present trials (threshold 2.8, margin 0.2), named the wrong party more often than the second (its figures are in the git history of this report); the fitted-embedder-alone tables are the second, refitted for at most 0.1 % wrong in cross-validation (margin 1.2), a bound chosen on the cross-validation alone after the first\'s wrong-party count was seen.',
    `- Its constants were chosen by speaker-wise cross-validation on the ${TRAINING_SPEAKERS.length} training speakers only (header of src/pipeline/voice/voice-model.ts; bench/fit-voice.ts). These held-out figures choose nothing beyond what the history above says (two v4 decisions scored, the second chosen on cross-validation). The cross-validated figures are lower than the held-out ones: the training speakers read single words and letters, and 4 or 8 s of them is harder than the held-out prompts; the same mismatch makes the cross-validated owner-absent rate an optimistic guide to the held-out one. The per-owner table shows the spread over only ${HELD_OUT_SPEAKERS.length} people.`,
    `- The fused decision (issue 27) names a party only when the statistics embedder scores it at least ${FUSED_V1_GATE} and the fitted decision, taken among the parties that reach that gate, names it: a party under the gate is neither named nor a rival. It names nobody wherever the fitted score of every party is under the fitted threshold, and beyond the fitted embedder alone it names only where the fitted decision preferred, or could not tell from the named party, a party that the statistics embedder scores under the gate. The gate was chosen in the training speakers' cross-validation only (bench/fit-voice.ts \`SWEEP_V1_GATE\`, gates 0 / 0.75 / 0.8 / 0.85 / 0.9 with threshold and margin refitted per gate, owner naming at <= 1 % owner-absent naming compared; rule: the strictest gate that costs no owner naming; the rates per gate are printed by \`bench/fit-voice.ts --sweep\` with \`SWEEP_V1_GATE=0,0.75,0.8,0.85,0.9\` and recorded in that script's header). The fused decision was scored on these held-out speakers once as first built (the gate only vetoing the fitted decision's choice; its figures are in the git history of this report), and once with the gate applied first, made the default; the fitted embedder alone scores the same decisions as before (unchanged model, same trials). What the gate changed on these held-out calls, against the fitted decision alone: ${gateEffect(decisions)}.`,
    FUSED_IS_DEFAULT
      ? `- It is the default (\`VOICE_EMBEDDING_PROVIDER=embedded\`, provider \`${FUSED_PROVIDER}\`). The same embedders on the synthetic flite voices, same decisions, in-sample: ${SYNTHETIC_REPORTS}. Profiles of the statistics embedder (\`${v1.provider}\`, the default before) are reported as \`REENROLLMENT_REQUIRED\` and not scored until the user enrols again (docs/voice-embedders.md).`
      : `- It is not the default: the default's synthetic calibration must stay as good as it is, and the decision was taken comparing the three embedders on the synthetic flite voices (same trials, in-sample, measured by bench/voice.ts, not here): ${SYNTHETIC_REPORTS}; docs/voice-embedders.md says what the comparison showed. The gate is there for voices far from the real cohort, such as those synthetic ones: compare the owner-absent columns of the fitted embedder alone and of the fused decision there.`,
    '',
    ...headlines,
    '',
  ];
  const out = text.join('\n');
  console.log(out);
  if (write) {
    const doc = path.join(projectRoot, 'docs/bench/voice-real.md');
    // Every table here is regenerated (issue 25: no hand-kept figures); the in-sample figures this
    // file once kept below are in its git history.
    fs.mkdirSync(path.dirname(doc), { recursive: true });
    fs.writeFileSync(doc, out);
    console.log(`wrote ${path.relative(projectRoot, doc)}`);
  }
}

await main();

// Word-level speaker attribution of the diarizer on the synthetic corpus, with the words of the
// pipeline's default recogniser (pocketsphinx with its configured decoder settings).
//   node --import tsx bench/diarization-dev.ts [--tiers mono,stereo,m4a,phone,ogg,mp3] [--ids a,b]
//     [--opts '{"switchPenalty":40}'] [--truth-words] [--variant gapless|single|single-phone|three|long-single|long-pair]
//     [--trace] [--errors]
// Prints a markdown table (per call: words, speakers found, attribution %, oracle %, ms) on stdout
// and per-tier means on stderr. Recogniser output is cached in .cache/diarization-bench
// (pocketsphinx takes ~9 s per call). --truth-words replaces the recogniser by the truth turns'
// words spread evenly over each turn (fast); variants always use those. --trace prints the
// speaker-count statistics, --errors the misattributed words. Results: docs/bench/diarization.md, written by `npm run bench -- --only diarization` (bench/run.ts).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decodeAudio, readWavMono } from '../src/pipeline/audio/decode.js';
import { ArrayPcm, readAllPcm } from '../src/pipeline/audio/pcm.js';
import { PocketsphinxTranscriber } from '../src/pipeline/transcription/pocketsphinx.js';
import { createDiarizer } from '../src/pipeline/diarization/index.js';
import { diarizeFrames } from '../src/pipeline/diarization/mono.js';
import type { AttributedWord, DecodedAudio, RecognizedWord } from '../src/pipeline/types.js';
import { cachingTranscriber, recogniserVersion } from '../test/support/recognition-cache.js';
import { corpusFile, corpusIds, loadScorer, loadTruth, projectRoot, type Truth } from '../test/support/corpus.js';
import { truthTurnWords } from './support/truth-words.js';

const TIER_FILES = { mono: 'mono16k.wav', stereo: 'stereo.wav', m4a: 'call.m4a', phone: 'phone8k.wav', ogg: 'call.ogg', mp3: 'call.mp3' } as const;
type Tier = keyof typeof TIER_FILES;

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
const tiers = (arg('--variant') ? [arg('--variant')] : (arg('--tiers') ?? 'mono,stereo').split(',')) as Tier[];
const ids = arg('--ids')?.split(',') ?? corpusIds();
const monoOpts = JSON.parse(arg('--opts') ?? '{}');
const truthWords = process.argv.includes('--truth-words');
const verbose = process.argv.includes('--verbose');
const variant = arg('--variant');

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'diar-bench-'));
const cacheDir = path.join(projectRoot, '.cache/diarization-bench');
fs.mkdirSync(cacheDir, { recursive: true });

// The recognition time limit is meant for a machine the service has to itself; the benchmark gives
// the same recogniser (same model and settings, so the same result) more time on a shared machine.
const transcriber = new PocketsphinxTranscriber({ timeoutMsPerAudioSecond: 60_000 });
// Shared with bench/names.ts and the other benchmarks (.cache/recognitions, keyed by the decoded
// audio's bytes, recogniser version and settings): a call recognised there is not recognised again.
const shared = cachingTranscriber(transcriber);
// The key holds the recogniser's source and decoder settings, so a change to either misses the cache.
const recogniserKey = createHash('sha256').update(JSON.stringify([transcriber.model, recogniserVersion()])).digest('hex').slice(0, 10);

/** The pipeline's own recogniser (default configuration) on the decoded mono WAV, cached. */
async function recognise(id: string, tier: Tier, audio: DecodedAudio): Promise<RecognizedWord[]> {
  const cache = path.join(cacheDir, `${id}.${tier}.${recogniserKey}.json`);
  if (!fs.existsSync(cache)) {
    const r = await shared.transcribe({ wavPath: audio.wavPath, durationSeconds: audio.durationSeconds });
    fs.writeFileSync(cache, JSON.stringify(r.words));
  }
  return JSON.parse(fs.readFileSync(cache, 'utf8'));
}

/** The minimal transcript the scorer reads: one segment per word. */
function transcriptOf(words: AttributedWord[], speakers: string[]) {
  return {
    segments: words.map((w, i) => ({
      id: `seg_${String(i).padStart(4, '0')}`,
      speakerId: w.speaker,
      role: 'UNKNOWN',
      startSeconds: w.start,
      endSeconds: w.end,
      text: w.word,
    })),
    speakers: speakers.map((s) => ({ speakerId: s, role: 'UNKNOWN', displayName: s, labelSource: 'DIARIZATION' })),
  };
}

/** Attribution a perfect diarizer would get with these word times: each word's truth turn speaker. */
function oracleWords(truth: Truth, words: RecognizedWord[]): AttributedWord[] {
  return words.map((w) => {
    let best = truth.turns[0];
    let bestOv = -Infinity;
    for (const t of truth.turns) {
      const ov = Math.min(w.end, t.endSeconds) - Math.max(w.start, t.startSeconds);
      if (ov > bestOv) [best, bestOv] = [t, ov];
    }
    return { ...w, speaker: best.speaker };
  });
}


/** Truth with only the given turns, re-timed as laid out by `layout`. */
function retimed(truth: Truth, turns: Truth['turns']): Truth {
  // The scorer looks up each truth speaker's role; the spliced-in voice needs an entry too.
  const speakers = { ...truth.speakers, C: { name: null, role: 'CONTACT', voice: 'other' } } as Truth['speakers'];
  return { ...truth, speakers, turns };
}

/**
 * Stress variants built from the master audio with truth-turn word times:
 * - gapless: turns butted together with no pause, so changes must be found by voice alone;
 * - single: the left channel of stereo.wav (speaker A alone), which should give one speaker;
 * - three: the call with a third voice's turns (taken from another call) spliced in.
 */
async function variantCase(id: string, kind: string): Promise<{ audio: DecodedAudio; truth: Truth; words: RecognizedWord[] }> {
  const truth = loadTruth(id);
  const master = (await readWavMono(corpusFile(id, 'mono16k.wav'))).samples;
  const sr = 16000;
  const make = (mono: Float32Array, t: Truth) => ({
    audio: { sampleRate: sr, mono: new ArrayPcm(mono, sr), durationSeconds: mono.length / sr, wavPath: '' } as DecodedAudio,
    truth: t,
    words: truthTurnWords(t),
  });
  const cut = (x: Float32Array, s: number, e: number) => x.subarray(Math.round(s * sr), Math.round(e * sr));
  if (kind === 'single' || kind === 'single-phone') {
    // Speaker A alone: the left channel; for single-phone put through the same telephone chain
    // as phone8k.wav (300-3400 Hz, 8 kHz, mu-law).
    const left = path.join(tmp, `${id}-left.wav`);
    const phone = kind === 'single-phone';
    execFileSync('ffmpeg', [
      '-loglevel', 'error', '-y', '-i', corpusFile(id, 'stereo.wav'),
      '-af', phone ? 'pan=mono|c0=c0,highpass=f=300,lowpass=f=3400' : 'pan=mono|c0=c0',
      ...(phone ? ['-ar', '8000', '-c:a', 'pcm_mulaw'] : ['-c:a', 'pcm_s16le']),
      left,
    ]);
    const a = await decodeAudio(left, path.join(tmp, `${id}-single`), { timeoutMs: 60_000, maxSeconds: 600 });
    return make(await readAllPcm(a.mono), retimed(truth, truth.turns.filter((t) => t.speaker === 'A')));
  }
  let pieces: Array<{ x: Float32Array; turn: Truth['turns'][number] }> = truth.turns.map((t) => ({ x: cut(master, t.startSeconds, t.endSeconds), turn: t }));
  if (kind === 'long-single' || kind === 'long-pair') {
    // long-single: every turn of speaker A's voice across the corpus (2-3 minutes of one voice);
    // long-pair: all calls with this call's pair of voices, one after another.
    const voiceA = truth.speakers.A.voice;
    const pair = `${truth.speakers.A.voice}/${truth.speakers.B.voice}`;
    pieces = [];
    for (const other of corpusIds().map(loadTruth)) {
      if (kind === 'long-pair' && `${other.speakers.A.voice}/${other.speakers.B.voice}` !== pair) continue;
      const x = (await readWavMono(corpusFile(other.id, 'mono16k.wav'))).samples;
      for (const t of other.turns) {
        if (kind === 'long-single' && other.speakers[t.speaker].voice !== voiceA) continue;
        pieces.push({ x: cut(x, t.startSeconds, t.endSeconds), turn: { ...t, speaker: kind === 'long-single' ? 'A' : t.speaker } });
      }
    }
  }
  if (kind === 'three') {
    // A third voice not in this call, from the first call that has one.
    const voices = new Set([truth.speakers.A.voice, truth.speakers.B.voice]);
    const other = corpusIds().map(loadTruth).find((t) => !voices.has(t.speakers.A.voice))!;
    const otherAudio = (await readWavMono(corpusFile(other.id, 'mono16k.wav'))).samples;
    const extra = other.turns.filter((t) => t.speaker === 'A').slice(0, 4);
    extra.forEach((t, k) => pieces.splice(2 + k * 3, 0, { x: cut(otherAudio, t.startSeconds, t.endSeconds), turn: { ...t, speaker: 'C' as 'A' } }));
  }
  const gap = kind === 'gapless' ? 0 : 0.4;
  const total = pieces.reduce((a, p) => a + p.x.length, 0) + Math.round(gap * sr) * (pieces.length + 1);
  const out = new Float32Array(total);
  let at = Math.round(gap * sr);
  const turns: Truth['turns'] = [];
  pieces.forEach((p, k) => {
    out.set(p.x, at);
    turns.push({ ...p.turn, index: k, startSeconds: at / sr, endSeconds: (at + p.x.length) / sr });
    at += p.x.length + Math.round(gap * sr);
  });
  return make(out, retimed(truth, turns));
}

const scorer = await loadScorer();
const diarizer = createDiarizer({ mono: monoOpts });

const rows: string[] = [];
const summary: Record<string, number[]> = {};
for (const tier of tiers) {
  const attrs: number[] = [];
  const oracles: number[] = [];
  for (const id of ids) {
    let truth: Truth;
    let audio: DecodedAudio;
    let words: RecognizedWord[];
    if (variant) ({ truth, audio, words } = await variantCase(id, variant));
    else {
      truth = loadTruth(id);
      audio = await decodeAudio(corpusFile(id, TIER_FILES[tier]), path.join(tmp, `${id}-${tier}`), { timeoutMs: 60_000, maxSeconds: 600 });
      words = truthWords ? truthTurnWords(truth) : await recognise(id, tier, audio);
    }
    if (process.argv.includes('--trace') && !audio.channels) {
      const f = await diarizeFrames(audio.mono, audio.sampleRate, monoOpts);
      console.error(id, 'clusters', f.clusters, f.separations.map((x) => `${x.heldOut.toFixed(2)}/${x.inSample.toFixed(2)}=${(x.heldOut / x.inSample).toFixed(2)}${x.turns ? `[${x.turns.join(',')}]` : ''}`).join(' '));
    }
    const t0 = Date.now();
    const d = await diarizer.diarize(audio, words);
    const ms = Date.now() - t0;
    const r = scorer.scoreTranscript(truth, transcriptOf(d.words, d.speakers));
    const o = scorer.scoreTranscript(truth, transcriptOf(oracleWords(truth, words), ['A', 'B', 'C']));
    attrs.push(r.attribution);
    if (process.argv.includes('--errors')) {
      // The scorer's mapping from hypothesis to truth speakers, then the words it disagrees with.
      const map: Record<string, string> = r.details.attribution.mapping ?? {};
      const truthOf = oracleWords(truth, words);
      d.words.forEach((w, i) => {
        if (map[w.speaker] !== truthOf[i].speaker) console.error(`  ${id} ${w.start.toFixed(2)}-${w.end.toFixed(2)} ${w.word} hyp=${w.speaker}->${map[w.speaker]} truth=${truthOf[i].speaker}`);
      });
    }
    oracles.push(o.attribution);
    const voices = `${truth.speakers.A.voice}/${truth.speakers.B.voice}`;
    rows.push(`| ${tier} | ${id} | ${voices} | ${words.length} | ${d.speakers.length} | ${(100 * r.attribution).toFixed(1)} | ${(100 * o.attribution).toFixed(1)} | ${ms} |`);
    if (verbose) console.error(rows[rows.length - 1], d.model);
  }
  const mean = (a: number[]) => a.reduce((x, y) => x + y, 0) / a.length;
  summary[tier] = [mean(attrs), Math.min(...attrs), mean(oracles)];
  rows.push(`| ${tier} | **mean** (min ${(100 * Math.min(...attrs)).toFixed(1)}) | | | | **${(100 * mean(attrs)).toFixed(1)}** | ${(100 * mean(oracles)).toFixed(1)} | |`);
}
fs.rmSync(tmp, { recursive: true, force: true });
console.log('| tier | call | voices A/B | words | speakers | attribution % | oracle % | ms |');
console.log('|---|---|---|---|---|---|---|---|');
for (const r of rows) console.log(r);
for (const [t, [m, mn, o]] of Object.entries(summary)) console.error(`${t}: mean ${(100 * m).toFixed(2)} min ${(100 * mn).toFixed(2)} oracle ${(100 * o).toFixed(2)}`);

// Speaker count and word attribution of the diarizer on the real-voice set
// (test/support/real-voices.ts), per encoding.
//   node --import tsx bench/diarization-real.ts [--tiers mono16k,phone8k,m4a,mp3] [--ids a,b]
//     [--truth-words] [--opts '{...}'] [--trace]
// Words: the pipeline's default recogniser (pocketsphinx, cached in .cache/diarization-bench under
// a key of its settings), or with --truth-words the truth turns' words spread over each turn.
// Two-party calls are scored with the corpus scorer (attribution under the best speaker mapping);
// one-voice recordings by the share of words on their most common speaker.
// Prints a markdown table on stdout and per-tier summaries on stderr. Results: docs/bench/diarization.md, written by `npm run bench -- --only diarization` (bench/run.ts).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decodeAudio } from '../src/pipeline/audio/decode.js';
import { createDiarizer } from '../src/pipeline/diarization/index.js';
import { diarizeFrames } from '../src/pipeline/diarization/mono.js';
import { PocketsphinxTranscriber } from '../src/pipeline/transcription/pocketsphinx.js';
import type { AttributedWord, DecodedAudio, RecognizedWord } from '../src/pipeline/types.js';
import { groupUtterances, resolveSpeakers } from '../src/pipeline/resolution/index.js';
import { recogniserVersion } from '../test/support/recognition-cache.js';
import { loadScorer, projectRoot } from '../test/support/corpus.js';
import { REAL_VOICE_CALLS, ensureRealVoices, loadRealVoiceTruth, realVoiceFile, type RealVoiceFile, type RealVoiceTruth } from '../test/support/real-voices.js';
import { truthTurnWords, wordUtterances } from './support/truth-words.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
const TIERS: Record<string, RealVoiceFile> = { mono16k: 'mono16k.wav', phone8k: 'phone8k.wav', m4a: 'call.m4a', mp3: 'call.mp3' };
const tiers = (arg('--tiers') ?? 'mono16k,phone8k,m4a').split(',');
const ids = arg('--ids')?.split(',') ?? REAL_VOICE_CALLS.map((c) => c.id);
const monoOpts = JSON.parse(arg('--opts') ?? '{}');
const truthWords = process.argv.includes('--truth-words');

ensureRealVoices(ids);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'diar-real-'));
const cacheDir = path.join(projectRoot, '.cache/diarization-bench');
fs.mkdirSync(cacheDir, { recursive: true });
const transcriber = new PocketsphinxTranscriber();
// The key holds the recogniser's source and decoder settings, so a change to either misses the cache.
const recogniserKey = createHash('sha256').update(JSON.stringify([transcriber.model, recogniserVersion()])).digest('hex').slice(0, 10);

async function recognise(id: string, tier: string, audio: DecodedAudio): Promise<RecognizedWord[]> {
  const cache = path.join(cacheDir, `real.${id}.${tier}.${recogniserKey}.json`);
  if (!fs.existsSync(cache)) {
    const r = await transcriber.transcribe({ wavPath: audio.wavPath, durationSeconds: audio.durationSeconds });
    fs.writeFileSync(cache, JSON.stringify(r.words));
  }
  return JSON.parse(fs.readFileSync(cache, 'utf8'));
}

/** The scorer's transcript: one segment per word; roles from the pipeline's naming rules. */
function transcriptOf(words: AttributedWord[], speakers: string[], truth: RealVoiceTruth) {
  const resolved = resolveSpeakers(groupUtterances(wordUtterances(words)), {
    userDisplayName: truth.user.displayName,
    contactName: truth.upload.contactName,
    phoneNumber: truth.upload.phoneNumber,
    direction: truth.upload.direction,
    voiceEmbeddingEnabled: false,
  });
  const roleOf = new Map(resolved.speakers.map((s) => [s.sourceSpeakerId, s]));
  return {
    segments: words.map((w, i) => ({ id: `seg_${i}`, speakerId: w.speaker, role: roleOf.get(w.speaker)?.role ?? 'UNKNOWN', startSeconds: w.start, endSeconds: w.end, text: w.word })),
    speakers: speakers.map((s) => ({ speakerId: s, role: roleOf.get(s)?.role ?? 'UNKNOWN', displayName: roleOf.get(s)?.displayName ?? s, labelSource: roleOf.get(s)?.labelSource ?? 'DIARIZATION' })),
  };
}

const scorer = await loadScorer();
const diarizer = createDiarizer({ mono: monoOpts });
console.log('| encoding | call | kind | words | speakers (want) | attribution % | roles % | ms |');
console.log('|---|---|---|---|---|---|---|---|');
for (const tier of tiers) {
  const attrs: number[] = [];
  const roles: number[] = [];
  let countRight = 0;
  for (const id of ids) {
    const truth = loadRealVoiceTruth(id);
    const audio = await decodeAudio(realVoiceFile(id, TIERS[tier]), path.join(tmp, `${id}-${tier}`), { timeoutMs: 60_000, maxSeconds: 600 });
    const words = truthWords ? truthTurnWords(truth) : await recognise(id, tier, audio);
    if (process.argv.includes('--trace')) {
      const f = await diarizeFrames(audio.mono, audio.sampleRate, monoOpts);
      console.error(tier, id, 'clusters', f.clusters, f.separations.map((x) => `${x.heldOut.toFixed(2)}/${x.inSample.toFixed(2)}=${(x.heldOut / x.inSample).toFixed(2)}${x.turns ? `[${x.turns.join(',')}]` : ''}`).join(' '));
    }
    if (process.argv.includes('--trace-only')) continue;
    const t0 = Date.now();
    const d = await diarizer.diarize(audio, words);
    const ms = Date.now() - t0;
    const want = truth.kind === 'two-party' ? 2 : 1;
    let attribution: number;
    let role: number | null = null;
    if (truth.kind === 'two-party') {
      const r = scorer.scoreTranscript(truth, transcriptOf(d.words, d.speakers, truth));
      attribution = r.attribution;
      role = r.roleAccuracy;
      roles.push(role!);
    } else {
      const counts = new Map<string, number>();
      for (const w of d.words) counts.set(w.speaker, (counts.get(w.speaker) ?? 0) + 1);
      attribution = d.words.length ? Math.max(...counts.values()) / d.words.length : 1;
    }
    attrs.push(attribution);
    if (d.speakers.length === want) countRight++;
    console.log(`| ${tier} | ${id} | ${truth.kind} | ${words.length} | ${d.speakers.length} (${want}) | ${(100 * attribution).toFixed(1)} | ${role === null ? '-' : (100 * role).toFixed(0)} | ${ms} |`);
  }
  const mean = attrs.reduce((a, b) => a + b, 0) / attrs.length;
  console.error(`${tier}: attribution mean ${(100 * mean).toFixed(1)} min ${(100 * Math.min(...attrs)).toFixed(1)}; speaker count right ${countRight}/${ids.length}; roles ${roles.length ? ((100 * roles.reduce((a, b) => a + b, 0)) / roles.length).toFixed(1) : '-'} %`);
}
fs.rmSync(tmp, { recursive: true, force: true });

// Speaker-count trace of the mono diarizer on rendered dev dialogues (no recognition): per call and
// tier, the clusters kept and the separation tests (held-out margin / in-sample margin [stretches]).
// --resolve also diarizes the truth turns' words (spread evenly over each turn) and names the
// speakers from them: attribution, roles and naming with the recogniser's errors left out, for
// tiers whose recognitions are not cached yet.
//   node --import tsx bench/diarization-trace.ts [--tiers m4a,phone8k] [--ids a,b] [--opts '{...}'] [--resolve]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decodeAudio } from '../src/pipeline/audio/decode.js';
import { diarizeFrames, MfccClusterDiarizer } from '../src/pipeline/diarization/mono.js';
import { groupUtterances, resolveSpeakers } from '../src/pipeline/resolution/index.js';
import type { AttributedWord } from '../src/pipeline/types.js';
import { loadScorer, projectRoot, type Truth } from '../test/support/corpus.js';
import { devIds, notForTuning } from './support/analysis-sets.js';
import { truthTurnWords, wordUtterances } from './support/truth-words.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
const outDir = path.join(projectRoot, '.cache/analysis-dialogues');
const TIERS = { m4a: 'call.m4a', phone8k: 'phone8k.wav', mono16k: 'mono16k.wav' } as const;
const tiers = (arg('--tiers') ?? 'phone8k').split(',') as Array<keyof typeof TIERS>;
const ids = arg('--ids')?.split(',') ?? devIds();
if (ids.some((id) => notForTuning().has(id))) throw new Error('held-out calls are not for tuning');
const opts = JSON.parse(arg('--opts') ?? '{}');
const resolve = process.argv.includes('--resolve');
const scorer = await loadScorer();

/** The scorer's transcript of attributed words, named by the pipeline's rules. */
function namedTranscript(words: AttributedWord[], speakers: string[], truth: Truth) {
  const res = resolveSpeakers(groupUtterances(wordUtterances(words)), {
    userDisplayName: truth.user.displayName, contactName: truth.upload.contactName, phoneNumber: truth.upload.phoneNumber,
    direction: truth.upload.direction, voiceEmbeddingEnabled: false,
  });
  const by = new Map(res.speakers.map((sp) => [sp.sourceSpeakerId, sp]));
  return {
    resolved: res.speakers,
    segments: words.map((w, i) => ({ id: `seg_${i}`, speakerId: w.speaker, role: by.get(w.speaker)?.role ?? 'UNKNOWN', startSeconds: w.start, endSeconds: w.end, text: w.word })),
    speakers: speakers.map((sp) => ({ speakerId: sp, role: by.get(sp)?.role ?? 'UNKNOWN', displayName: by.get(sp)?.displayName ?? sp, labelSource: by.get(sp)?.labelSource ?? 'DIARIZATION' })),
  };
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'diar-trace-'));
const fmt = (s: { heldOut: number; inSample: number; turns?: number[] }) => `${s.heldOut.toFixed(2)}/${s.inSample.toFixed(2)}${s.turns ? `[${s.turns.join(',')}]` : ''}`;
for (const tier of tiers) {
  let one = 0;
  let n = 0;
  const tally = { roles: 0, naming: 0, positional: 0 };
  for (const id of ids) {
    const file = path.join(outDir, id, TIERS[tier]);
    if (!fs.existsSync(file)) continue;
    const audio = await decodeAudio(file, path.join(tmp, `${id}-${tier}`), { timeoutMs: 60_000, maxSeconds: 600 });
    const f = await diarizeFrames(audio.mono, audio.sampleRate, opts);
    n++;
    if (f.clusters < 2) one++;
    let named = '';
    if (resolve) {
      const truth: Truth = JSON.parse(fs.readFileSync(path.join(outDir, id, 'truth.json'), 'utf8'));
      const d = await new MfccClusterDiarizer(opts).diarize(audio, truthTurnWords(truth));
      const t = namedTranscript(d.words, d.speakers, truth);
      const sc = scorer.scoreTranscript(truth, t);
      if (sc.roleAccuracy === 1) tally.roles++;
      if (sc.naming === 1) tally.naming++;
      if (t.resolved.some((x) => x.labelSource === 'POSITIONAL_FALLBACK')) tally.positional++;
      named = ` | attribution ${(100 * sc.attribution).toFixed(1)} roles ${sc.roleAccuracy} naming ${sc.naming} (${t.resolved.map((x) => `${x.sourceSpeakerId}=${x.role}/${x.labelSource}/${x.displayName}`).join(', ')})`;
    }
    console.log(`${tier} ${id}: clusters ${f.clusters} starts ${(f.starts ?? []).map(fmt).join(' ')} seps ${f.separations.map(fmt).join(' ')}${named}`);
    fs.rmSync(path.join(tmp, `${id}-${tier}`), { recursive: true, force: true });
  }
  console.log(`${tier}: ${one}/${n} calls with fewer than two speakers${resolve ? `; truth words: roles ${tally.roles}/${n}, naming ${tally.naming}/${n}, positional guess ${tally.positional}` : ''}`);
}
fs.rmSync(tmp, { recursive: true, force: true });

// Speaker-count trace of the mono diarizer on rendered dev dialogues (no recognition): per call and
// tier, the clusters kept and the separation tests (held-out margin / in-sample margin [stretches]).
//   node --import tsx bench/diarization-trace.ts [--tiers m4a,phone8k] [--ids a,b] [--opts '{...}']
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decodeAudio } from '../src/pipeline/audio/decode.js';
import { diarizeFrames } from '../src/pipeline/diarization/mono.js';
import { projectRoot } from '../test/support/corpus.js';
import { devIds, HELD_OUT_IDS } from './support/analysis-sets.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
const outDir = path.join(projectRoot, '.cache/analysis-dialogues');
const TIERS = { m4a: 'call.m4a', phone8k: 'phone8k.wav', mono16k: 'mono16k.wav' } as const;
const tiers = (arg('--tiers') ?? 'phone8k').split(',') as Array<keyof typeof TIERS>;
const ids = arg('--ids')?.split(',') ?? devIds();
if (ids.some((id) => HELD_OUT_IDS.includes(id))) throw new Error('held-out calls are not for tuning');
const opts = JSON.parse(arg('--opts') ?? '{}');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'diar-trace-'));
const fmt = (s: { heldOut: number; inSample: number; turns?: number[] }) => `${s.heldOut.toFixed(2)}/${s.inSample.toFixed(2)}${s.turns ? `[${s.turns.join(',')}]` : ''}`;
for (const tier of tiers) {
  let one = 0;
  let n = 0;
  for (const id of ids) {
    const file = path.join(outDir, id, TIERS[tier]);
    if (!fs.existsSync(file)) continue;
    const audio = await decodeAudio(file, path.join(tmp, `${id}-${tier}`), { timeoutMs: 60_000, maxSeconds: 600 });
    const f = await diarizeFrames(audio.mono, audio.sampleRate, opts);
    n++;
    if (f.clusters < 2) one++;
    console.log(`${tier} ${id}: clusters ${f.clusters} starts ${(f.starts ?? []).map(fmt).join(' ')} seps ${f.separations.map(fmt).join(' ')}`);
    fs.rmSync(path.join(tmp, `${id}-${tier}`), { recursive: true, force: true });
  }
  console.log(`${tier}: ${one}/${n} calls with fewer than two speakers`);
}
fs.rmSync(tmp, { recursive: true, force: true });

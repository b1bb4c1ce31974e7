// Refits the voice matcher's tuned constants from data, printing them next to the current ones:
//
//   node --import tsx bench/fit-voice-threshold.ts                 # threshold and margin (src/pipeline/voice/match.ts)
//   node --import tsx bench/voice.ts --fit-background      # feature normalisation: rewrites src/pipeline/voice/background.ts
//
// The threshold: bench/voice.ts scores every enrollment profile against every corpus speaker
// (truth regions); the data-driven candidates are the midpoint between the lowest genuine and the
// highest impostor score and the equal-error point. The shipped threshold sits above the midpoint
// on purpose (a false match names the wrong party; a miss only falls back to text-based naming),
// so this prints the candidates rather than choosing. Data: four flite voices (in-sample); the
// real-voice check is bench/voice-real.ts.
import { spawnSync } from 'node:child_process';
import { DEFAULT_VOICE_MATCH_MARGIN, DEFAULT_VOICE_MATCH_THRESHOLD } from '../src/pipeline/voice/match.js';
import { projectRoot } from '../test/support/corpus.js';

const r = spawnSync(process.execPath, ['--import', 'tsx', 'bench/voice.ts', '--no-write', '--no-diarizer'], { cwd: projectRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 * 1024 * 1024 });
if (r.status !== 0) {
  console.error(`bench/voice.ts failed (exit ${r.status})`);
  process.exit(1);
}
const pooled = r.stdout.split('\n').find((l) => l.startsWith('pooled:'));
const sweep = r.stdout.split('\n').find((l) => l.startsWith('threshold sweep'));
console.log(`current: DEFAULT_VOICE_MATCH_THRESHOLD = ${DEFAULT_VOICE_MATCH_THRESHOLD}, DEFAULT_VOICE_MATCH_MARGIN = ${DEFAULT_VOICE_MATCH_MARGIN}`);
console.log(pooled ?? 'bench/voice.ts printed no pooled line');
if (sweep) console.log(sweep);
console.log('(in-sample: the four flite voices the threshold is scored on; see docs/bench/voice-real.md for real voices)');

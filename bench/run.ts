// Runs every benchmark (speech, analysis, voice, long calls, search, http, growth, upload, pipeline) one after another,
// then assembles their reports (docs/bench/*.md) into docs/benchmarks.md.
// `npm run bench -- --assemble-only` only assembles; `--only http,growth` runs some of them.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../test/support/corpus.js';

const benches: Array<[string, string[]]> = [
  ['speech', ['bench/speech.ts', '--tiers', 'mono16k.wav,stereo.wav,call.m4a,phone8k.wav']],
  ['analysis', ['bench/analysis.ts', '--asr']],
  ['voice', ['bench/voice.ts']],
  ['voice-real', ['bench/voice-real.ts']],
  ['long calls', ['bench/long-calls.ts']],
  ['search', ['bench/search.ts']],
  ['http', ['bench/http.ts']],
  ['growth', ['bench/growth.ts']],
  ['upload', ['bench/upload.ts']],
  ['pipeline', ['bench/pipeline.ts']],
  ['analysis stall', ['bench/analysis-stall.ts']],
];
const onlyIndex = process.argv.indexOf('--only');
const only = onlyIndex >= 0 ? process.argv[onlyIndex + 1]?.split(',') : null;

if (!process.argv.includes('--assemble-only')) {
  for (const [name, args] of benches) {
    if (only && !only.includes(name)) continue;
    console.log(`== ${name}`);
    const r = spawnSync(process.execPath, ['--import', 'tsx', ...args], { cwd: projectRoot, stdio: 'inherit' });
    if (r.status !== 0) {
      console.error(`${name} benchmark failed (exit ${r.status})`);
      process.exit(1);
    }
  }
}

const dir = path.join(projectRoot, 'docs/bench');
const order = ['speech.md', 'diarization.md', 'analysis.md', 'voice.md', 'voice-real.md', 'speed.md', 'http.md', 'growth.md', 'upload.md', 'pipeline.md', 'search.md', 'object-storage.md', 'long-calls.md', 'analysis-stall.md'];
const parts = order.filter((f) => fs.existsSync(path.join(dir, f))).map((f) => fs.readFileSync(path.join(dir, f), 'utf8').trim());
const intro = fs.readFileSync(path.join(dir, 'README.md'), 'utf8').trim();
fs.writeFileSync(path.join(projectRoot, 'docs/benchmarks.md'), `${intro}\n\n${parts.join('\n\n')}\n`);
console.log('wrote docs/benchmarks.md');

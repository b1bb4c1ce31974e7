// Upload: peak resident memory of the service while several clients each upload a large file at
// once, and the upload throughput. The service runs in its own process (local mode, embedded
// PostgreSQL, no workers, so nothing but the upload path runs); its RSS is sampled from
// /proc/<pid>/status every 10 ms. Writes docs/bench/upload.md.
//   npm run bench:upload [-- --clients 4 --mb 49 --rounds 2]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../test/support/corpus.js';
import { argValue, loadAverage, machine, startTarget, table, today, writeSection } from './support/harness.js';

const clients = Number(argValue('clients', '4'));
// 16 kHz mono 16-bit PCM: 32,000 bytes a second. 49 MiB stays under MAX_FILE_SIZE (50 MiB).
const mib = Number(argValue('mb', '49'));
const rounds = Number(argValue('rounds', '2'));

function wavOf(seconds: number, name: string): string {
  const dir = path.join(projectRoot, '.cache/bench');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, name);
  if (!fs.existsSync(file)) {
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', `anoisesrc=sample_rate=16000:amplitude=0.1:seed=7`, '-t', String(seconds), '-ac', '1', '-c:a', 'pcm_s16le', file], { timeout: 120_000 });
  }
  return file;
}

function rssKiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : 0;
}

async function upload(url: string, file: string): Promise<number> {
  const form = new FormData();
  form.append('metadata', JSON.stringify({ title: 'upload benchmark' }));
  form.append('file', await fs.openAsBlob(file, { type: 'audio/wav' }), path.basename(file));
  const res = await fetch(`${url}/api/calls/analyze`, { method: 'POST', body: form });
  if (res.status !== 202) throw new Error(`upload answered ${res.status}: ${await res.text()}`);
  return res.status;
}

async function main(): Promise<void> {
  const startedLoad = loadAverage();
  const big = wavOf(Math.floor((mib * 2 ** 20 - 44) / 32_000), `upload-${mib}mib.wav`);
  const small = wavOf(1, 'upload-1s.wav');
  const bytes = fs.statSync(big).size;
  const target = await startTarget('service', {
    db: 'embedded',
    seed: { users: 0, callsPerUser: 0, processed: 0, subject: 'local-user', extraExternalIds: ['local-user'] },
    env: {
      SERVICE_MAX_UPLOADS_PER_HOUR: '1000',
      SERVICE_MAX_CONCURRENT_ACTIVE_CALLS: '1000',
      SERVICE_MAX_UPLOADS_IN_FLIGHT: '1000',
      SERVICE_MAX_MONTHLY_UPLOAD_BYTES: String(100 * 2 ** 30),
      PLAN_FREE_MINUTES_PER_MONTH: '1000000',
      PLAN_FREE_TRANSCRIPTS_PER_DAY: '1000',
    },
  });
  const results: Array<Array<string | number>> = [];
  try {
    // One small upload first, so the code of the upload path is loaded before the baseline.
    await upload(target.url, small);
    const baseline = rssKiB(target.pid);
    let peak = baseline;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssKiB(target.pid));
    }, 10);
    try {
      for (let round = 1; round <= rounds; round++) {
        const before = peak;
        const t0 = performance.now();
        await Promise.all(Array.from({ length: clients }, () => upload(target.url, big)));
        const seconds = (performance.now() - t0) / 1000;
        const mbps = (clients * bytes) / 2 ** 20 / seconds;
        results.push([round, clients, (bytes / 2 ** 20).toFixed(1), seconds.toFixed(2), mbps.toFixed(1), (baseline / 1024).toFixed(0), (peak / 1024).toFixed(0), ((peak - baseline) / 1024).toFixed(1), ((Math.max(peak, before) - before) / 1024).toFixed(1), loadAverage()]);
        console.log(`round ${round}: ${clients} x ${(bytes / 2 ** 20).toFixed(1)} MiB in ${seconds.toFixed(2)} s (${mbps.toFixed(1)} MiB/s); RSS baseline ${(baseline / 1024).toFixed(0)} MiB, peak ${(peak / 1024).toFixed(0)} MiB, growth ${((peak - baseline) / 1024).toFixed(1)} MiB`);
      }
    } finally {
      clearInterval(sampler);
    }
  } finally {
    await target.stop();
  }
  writeSection(
    'upload',
    `## Upload: memory and throughput

Measured by \`npm run bench:upload\` on ${today()} (${machine()}; load average at start ${startedLoad}). The service runs in its own process (local mode, embedded PostgreSQL, workers off); ${clients} clients each POST a ${(bytes / 2 ** 20).toFixed(1)} MiB WAV to \`/api/calls/analyze\` at once (fetch with a file-backed Blob, loopback), ${rounds} rounds one after another. RSS is sampled from \`/proc/<pid>/status\` every 10 ms; the baseline is taken after one small warm-up upload, so code loading is not counted. "Growth" is the peak over the baseline; "round growth" is how much that round raised the peak. The upload path streams each file part to the blob store as it arrives (sniffed and size-limited on the way), so memory does not scale with file size.

${table(['round', 'clients', 'MiB each', 'wall s', 'MiB/s (all clients)', 'RSS baseline MiB', 'RSS peak MiB', 'growth MiB', 'round growth MiB', 'load avg'], results)}
`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

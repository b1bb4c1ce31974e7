// Object-storage blob store: memory and time of a streamed upload and of the worker's download,
// against s3rver (an S3 protocol server from npm) in a child process on loopback, or the server in
// TEST_S3_ENDPOINT. The point is flat memory: an upload of MAX_FILE_SIZE (50 MB) must not be held
// in memory. Writes docs/bench/object-storage.md.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { S3BlobStore } from '../src/store/s3-blobs.js';
import { projectRoot } from '../test/support/corpus.js';
import { freePort } from '../test/support/process.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const MB = 1024 * 1024;
const SIZES = [10 * MB, 50 * MB, 200 * MB];

function generated(total: number): Readable {
  let sent = 0;
  const chunk = Buffer.alloc(64 * 1024, 0x5a);
  return new Readable({
    read() {
      if (sent >= total) return void this.push(null);
      const n = Math.min(chunk.length, total - sent);
      sent += n;
      this.push(n === chunk.length ? chunk : chunk.subarray(0, n));
    },
  });
}

/** Runs `fn` while sampling this process's RSS; returns its time and the peak RSS above the start. */
async function measure<T>(fn: () => Promise<T>): Promise<{ ms: number; peakMb: number; value: T }> {
  global.gc?.();
  const base = process.memoryUsage().rss;
  let peak = base;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  const t0 = performance.now();
  const value = await fn();
  const ms = performance.now() - t0;
  clearInterval(timer);
  peak = Math.max(peak, process.memoryUsage().rss);
  return { ms, peakMb: (peak - base) / MB, value };
}

async function main() {
  let endpoint = process.env.TEST_S3_ENDPOINT;
  let stop = () => undefined as void;
  let credentials = { accessKeyId: process.env.AWS_ACCESS_KEY_ID ?? '', secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY ?? '' };
  let server = 'TEST_S3_ENDPOINT';
  if (!endpoint) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-s3rver-'));
    const port = await freePort();
    const child = spawn(process.execPath, [path.join(projectRoot, 'node_modules/s3rver/bin/s3rver.js'), '-d', dir, '-a', '127.0.0.1', '-p', String(port), '--silent'], { stdio: 'ignore' });
    stop = () => {
      child.kill();
      fs.rmSync(dir, { recursive: true, force: true });
    };
    endpoint = `http://127.0.0.1:${port}`;
    credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
    server = 's3rver 3.7 (child process, loopback)';
    for (let i = 0; i < 100; i++) {
      if (await fetch(endpoint).then(() => true, () => false)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const bucket = `bench-${Date.now()}`;
  const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials, requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' });
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  const store = new S3BlobStore({ bucket, endpoint, region: 'us-east-1', forcePathStyle: true, credentials }, client);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-s3-work-'));
  const rows: string[] = [];
  try {
    // Warm-up: loads the SDK's lazily imported parts so they are not counted as upload memory.
    await store.put('users/bench/warm-up', generated(6 * MB));
    await (await store.localFile('users/bench/warm-up', work)).release();
    await store.deletePrefix('users/bench');
    for (const size of SIZES) {
      const key = `users/bench/calls/c-${size}/audio.wav`;
      const up = await measure(() => store.put(key, generated(size)));
      const down = await measure(() => store.localFile(key, work));
      await down.value.release();
      await store.deletePrefix('users/bench');
      rows.push(`| ${size / MB} MB | ${(up.ms / 1000).toFixed(2)} s | ${up.peakMb.toFixed(1)} MB | ${(down.ms / 1000).toFixed(2)} s | ${down.peakMb.toFixed(1)} MB |`);
      console.log(rows.at(-1));
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
    stop();
  }
  const report = `## Object storage

Measured by \`npm run bench:storage\` on ${new Date().toISOString().slice(0, 10)} (${os.cpus().length} cores, ${os.cpus()[0]?.model.trim()}), against ${server}.
A streamed upload (\`S3BlobStore.put\`: multipart, 5 MiB parts, 2 in flight) and the worker's download to a work file
(\`localFile\`), after a warm-up; "peak RSS" is the most the benchmark process's resident memory rose above its level before the
operation. Flat memory means the peak does not grow with the size (a buffered upload would need at least the file's size).

| size | upload | upload peak RSS | download | download peak RSS |
|---|---|---|---|---|
${rows.join('\n')}
`;
  fs.mkdirSync(path.join(projectRoot, 'docs/bench'), { recursive: true });
  fs.writeFileSync(path.join(projectRoot, 'docs/bench/object-storage.md'), report);
  console.log('wrote docs/bench/object-storage.md');
}

await main();

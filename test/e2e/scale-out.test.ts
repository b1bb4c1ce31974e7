// Many processes, no shared disk: 2 API processes and 2 worker processes (`--worker-only`), each
// on its own DATA_DIR, sharing nothing but an external PostgreSQL database and an S3 bucket
// (s3rver on loopback, or TEST_S3_ENDPOINT). 20 uploads spread over both API processes complete
// exactly once, no audio file remains under any DATA_DIR, and deleting the calls empties the bucket.
//
// Recognition goes to an OpenAI-compatible transcription server on loopback that answers with the
// call's known turns: this test is about processes and storage, and 20 pocketsphinx runs would cost
// minutes of the suite's two cores (the recogniser itself is covered by the pipeline and corpus tests).
// The server counts requests, so "recognised exactly once per call" is checked too.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { projectRoot } from '../support/corpus.js';
import { createExternalDatabase, externalDbAvailable, tempDir, uploadForm } from '../support/service.js';
import { freePort, spawnService, waitHealthy, type ServiceProcess } from '../support/process.js';
import { startTestBucket, type TestBucket } from '../support/s3.js';
import { synthesizeSpeech } from '../support/voices.js';

const UPLOADS = 20;
const TURNS = ['Hello, this is Dana from the clinic. Your test results are ready.', 'Hi Dana. Thanks, I will call you back on Tuesday.'];

const seconds = (file: string) => Number(execFileSync('soxi', ['-D', file], { encoding: 'utf8' }).trim());

/** A two-speaker call of a few seconds (two flite voices joined with sox), rendered once into the cache, and its turns' times. */
function shortCall(): { file: string; segments: Array<{ start: number; end: number; text: string }> } {
  const dir = path.join(projectRoot, '.cache/scale-out');
  const out = path.join(dir, 'short-call.wav');
  const a = path.join(dir, 'turn-a.wav');
  if (!fs.existsSync(out)) {
    synthesizeSpeech(dir, 'slt', TURNS[0], 'turn-a');
    const b = synthesizeSpeech(dir, 'kal16', TURNS[1], 'turn-b');
    const tmp = `${out}.${process.pid}.wav`;
    execFileSync('sox', ['-V1', a, b, tmp]);
    fs.renameSync(tmp, out);
  }
  const split = seconds(a);
  return { file: out, segments: [{ start: 0, end: split, text: TURNS[0] }, { start: split, end: seconds(out), text: TURNS[1] }] };
}

/** An OpenAI-compatible /v1/audio/transcriptions server answering every request with `segments`. */
async function transcriptionServer(segments: unknown[]): Promise<{ url: string; requests: () => number; close: () => Promise<void> }> {
  let requests = 0;
  const server = http.createServer(async (req, res) => {
    for await (const _ of req) void _; // read the upload like a real server
    if (req.method !== 'POST' || !req.url?.endsWith('/v1/audio/transcriptions')) {
      res.writeHead(404).end();
      return;
    }
    requests++;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ task: 'transcribe', language: 'english', duration: 5, text: TURNS.join(' '), segments }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: () => requests,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

async function api(port: number, method: string, p: string, body?: FormData | object): Promise<{ status: number; body: any }> {
  const json = body !== undefined && !(body instanceof FormData);
  const r = await fetch(`http://127.0.0.1:${port}${p}`, {
    method,
    body: json ? JSON.stringify(body) : (body as FormData | undefined),
    headers: json ? { 'content-type': 'application/json' } : undefined,
  });
  return { status: r.status, body: await r.json().catch(() => null) };
}

/** Every regular file under `dir` except the embedded database's (there is none with DATABASE_URL). */
function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)));
}

const procs: ServiceProcess[] = [];
const cleanups: Array<() => Promise<void> | void> = [];
after(async () => {
  for (const p of procs) await p.kill('SIGKILL');
  for (const c of cleanups.reverse()) await c();
});

describe('scale-out on object storage', () => {
  test('2 API and 2 worker processes on separate DATA_DIRs share only PostgreSQL and the bucket', async (t) => {
    if (!(await externalDbAvailable())) return t.skip('no external PostgreSQL');
    const { file: audio, segments } = shortCall();
    const recogniser = await transcriptionServer(segments);
    cleanups.push(() => recogniser.close());
    const bucket: TestBucket = await startTestBucket();
    cleanups.push(() => bucket.stop());
    const db = await createExternalDatabase();
    cleanups.push(() => db.drop());
    const dataDirs = [0, 1, 2, 3].map((i) => tempDir(`cas-scale-${i}-`));
    cleanups.push(() => dataDirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

    const common = {
      ...bucket.env,
      DATABASE_URL: db.url,
      SERVICE_MAX_UPLOADS_PER_HOUR: '1000',
      SERVICE_MAX_CONCURRENT_ACTIVE_CALLS: '1000',
      SERVICE_MAX_UPLOADS_IN_FLIGHT: '1000',
      PLAN_FREE_TRANSCRIPTS_PER_DAY: '1000',
      PLAN_FREE_MINUTES_PER_MONTH: '1000',
      WORKER_MAINTENANCE_INTERVAL_SECONDS: '2',
      TRANSCRIPTION_PROVIDER: 'openai',
      TRANSCRIPTION_OPENAI_BASE_URL: recogniser.url,
    };
    const t0 = Date.now();
    const ports = [await freePort(), await freePort()];
    // All four start together: migrations run once, under an advisory lock.
    const apis = [0, 1].map((i) => spawnService({ ...common, DATA_DIR: dataDirs[i], PORT: String(ports[i]), HOST: '127.0.0.1', WORKER_ENABLED: 'false' }));
    // Workers log at info level: their start and each call they process (ids and timings only).
    const workers = [2, 3].map((i) => spawnService({ ...common, DATA_DIR: dataDirs[i], LOG_LEVEL: 'info' }, ['--worker-only']));
    procs.push(...apis, ...workers);
    await Promise.all(apis.map((p, i) => waitHealthy(ports[i], p)));
    const processedBy = (w: ServiceProcess) => w.output().split('\n').filter((l) => l.includes('"msg":"call processed"')).length;
    for (const w of workers) {
      const until = Date.now() + 90_000;
      while (!w.output().includes('"msg":"service started"')) {
        if (w.child.exitCode !== null || Date.now() > until) throw new Error(`worker did not start: ${w.output().slice(-1500)}`);
        await new Promise((r) => setTimeout(r, 250));
      }
    }
    t.diagnostic(`processes up in ${Date.now() - t0} ms`);
    const t1 = Date.now();
    const uploads = await Promise.all(
      Array.from({ length: UPLOADS }, (_, i) => api(ports[i % 2], 'POST', '/api/calls/analyze', uploadForm(audio, { title: `call ${i}`, contactName: 'Dana', direction: 'INCOMING' }))),
    );
    for (const u of uploads) assert.equal(u.status, 202, JSON.stringify(u.body));
    const ids = uploads.map((u) => u.body.callId as string);
    assert.equal(new Set(ids).size, UPLOADS);

    // Until every call settles or a worker process dies (no wall-clock deadline: the calls' job
    // limits end them, the runner's timeout catches a hang).
    let statuses: Array<{ callId: string; status: string }> = [];
    for (;;) {
      statuses = (await api(ports[statuses.length % 2], 'GET', `/api/calls/status?ids=${ids.join(',')}`)).body.items;
      if (statuses.length === UPLOADS && statuses.every((s) => s.status === 'COMPLETED' || s.status === 'FAILED')) break;
      if (workers.some((w) => w.child.exitCode !== null || w.child.signalCode !== null)) throw new Error(`a worker exited before the calls settled: ${JSON.stringify(statuses)}\n${workers.map((w) => w.output().slice(-1500)).join('\n')}`);
      await new Promise((r) => setTimeout(r, 1000));
    }
    t.diagnostic(`${UPLOADS} calls uploaded and processed in ${Date.now() - t1} ms`);
    assert.deepEqual(statuses.filter((s) => s.status !== 'COMPLETED'), [], workers.map((w) => w.output().slice(-1500)).join('\n'));

    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const rows = (
        await client.query(`SELECT c.id, c.attempts,
          (SELECT count(*)::int FROM processing_events e WHERE e.call_id = c.id AND e.step = 'PIPELINE' AND e.outcome = 'STARTED') AS starts,
          (SELECT count(*)::int FROM processing_events e WHERE e.call_id = c.id AND e.step = 'PIPELINE' AND e.outcome = 'COMPLETED') AS completions,
          (SELECT count(*)::int FROM call_artifacts a WHERE a.call_id = c.id) AS artifacts
        FROM calls c`)
      ).rows;
      assert.equal(rows.length, UPLOADS);
      assert.equal(recogniser.requests(), UPLOADS, 'each call recognised once');
      const split = workers.map(processedBy);
      t.diagnostic(`calls processed per worker: ${split.join(' + ')}`);
      assert.equal(split[0] + split[1], UPLOADS);
      assert.ok(split.every((n) => n > 0), `both workers took jobs (${split.join(' + ')})`);
      for (const r of rows) assert.deepEqual({ starts: r.starts, completions: r.completions, artifacts: r.artifacts }, { starts: 1, completions: 1, artifacts: 2 }, `call ${r.id}`);
    } finally {
      await client.end();
    }

    // Every audio object (and its waveform peaks) is in the bucket under its owner, beside the
    // bucket's binding to the database (service/); no process kept audio (or anything) on disk.
    const owner = (await api(ports[0], 'GET', '/api/users/me')).body.id as string;
    const callKeys = async () => (await bucket.keys()).filter((k) => !k.startsWith('service/'));
    assert.deepEqual(await callKeys(), ids.flatMap((id) => [`users/${owner}/calls/${id}/audio.wav`, `users/${owner}/calls/${id}/waveform.peaks`]).sort());
    for (const dir of dataDirs) assert.deepEqual(filesUnder(dir).filter((f) => f !== 'service.lock'), [], `nothing under ${dir}`);

    // Deletion through both API processes: one by one on the first, in bulk on the second.
    for (const id of ids.slice(0, UPLOADS / 2)) assert.equal((await api(ports[0], 'DELETE', `/api/calls/${id}`)).status, 204);
    const bulk = await api(ports[1], 'DELETE', '/api/calls', { callIds: ids.slice(UPLOADS / 2) });
    assert.equal(bulk.status, 200, JSON.stringify(bulk.body));
    assert.deepEqual(bulk.body, { deleted: UPLOADS / 2, missing: 0, failed: [] });
    assert.deepEqual(await callKeys(), [], 'every object removed with its call');

    for (const p of [...workers, ...apis]) assert.equal(await p.kill('SIGTERM'), 0, `graceful stop: ${p.output().slice(-1000)}`);
  });
});

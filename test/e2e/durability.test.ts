// Crash and concurrency behaviour of processing, with real service processes: a worker killed in
// the middle of a job is recovered and the call completes exactly once; two worker processes on
// one external PostgreSQL never process the same call twice.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { corpusFile, loadTruth } from '../support/corpus.js';
import { createExternalDatabase, externalDbAvailable, tempDir, uploadForm } from '../support/service.js';
import { freePort, spawnService, waitHealthy, waitWhileRunning, type ServiceProcess } from '../support/process.js';

const CALL = 'doctor-results';
const truth = loadTruth(CALL);
const audio = corpusFile(CALL, 'call.ogg');
const metadata = { title: truth.title, contactName: truth.upload.contactName ?? undefined, direction: truth.upload.direction, recordedAt: truth.upload.recordedAt };

async function api(port: number, method: string, p: string, body?: FormData): Promise<any> {
  const r = await fetch(`http://127.0.0.1:${port}${p}`, { method, body });
  return { status: r.status, body: await r.json().catch(() => null) };
}

async function waitStatus(port: number, callId: string, want: (s: string) => boolean, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await api(port, 'GET', `/api/calls/${callId}`);
    if (r.status === 200 && want(r.body.status)) return r.body.status;
    if (Date.now() > deadline) throw new Error(`call ${callId} stuck in ${r.body?.status}`);
    await new Promise((res) => setTimeout(res, 200));
  }
}

async function query<T = any>(connection: pg.ClientConfig, text: string, values: unknown[] = []): Promise<T[]> {
  const c = new pg.Client(connection);
  await c.connect();
  try {
    return (await c.query(text, values)).rows as T[];
  } finally {
    await c.end();
  }
}

const procs: ServiceProcess[] = [];
after(async () => {
  for (const p of procs) await p.kill('SIGKILL');
});

describe('processing durability', () => {
  test('a worker killed mid-job is recovered and the call completes exactly once', async () => {
    const dataDir = tempDir('cas-kill-');
    const port = await freePort();
    const env = {
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      SERVICE_LOCAL_USER_NAME: truth.user.displayName,
      // Long enough that no run stops itself at its limit on a loaded machine (and beyond the
      // wait below: a restart that did not hand the killed job back fails the test).
      WORKER_JOB_TIMEOUT_SECONDS: '900',
      WORKER_MAINTENANCE_INTERVAL_SECONDS: '2',
    };
    const first = spawnService(env);
    procs.push(first);
    await waitHealthy(port, first);
    const up = await api(port, 'POST', '/api/calls/analyze', uploadForm(audio, metadata));
    assert.equal(up.status, 202);
    const callId = up.body.callId;
    await waitStatus(port, callId, (s) => s === 'TRANSCRIBING' || s === 'ANALYZING', 60_000);
    await first.kill('SIGKILL');

    const second = spawnService(env);
    procs.push(second);
    await waitHealthy(port, second);
    const conn = { host: path.join(dataDir, 'postgres-run'), port: 5432, user: 'postgres', database: 'call_analysis' };
    // The restarted service is the only process on its embedded database: it hands the killed job
    // back at start, instead of the queue waiting out the job's limit (900 s here).
    await waitWhileRunning('the start handing the killed job back', () => /handed back to the queue/.test(second.output()), second, { deadlineMs: 30_000 });
    const final = await waitStatus(port, callId, (s) => s === 'COMPLETED' || s === 'FAILED', 150_000);
    assert.equal(final, 'COMPLETED', second.output().slice(-1500));

    const [call] = await query(conn, 'SELECT attempts FROM calls WHERE id = $1', [callId]);
    // At least one more run after the kill, which must complete exactly once.
    assert.ok(call.attempts >= 2, `the job ran again after the kill (attempts ${call.attempts})`);
    const events = await query(conn, 'SELECT step, outcome FROM processing_events WHERE call_id = $1 ORDER BY id', [callId]);
    assert.equal(events.filter((e) => e.step === 'PIPELINE' && e.outcome === 'COMPLETED').length, 1);
    const artifacts = await query(conn, 'SELECT kind FROM call_artifacts WHERE call_id = $1 ORDER BY kind', [callId]);
    assert.deepEqual(artifacts.map((a) => a.kind), ['analysis', 'transcript']);
    const analysis = (await api(port, 'GET', `/api/calls/${callId}/analysis`)).body;
    const items = (await api(port, 'GET', `/api/calls/${callId}/action-items`)).body;
    assert.equal(items.length, analysis.actionItems.length, 'action items not duplicated');
    const ledger = await query(conn, 'SELECT count(*)::int AS n FROM usage_ledger WHERE call_id = $1', [callId]);
    assert.equal(ledger[0].n, 1);

    assert.equal(await second.kill('SIGTERM'), 0, 'graceful stop');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('two worker processes on one external PostgreSQL never process a call twice', async (t) => {
    if (!(await externalDbAvailable())) return t.skip('no external PostgreSQL');
    const db = await createExternalDatabase();
    const port = await freePort();
    // The processes share the blob store (one DATA_DIR on this machine) and the queue (the database).
    const dataDir = tempDir('cas-shared-');
    const common = { DATABASE_URL: db.url, DATA_DIR: dataDir, SERVICE_LOCAL_USER_NAME: truth.user.displayName, WORKER_MAINTENANCE_INTERVAL_SECONDS: '2' };
    try {
      const apiProc = spawnService({ ...common, PORT: String(port), HOST: '127.0.0.1', WORKER_ENABLED: 'false' });
      procs.push(apiProc);
      await waitHealthy(port, apiProc);
      const workers = [0, 1].map(() => spawnService(common, ['--worker-only']));
      procs.push(...workers);
      const short = corpusFile('school-teacher-call', 'call.m4a');
      const ids: string[] = [];
      for (let i = 0; i < 4; i++) {
        const r = await api(port, 'POST', '/api/calls/analyze', uploadForm(i % 2 ? audio : short, { title: `call ${i}` }));
        assert.equal(r.status, 202);
        ids.push(r.body.callId);
      }
      // No deadline on machine speed: the real recogniser may take minutes on a busy machine, and the
      // workers' own stage limits end every call; the test runner's timeout catches a hang.
      for (const id of ids) assert.equal(await waitStatus(port, id, (s) => s === 'COMPLETED' || s === 'FAILED', Infinity), 'COMPLETED');
      const conn = { connectionString: db.url };
      const rows = await query(conn, `SELECT c.id, c.attempts,
          (SELECT count(*)::int FROM processing_events e WHERE e.call_id = c.id AND e.step = 'PIPELINE' AND e.outcome = 'STARTED') AS starts,
          (SELECT count(*)::int FROM processing_events e WHERE e.call_id = c.id AND e.step = 'PIPELINE' AND e.outcome = 'COMPLETED') AS completions
        FROM calls c`);
      assert.equal(rows.length, 4);
      for (const r of rows) assert.deepEqual({ attempts: r.attempts, starts: r.starts, completions: r.completions }, { attempts: 1, starts: 1, completions: 1 });
      for (const w of workers) assert.equal(await w.kill('SIGTERM'), 0, 'worker stops gracefully');
      assert.equal(await apiProc.kill('SIGTERM'), 0);
    } finally {
      await db.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

// The crash tests, registered by crash-stages.test.ts (embedded database, and a crash during an
// upload) and crash-stages-external.test.ts (external database): one file per database so that each
// five-restart chain has the test runner's per-file time limit to itself on a loaded machine.
//
// SIGKILL at every step of processing, in one chain on a real service process: the job is held at
// a stage (TEST_HOLD_AT_STAGE, a test-only setting refused outside SERVICE_ENV=test), the process
// is killed there, restarted holding at the next stage, and so on: after decoding, after
// recognition, after diarization, after analysis, and inside the completing transaction with
// everything written but not committed. After the last restart the call completes exactly once:
// one completion, both artifacts, no duplicated action item, one usage entry, no stray files.
// Five restarts of a real process; a one-second first retry delay keeps the queue's exponential
// backoff (1, 2, 4, 8, 16 s) from dominating the chain.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import pg from 'pg';
import { createExternalDatabase, tempDir, uploadForm, type DbMode } from '../support/service.js';
import { freePort, spawnService, stopWithin, waitHealthy, waitWhileRunning, type ServiceProcess } from '../support/process.js';
import { HOLD_STAGES, loadConfig } from '../../src/config.js';
import { STAGES } from '../../src/pipeline/stages/index.js';
import { expireRunningCallJobs } from '../support/job-clock.js';

/** Files in the blob store apart from its database binding marker (src/store/blob-binding.ts). */
function callFiles(blobsDir: string): string[] {
  return fs
    .readdirSync(blobsDir, { recursive: true })
    .map(String)
    .filter((f) => !f.startsWith('service/') && fs.statSync(path.join(blobsDir, f)).isFile());
}

async function api(port: number, method: string, p: string, body?: FormData): Promise<any> {
  const r = await fetch(`http://127.0.0.1:${port}${p}`, { method, body });
  return { status: r.status, body: await r.json().catch(() => null) };
}

/** What the database says of the call and its jobs, for a wait that fails. */
async function callState(conn: pg.ClientConfig, callId: string): Promise<string> {
  const c = new pg.Client(conn);
  await c.connect();
  try {
    const q = async (text: string, values: unknown[]) => JSON.stringify((await c.query(text, values)).rows);
    return [
      `call: ${await q('SELECT status, attempts, analysis_requested_revision FROM calls WHERE id = $1', [callId])}`,
      `stages: ${await q('SELECT stage, attempt, outcome FROM call_stages WHERE call_id = $1', [callId])}`,
      `jobs: ${await q("SELECT name, state, retry_count, retry_limit, start_after, started_on, expire_in FROM pgboss.job WHERE data->>'callId' = $1", [callId])}`,
    ].join('\n');
  } finally {
    await c.end();
  }
}

/**
 * Registers the crash tests: the chain for each of `modes`, and with `uploadCrash` the hold knob's
 * configuration check and the crash during an upload. Call it before any top-level await.
 */
export function crashTests(modes: readonly DbMode[], opts: { uploadCrash: boolean }): void {
  const work = tempDir('cas-crash-');
  const audio = path.join(work, 'call.wav');
  {
    // A short two-voice call rendered here: what is said matters less than that it has speech.
    const lines: Array<[string, string]> = [
      ['slt', 'Hello, this is Olivia from Skyline Software. How can I help you today?'],
      ['rms', 'Hi Olivia. I need to move my demo to Tuesday. Please call me back tomorrow morning.'],
      ['slt', 'Sure. I will call you back tomorrow morning to confirm Tuesday at eleven.'],
    ];
    const parts = lines.map(([voice, text], i) => {
      const f = path.join(work, `line${i}.wav`);
      execFileSync('flite', ['-voice', voice, '-t', text, '-o', f]);
      return f;
    });
    execFileSync('sox', [...parts, '-r', '16000', '-c', '1', audio]);
  }

  const procs: ServiceProcess[] = [];
  after(async () => {
    for (const p of procs) await p.kill('SIGKILL');
    fs.rmSync(work, { recursive: true, force: true });
  });

  if (opts.uploadCrash) test('the hold knob is refused outside SERVICE_ENV=test and must name a stage', () => {
    for (const SERVICE_ENV of ['production', 'development']) {
      assert.throws(() => loadConfig({ SERVICE_ENV, IDP_PROJECT_ID: 'p', TEST_HOLD_AT_STAGE: 'decoded' }), /TEST_HOLD_AT_STAGE/);
    }
    assert.throws(() => loadConfig({ SERVICE_ENV: 'test', TEST_HOLD_AT_STAGE: 'somewhere' }), /TEST_HOLD_AT_STAGE/);
    assert.equal(loadConfig({ SERVICE_ENV: 'test', TEST_HOLD_AT_STAGE: 'committing' }).worker.testHoldAt, 'committing');
    assert.equal(loadConfig({ SERVICE_ENV: 'test' }).worker.testHoldAt, null);
  });

  for (const mode of modes) describe(`crash at every step of processing (${mode} database)`, () => {
    test('killed at each stage in turn, the call completes exactly once', async (ctx) => {
      const dataDir = tempDir('cas-crash-data-');
      const port = await freePort();
      const external = mode === 'external' ? await createExternalDatabase() : null;
      ctx.after(async () => external?.drop());
      const env: Record<string, string> = {
        ...(external ? { DATABASE_URL: external.url } : {}),
        SERVICE_ENV: 'test',
        DATA_DIR: dataDir,
        PORT: String(port),
        HOST: '127.0.0.1',
        SERVICE_LOCAL_USER_NAME: 'Olivia Park',
        // Long enough that no run stops itself at its limit on a loaded machine (and far beyond the
        // waits below, so a restart that did not hand the killed job on fails the test).
        WORKER_JOB_TIMEOUT_SECONDS: '900',
        WORKER_MAINTENANCE_INTERVAL_SECONDS: '1',
        WORKER_RETRY_LIMIT: '12',
        WORKER_RETRY_DELAY_SECONDS: '1',
      };
      const conn = external ? { connectionString: external.url } : { host: path.join(dataDir, 'postgres-run'), port: 5432, user: 'postgres', database: 'call_analysis' };
      // After each kill the killed job must run again. On the embedded database the restarted
      // service is the only process on it and hands the job back itself, at start (the warning
      // below); processes on an external database cannot tell a dead worker from a live one, so
      // there the test lets the job's time limit pass at once.
      const handOver = async (proc: ServiceProcess) => {
        if (external) assert.equal(await expireRunningCallJobs(conn), 1, 'the killed job is still running in the queue');
        else await waitWhileRunning('the start handing the killed job back', () => /handed back to the queue/.test(proc.output()), proc, { deadlineMs: 30_000 });
      };
      let callId = '';
      const began = Date.now();
      const at = () => `${((Date.now() - began) / 1000).toFixed(1)} s`;
      for (const stage of HOLD_STAGES) {
        const proc = spawnService({ ...env, TEST_HOLD_AT_STAGE: stage });
        procs.push(proc);
        await waitHealthy(port, proc);
        const healthyAt = at();
        if (callId) await handOver(proc);
        else {
          const up = await api(port, 'POST', '/api/calls/analyze', uploadForm(audio, { title: 'Demo moved', contactName: 'Bayview Logistics', direction: 'INCOMING' }));
          assert.equal(up.status, 202);
          callId = up.body.callId;
        }
        const marker = path.join(dataDir, `held-${stage}-${callId}`);
        await waitWhileRunning(`holding at ${stage}`, () => fs.existsSync(marker), proc, { describe: () => callState(conn, callId) });
        await proc.kill('SIGKILL');
        fs.rmSync(marker);
        ctx.diagnostic(`killed while held at ${stage} (healthy at ${healthyAt}, held at ${at()})`);
      }
      const last = spawnService(env);
      procs.push(last);
      await waitHealthy(port, last);
      await handOver(last);
      await waitWhileRunning('completion', async () => ['COMPLETED', 'FAILED'].includes((await api(port, 'GET', `/api/calls/${callId}`)).body?.status), last, { describe: () => callState(conn, callId) });
      const detail = await api(port, 'GET', `/api/calls/${callId}`);
      assert.equal(detail.body.status, 'COMPLETED', `${detail.body.errorReason} ${last.output().slice(-1500)}`);

      const c = new pg.Client(conn);
      await c.connect();
      let attempts = 0;
      try {
        const q = async (text: string, values: unknown[] = []) => (await c.query(text, values)).rows;
        const [call] = await q('SELECT attempts FROM calls WHERE id = $1', [callId]);
        attempts = call.attempts;
        assert.ok(call.attempts >= HOLD_STAGES.length + 1, `ran again after every kill (attempts ${call.attempts})`);
        const events = await q('SELECT step, outcome FROM processing_events WHERE call_id = $1 ORDER BY id', [callId]);
        assert.equal(events.filter((e) => e.step === 'PIPELINE' && e.outcome === 'COMPLETED').length, 1, 'completed once');
        assert.equal(events.filter((e) => e.step === 'ANALYZE' && e.outcome === 'COMPLETED').length, 1, 'the uncommitted completion left nothing');
        assert.deepEqual((await q('SELECT kind FROM call_artifacts WHERE call_id = $1 ORDER BY kind', [callId])).map((a) => a.kind), ['analysis', 'transcript']);
        assert.equal((await q('SELECT count(*)::int AS n FROM usage_ledger WHERE call_id = $1', [callId]))[0].n, 1);
        assert.equal((await q('SELECT count(*)::int AS n FROM calls'))[0].n, 1);
      } finally {
        await c.end();
      }
      const analysis = (await api(port, 'GET', `/api/calls/${callId}/analysis`)).body;
      const items = (await api(port, 'GET', `/api/calls/${callId}/action-items`)).body;
      assert.equal(items.length, analysis.actionItems.length, 'action items not duplicated');
      const titles = items.map((i: { title: string }) => i.title);
      assert.equal(new Set(titles).size, titles.length, 'no action item twice');
      // No half-written or stray file: the call's audio and its waveform peaks, and nothing else but
      // the store's binding to its database (service/); the work folder is empty.
      const files = callFiles(path.join(dataDir, 'blobs'));
      assert.deepEqual(files.map((f) => path.basename(f)).sort(), ['audio.wav', 'waveform.peaks']);
      // The stage state: every stage finished once, and the intermediate outputs are dropped. Each
      // kill but the last came after its stage had finished, so the restart resumed at the next stage;
      // the kill inside the completing transaction left `complete` to run again.
      const sc = new pg.Client(conn);
      await sc.connect();
      const stageRows = (await sc.query('SELECT stage, attempt, outcome, output FROM call_stages WHERE call_id = $1', [callId]).finally(() => sc.end())).rows;
      assert.ok(stageRows.every((r) => r.outcome === 'COMPLETED' && r.output === null), JSON.stringify(stageRows));
      assert.deepEqual(Object.fromEntries(stageRows.map((r) => [r.stage, r.attempt])), Object.fromEntries(STAGES.map((st) => [st.name, st.name === 'complete' ? 2 : 1])));
      const workDir = path.join(dataDir, 'work');
      assert.deepEqual(fs.existsSync(workDir) ? fs.readdirSync(workDir) : [], []);
      ctx.diagnostic(`crash chain: ${HOLD_STAGES.length} kills, COMPLETED once after ${attempts} attempts, ${items.length} action items (${at()})`);
      assert.equal(await stopWithin(last, 'SIGTERM'), 0, 'graceful stop');
      fs.rmSync(dataDir, { recursive: true, force: true });
    });
  });

  if (opts.uploadCrash) describe('crash during an upload (embedded database)', () => {
    test('a service killed while a recording streams in leaves no call, and its partial file is swept', async (ctx) => {
      const dataDir = tempDir('cas-crash-upload-');
      const port = await freePort();
      const env = { SERVICE_ENV: 'test', DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1' };
      const first = spawnService(env);
      procs.push(first);
      await waitHealthy(port, first);

      // A multipart body sent as a client does, stopped half-way through the file part.
      const boundary = '----crash-upload-boundary';
      const wav = fs.readFileSync(audio);
      const head = Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="metadata"\r\nContent-Type: application/json\r\n\r\n{"title":"Cut off"}\r\n` +
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="call.wav"\r\nContent-Type: audio/wav\r\n\r\n`,
      );
      const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/api/calls/analyze', headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(head.length + wav.length + boundary.length + 8) } });
      req.on('error', () => undefined); // the server dies under it
      // The server must still be reading the file when it is killed: an answer now (a refusal) would
      // leave the wait below for a partial file with nothing to wait for, so it ends the test at once.
      let answered = '';
      req.on('response', (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => (answered = `${res.statusCode} ${body.slice(0, 300)}`));
      });
      req.write(head);
      req.write(wav.subarray(0, Math.floor(wav.length / 2)));
      const blobsDir = path.join(dataDir, 'blobs');
      const partials = () => (fs.existsSync(blobsDir) ? fs.readdirSync(blobsDir, { recursive: true }).map(String).filter((f) => f.endsWith('.partial')) : []);
      await waitWhileRunning(
        'the upload streaming to a partial file',
        () => {
          if (answered) throw new Error(`the service answered the upload before it was complete: ${answered}`);
          return partials().length > 0;
        },
        first,
      );
      await first.kill('SIGKILL');
      req.destroy();
      const left = partials();
      ctx.diagnostic(`killed with ${left.length} partial file(s) on disk`);

      // The partial file is older than the sweep's limit by the time of the restart (an hour is
      // the limit, so that a shared DATA_DIR never loses another process's upload in flight).
      const old = new Date(Date.now() - 2 * 3600_000);
      for (const f of left) fs.utimesSync(path.join(blobsDir, f), old, old);
      const second = spawnService(env);
      procs.push(second);
      await waitHealthy(port, second);
      const list = await api(port, 'GET', '/api/calls');
      assert.equal(list.status, 200);
      assert.deepEqual(list.body.items, [], 'an interrupted upload leaves no call');
      await waitWhileRunning('the partial file swept', () => partials().length === 0, second);
      assert.deepEqual(callFiles(blobsDir), [], 'no half-written blob remains');
      assert.equal(await stopWithin(second, 'SIGTERM'), 0, 'graceful stop');
      fs.rmSync(dataDir, { recursive: true, force: true });
    });
  });
}

// The embedded PostgreSQL under DATA_DIR: one service per DATA_DIR (in-process and as a second
// process), a restart after SIGKILL that keeps the data and replaces the orphaned server, and a
// graceful SIGTERM that exits 0 and stops the server.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DataDirLockedError } from '../../src/store/embedded-postgres.js';
import { startTestService, tempDir, type TestService } from '../support/service.js';
import { freePort, spawnService, waitHealthy, type ServiceProcess } from '../support/process.js';

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function postmasterPid(dataDir: string): number | null {
  try {
    return Number(fs.readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return null;
  }
}

async function waitFor(cond: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}

/** The service as a child process on the embedded database (local development user). */
function spawnEmbedded(dataDir: string, port: number): ServiceProcess {
  return spawnService({ DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', SERVICE_ENV: 'development', WORKER_ENABLED: 'false', LOG_LEVEL: 'warn' });
}

describe('embedded PostgreSQL: one service per DATA_DIR', () => {
  let dataDir: string;
  let first: TestService;

  before(async () => {
    dataDir = tempDir('cas-lock-');
    first = await startTestService({ db: 'embedded', dataDir });
  });

  after(async () => {
    await first?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('a second service in the same process refuses the DATA_DIR and leaves the first running', async () => {
    assert.equal((await first.request('PATCH', '/api/users/me', { body: { displayName: 'Lock Holder' } })).status, 200);
    const pgPid = postmasterPid(dataDir);
    assert.ok(pgPid && pidAlive(pgPid));
    let second: TestService | null = null;
    let caught: unknown;
    try {
      second = await startTestService({ db: 'embedded', dataDir });
    } catch (err) {
      caught = err;
    }
    await second?.stop();
    assert.ok(caught instanceof DataDirLockedError, `expected DataDirLockedError, got ${String(caught)}`);
    assert.match(caught.message, /already using DATA_DIR/);
    // the first service and its database are untouched
    assert.equal(postmasterPid(dataDir), pgPid);
    assert.ok(pidAlive(pgPid));
    const me = await first.request('GET', '/api/users/me');
    assert.equal(me.status, 200);
    assert.equal(me.body.displayName, 'Lock Holder');
    assert.equal(fs.readFileSync(path.join(dataDir, 'service.lock'), 'utf8').trim(), String(process.pid));
  });

  test('a second service process exits non-zero with a clear message', async () => {
    const proc = spawnEmbedded(dataDir, await freePort());
    const timer = setTimeout(() => void proc.kill('SIGKILL'), 60_000);
    const code = await proc.exited;
    clearTimeout(timer);
    assert.notEqual(code, 0);
    assert.notEqual(code, null, 'it exited by itself');
    assert.match(proc.output(), /already using DATA_DIR/);
    assert.doesNotMatch(proc.output(), /\n\s+at /, 'a message, not a stack trace');
    assert.equal((await first.request('GET', '/api/health')).status, 200, 'the first service keeps running');
  });
});

describe('embedded PostgreSQL as a process: SIGKILL, restart, SIGTERM', () => {
  let dataDir: string;
  let proc: ServiceProcess | null = null;

  before(() => {
    dataDir = tempDir('cas-kill-');
  });

  after(async () => {
    if (proc) await proc.kill('SIGKILL');
    // stop a server left behind by a failed assertion
    const pid = postmasterPid(dataDir);
    if (pid && pidAlive(pid)) {
      process.kill(pid, 'SIGQUIT');
      await waitFor(() => !pidAlive(pid), 10_000);
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('after SIGKILL the next start is healthy, keeps the data and replaces the orphaned server; SIGTERM exits 0', async () => {
    let port = await freePort();
    proc = spawnEmbedded(dataDir, port);
    await waitHealthy(port, proc, 120_000);
    const base = () => `http://127.0.0.1:${port}`;
    const patch = await fetch(`${base()}/api/users/me`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ displayName: 'Written Before Kill' }) });
    assert.equal(patch.status, 200);
    const before = (await patch.json()) as { id: string };

    const orphan = postmasterPid(dataDir);
    assert.ok(orphan && pidAlive(orphan), 'the embedded server runs');
    proc.child.kill('SIGKILL');
    await proc.exited;
    proc = null;
    assert.ok(pidAlive(orphan), 'pg_ctl detached the server: it outlives the killed service');
    assert.ok(fs.existsSync(path.join(dataDir, 'service.lock')), 'the killed service left its lock');

    port = await freePort();
    proc = spawnEmbedded(dataDir, port);
    await waitHealthy(port, proc, 120_000);
    const me = await fetch(`${base()}/api/users/me`);
    assert.equal(me.status, 200);
    const body = (await me.json()) as { id: string; displayName: string };
    assert.equal(body.id, before.id);
    assert.equal(body.displayName, 'Written Before Kill');
    assert.ok(await waitFor(() => !pidAlive(orphan), 5000), 'the orphaned server was stopped');
    const current = postmasterPid(dataDir);
    assert.ok(current && current !== orphan && pidAlive(current));
    assert.equal(fs.readFileSync(path.join(dataDir, 'service.lock'), 'utf8').trim(), String(proc.child.pid));

    // graceful shutdown: exit 0, server stopped, lock released
    const code = await proc.kill('SIGTERM');
    proc = null;
    assert.equal(code, 0);
    assert.equal(fs.existsSync(path.join(dataDir, 'postgres', 'postmaster.pid')), false, 'postmaster.pid gone');
    assert.ok(await waitFor(() => !pidAlive(current), 5000), 'the server process is gone');
    assert.equal(fs.existsSync(path.join(dataDir, 'service.lock')), false, 'the lock is released');
  });
});

describe('embedded PostgreSQL: a DATA_DIR the postgres user cannot reach', { skip: process.getuid?.() !== 0 ? 'only root runs PostgreSQL as the postgres user' : false }, () => {
  test('a DATA_DIR inside a closed directory (mktemp -d) stops the start with a message naming it and the fix', async () => {
    const closed = fs.mkdtempSync(path.join(os.tmpdir(), 'cas-closed-'));
    fs.chmodSync(closed, 0o700);
    const dataDir = path.join(closed, 'data');
    const proc = spawnService({ DATA_DIR: dataDir, PORT: String(await freePort()), HOST: '127.0.0.1', SERVICE_ENV: 'development', WORKER_ENABLED: 'false', LOG_LEVEL: 'warn' });
    try {
      const code = await Promise.race([proc.exited, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 60_000))]);
      assert.equal(code, 2, proc.output());
      const out = proc.output();
      assert.match(out, new RegExp(`cannot enter ${closed.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(mode 0700\\)`));
      assert.match(out, /chmod o\+x/);
      assert.doesNotMatch(out, /initdb: could not access/);
      assert.ok(!fs.existsSync(path.join(dataDir, 'postgres', 'PG_VERSION')), 'no half-initialised cluster');
    } finally {
      await proc.kill('SIGKILL');
      fs.rmSync(closed, { recursive: true, force: true });
    }
  });
});

// The README's start command as a process manager runs it: `npm start` in the foreground, then
// SIGTERM to that process (systemd's main PID, Docker's PID 1, a supervisor). The runtime contract
// asks for a graceful shutdown on SIGTERM; npm forwards the signal to its script's shell, so the
// script must `exec` node, or the shell dies and node is orphaned, still serving, with its embedded
// PostgreSQL running.
import fs from 'node:fs';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { projectRoot } from '../support/corpus.js';
import { freePort, spawnCaptured } from '../support/process.js';
import { tempDir } from '../support/service.js';

/**
 * Processes that name the folder in their command line (the embedded PostgreSQL) or their
 * environment (the service, started with DATA_DIR set).
 */
function processesUsing(folder: string): number[] {
  const pids: number[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const named = fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(folder) || fs.readFileSync(`/proc/${name}/environ`, 'utf8').includes(`DATA_DIR=${folder}\0`);
      if (named) pids.push(Number(name));
    } catch {
      /* exited meanwhile */
    }
  }
  return pids;
}

async function healthStatus(port: number): Promise<number | null> {
  try {
    return (await fetch(`http://127.0.0.1:${port}/api/health`, { signal: AbortSignal.timeout(2000) })).status;
  } catch {
    return null;
  }
}

describe('npm start', () => {
  test('SIGTERM to the npm process shuts the service down gracefully: no orphaned node, embedded PostgreSQL stopped', async () => {
    const port = await freePort();
    const dataDir = tempDir('cas-npm-start-');
    const npm = spawnCaptured('npm', ['start'], { PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info' });
    try {
      const deadline = Date.now() + 120_000;
      while ((await healthStatus(port)) !== 200) {
        assert.equal(npm.child.exitCode, null, `npm start exited early: ${npm.output().slice(-3000)}`);
        assert.ok(Date.now() < deadline, `not healthy in time: ${npm.output().slice(-2000)}`);
        await new Promise((r) => setTimeout(r, 250));
      }
      assert.ok(processesUsing(`${dataDir}/postgres`).length > 0, 'the embedded PostgreSQL runs under DATA_DIR');

      const code = await Promise.race([npm.kill('SIGTERM'), new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 60_000))]);
      assert.notEqual(code, 'timeout', 'npm start ends after SIGTERM');
      assert.match(npm.output(), /"signal":"SIGTERM","msg":"shutting down"/, 'node itself received the signal');
      assert.match(npm.output(), /embedded PostgreSQL stopped/);
      assert.equal(await healthStatus(port), null, 'nothing serves the port any more');
      assert.deepEqual(processesUsing(dataDir), [], 'no process is left running on DATA_DIR');
    } finally {
      if (npm.child.exitCode === null) npm.child.kill('SIGKILL');
      for (const pid of processesUsing(dataDir)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          /* gone */
        }
      }
    }
  });
});

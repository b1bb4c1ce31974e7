// The maintenance sweeps as scheduled jobs on the durable queue (issue 23): each sweep has its own
// queue and cron schedule in pg-boss, every process asks for a run at start, a worker runs it, and
// processes sharing the database never run one sweep twice at once (two queue instances on one
// database stand for two processes).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { anotherQueue, startTestService, type TestService } from '../support/service.js';
import { STRANDED_CALLS_SWEEP_QUEUE, SWEEP_QUEUE, type JobQueue } from '../../src/store/queue.js';
import { SCHEDULED_SWEEPS } from '../../src/maintenance.js';

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

describe('maintenance sweeps run as scheduled jobs, one worker at a time', () => {
  let t: TestService;
  const extra: JobQueue[] = [];
  const db = () => t.service.database.db;
  /** A half-written upload in the blob store, last written `hoursAgo` hours ago. */
  const partialFile = (name: string, hoursAgo: number) => {
    const file = path.join(t.dataDir, 'blobs', 'users', 'sweep-test', name);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, 'x');
    const at = new Date(Date.now() - hoursAgo * 3600_000);
    fs.utimesSync(file, at, at);
    return file;
  };

  before(async () => {
    t = await startTestService({ env: { WORKER_ENABLED: 'true' } });
  });
  after(async () => {
    for (const q of extra) await q.stop(1);
    await t?.stop();
  });

  test('each sweep has a stately queue without retries and a cron schedule; the start asked for a run of each, which the worker ran', async () => {
    const names = SCHEDULED_SWEEPS.map((s) => s.name);
    assert.deepEqual([...names].sort(), [SWEEP_QUEUE, STRANDED_CALLS_SWEEP_QUEUE].sort());
    const queues = await sql<{ name: string; policy: string; retryLimit: number }>`SELECT name, policy, retry_limit FROM pgboss.queue WHERE name = ANY(${names})`.execute(db());
    assert.equal(queues.rows.length, names.length);
    for (const q of queues.rows) {
      assert.equal(q.policy, 'stately', q.name);
      assert.equal(q.retryLimit, 0, q.name);
    }
    const schedules = await sql<{ name: string; cron: string }>`SELECT name, cron FROM pgboss.schedule WHERE name = ANY(${names})`.execute(db());
    assert.deepEqual(
      Object.fromEntries(schedules.rows.map((r) => [r.name, r.cron])),
      Object.fromEntries(SCHEDULED_SWEEPS.map((s) => [s.name, s.cron])),
    );
    for (const name of names) {
      await waitFor(`the start's ${name} run`, async () => {
        const r = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pgboss.job WHERE name = ${name} AND state = 'completed'`.execute(db());
        return r.rows[0].n >= 1;
      });
    }
  });

  test('a requested run sweeps what is due: a half-written upload older than an hour goes, a recent one stays', async () => {
    const old = partialFile('old.partial', 2);
    const recent = partialFile('recent.partial', 0);
    await t.service.queue.requestSweep(SWEEP_QUEUE);
    await waitFor('the old partial file swept', async () => !fs.existsSync(old));
    assert.ok(fs.existsSync(recent), 'a recent partial file (an upload in flight) is kept');
  });

  test('a test can run a sweep here and now, outside the queue; an unknown sweep is an error', async () => {
    const stale = partialFile('now.partial', 2);
    await t.service.runSweep(SWEEP_QUEUE);
    assert.equal(fs.existsSync(stale), false);
    await assert.rejects(t.service.runSweep('no-such-sweep'), /no sweep named/);
  });

  test('two processes on one database never run a sweep at once, and requests while a run waits coalesce into it', async () => {
    const name = 'maintenance-test-sweep';
    for (let i = 0; i < 2; i++) extra.push(await anotherQueue(t.service));
    // A schedule that is not due during the test: the runs come from the requests alone.
    await extra[0].scheduleSweep(name, '0 0 1 1 *', { expireInSeconds: 60 });
    await extra[1].scheduleSweep(name, '0 0 1 1 *', { expireInSeconds: 60 });

    // Before any worker takes them, five requests from both processes are one waiting run.
    for (let i = 0; i < 5; i++) await extra[i % 2].requestSweep(name);
    const waiting = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pgboss.job WHERE name = ${name} AND state = 'created'`.execute(db());
    assert.equal(waiting.rows[0].n, 1);

    let running = 0;
    let most = 0;
    let runs = 0;
    const handler = async () => {
      running++;
      most = Math.max(most, running);
      await sleep(700);
      running--;
      runs++;
    };
    await extra[0].workSweep(name, handler);
    await extra[1].workSweep(name, handler);
    // Requests keep coming from both processes while runs go on: a run always waits beside the
    // running one, so the idle process has one to take if the policy let it.
    for (let i = 0; i < 12; i++) {
      await extra[i % 2].requestSweep(name);
      await sleep(250);
    }
    await waitFor('the runs to end', async () => {
      const r = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pgboss.job WHERE name = ${name} AND state IN ('created', 'active')`.execute(db());
      return r.rows[0].n === 0 && running === 0;
    });
    assert.ok(runs >= 2, `several runs (${runs})`);
    assert.equal(most, 1, 'never two runs at once');
  });
});

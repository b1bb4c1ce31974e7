// GET /api/health: open without authentication, 503 while the database is unreachable and 200 again
// once it is back, on the embedded database (server stopped and restarted under the running
// service) and on the external one (a TCP proxy in front of it that is cut and restored).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { CuttableProxy } from '../support/tcp-proxy.js';
import { proxiedExternalDatabase } from '../support/proxied-database.js';
import { externalDbAvailable, startTestService, type TestService } from '../support/service.js';

const health = async (t: TestService) => {
  const r = await t.request('GET', '/api/health');
  return { status: r.status, body: r.body };
};

/** Polls until the health answer has `status` (the pool may need a moment to notice). */
async function waitForHealth(t: TestService, status: number, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const h = await health(t);
    if (h.status === status || Date.now() > deadline) return h;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** While the database is down: 503 DOWN on health, 503 service_unavailable elsewhere, nothing leaked. */
async function assertDown(t: TestService) {
  const h = await waitForHealth(t, 503);
  assert.deepEqual(h, { status: 503, body: { status: 'DOWN', database: 'DOWN' } });
  const r = await t.request('GET', '/api/users/me');
  assert.equal(r.status, 503, r.text);
  assert.deepEqual(r.body, { error: { code: 'service_unavailable', message: r.body.error.message } });
  assert.doesNotMatch(r.text, /ECONNREFUSED|ENOENT|127\.0\.0\.1|postgres|SELECT|\bat /i);
}

async function assertUp(t: TestService) {
  const h = await waitForHealth(t, 200);
  assert.deepEqual(h, { status: 200, body: { status: 'UP', database: 'UP' } });
  const r = await t.request('GET', '/api/users/me');
  assert.equal(r.status, 200, r.text);
}

// Probed before any suite is declared: a suite already starting would block the event loop (cp of
// the database template) and could time the probe out.
const external = await externalDbAvailable();

describe('health (embedded database)', () => {
  let t: TestService;

  before(async () => {
    // The local development shortcut: no token needed for the other requests of this suite.
    t = await startTestService({ db: 'embedded' });
  });

  after(async () => {
    await t?.stop();
  });

  test('200 UP without authentication', async () => {
    assert.deepEqual(await health(t), { status: 200, body: { status: 'UP', database: 'UP' } });
  });

  test('503 while the embedded database is down, 200 after it is back, data kept', async () => {
    const before = await t.request('PATCH', '/api/users/me', { body: { displayName: 'Before Outage' } });
    assert.equal(before.status, 200);
    await t.service.database.embedded!.stopServerOnly();
    try {
      await assertDown(t);
      await assertDown(t); // and it stays down, the service still answering
    } finally {
      await t.service.database.embedded!.startServerOnly();
    }
    await assertUp(t);
    assert.equal((await t.request('GET', '/api/users/me')).body.displayName, 'Before Outage');
    const after = await t.request('PATCH', '/api/users/me', { body: { displayName: 'After Outage' } });
    assert.equal(after.status, 200);
    assert.equal(after.body.displayName, 'After Outage');
  });
});

describe('health (external database)', { skip: !external && 'no external PostgreSQL' }, () => {
  let t: TestService;
  let proxy: CuttableProxy;
  let drop: () => Promise<void>;

  before(async () => {
    const db = await proxiedExternalDatabase();
    ({ proxy, drop } = db);
    t = await startTestService({ env: { DATABASE_URL: db.url } });
  });

  after(async () => {
    await proxy?.restore().catch(() => undefined);
    await t?.stop();
    await proxy?.stop();
    await drop?.();
  });

  test('200 UP without authentication', async () => {
    assert.deepEqual(await health(t), { status: 200, body: { status: 'UP', database: 'UP' } });
  });

  test('503 while the connection to the database is cut, 200 after it is restored', async () => {
    assert.equal((await t.request('PATCH', '/api/users/me', { body: { displayName: 'Before Cut' } })).status, 200);
    await proxy.cut();
    try {
      await assertDown(t);
      await assertDown(t);
    } finally {
      await proxy.restore();
    }
    await assertUp(t);
    assert.equal((await t.request('GET', '/api/users/me')).body.displayName, 'Before Cut');
  });

  test('503 while the database does not answer at all (black hole), 200 after', async () => {
    proxy.hang();
    try {
      const started = Date.now();
      await assertDown(t);
      assert.ok(Date.now() - started < 30_000, 'answers within the connection timeout, not hanging');
    } finally {
      proxy.unhang();
    }
    await assertUp(t);
  });
});

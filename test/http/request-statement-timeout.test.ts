// The statement time limit of HTTP request handlers (DATABASE_REQUEST_STATEMENT_TIMEOUT_MS): their
// queries run on a pool whose connections carry PostgreSQL's statement_timeout, so a statement
// that runs (or waits) too long is cancelled by the server and the request answers 503
// service_unavailable with the service's error body; the pool of jobs, sweeps, migrations and
// account deletion has no limit. A row lock held by the test stands for the pathological query:
// the request's statement waits on it past the limit.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { dbModes, startTestService, type TestService } from '../support/service.js';
import { seedCompletedCall } from '../fixtures/seed.js';

const LIMIT_MS = 300;

/** Holds a row lock on the call in a transaction of the unlimited pool for `ms`; `during` runs once it is held. */
async function withCallLocked<T>(t: TestService, callId: string, ms: number, during: () => Promise<T>): Promise<T> {
  let locked!: () => void;
  const isLocked = new Promise<void>((resolve) => (locked = resolve));
  const holder = t.service.ctx.database.db.transaction().execute(async (trx) => {
    await sql`SELECT id FROM calls WHERE id = ${callId} FOR UPDATE`.execute(trx);
    locked();
    await new Promise((r) => setTimeout(r, ms));
  });
  await isLocked;
  try {
    return await during();
  } finally {
    await holder;
  }
}

for (const mode of await dbModes()) {
  describe(`request statement time limit (${mode} database)`, () => {
    let t: TestService;
    let userId: string;
    let callId: string;

    before(async () => {
      t = await startTestService({ db: mode, env: { DATABASE_REQUEST_STATEMENT_TIMEOUT_MS: String(LIMIT_MS) } });
      const me = await t.request('GET', '/api/users/me');
      assert.equal(me.status, 200, me.text);
      userId = me.body.id;
      callId = await seedCompletedCall(t, userId, { title: 'Before' });
    });
    after(async () => {
      await t?.stop();
    });

    test('the request pool carries the limit; the pool of jobs, sweeps and migrations has none', async () => {
      const { db, requestDb } = t.service.ctx.database;
      assert.equal((await sql<{ statementTimeout: string }>`SHOW statement_timeout`.execute(requestDb)).rows[0].statementTimeout, `${LIMIT_MS}ms`);
      assert.equal((await sql<{ statementTimeout: string }>`SHOW statement_timeout`.execute(db)).rows[0].statementTimeout, '0');
      await assert.rejects(sql`SELECT pg_sleep(1)`.execute(requestDb), (err: { code?: string }) => err.code === '57014');
      await sql`SELECT pg_sleep(1)`.execute(db);
    });

    test('a statement held past the limit answers 503 service_unavailable with the error body, and changes nothing', async () => {
      const before = (await t.request('GET', `/api/calls/${callId}`)).body.title;
      let took = 0;
      const r = await withCallLocked(t, callId, 3000, async () => {
        const started = Date.now();
        const answer = await t.request('PATCH', `/api/calls/${callId}`, { body: { title: 'After' } });
        took = Date.now() - started;
        return answer;
      });
      assert.equal(r.status, 503, r.text);
      assert.deepEqual(r.body, { error: { code: 'service_unavailable', message: 'The service is temporarily unavailable.' } });
      assert.doesNotMatch(r.text, /stack|canceling statement|statement timeout|SELECT|UPDATE/i, 'no driver message, SQL or stack');
      assert.ok(took < 2500, `answered at the limit, not when the lock was released (${took} ms)`);
      assert.equal((await t.request('GET', `/api/calls/${callId}`)).body.title, before, 'the title is unchanged');
      // The limit is per statement: the same request without the lock succeeds.
      const again = await t.request('PATCH', `/api/calls/${callId}`, { body: { title: 'After' } });
      assert.equal(again.status, 200, again.text);
      assert.equal(again.body.title, 'After');
    });

    test('account deletion is not limited: it waits for a lock held longer than the limit and succeeds', async () => {
      const r = await withCallLocked(t, callId, 4 * LIMIT_MS, () => t.request('DELETE', '/api/users/me'));
      assert.equal(r.status, 204, r.text);
      const left = await t.service.ctx.database.db.selectFrom('calls').select('id').where('userId', '=', userId).execute();
      assert.deepEqual(left, [], 'the user\'s calls are gone');
    });
  });
}

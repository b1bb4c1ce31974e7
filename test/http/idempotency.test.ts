// Idempotency-Key on mutating JSON routes against the real service on both databases: replay of
// the stored response, one effect only, key reuse with another request, per-user keys, replayed
// 4xx answers, in-progress and abandoned claims, and the sweep of expired keys.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { sql } from 'kysely';
import { sweepIdempotencyKeys } from '../../src/store/repos/idempotency-keys.js';
import { dbModes } from '../support/service.js';
import { withTwoUsers } from '../support/two-users.js';

for (const mode of await dbModes()) {
  describe(`idempotency (${mode} database)`, () => {
    const t = withTwoUsers(mode, { a: { sub: 'idem-a', email: 'idem-a@example.test', name: 'Idem A' }, b: { sub: 'idem-b', email: 'idem-b@example.test', name: 'Idem B' } });

    const db = () => t.service.ctx.database.db;
    const newKey = () => `key-${crypto.randomUUID()}`;
    const createContact = (body: unknown, key: string | undefined, token = t.tokenA) =>
      t.request('POST', '/api/contacts', { token, body, headers: key === undefined ? {} : { 'idempotency-key': key } });
    const contactsNamed = async (userId: string, name: string) =>
      Number((await db().selectFrom('contacts').select((eb) => eb.fn.countAll<number>().as('n')).where('userId', '=', userId).where('name', '=', name).executeTakeFirstOrThrow()).n);
    const keyRow = (userId: string, key: string) => db().selectFrom('idempotencyKeys').selectAll().where('userId', '=', userId).where('key', '=', key).executeTakeFirst();

    test('same key and body: the same status and body, replay header, one effect', async () => {
      const key = newKey();
      const body = { name: 'Idem Contact 1', phoneNumber: '+1 555 0199', notes: 'first' };
      const first = await createContact(body, key);
      assert.equal(first.status, 201, first.text);
      assert.equal(first.headers.get('idempotent-replayed'), null);
      const second = await createContact(body, key);
      assert.equal(second.status, 201);
      assert.equal(second.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(second.body, first.body);
      assert.match(second.headers.get('content-type') ?? '', /^application\/json/);
      // the same JSON with its keys in another order is the same request
      const third = await createContact({ notes: 'first', phoneNumber: '+1 555 0199', name: 'Idem Contact 1' }, key);
      assert.equal(third.status, 201);
      assert.equal(third.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(third.body, first.body);
      assert.equal(await contactsNamed(t.userA, 'Idem Contact 1'), 1, 'only one contact created');

      const row = await keyRow(t.userA, key);
      assert.equal(row?.state, 'DONE');
      assert.equal(row?.responseStatus, 201);
      const hours = (row!.expiresAt.getTime() - Date.now()) / 3600_000;
      assert.ok(hours > 23.9 && hours <= 24.01, `kept 24 hours (${hours})`);

      // without a key, every request is its own
      assert.equal((await createContact({ name: 'Idem No Key' }, undefined)).status, 201);
      assert.equal((await createContact({ name: 'Idem No Key' }, undefined)).status, 201);
      assert.equal(await contactsNamed(t.userA, 'Idem No Key'), 2);
    });

    test('same key with another body, path or method: 422 idempotency_key_reused, no effect', async () => {
      const key = newKey();
      assert.equal((await createContact({ name: 'Idem Reuse' }, key)).status, 201);
      const other = await createContact({ name: 'Idem Reuse Changed' }, key);
      assert.equal(other.status, 422);
      assert.deepEqual(Object.keys(other.body.error).sort(), ['code', 'message']);
      assert.equal(other.body.error.code, 'idempotency_key_reused');
      assert.equal(await contactsNamed(t.userA, 'Idem Reuse Changed'), 0);
      const otherRoute = await t.request('PATCH', '/api/users/me', { token: t.tokenA, body: { displayName: 'Idem Reuse' }, headers: { 'idempotency-key': key } });
      assert.equal(otherRoute.status, 422);
      assert.equal(otherRoute.body.error.code, 'idempotency_key_reused');
      assert.notEqual((await t.request('GET', '/api/users/me', { token: t.tokenA })).body.displayName, 'Idem Reuse');
      // the original is still replayed
      const again = await createContact({ name: 'Idem Reuse' }, key);
      assert.equal(again.status, 201);
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
    });

    test('keys are per user: B may use A\'s key', async () => {
      const key = newKey();
      const a = await createContact({ name: 'Idem Shared Key' }, key, t.tokenA);
      const b = await createContact({ name: 'Idem Shared Key' }, key, t.tokenB);
      assert.equal(a.status, 201);
      assert.equal(b.status, 201);
      assert.equal(b.headers.get('idempotent-replayed'), null);
      assert.notEqual(b.body.id, a.body.id);
      assert.equal(await contactsNamed(t.userA, 'Idem Shared Key'), 1);
      assert.equal(await contactsNamed(t.userB, 'Idem Shared Key'), 1);
      // and B's different body under the same key is no conflict with A's
      const b2 = await t.request('PATCH', '/api/users/me', { token: t.tokenB, body: { displayName: 'B Name' }, headers: { 'idempotency-key': `${key}-2` } });
      assert.equal(b2.status, 200);
      // B's replay is B's own response, never A's
      const bAgain = await createContact({ name: 'Idem Shared Key' }, key, t.tokenB);
      assert.equal(bAgain.headers.get('idempotent-replayed'), 'true');
      assert.equal(bAgain.body.id, b.body.id);
    });

    test('PATCH /api/users/me: replayed, and a later change under a new key applies', async () => {
      const key = newKey();
      const r1 = await t.request('PATCH', '/api/users/me', { token: t.tokenA, body: { displayName: 'Idem Name 1' }, headers: { 'idempotency-key': key } });
      assert.equal(r1.status, 200);
      await t.request('PATCH', '/api/users/me', { token: t.tokenA, body: { displayName: 'Idem Name 2' } });
      const replay = await t.request('PATCH', '/api/users/me', { token: t.tokenA, body: { displayName: 'Idem Name 1' }, headers: { 'idempotency-key': key } });
      assert.equal(replay.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(replay.body, r1.body, 'the original response');
      assert.equal((await t.request('GET', '/api/users/me', { token: t.tokenA })).body.displayName, 'Idem Name 2', 'the replay did not run the change again');
    });

    test('4xx validation answers are stored and replayed (schema and handler checks alike)', async () => {
      for (const body of [{ displayName: '   ' }, { displayName: '' }, { displayName: 7 }, {}]) {
        const key = newKey();
        const r1 = await t.request('PATCH', '/api/users/me', { token: t.tokenA, body, headers: { 'idempotency-key': key } });
        assert.equal(r1.status, 400, JSON.stringify(body));
        assert.equal(r1.headers.get('idempotent-replayed'), null);
        const r2 = await t.request('PATCH', '/api/users/me', { token: t.tokenA, body, headers: { 'idempotency-key': key } });
        assert.equal(r2.status, 400);
        assert.equal(r2.headers.get('idempotent-replayed'), 'true', JSON.stringify(body));
        assert.deepEqual(r2.body, r1.body);
        assert.equal((await keyRow(t.userA, key))?.responseStatus, 400);
      }
      const key = newKey();
      const bad = await createContact({ name: '' }, key);
      assert.equal(bad.status, 400);
      const fixed = await createContact({ name: 'Idem Fixed' }, key);
      assert.equal(fixed.status, 422, 'a corrected body needs a new key');
    });

    test('POST /api/webhooks: no record holds a signing secret; the replay has it; a stored 400 is replayed unchanged', async () => {
      const key = newKey();
      const body = { url: 'https://example.com/idem-hook', events: ['call.failed'] };
      const post = (b: unknown, k: string) => t.request('POST', '/api/webhooks', { token: t.tokenA, body: b, headers: { 'idempotency-key': k } });
      const first = await post(body, key);
      assert.equal(first.status, 201, first.text);
      const replay = await post(body, key);
      assert.equal(replay.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(replay.body, first.body);
      const withSecret = await sql<{ n: number }>`SELECT count(*)::int AS n FROM idempotency_keys WHERE response_body::text LIKE '%whsec_%' OR response_body ? 'secret'`.execute(db());
      assert.equal(withSecret.rows[0].n, 0);

      const badKey = newKey();
      const bad = await post({ url: 'ftp://example.com/hook', events: ['call.failed'] }, badKey);
      assert.equal(bad.status, 400);
      const badAgain = await post({ url: 'ftp://example.com/hook', events: ['call.failed'] }, badKey);
      assert.equal(badAgain.status, 400);
      assert.equal(badAgain.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(badAgain.body, bad.body);
      assert.equal((await t.request('DELETE', `/api/webhooks/${first.body.id}`, { token: t.tokenA })).status, 204);
    });

    test('a 204 is replayed as 204 with no body', async () => {
      const c = await createContact({ name: 'Idem Delete Me' }, undefined);
      const key = newKey();
      const d1 = await t.request('DELETE', `/api/contacts/${c.body.id}`, { token: t.tokenA, headers: { 'idempotency-key': key } });
      assert.equal(d1.status, 204);
      const d2 = await t.request('DELETE', `/api/contacts/${c.body.id}`, { token: t.tokenA, headers: { 'idempotency-key': key } });
      assert.equal(d2.status, 204, 'not 404: the stored answer');
      assert.equal(d2.text, '');
      assert.equal(d2.headers.get('idempotent-replayed'), 'true');
      const d3 = await t.request('DELETE', `/api/contacts/${c.body.id}`, { token: t.tokenA });
      assert.equal(d3.status, 404, 'without the key the delete runs again');
    });

    test('a retry while the first request runs is 409 and not stored; an abandoned claim is taken over', async () => {
      const key = newKey();
      assert.equal((await createContact({ name: 'Idem In Progress' }, key)).status, 201);
      // make the stored record look like a request that is still running
      await db().updateTable('idempotencyKeys').set({ state: 'IN_PROGRESS', responseStatus: null, createdAt: new Date() }).where('userId', '=', t.userA).where('key', '=', key).execute();
      const busy = await createContact({ name: 'Idem In Progress' }, key);
      assert.equal(busy.status, 409);
      assert.equal(busy.body.error.code, 'idempotency_request_in_progress');
      assert.equal((await keyRow(t.userA, key))?.state, 'IN_PROGRESS', 'the 409 did not replace the claim');
      assert.equal(await contactsNamed(t.userA, 'Idem In Progress'), 1);
      // a claim older than ten minutes belongs to a process that died: the retry runs
      await db().updateTable('idempotencyKeys').set({ createdAt: sql<Date>`now() - interval '11 minutes'` }).where('userId', '=', t.userA).where('key', '=', key).execute();
      const retried = await createContact({ name: 'Idem In Progress' }, key);
      assert.equal(retried.status, 201);
      assert.equal(retried.headers.get('idempotent-replayed'), null);
      assert.equal((await keyRow(t.userA, key))?.state, 'DONE');
    });

    test('malformed keys are 400; keys on GET are ignored', async () => {
      for (const key of ['has space', 'x'.repeat(256), 'ünïcode']) {
        const r = await t.request('PATCH', '/api/users/me', { token: t.tokenA, body: { displayName: 'Idem Bad Key' }, headers: { 'idempotency-key': key } });
        assert.equal(r.status, 400, key);
        assert.equal(r.body.error.code, 'validation_failed');
      }
      const key = newKey();
      const g1 = await t.request('GET', '/api/users/me', { token: t.tokenA, headers: { 'idempotency-key': key } });
      assert.equal(g1.headers.get('idempotent-replayed'), null);
      assert.equal(await keyRow(t.userA, key), undefined);
    });

    test('expired keys are swept; an expired key starts afresh', async () => {
      const key = newKey();
      assert.equal((await createContact({ name: 'Idem Expired 1' }, key)).status, 201);
      const live = newKey();
      assert.equal((await createContact({ name: 'Idem Live' }, live)).status, 201);
      await db().updateTable('idempotencyKeys').set({ expiresAt: sql<Date>`now() - interval '1 minute'` }).where('userId', '=', t.userA).where('key', '=', key).execute();

      // before the sweep, an expired record is taken over by a new request
      const fresh = await createContact({ name: 'Idem Expired 2' }, key);
      assert.equal(fresh.status, 201, 'not 422: the old record expired');
      assert.equal(fresh.headers.get('idempotent-replayed'), null);
      assert.equal(await contactsNamed(t.userA, 'Idem Expired 2'), 1);

      await db().updateTable('idempotencyKeys').set({ expiresAt: sql<Date>`now() - interval '1 second'` }).where('userId', '=', t.userA).where('key', '=', key).execute();
      const removed = await sweepIdempotencyKeys(db());
      assert.ok(removed >= 1);
      assert.equal(await keyRow(t.userA, key), undefined, 'the expired key is gone');
      assert.ok(await keyRow(t.userA, live), 'a live key is kept');
      assert.equal(await sweepIdempotencyKeys(db()), 0);
      const afterSweep = await createContact({ name: 'Idem Expired 3' }, key);
      assert.equal(afterSweep.status, 201);
      assert.equal(afterSweep.headers.get('idempotent-replayed'), null);
    });
  });
}

// The request path's speed measures (bench/http.ts) must not change answers: the user row cached
// for polled routes is forgotten on account deletion, a stored transcript goes out exactly as
// stored, the list's per-call action-item fields (kept in call_action_summaries) match the items,
// pages of every size walk the history once (the list's statements have fixed row counts), and a
// verified token is cached no longer than it is valid.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { startTestService, TestIdp, type TestService } from '../support/service.js';
import { insertArtifact, insertCall } from '../fixtures/seed.js';
import { IdentityError, JwksIdentityVerifier } from '../../src/http/identity.js';

describe('request-path caches (embedded)', () => {
  let idp: TestIdp;
  let t: TestService;
  before(async () => {
    idp = await TestIdp.start();
    t = await startTestService({ env: idp.env() });
  });
  after(async () => {
    await t?.stop();
    await idp?.stop();
  });

  const userRows = async (sub: string) =>
    (await sql<{ id: string }>`SELECT id FROM users WHERE external_user_id = ${sub}`.execute(t.service.ctx.database.db)).rows;

  test('after account deletion a polled route looks the user up again (a new, empty account) instead of a cached row', async () => {
    const sub = 'cache-deleted';
    const token = await idp.token({ sub, email: 'cache-deleted@example.test' });
    const me = await t.request('GET', '/api/users/me', { token });
    const callId = await insertCall(t, me.body.id);
    // Two polls: the second is answered with the cached row.
    for (let i = 0; i < 2; i++) {
      const r = await t.request('GET', `/api/calls/status?ids=${callId}`, { token });
      assert.deepEqual(r.body.items.map((x: { callId: string }) => x.callId), [callId]);
    }
    assert.equal((await t.request('DELETE', '/api/users/me', { token })).status, 204);
    assert.equal((await userRows(sub)).length, 0);

    const poll = await t.request('GET', `/api/calls/status?ids=${callId}`, { token });
    assert.equal(poll.status, 200);
    assert.deepEqual(poll.body.items, []);
    const rows = await userRows(sub);
    assert.equal(rows.length, 1, 'the polled route created the account anew, as every route does after deletion');
    assert.notEqual(rows[0].id, me.body.id);
    const list = await t.request('GET', '/api/calls', { token });
    assert.deepEqual(list.body.items, []);
  });

  test('list: actionItemCount counts every item of the call, firstActionTitle is the earliest one not dismissed', async () => {
    const token = await idp.token({ sub: 'cache-list' });
    const userId = (await t.request('GET', '/api/users/me', { token })).body.id;
    const withItems = await insertCall(t, userId);
    const without = await insertCall(t, userId);
    const db = t.service.ctx.database.db;
    const base = Date.now() - 60_000;
    const item = (title: string, status: 'OPEN' | 'DISMISSED' | 'DONE', msAfter: number, position: number) => ({
      userId,
      callId: withItems,
      title,
      status,
      createdAt: new Date(base + msAfter),
      position,
    });
    await db
      .insertInto('actionItems')
      .values([item('dismissed first', 'DISMISSED', 0, 0), item('second by position', 'OPEN', 1000, 1), item('first by position', 'DONE', 1000, 0), item('later', 'OPEN', 2000, 0)] as never)
      .execute();
    const r = await t.request('GET', '/api/calls', { token });
    const byId = new Map(r.body.items.map((x: { callId: string }) => [x.callId, x]));
    assert.deepEqual(
      [byId.get(withItems), byId.get(without)].map((x: any) => [x.actionItemCount, x.firstActionTitle]),
      [
        [4, 'first by position'],
        [0, null],
      ],
    );
  });

  test('list pages of every size walk the whole history once, newest first, across the statements\' fixed row counts', async () => {
    const token = await idp.token({ sub: 'paging-sizes', email: 'paging-sizes@example.test' });
    const me = await t.request('GET', '/api/users/me', { token });
    // 23 calls, one failed call in every four: the status filter pages over a different subset.
    const base = Date.parse('2026-01-01T00:00:00Z');
    const calls: Array<{ id: string; status: 'COMPLETED' | 'FAILED' }> = [];
    for (let i = 0; i < 23; i++) {
      const status = i % 4 === 0 ? 'FAILED' : 'COMPLETED';
      calls.push({ id: await insertCall(t, me.body.id, { status, createdAt: new Date(base + i * 1000) }), status });
    }
    const newestFirst = calls.map((c) => c.id).reverse();
    const failedNewestFirst = calls.filter((c) => c.status === 'FAILED').map((c) => c.id).reverse();
    // Around each fixed row count the list statements use (11, 21, 51, 101: a page and one more).
    for (const limit of [1, 9, 10, 11, 19, 20, 21, 22, 23, 50, 100]) {
      for (const [filter, expected] of [['', newestFirst], ['&status=FAILED', failedNewestFirst]] as const) {
        const seen: string[] = [];
        let cursor: string | undefined;
        for (let page = 0; page < 30; page++) {
          const r = await t.request('GET', `/api/calls?limit=${limit}${filter}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { token });
          assert.equal(r.status, 200);
          assert.ok(r.body.items.length <= limit, `limit ${limit}: a page of ${r.body.items.length}`);
          seen.push(...r.body.items.map((x: { callId: string }) => x.callId));
          cursor = r.body.nextCursor;
          if (!cursor) break;
          assert.equal(r.body.items.length, limit, `limit ${limit}: only a full page has a next page`);
        }
        assert.deepEqual(seen, expected, `limit ${limit}${filter}: every call once, newest first`);
      }
    }
  });

  test('the transcript is sent as stored: same JSON, JSON content type, 404 for another caller', async () => {
    const token = await idp.token({ sub: 'cache-transcript' });
    const userId = (await t.request('GET', '/api/users/me', { token })).body.id;
    const callId = await insertCall(t, userId);
    const stored = { schemaVersion: 2, note: 'ünïcode "quoted" \u2028 text', segments: [{ id: 'seg_0001', start: 0.5, end: 1.25, words: [] }] };
    await insertArtifact(t, userId, callId, 'transcript', stored);
    const r = await t.request('GET', `/api/calls/${callId}/transcript`, { token });
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
    assert.deepEqual(r.body, stored);
    const other = await idp.token({ sub: 'cache-other' });
    const foreign = await t.request('GET', `/api/calls/${callId}/transcript`, { token: other });
    assert.equal(foreign.status, 404);
    assert.match(foreign.text, /call_not_found/, 'errors still go through the JSON serialiser');
  });
});

describe('verified-token cache', () => {
  test('a token verified once is answered from the cache until it expires, then rejected', async () => {
    const idp = await TestIdp.start();
    try {
      const verifier = new JwksIdentityVerifier({ jwksUrl: idp.jwksUrl, audience: idp.projectId, issuer: idp.issuer, clockToleranceSeconds: 0 });
      const exp = Math.floor(Date.now() / 1000) + 2;
      const token = await idp.token({ sub: 'cache-exp', email: 'exp@example.test' }, { expiresIn: exp });
      const first = await verifier.verify(token);
      assert.equal(first.externalUserId, 'cache-exp');
      assert.deepEqual(await verifier.verify(token), first);
      // A different token of the same user is checked on its own (a forged signature still fails).
      await assert.rejects(verifier.verify(`${token.slice(0, token.lastIndexOf('.'))}.AAAA`), IdentityError);
      await new Promise((r) => setTimeout(r, exp * 1000 - Date.now() + 200));
      await assert.rejects(verifier.verify(token), IdentityError, 'expired: the cached entry ends with the token');
    } finally {
      await idp.stop();
    }
  });
});

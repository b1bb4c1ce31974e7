// The request path's speed measures (bench/http.ts) must not change answers: the user row cached
// for polled routes is forgotten on account deletion, a stored transcript goes out exactly as
// stored, the list's per-call action-item fields (kept in call_action_summaries) match the items,
// pages of every size walk the history once (the list's statements have fixed row counts), status
// polls and list pages answered together by one statement each get their own owner's calls only,
// and a verified
// token is cached no longer than it is valid.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { startTestService, TestIdp, type TestService } from '../support/service.js';
import { insertArtifact, insertCall } from '../fixtures/seed.js';
import { IdentityError, JwksIdentityVerifier } from '../../src/http/identity.js';
import { CallListReader, CallStatusReader, decodeCursor } from '../../src/domain/calls.js';
import type { SqlRunner } from '../../src/store/prepared.js';

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

  test('status polls that arrive together are answered by one statement, each with its own owner\'s calls only', async () => {
    const pool = t.service.ctx.database.pool;
    const owners: Array<{ userId: string; calls: Array<{ callId: string; status: string }> }> = [];
    for (const sub of ['batch-a', 'batch-b', 'batch-c']) {
      const token = await idp.token({ sub });
      const userId = (await t.request('GET', '/api/users/me', { token })).body.id;
      const calls = [];
      for (const status of ['QUEUED', 'TRANSCRIBING', 'COMPLETED'] as const) calls.push({ callId: await insertCall(t, userId, { status }), status });
      owners.push({ userId, calls });
    }
    const statements: number[] = [];
    const counting: SqlRunner = {
      query: ((config: { values: unknown[] }) => {
        statements.push((config.values[0] as unknown[]).length);
        return pool.query(config as never);
      }) as unknown as SqlRunner['query'],
    };
    // Every poll asks for all nine calls, in a different order: its owner's three come back in
    // that order, the six foreign ones are left out like unknown ids.
    const allIds = owners.flatMap((o) => o.calls.map((c) => c.callId));
    const polls = Array.from({ length: 30 }, (_, i) => {
      const owner = owners[i % 3];
      const ids = i % 2 ? [...allIds].reverse() : allIds;
      return { owner, ids };
    });
    const expected = (p: (typeof polls)[number]) => p.ids.flatMap((id) => p.owner.calls.filter((c) => c.callId === id));

    const reader = new CallStatusReader(counting);
    const answers = await Promise.all(polls.map((p) => reader.read(p.owner.userId, p.ids)));
    assert.deepEqual(statements, [270], 'the 30 polls of one turn of the event loop went out as one statement');
    polls.forEach((p, i) => assert.deepEqual(answers[i], expected(p), `poll ${i}`));

    // A statement holds at most maxIdsPerStatement ids (whole polls), and no more than
    // maxInFlight statements run at once; the answers are the same.
    statements.length = 0;
    const small = new CallStatusReader(counting, { maxInFlight: 1, maxIdsPerStatement: 20 });
    const again = await Promise.all(polls.map((p) => small.read(p.owner.userId, p.ids)));
    assert.deepEqual(statements, Array(15).fill(18), 'two polls of nine ids per statement, one statement after another');
    polls.forEach((p, i) => assert.deepEqual(again[i], expected(p), `poll ${i} in small statements`));
  });

  test('list pages requested together are answered by one statement per shape, each with its own owner\'s calls', async () => {
    const pool = t.service.ctx.database.pool;
    const base = Date.parse('2026-02-01T00:00:00Z');
    const users: Array<{ userId: string; newestFirst: string[]; failedNewestFirst: string[] }> = [];
    for (const [u, sub] of ['list-batch-a', 'list-batch-b', 'list-batch-c'].entries()) {
      const token = await idp.token({ sub });
      const userId = (await t.request('GET', '/api/users/me', { token })).body.id;
      const calls: Array<{ id: string; status: 'COMPLETED' | 'FAILED' }> = [];
      // Interleaved times across users, so that any mix-up between their pages shows.
      for (let i = 0; i < 12; i++) {
        const status = i % 3 === 0 ? 'FAILED' : 'COMPLETED';
        calls.push({ id: await insertCall(t, userId, { status, createdAt: new Date(base + i * 3000 + u * 1000) }), status });
      }
      users.push({ userId, newestFirst: calls.map((c) => c.id).reverse(), failedNewestFirst: calls.filter((c) => c.status === 'FAILED').map((c) => c.id).reverse() });
    }
    const statements: string[] = [];
    const counting: SqlRunner = {
      query: ((config: { name: string; values: unknown[] }) => {
        statements.push(`${config.name} x${(config.values[0] as unknown[]).length}`);
        return pool.query(config as never);
      }) as unknown as SqlRunner['query'],
    };
    const reader = new CallListReader(counting);
    // Each user's first page of 5, first page of FAILED calls, and second page of 5 (by the cursor
    // of a first page read before), all at once.
    const cursors = await Promise.all(users.map(async (u) => decodeCursor((await new CallListReader(pool).read(u.userId, { limit: 5, cursor: null })).nextCursor!)));
    const asked = users.flatMap((u, i) => [
      reader.read(u.userId, { limit: 5, cursor: null }),
      reader.read(u.userId, { limit: 5, cursor: null, status: 'FAILED' }),
      reader.read(u.userId, { limit: 5, cursor: cursors[i] }),
    ]);
    const pages = await Promise.all(asked);
    assert.deepEqual(statements.sort(), ['calls_list_11 x3', 'calls_list_11_cursor x3', 'calls_list_11_status x3']);
    users.forEach((u, i) => {
      const [first, failed, second] = pages.slice(i * 3, i * 3 + 3);
      assert.deepEqual(first.items.map((x) => x.callId), u.newestFirst.slice(0, 5), `user ${i} first page`);
      assert.ok(first.nextCursor);
      assert.deepEqual(failed.items.map((x) => x.callId), u.failedNewestFirst, `user ${i} failed calls`);
      assert.equal(failed.nextCursor, undefined);
      assert.deepEqual(second.items.map((x) => x.callId), u.newestFirst.slice(5, 10), `user ${i} second page`);
      assert.ok(second.items.every((x) => 'req' in x === false), 'no batching field in an item');
    });
  });

  test('a forged list cursor is 400 validation_failed and never reaches the statement other requests share', async () => {
    const token = await idp.token({ sub: 'forged-cursor' });
    const userId = (await t.request('GET', '/api/users/me', { token })).body.id;
    await insertCall(t, userId);
    const id = '0b4c5a3e-7a51-4a7f-9e8e-3f2d1c0b9a87';
    const forged = [
      `1|${id}`, // Date.parse accepts it, PostgreSQL does not
      `2026|${id}`,
      `2026-02-30T00:00:00.000Z|${id}`,
      `2026-01-01T00:00:00.000Z|${'-'.repeat(36)}`,
      `2026-01-01T00:00:00.000Z|${id}|extra`,
      `+275760-09-13T00:00:00.000Z|${id}`,
    ].map((raw) => Buffer.from(raw).toString('base64url'));
    const pages = await Promise.all([
      ...forged.map((cursor) => t.request('GET', `/api/calls?limit=5&cursor=${cursor}`, { token })),
      t.request('GET', `/api/calls?limit=5&cursor=${Buffer.from(`2099-01-01T00:00:00.000Z|${id.toUpperCase()}`).toString('base64url')}`, { token }),
    ]);
    pages.slice(0, forged.length).forEach((r, i) => {
      assert.equal(r.status, 400, `forged cursor ${i}`);
      assert.equal(r.body.error.code, 'validation_failed');
    });
    assert.equal(pages[forged.length].status, 200, 'a well-formed cursor (any letter case) pages on');
    assert.equal(pages[forged.length].body.items.length, 1);
  });

  test('a failed status statement fails every poll it carried, and the next polls are answered', async () => {
    const pool = t.service.ctx.database.pool;
    const token = await idp.token({ sub: 'batch-fail' });
    const userId = (await t.request('GET', '/api/users/me', { token })).body.id;
    const callId = await insertCall(t, userId, { status: 'QUEUED' });
    let fail = true;
    const flaky: SqlRunner = {
      query: ((config: never) => (fail ? Promise.reject(new Error('connection lost')) : pool.query(config))) as SqlRunner['query'],
    };
    const reader = new CallStatusReader(flaky);
    const failed = await Promise.allSettled([reader.read(userId, [callId]), reader.read(userId, [callId])]);
    assert.deepEqual(failed.map((r) => r.status), ['rejected', 'rejected']);
    fail = false;
    assert.deepEqual(await reader.read(userId, [callId]), [{ callId, status: 'QUEUED' }]);
  });

  test('status over HTTP: concurrent polls of two users, upper-case ids answered with the ids the service hands out', async () => {
    const tokens = [await idp.token({ sub: 'batch-http-1' }), await idp.token({ sub: 'batch-http-2' })];
    const mine: string[][] = [];
    for (const token of tokens) {
      const userId = (await t.request('GET', '/api/users/me', { token })).body.id;
      mine.push([await insertCall(t, userId, { status: 'QUEUED' }), await insertCall(t, userId, { status: 'FAILED' })]);
    }
    const all = mine.flat();
    const polls = await Promise.all(
      Array.from({ length: 40 }, (_, i) => t.request('GET', `/api/calls/status?ids=${all.map((id) => (i % 4 === 0 ? id.toUpperCase() : id)).join(',')}`, { token: tokens[i % 2] })),
    );
    polls.forEach((r, i) => {
      assert.equal(r.status, 200);
      const own = mine[i % 2];
      assert.deepEqual(r.body.items, [{ callId: own[0], status: 'QUEUED' }, { callId: own[1], status: 'FAILED' }], `poll ${i}`);
    });
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
      // An injected clock crosses the expiry: no wait, and no race with a slow machine (a token that
      // expired 1-2 s after it was made could expire before its first check).
      let clock = Date.now();
      const verifier = new JwksIdentityVerifier({ jwksUrl: idp.jwksUrl, audience: idp.projectId, issuer: idp.issuer, clockToleranceSeconds: 0, now: () => clock });
      const exp = Math.floor(clock / 1000) + 30;
      const token = await idp.token({ sub: 'cache-exp', email: 'exp@example.test' }, { expiresIn: exp });
      const first = await verifier.verify(token);
      assert.equal(first.externalUserId, 'cache-exp');
      assert.deepEqual(await verifier.verify(token), first);
      // A different token of the same user is checked on its own (a forged signature still fails).
      await assert.rejects(verifier.verify(`${token.slice(0, token.lastIndexOf('.'))}.AAAA`), IdentityError);
      clock = exp * 1000 - 1000;
      assert.deepEqual(await verifier.verify(token), first, 'still valid a second before it expires');
      clock = exp * 1000 + 1000;
      await assert.rejects(verifier.verify(token), IdentityError, 'expired: the cached entry ends with the token');
    } finally {
      await idp.stop();
    }
  });
});

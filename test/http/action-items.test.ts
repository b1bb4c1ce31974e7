// Action item routes against the real service, on the embedded and the external PostgreSQL.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { dbModes } from '../support/service.js';
import { withTwoUsers } from '../support/two-users.js';
import { insertCall, seedCompletedCall } from '../fixtures/seed.js';
import { sql } from 'kysely';
import { MAX_MANUAL_ITEMS_PER_CALL } from '../../src/domain/action-items.js';

const ITEM_FIELDS = [
  'callRecordId',
  'createdAt',
  'description',
  'dueDate',
  'id',
  'intent',
  'intentMetadata',
  'ownerDisplayName',
  'ownerRole',
  'ownerSpeakerId',
  'ownerSpeakerLabel',
  'priority',
  'source',
  'sourceSegmentIds',
  'sourceText',
  'status',
  'title',
  'updatedAt',
];

for (const mode of await dbModes()) {
  describe(`action items (${mode} database)`, () => {
    let callA: string;

    const t = withTwoUsers(mode, { a: { sub: 'ai-user-a', email: 'a@example.test', name: 'Olivia Park' }, b: { sub: 'ai-user-b', email: 'b@example.test', name: 'Bob' } });
    before(async () => {
      callA = await seedCompletedCall(t, t.userA);
    });

    const completedAtOf = async (id: string) =>
      (await t.service.ctx.database.db.selectFrom('actionItems').select('completedAt').where('id', '=', id).executeTakeFirstOrThrow()).completedAt;

    test('AI items of the stored analysis are listed for the call with the spec fields', async () => {
      const r = await t.request('GET', `/api/calls/${callA}/action-items`, { token: t.tokenA });
      assert.equal(r.status, 200);
      assert.equal(r.body.length, 2);
      const [first, second] = r.body;
      assert.deepEqual(Object.keys(first).sort(), ITEM_FIELDS);
      assert.equal(first.title, 'Send Zoom invite for the fleet scheduling demo');
      assert.equal(second.title, 'Email the pricing sheet');
      assert.equal(first.callRecordId, callA);
      assert.equal(first.source, 'AI');
      assert.equal(first.status, 'OPEN');
      assert.equal(first.priority, 'HIGH');
      assert.equal(second.priority, 'MEDIUM');
      assert.equal(first.dueDate, '2025-04-01');
      assert.equal(first.ownerSpeakerId, 'spk_1');
      assert.equal(first.ownerSpeakerLabel, 'Olivia Park');
      assert.equal(first.ownerDisplayName, 'Olivia Park');
      assert.equal(first.ownerRole, 'USER');
      assert.equal(first.intent, 'meeting');
      assert.equal(first.intentMetadata.providerHint, 'zoom');
      assert.equal(first.intentMetadata.durationMinutes, 30);
      assert.deepEqual(first.sourceSegmentIds, ['seg_0003', 'seg_0004', 'seg_0006', 'seg_0007']);
      assert.equal(second.intent, 'email');
      assert.equal(second.intentMetadata.toEmail, 'operations@bayviewlogistics.com');

      const forensic = JSON.parse(first.sourceText);
      assert.equal(forensic.v, 1);
      assert.equal(forensic.priority, 'high');
      assert.deepEqual(forensic.sourceSegmentIds, ['seg_0003', 'seg_0004', 'seg_0006', 'seg_0007']);
      assert.match(forensic.excerpt, /^\[00:10\] Olivia Park: Sure, how about a Zoom call next Tuesday at eleven\?/);
      assert.match(forensic.excerpt, /I will send the invite and the pricing sheet today\.$/);
    });

    test('POST creates a MANUAL item (201) and validates its fields', async () => {
      const r = await t.request('POST', `/api/calls/${callA}/action-items`, {
        token: t.tokenA,
        body: { title: '  Call the bank  ', description: 'About the loan', dueDate: '2024-02-29', priority: 'LOW' },
      });
      assert.equal(r.status, 201);
      assert.deepEqual(Object.keys(r.body).sort(), ITEM_FIELDS);
      assert.equal(r.body.title, 'Call the bank');
      assert.equal(r.body.description, 'About the loan');
      assert.equal(r.body.dueDate, '2024-02-29');
      assert.equal(r.body.priority, 'LOW');
      assert.equal(r.body.source, 'MANUAL');
      assert.equal(r.body.status, 'OPEN');
      assert.equal(r.body.callRecordId, callA);
      assert.equal(r.body.sourceText, null);
      assert.equal(r.body.intent, null);
      assert.deepEqual(r.body.sourceSegmentIds, []);
      assert.match(r.body.createdAt, /Z$/);

      const minimal = await t.request('POST', `/api/calls/${callA}/action-items`, { token: t.tokenA, body: { title: 'Only a title' } });
      assert.equal(minimal.status, 201);
      assert.equal(minimal.body.description, null);
      assert.equal(minimal.body.dueDate, null);
      assert.equal(minimal.body.priority, null);

      const listed = await t.request('GET', `/api/calls/${callA}/action-items`, { token: t.tokenA });
      assert.deepEqual(
        listed.body.map((i: { source: string }) => i.source),
        ['AI', 'AI', 'MANUAL', 'MANUAL'],
      );

      for (const body of [
        {},
        { description: 'no title' },
        { title: '' },
        { title: '   ' },
        { title: 'x', dueDate: '2025-13-01' },
        { title: 'x', dueDate: '2025-02-30' },
        { title: 'x', dueDate: '2023-02-29' },
        { title: 'x', dueDate: '2025/01/01' },
        { title: 'x', dueDate: '2025-01-01T10:00:00Z' },
        { title: 'x', priority: 'URGENT' },
        { title: 'x', priority: 'high' },
        { title: 42 },
      ]) {
        const bad = await t.request('POST', `/api/calls/${callA}/action-items`, { token: t.tokenA, body });
        assert.equal(bad.status, 400, JSON.stringify(body));
        assert.equal(bad.body.error.code, 'validation_failed');
      }
    });

    test('a missing or foreign call is 404 call_not_found for list and create', async () => {
      const unknown = crypto.randomUUID();
      for (const [token, callId] of [
        [t.tokenA, unknown],
        [t.tokenB, callA],
      ] as const) {
        const list = await t.request('GET', `/api/calls/${callId}/action-items`, { token });
        assert.equal(list.status, 404);
        assert.equal(list.body.error.code, 'call_not_found');
        const create = await t.request('POST', `/api/calls/${callId}/action-items`, { token, body: { title: 'Sneaky' } });
        assert.equal(create.status, 404);
        assert.equal(create.body.error.code, 'call_not_found');
      }
      const rows = await t.service.ctx.database.db.selectFrom('actionItems').select('title').where('title', '=', 'Sneaky').execute();
      assert.equal(rows.length, 0);
    });

    test('GET /api/actions lists only the caller\'s items, newest first', async () => {
      const created: string[] = [];
      for (const title of ['Newest-1', 'Newest-2', 'Newest-3']) {
        const r = await t.request('POST', `/api/calls/${callA}/action-items`, { token: t.tokenA, body: { title } });
        assert.equal(r.status, 201);
        created.push(r.body.id);
        await new Promise((res) => setTimeout(res, 5));
      }
      const r = await t.request('GET', '/api/actions', { token: t.tokenA });
      assert.equal(r.status, 200);
      assert.deepEqual(
        r.body.slice(0, 3).map((i: { id: string }) => i.id),
        [...created].reverse(),
      );
      const times = r.body.map((i: { createdAt: string }) => Date.parse(i.createdAt));
      assert.deepEqual(times, [...times].sort((a, b) => b - a));
      // The two AI items share their insert time and keep the analysis order at the end.
      assert.deepEqual(
        r.body.slice(-2).map((i: { title: string }) => i.title),
        ['Send Zoom invite for the fleet scheduling demo', 'Email the pricing sheet'],
      );

      const b = await t.request('GET', '/api/actions', { token: t.tokenB });
      assert.equal(b.status, 200);
      assert.deepEqual(b.body, []);
    });

    test('PUT replaces all fields, null clears, DONE records completion server-side', async () => {
      const c = await t.request('POST', `/api/calls/${callA}/action-items`, {
        token: t.tokenA,
        body: { title: 'Put me', description: 'desc', dueDate: '2025-05-01', priority: 'HIGH' },
      });
      const id = c.body.id;

      const done = await t.request('PUT', `/api/action-items/${id}`, {
        token: t.tokenA,
        body: { title: 'Put me (edited)', description: 'new desc', dueDate: '2025-06-30', priority: 'MEDIUM', status: 'DONE' },
      });
      assert.equal(done.status, 200);
      assert.equal(done.body.title, 'Put me (edited)');
      assert.equal(done.body.description, 'new desc');
      assert.equal(done.body.dueDate, '2025-06-30');
      assert.equal(done.body.priority, 'MEDIUM');
      assert.equal(done.body.status, 'DONE');
      assert.equal(done.body.source, 'MANUAL');
      assert.ok(Date.parse(done.body.updatedAt) >= Date.parse(c.body.updatedAt));
      const completedAt = await completedAtOf(id);
      assert.ok(completedAt instanceof Date);

      // Saving DONE again keeps the first completion time.
      await t.request('PUT', `/api/action-items/${id}`, {
        token: t.tokenA,
        body: { title: 'Put me (edited)', description: null, dueDate: null, priority: null, status: 'DONE' },
      });
      assert.equal((await completedAtOf(id))?.getTime(), completedAt!.getTime());

      const cleared = await t.request('PUT', `/api/action-items/${id}`, {
        token: t.tokenA,
        body: { title: 'Put me (cleared)', description: null, dueDate: null, priority: null, status: 'IN_PROGRESS' },
      });
      assert.equal(cleared.status, 200);
      assert.equal(cleared.body.description, null);
      assert.equal(cleared.body.dueDate, null);
      assert.equal(cleared.body.priority, null);
      assert.equal(cleared.body.status, 'IN_PROGRESS');
      assert.equal(await completedAtOf(id), null);

      const fetched = await t.request('GET', `/api/calls/${callA}/action-items`, { token: t.tokenA });
      const stored = fetched.body.find((i: { id: string }) => i.id === id);
      assert.equal(stored.title, 'Put me (cleared)');
      assert.equal(stored.description, null);

      for (const body of [
        { title: 'x', description: null, dueDate: null, priority: null, status: 'PENDING' },
        { title: 'x', description: null, dueDate: null, priority: null, status: 'COMPLETED' },
        { title: 'x', description: null, dueDate: null, priority: null },
        { description: null, dueDate: null, priority: null, status: 'OPEN' },
        { title: 'x', description: null, dueDate: '2025-04-31', priority: null, status: 'OPEN' },
        { title: 'x', description: null, dueDate: null, priority: 'low', status: 'OPEN' },
      ]) {
        const bad = await t.request('PUT', `/api/action-items/${id}`, { token: t.tokenA, body });
        assert.equal(bad.status, 400, JSON.stringify(body));
        assert.equal(bad.body.error.code, 'validation_failed');
      }

      const foreign = await t.request('PUT', `/api/action-items/${id}`, { token: t.tokenB, body: { title: 'hijack', status: 'DONE' } });
      assert.equal(foreign.status, 404);
      assert.equal(foreign.body.error.code, 'action_item_not_found');
      const missing = await t.request('PUT', `/api/action-items/${crypto.randomUUID()}`, { token: t.tokenA, body: { title: 'x', status: 'DONE' } });
      assert.equal(missing.status, 404);
      assert.equal(missing.body.error.code, 'action_item_not_found');

      const after = await t.request('GET', `/api/calls/${callA}/action-items`, { token: t.tokenA });
      assert.equal(after.body.find((i: { id: string }) => i.id === id).title, 'Put me (cleared)');
    });

    test('PATCH /api/actions/:id sets the status only; legacy values are rejected', async () => {
      const c = await t.request('POST', `/api/calls/${callA}/action-items`, { token: t.tokenA, body: { title: 'Patch me', priority: 'HIGH' } });
      const id = c.body.id;

      const done = await t.request('PATCH', `/api/actions/${id}`, { token: t.tokenA, body: { status: 'DONE' } });
      assert.equal(done.status, 200);
      assert.equal(done.body.status, 'DONE');
      assert.equal(done.body.title, 'Patch me');
      assert.equal(done.body.priority, 'HIGH');
      assert.ok((await completedAtOf(id)) instanceof Date);

      const reopened = await t.request('PATCH', `/api/actions/${id}`, { token: t.tokenA, body: { status: 'OPEN' } });
      assert.equal(reopened.status, 200);
      assert.equal(reopened.body.status, 'OPEN');
      assert.equal(await completedAtOf(id), null);

      const dismissed = await t.request('PATCH', `/api/actions/${id}`, { token: t.tokenA, body: { status: 'DISMISSED', title: 'ignored' } });
      assert.equal(dismissed.status, 200);
      assert.equal(dismissed.body.status, 'DISMISSED');
      assert.equal(dismissed.body.title, 'Patch me');

      for (const body of [{ status: 'PENDING' }, { status: 'COMPLETED' }, { status: 'done' }, {}, { status: null }]) {
        const bad = await t.request('PATCH', `/api/actions/${id}`, { token: t.tokenA, body });
        assert.equal(bad.status, 400, JSON.stringify(body));
        assert.equal(bad.body.error.code, 'validation_failed');
      }

      const foreign = await t.request('PATCH', `/api/actions/${id}`, { token: t.tokenB, body: { status: 'DONE' } });
      assert.equal(foreign.status, 404);
      assert.equal(foreign.body.error.code, 'action_item_not_found');
      const missing = await t.request('PATCH', `/api/actions/${crypto.randomUUID()}`, { token: t.tokenA, body: { status: 'DONE' } });
      assert.equal(missing.status, 404);

      const list = await t.request('GET', '/api/actions', { token: t.tokenA });
      assert.equal(list.body.find((i: { id: string }) => i.id === id).status, 'DISMISSED');
    });

    test('DELETE answers 204 once, then 404; a foreign item is 404 and survives', async () => {
      const c = await t.request('POST', `/api/calls/${callA}/action-items`, { token: t.tokenA, body: { title: 'Delete me' } });
      const id = c.body.id;

      const foreign = await t.request('DELETE', `/api/action-items/${id}`, { token: t.tokenB });
      assert.equal(foreign.status, 404);
      assert.equal(foreign.body.error.code, 'action_item_not_found');
      let list = await t.request('GET', '/api/actions', { token: t.tokenA });
      assert.ok(list.body.some((i: { id: string }) => i.id === id));

      const del = await t.request('DELETE', `/api/action-items/${id}`, { token: t.tokenA });
      assert.equal(del.status, 204);
      assert.equal(del.text, '');
      list = await t.request('GET', '/api/actions', { token: t.tokenA });
      assert.ok(!list.body.some((i: { id: string }) => i.id === id));

      const again = await t.request('DELETE', `/api/action-items/${id}`, { token: t.tokenA });
      assert.equal(again.status, 404);
      assert.equal(again.body.error.code, 'action_item_not_found');
    });

    test('GET /api/actions is paged: 1000 by default with X-Next-Cursor and Link rel=next; the keyset keeps microseconds and analysis order', async () => {
      const token = await t.idp.token({ sub: `actions-pages-${crypto.randomUUID()}` });
      const userId = await t.userIdOf(token);
      const db = t.service.ctx.database.db;
      // 100 calls (the per-call summary trigger recounts a call's items on every insert).
      const callIds: string[] = [];
      for (let i = 0; i < 100; i++) callIds.push(await insertCall(t, userId));
      const callId = callIds[0];
      // 2,400 items: runs of 12 sharing one created_at (one analysis, positions 0-11), and runs
      // whose times differ by a microsecond only, which a millisecond cursor could not tell apart.
      await sql`
        INSERT INTO action_items (user_id, call_id, title, created_at, position, source)
        SELECT ${userId}::uuid, (${callIds}::uuid[])[(g - 1) / 24 + 1], 'Item ' || g,
               timestamptz '2026-01-01T00:00:00Z' + (g / 24) * interval '1 second'
                 + CASE WHEN g % 24 < 12 THEN interval '0' ELSE (g % 24) * interval '1 microsecond' END,
               CASE WHEN g % 24 < 12 THEN g % 24 ELSE 0 END, 'AI'
        FROM generate_series(1, 2400) g`.execute(db);
      const all = (await sql<{ id: string }>`SELECT id FROM action_items WHERE user_id = ${userId} ORDER BY created_at DESC, position, id`.execute(db)).rows.map((r) => r.id);
      assert.equal(all.length, 2400);

      const first = await t.request('GET', '/api/actions', { token });
      assert.equal(first.status, 200);
      assert.ok(Array.isArray(first.body));
      assert.equal(first.body.length, 1000, 'no request loads more than 1000 items');
      assert.deepEqual(first.body.map((i: { id: string }) => i.id), all.slice(0, 1000));
      assert.deepEqual(Object.keys(first.body[0]).sort(), ITEM_FIELDS);
      const cursor = first.headers.get('x-next-cursor');
      assert.match(cursor ?? '', /^[A-Za-z0-9_-]+$/);
      assert.equal(first.headers.get('link'), `</api/actions?limit=1000&cursor=${cursor}>; rel="next"`);

      // Pages of 53 (prime) cut inside runs of equal created_at and inside microsecond runs: every item once, in order.
      const seen: string[] = [];
      let next: string | null = '/api/actions?limit=53';
      let pages = 0;
      while (next) {
        const r: { status: number; text: string; body: any; headers: Headers } = await t.request('GET', next, { token });
        assert.equal(r.status, 200, r.text);
        seen.push(...r.body.map((i: { id: string }) => i.id));
        const link = r.headers.get('link');
        next = link ? /^<([^>]+)>; rel="next"$/.exec(link)![1] : null;
        assert.equal(r.headers.get('x-next-cursor') === null, next === null);
        if (pages++ > 50) assert.fail('paging does not end');
      }
      assert.deepEqual(seen, all);

      // Writes between pages: a new item (newest, before the cursor) and the cursor's own item deleted.
      const p1 = await t.request('GET', '/api/actions?limit=5', { token });
      await t.request('POST', `/api/calls/${callId}/action-items`, { token, body: { title: 'Brand new' } });
      await t.request('DELETE', `/api/action-items/${p1.body[4].id}`, { token });
      const p2 = await t.request('GET', `/api/actions?limit=5&cursor=${p1.headers.get('x-next-cursor')}`, { token });
      assert.deepEqual(p2.body.map((i: { id: string }) => i.id), all.slice(5, 10));
      // The default page of another user is theirs alone.
      assert.ok(!(await t.request('GET', `/api/actions?cursor=${p1.headers.get('x-next-cursor')}`, { token: t.tokenB })).body.some((i: { callRecordId: string }) => callIds.includes(i.callRecordId)));
    });

    test('GET /api/actions: a cursor not written by the service, or a limit out of range, is 400 validation_failed', async () => {
      const id = crypto.randomUUID();
      const enc = (raw: string) => Buffer.from(raw).toString('base64url');
      const forged = [
        '',
        'nonsense!',
        enc(`2026-01-01T00:00:00.000Z|0|${id}`), // milliseconds only
        enc(`2026-02-30T00:00:00.000000Z|0|${id}`),
        enc(`1|0|${id}`),
        enc(`0000-01-01T00:00:00.000000Z|0|${id}`),
        enc(`2026-01-01T00:00:00.000000Z|2147483648|${id}`),
        enc(`2026-01-01T00:00:00.000000Z|01|${id}`),
        enc(`2026-01-01T00:00:00.000000Z|1.5|${id}`),
        enc(`2026-01-01T00:00:00.000000Z|0|${'-'.repeat(36)}`),
        enc(`2026-01-01T00:00:00.000000Z|0|${id}|extra`),
        enc(`2026-01-01T00:00:00.000000z|0|${id}`),
        `${enc(`2026-01-01T00:00:00.000000Z|0|${id}`)}=`,
      ];
      for (const cursor of forged) {
        const r = await t.request('GET', `/api/actions?cursor=${encodeURIComponent(cursor)}`, { token: t.tokenA });
        assert.equal(r.status, 400, `cursor ${Buffer.from(cursor, 'base64url').toString()}`);
        assert.equal(r.body.error.code, 'validation_failed');
      }
      for (const limit of ['0', '1001', 'abc']) {
        const r = await t.request('GET', `/api/actions?limit=${limit}`, { token: t.tokenA });
        assert.equal(r.status, 400, `limit ${limit}`);
        assert.equal(r.body.error.code, 'validation_failed');
      }
      for (const ok of [`2026-01-01T00:00:00.000001Z|-3|${id}`, `2026-01-01T00:00:00.000001Z|0|${id.toUpperCase()}`]) {
        assert.equal((await t.request('GET', `/api/actions?cursor=${enc(ok)}`, { token: t.tokenA })).status, 200, ok);
      }
    });

    // Every write to a call's items rebuilds the call's search document from all of its items, so
    // an unbounded pile of 5 KB manual items made each further request cost the database seconds
    // of CPU (to_tsvector over 5000 such items: 2.3 s), for every user of that database.
    test('manual items per call are capped: past the cap 422 action_item_limit_reached, nothing stored', async () => {
      const call = await seedCompletedCall(t, t.userA);
      const cap = MAX_MANUAL_ITEMS_PER_CALL;
      const db = t.service.ctx.database.db;
      // The first cap-1 straight into the table, the last one through the route.
      await db
        .insertInto('actionItems')
        .values(
          Array.from({ length: cap - 1 }, (_, i) => ({
            userId: t.userA, callId: call, title: `Item ${i}`, description: null, dueDate: null, priority: null, status: 'OPEN' as const, source: 'MANUAL' as const,
            sourceText: null, sourceSegmentIds: JSON.stringify([]), intentMetadata: null, completedAt: null, ownerSpeakerId: null, ownerSpeakerLabel: null, ownerDisplayName: null, ownerRole: null, intent: null,
          })),
        )
        .execute();
      const last = await t.request('POST', `/api/calls/${call}/action-items`, { token: t.tokenA, body: { title: 'The last one' } });
      assert.equal(last.status, 201);
      const answers = await Promise.all(Array.from({ length: 4 }, (_, i) => t.request('POST', `/api/calls/${call}/action-items`, { token: t.tokenA, body: { title: `One too many ${i}`, description: 'x'.repeat(5000) } })));
      for (const r of answers) {
        assert.equal(r.status, 422);
        assert.equal(r.body.error.code, 'action_item_limit_reached');
        assert.deepEqual(r.body.error.details, { limit: cap });
      }
      const manual = async () => (await t.request('GET', `/api/calls/${call}/action-items`, { token: t.tokenA })).body.filter((i: { source: string }) => i.source === 'MANUAL');
      assert.equal((await manual()).length, cap);
      // AI items do not count, a deleted item frees its place, and other calls are not affected.
      assert.equal((await t.request('DELETE', `/api/action-items/${last.body.id}`, { token: t.tokenA })).status, 204);
      assert.equal((await t.request('POST', `/api/calls/${call}/action-items`, { token: t.tokenA, body: { title: 'In its place' } })).status, 201);
      assert.equal((await t.request('POST', `/api/calls/${callA}/action-items`, { token: t.tokenA, body: { title: 'Another call' } })).status, 201);
      // A foreign call is still 404, not the cap.
      const foreign = await t.request('POST', `/api/calls/${call}/action-items`, { token: t.tokenB, body: { title: 'Not mine' } });
      assert.equal(foreign.status, 404);
    });

    test('routes require authentication', async () => {
      const r = await t.request('GET', '/api/actions');
      assert.equal(r.status, 401);
    });
  });
}

// Contact routes and the call-to-contact link against the real service, on both databases.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { sql } from 'kysely';
import { dbModes } from '../support/service.js';
import { withTwoUsers } from '../support/two-users.js';
import { insertCall } from '../fixtures/seed.js';

const CONTACT_FIELDS = ['createdAt', 'email', 'id', 'name', 'notes', 'phoneNumber', 'updatedAt'];

for (const mode of await dbModes()) {
  describe(`contacts (${mode} database)`, () => {
    const t = withTwoUsers(mode, { a: { sub: 'contacts-a', email: 'a@example.test', name: 'Alice' }, b: { sub: 'contacts-b', email: 'b@example.test', name: 'Bob' } });

    const create = (body: unknown, token = t.tokenA) => t.request('POST', '/api/contacts', { token, body });
    const callRow = (id: string) => t.service.ctx.database.db.selectFrom('calls').selectAll().where('id', '=', id).executeTakeFirst();

    test('POST creates (201), GET reads back; optional fields are null when absent', async () => {
      const r = await create({ name: '  Dana Scully ', phoneNumber: '+1 555 0101', email: 'dana@fbi.example', notes: 'Met at the conference.\nLikes tea.' });
      assert.equal(r.status, 201);
      assert.deepEqual(Object.keys(r.body).sort(), CONTACT_FIELDS);
      assert.equal(r.body.name, 'Dana Scully');
      assert.equal(r.body.phoneNumber, '+1 555 0101');
      assert.equal(r.body.email, 'dana@fbi.example');
      assert.equal(r.body.notes, 'Met at the conference.\nLikes tea.');
      assert.match(r.body.createdAt, /Z$/);

      const g = await t.request('GET', `/api/contacts/${r.body.id}`, { token: t.tokenA });
      assert.equal(g.status, 200);
      assert.deepEqual(g.body, r.body);

      const bare = await create({ name: 'Bare' });
      assert.equal(bare.status, 201);
      assert.equal(bare.body.phoneNumber, null);
      assert.equal(bare.body.email, null);
      assert.equal(bare.body.notes, null);
    });

    test('invalid bodies are 400 validation_failed', async () => {
      for (const body of [
        {},
        { name: '' },
        { name: '   ' },
        { name: 7 },
        { name: 'X', email: 'not-an-email' },
        { name: 'X', email: 'a@b' },
        { name: 'X', email: 'two@@example.com' },
        { name: 'X', email: 'sp ace@example.com' },
        { name: 'X', phoneNumber: 12345 },
      ]) {
        const r = await create(body);
        assert.equal(r.status, 400, JSON.stringify(body));
        assert.equal(r.body.error.code, 'validation_failed');
      }
    });

    test('GET /api/contacts is sorted by name case-insensitively and holds only the caller\'s', async () => {
      for (const name of ['zoe', 'Adam', 'bella', 'Carl', 'aaron']) await create({ name }, t.tokenB);
      await create({ name: 'Alpha of A' });
      const r = await t.request('GET', '/api/contacts', { token: t.tokenB });
      assert.equal(r.status, 200);
      assert.deepEqual(
        r.body.map((c: { name: string }) => c.name),
        ['aaron', 'Adam', 'bella', 'Carl', 'zoe'],
      );
      const a = await t.request('GET', '/api/contacts', { token: t.tokenA });
      assert.ok(a.body.length >= 3);
      assert.ok(!a.body.some((c: { name: string }) => c.name === 'zoe'));
      const names = a.body.map((c: { name: string }) => c.name.toLowerCase());
      assert.deepEqual(names, [...names].sort());
    });

    test('PUT is a full replacement: null or omitted optional fields are cleared', async () => {
      const c = await create({ name: 'Fox', phoneNumber: '555', email: 'fox@example.com', notes: 'n' });
      const id = c.body.id;
      const r = await t.request('PUT', `/api/contacts/${id}`, { token: t.tokenA, body: { name: 'Fox Mulder', phoneNumber: null, email: 'mulder@example.com' } });
      assert.equal(r.status, 200);
      assert.equal(r.body.id, id);
      assert.equal(r.body.name, 'Fox Mulder');
      assert.equal(r.body.phoneNumber, null);
      assert.equal(r.body.email, 'mulder@example.com');
      assert.equal(r.body.notes, null);
      assert.equal(r.body.createdAt, c.body.createdAt);
      assert.ok(Date.parse(r.body.updatedAt) >= Date.parse(c.body.updatedAt));
      const g = await t.request('GET', `/api/contacts/${id}`, { token: t.tokenA });
      assert.deepEqual(g.body, r.body);

      for (const body of [{ phoneNumber: '1' }, { name: '' }, { name: 'Fox', email: 'bad' }]) {
        const bad = await t.request('PUT', `/api/contacts/${id}`, { token: t.tokenA, body });
        assert.equal(bad.status, 400, JSON.stringify(body));
        assert.equal(bad.body.error.code, 'validation_failed');
      }
      const unchanged = await t.request('GET', `/api/contacts/${id}`, { token: t.tokenA });
      assert.equal(unchanged.body.name, 'Fox Mulder');
    });

    test('a foreign or missing contact is 404 contact_not_found for GET, PUT and DELETE', async () => {
      const c = await create({ name: 'Private' });
      const id = c.body.id;
      for (const [method, path, token] of [
        ['GET', `/api/contacts/${id}`, t.tokenB],
        ['PUT', `/api/contacts/${id}`, t.tokenB],
        ['DELETE', `/api/contacts/${id}`, t.tokenB],
        ['GET', `/api/contacts/${crypto.randomUUID()}`, t.tokenA],
        ['PUT', `/api/contacts/${crypto.randomUUID()}`, t.tokenA],
        ['DELETE', `/api/contacts/${crypto.randomUUID()}`, t.tokenA],
      ] as const) {
        const r = await t.request(method, path, { token, body: method === 'PUT' ? { name: 'Hijack' } : undefined });
        assert.equal(r.status, 404, `${method} ${path}`);
        assert.equal(r.body.error.code, 'contact_not_found');
      }
      const still = await t.request('GET', `/api/contacts/${id}`, { token: t.tokenA });
      assert.equal(still.body.name, 'Private');
    });

    test('PATCH /api/calls/:callId/contact links and unlinks, leaving the legacy fields alone', async () => {
      const contact = await create({ name: 'Walter Skinner' });
      const callId = await insertCall(t, t.userA, { contactName: 'W. Skinner (phone)', legacyContactId: 'phone-contact-17' });

      const linked = await t.request('PATCH', `/api/calls/${callId}/contact`, { token: t.tokenA, body: { contactId: contact.body.id } });
      assert.equal(linked.status, 200);
      assert.equal(linked.body.callId, callId);
      assert.equal(linked.body.contactName, 'W. Skinner (phone)');
      assert.equal(linked.body.serviceContactId, contact.body.id);
      let row = await callRow(callId);
      assert.equal(row?.serviceContactId, contact.body.id);
      assert.equal(row?.legacyContactId, 'phone-contact-17');
      assert.equal(row?.contactName, 'W. Skinner (phone)');

      const unlinked = await t.request('PATCH', `/api/calls/${callId}/contact`, { token: t.tokenA, body: { contactId: null } });
      assert.equal(unlinked.status, 200);
      assert.equal(unlinked.body.serviceContactId, null);
      row = await callRow(callId);
      assert.equal(row?.serviceContactId, null);
      assert.equal(row?.legacyContactId, 'phone-contact-17');

      for (const body of [{}, { contactId: 'nope' }, { contactId: 5 }]) {
        const bad = await t.request('PATCH', `/api/calls/${callId}/contact`, { token: t.tokenA, body });
        assert.equal(bad.status, 400, JSON.stringify(body));
        assert.equal(bad.body.error.code, 'validation_failed');
      }
    });

    test('linking needs both the call and the contact to be the caller\'s', async () => {
      const mine = await create({ name: 'Mine' });
      const theirs = await create({ name: 'Theirs' }, t.tokenB);
      const myCall = await insertCall(t, t.userA);
      const theirCall = await insertCall(t, t.userB);

      const foreignContact = await t.request('PATCH', `/api/calls/${myCall}/contact`, { token: t.tokenA, body: { contactId: theirs.body.id } });
      assert.equal(foreignContact.status, 404);
      assert.equal(foreignContact.body.error.code, 'contact_not_found');
      const missingContact = await t.request('PATCH', `/api/calls/${myCall}/contact`, { token: t.tokenA, body: { contactId: crypto.randomUUID() } });
      assert.equal(missingContact.status, 404);

      const foreignCall = await t.request('PATCH', `/api/calls/${theirCall}/contact`, { token: t.tokenA, body: { contactId: mine.body.id } });
      assert.equal(foreignCall.status, 404);
      assert.equal(foreignCall.body.error.code, 'call_not_found');
      const foreignCallUnlink = await t.request('PATCH', `/api/calls/${theirCall}/contact`, { token: t.tokenA, body: { contactId: null } });
      assert.equal(foreignCallUnlink.status, 404);
      const missingCall = await t.request('PATCH', `/api/calls/${crypto.randomUUID()}/contact`, { token: t.tokenA, body: { contactId: mine.body.id } });
      assert.equal(missingCall.status, 404);
      assert.equal(missingCall.body.error.code, 'call_not_found');

      assert.equal((await callRow(myCall))?.serviceContactId, null);
      assert.equal((await callRow(theirCall))?.serviceContactId, null);
    });

    test('GET /api/contacts is paged: 1000 by default with X-Next-Cursor and Link rel=next, keyset on (name, id) across case ties and writes', async () => {
      // A user with many contacts, some names equal but for case, some equal outright (ordered by id).
      const token = await t.idp.token({ sub: `contacts-pages-${crypto.randomUUID()}` });
      const userId = await t.userIdOf(token);
      const db = t.service.ctx.database.db;
      const tricky = ['bob', 'Bob', 'BOB', 'Same', 'Same', 'Same', 'Zoë | "quoted"', '😀 emoji', 'a\u0301ccent', 'x, y\\z'];
      await db.insertInto('contacts').values(tricky.map((name) => ({ userId, name }))).execute();
      await sql`INSERT INTO contacts (user_id, name) SELECT ${userId}::uuid, 'Contact ' || lpad(g::text, 5, '0') FROM generate_series(1, 2490) g`.execute(db);
      const expected = async () =>
        (await sql<{ id: string }>`SELECT id FROM contacts WHERE user_id = ${userId} ORDER BY lower(name), name, id`.execute(db)).rows.map((r) => r.id);
      const all = await expected();
      assert.equal(all.length, 2500);

      // An old client's request: the bare array, capped, the rest announced in headers.
      const first = await t.request('GET', '/api/contacts', { token });
      assert.equal(first.status, 200);
      assert.ok(Array.isArray(first.body));
      assert.equal(first.body.length, 1000, 'no request loads more than 1000 contacts');
      assert.deepEqual(first.body.map((c: { id: string }) => c.id), all.slice(0, 1000));
      assert.deepEqual(Object.keys(first.body[0]).sort(), CONTACT_FIELDS);
      const cursor = first.headers.get('x-next-cursor');
      assert.match(cursor ?? '', /^[A-Za-z0-9_-]+$/);
      assert.equal(first.headers.get('link'), `</api/contacts?limit=1000&cursor=${cursor}>; rel="next"`);

      // Following Link with small pages yields every contact once, in order; the last page has no headers.
      const seen: string[] = [];
      let next: string | null = '/api/contacts?limit=61';
      let pages = 0;
      while (next) {
        const r: { status: number; text: string; body: any; headers: Headers } = await t.request('GET', next, { token });
        assert.equal(r.status, 200, r.text);
        seen.push(...r.body.map((c: { id: string }) => c.id));
        const link = r.headers.get('link');
        next = link ? /^<([^>]+)>; rel="next"$/.exec(link)![1] : null;
        assert.equal(r.headers.get('x-next-cursor') === null, next === null);
        if (pages++ > 50) assert.fail('paging does not end');
      }
      assert.deepEqual(seen, all);

      // Writes between pages: the page after a cursor is decided by the cursor's (name, id) alone.
      const p1 = await t.request('GET', '/api/contacts?limit=3', { token });
      assert.deepEqual(p1.body.map((c: { id: string }) => c.id), all.slice(0, 3));
      assert.equal(new Set(p1.body.slice(1).map((c: { name: string }) => c.name.toLowerCase())).size, 1, 'the cut falls between names equal but for case');
      await t.request('DELETE', `/api/contacts/${p1.body[2].id}`, { token }); // the cursor's own contact
      await t.request('POST', '/api/contacts', { token, body: { name: 'Aardvark' } }); // sorts before the cursor
      const p2 = await t.request('GET', `/api/contacts?limit=4&cursor=${p1.headers.get('x-next-cursor')}`, { token });
      assert.equal(p2.status, 200);
      assert.deepEqual(p2.body.map((c: { id: string }) => c.id), all.slice(3, 7));
      // Another user's cursor positions in the caller's own list only.
      const other = await t.request('GET', `/api/contacts?cursor=${p1.headers.get('x-next-cursor')}`, { token: t.tokenB });
      assert.equal(other.status, 200);
      assert.ok(!other.body.some((c: { name: string }) => c.name.startsWith('Contact 0')));
    });

    test('GET /api/contacts: a cursor not written by the service, or a limit out of range, is 400 validation_failed', async () => {
      const id = crypto.randomUUID();
      const enc = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');
      const good = enc(['Bob', id]);
      const forged = [
        '',
        'nonsense!',
        enc(['Bob\u0000', id]), // PostgreSQL rejects NUL in text
        enc(['Bob', 'not-a-uuid']),
        enc(['Bob', id, 'extra']),
        enc(['', id]),
        enc([42, id]),
        enc({ name: 'Bob', id }),
        enc(`["Bob", "${id}"]`), // the same value, spelled differently
        enc(['x'.repeat(1001), id]),
        `${good}=`,
        Buffer.from(JSON.stringify(['Bob', id])).toString('base64'),
      ];
      for (const cursor of forged) {
        const r = await t.request('GET', `/api/contacts?cursor=${encodeURIComponent(cursor)}`, { token: t.tokenA });
        assert.equal(r.status, 400, `cursor ${cursor}`);
        assert.equal(r.body.error.code, 'validation_failed');
      }
      for (const limit of ['0', '1001', 'abc', '-1', '1.5']) {
        const r = await t.request('GET', `/api/contacts?limit=${limit}`, { token: t.tokenA });
        assert.equal(r.status, 400, `limit ${limit}`);
        assert.equal(r.body.error.code, 'validation_failed');
      }
      assert.equal((await t.request('GET', `/api/contacts?cursor=${good}`, { token: t.tokenA })).status, 200);
      assert.equal((await t.request('GET', `/api/contacts?cursor=${enc(['Bob', id.toUpperCase()])}`, { token: t.tokenA })).status, 200);
    });

    test('DELETE answers 204, keeps linked calls and clears their link', async () => {
      const contact = await create({ name: 'To be deleted' });
      const other = await create({ name: 'Stays' });
      const linkedCall = await insertCall(t, t.userA);
      const otherCall = await insertCall(t, t.userA);
      await t.request('PATCH', `/api/calls/${linkedCall}/contact`, { token: t.tokenA, body: { contactId: contact.body.id } });
      await t.request('PATCH', `/api/calls/${otherCall}/contact`, { token: t.tokenA, body: { contactId: other.body.id } });

      const del = await t.request('DELETE', `/api/contacts/${contact.body.id}`, { token: t.tokenA });
      assert.equal(del.status, 204);
      assert.equal(del.text, '');

      const call = await t.request('GET', `/api/calls/${linkedCall}`, { token: t.tokenA });
      assert.equal(call.status, 200);
      assert.equal((await callRow(linkedCall))?.serviceContactId, null);
      assert.equal((await callRow(otherCall))?.serviceContactId, other.body.id);

      const gone = await t.request('GET', `/api/contacts/${contact.body.id}`, { token: t.tokenA });
      assert.equal(gone.status, 404);
      const again = await t.request('DELETE', `/api/contacts/${contact.body.id}`, { token: t.tokenA });
      assert.equal(again.status, 404);
      assert.equal(again.body.error.code, 'contact_not_found');
    });
  });
}

// The call routes against the real service (workers off, so uploads stay QUEUED): upload errors,
// guards, idempotent retries, contact auto-assignment, listing, edits, deletion and ownership.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { dbModes, tempDir, uploadForm } from '../support/service.js';
import { withIdpService } from '../support/two-users.js';
import { corpusFile } from '../support/corpus.js';

const modes = await dbModes();
const wav = corpusFile('car-repair', 'mono16k.wav');
const m4a = corpusFile('dentist-appointment', 'call.m4a');
const meta = { title: 'Brake repair', contactName: 'Westside Auto', phoneNumber: '+1 555 382 1177', direction: 'INCOMING', recordedAt: '2025-09-17T21:00:00Z' };

for (const mode of modes) {
  describe(`calls (${mode} PostgreSQL)`, () => {
    let alice: string;
    let bob: string;
    let admin: string;
    const maxFileSize = fs.statSync(wav).size - 100_000;

    const t = withIdpService(mode, { env: { MAX_FILE_SIZE: String(maxFileSize), SERVICE_MAX_UPLOADS_PER_HOUR: '6', SERVICE_ADMIN_ALLOWED_EMAILS: 'root@example.com' } });
    before(async () => {
      alice = await t.idp.token({ sub: 'alice', email: 'alice@example.com', name: 'Alice Archer' });
      bob = await t.idp.token({ sub: 'bob', email: 'bob@example.com', name: 'Bob Baker' });
      admin = await t.idp.token({ sub: 'root', email: 'root@example.com', name: 'Root', email_verified: true });
    });

    const upload = (token: string, file: string, metadata?: unknown, headers: Record<string, string> = {}, extra: Record<string, string> = {}, name?: string, mime?: string) =>
      t.request('POST', '/api/calls/analyze', { token, form: uploadForm(file, metadata, extra, name, mime), headers });

    test('upload answers 202 QUEUED and the call detail carries the metadata', async () => {
      const r = await upload(alice, m4a, { ...meta, title: 'Dentist' });
      assert.equal(r.status, 202);
      assert.equal(r.body.status, 'QUEUED');
      assert.match(r.body.callId, /^[0-9a-f-]{36}$/);
      const d = await t.request('GET', `/api/calls/${r.body.callId}`, { token: alice });
      assert.equal(d.status, 200);
      assert.equal(d.body.title, 'Dentist');
      assert.equal(d.body.status, 'QUEUED');
      assert.equal(d.body.direction, 'INCOMING');
      assert.equal(d.body.contactName, 'Westside Auto');
      assert.equal(d.body.phoneNumber, '+1 555 382 1177');
      assert.equal(d.body.recordedAt, '2025-09-17T21:00:00.000Z');
      assert.equal(d.body.errorReason, null);
      assert.ok(!('transcript' in d.body) && !('analysis' in d.body));
      const stored = fs.readdirSync(path.join(t.dataDir, 'blobs/users'), { recursive: true }).map(String);
      assert.ok(stored.some((f) => f.endsWith(`${r.body.callId}/audio.m4a`)), 'audio stored under the call');
    });

    test('the title part is used when no envelope title is sent', async () => {
      const r = await upload(alice, m4a, undefined, {}, { title: 'From the title part' });
      assert.equal(r.status, 202);
      const d = await t.request('GET', `/api/calls/${r.body.callId}`, { token: alice });
      assert.equal(d.body.title, 'From the title part');
    });

    test('missing file and bad metadata answer 400 validation_failed', async () => {
      const form = new FormData();
      form.append('metadata', JSON.stringify(meta));
      const noFile = await t.request('POST', '/api/calls/analyze', { token: alice, form });
      assert.equal(noFile.status, 400);
      assert.equal(noFile.body.error.code, 'validation_failed');

      const badJson = await upload(alice, m4a, '{"title": ');
      assert.equal(badJson.status, 400);
      assert.equal(badJson.body.error.code, 'validation_failed');

      const badField = await upload(alice, m4a, { direction: 'SIDEWAYS', durationSeconds: -3 });
      assert.equal(badField.status, 400);
      const paths = badField.body.error.details.fields.map((f: { path: string }) => f.path).sort();
      assert.deepEqual(paths, ['/metadata/direction', '/metadata/durationSeconds']);
      assert.ok(!JSON.stringify(badField.body).includes('SIDEWAYS'), 'the sent value is not echoed');

      const json = await t.request('POST', '/api/calls/analyze', { token: alice, body: { file: 'x' } });
      assert.equal(json.status, 400);
    });

    test('content that is not audio answers 415 whatever its name says', async () => {
      const dir = tempDir('upload-');
      const fake = path.join(dir, 'song.mp3');
      fs.writeFileSync(fake, 'this is plain text pretending to be an mp3 file\n'.repeat(50));
      const r = await upload(alice, fake, meta, {}, {}, 'song.mp3', 'audio/mpeg');
      assert.equal(r.status, 415);
      assert.equal(r.body.error.code, 'unsupported_media_type');
      const png = path.join(dir, 'voice.wav');
      fs.writeFileSync(png, Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(2000)]));
      const r2 = await upload(alice, png, meta, {}, {}, 'voice.wav', 'audio/wav');
      assert.equal(r2.status, 415);
    });

    test('a file above MAX_FILE_SIZE answers 413 and leaves no partial file', async () => {
      const before = await t.service.ctx.database.db.selectFrom('calls').select('id').execute();
      const r = await upload(bob, wav, meta);
      assert.equal(r.status, 413);
      assert.equal(r.body.error.code, 'payload_too_large');
      const files = fs.existsSync(path.join(t.dataDir, 'blobs')) ? fs.readdirSync(path.join(t.dataDir, 'blobs'), { recursive: true }).map(String) : [];
      assert.ok(!files.some((f) => f.endsWith('.partial')), 'no partial file');
      const bobUser = (await t.request('GET', '/api/users/me', { token: bob })).body.id;
      assert.ok(!files.some((f) => f.includes(bobUser) && f.endsWith('audio.wav')), 'no stored audio for the refused upload');
      const afterRows = await t.service.ctx.database.db.selectFrom('calls').select('id').execute();
      assert.equal(afterRows.length, before.length);
    });

    test('an idempotent retry returns the same callId and creates one call', async () => {
      const key = `upload-${Date.now()}`;
      const first = await upload(bob, m4a, meta, { 'idempotency-key': key });
      const second = await upload(bob, m4a, meta, { 'idempotency-key': key });
      assert.equal(first.status, 202);
      assert.equal(second.status, 202);
      assert.equal(second.body.callId, first.body.callId);
      const rows = await t.service.ctx.database.db.selectFrom('calls').select('id').where('idempotencyKey', '=', key).execute();
      assert.equal(rows.length, 1);
      const ledger = await t.service.ctx.database.db.selectFrom('usageLedger').select('id').where('callId', '=', first.body.callId).execute();
      assert.equal(ledger.length, 1, 'one upload counted');
    });

    test('contact auto-assignment matches by name case-insensitively, else creates one', async () => {
      const carol = await t.idp.token({ sub: 'carol', email: 'carol@example.com', name: 'Carol' });
      const created = await t.request('POST', '/api/contacts', { token: carol, body: { name: 'Westside AUTO', phoneNumber: '+15550000000' } });
      assert.equal(created.status, 201);
      const a = await upload(carol, m4a, meta);
      const b = await upload(carol, m4a, { ...meta, contactName: 'New Person', phoneNumber: '+1 555 111 2222' });
      const c = await upload(carol, m4a, { title: 'no contact' });
      const db = t.service.ctx.database.db;
      const link = async (id: string) => (await db.selectFrom('calls').select('serviceContactId').where('id', '=', id).executeTakeFirstOrThrow()).serviceContactId;
      assert.equal(await link(a.body.callId), created.body.id, 'matched the existing contact');
      const contacts = (await t.request('GET', '/api/contacts', { token: carol })).body;
      assert.equal(contacts.length, 2);
      const fresh = contacts.find((x: { name: string }) => x.name === 'New Person');
      assert.equal(fresh.phoneNumber, '+1 555 111 2222');
      assert.equal(await link(b.body.callId), fresh.id);
      assert.equal(await link(c.body.callId), null, 'no contact name, no assignment');
    });

    test('a suspended account gets 403 with the reason', async () => {
      const dave = await t.idp.token({ sub: 'dave', email: 'dave@example.com', name: 'Dave' });
      const me = (await t.request('GET', '/api/users/me', { token: dave })).body;
      const s = await t.request('PATCH', `/api/admin/users/${me.id}/status`, { token: admin, body: { status: 'SUSPENDED', reason: 'Payment dispute' } });
      assert.equal(s.status, 200);
      const r = await upload(dave, m4a, meta);
      assert.equal(r.status, 403);
      assert.equal(r.body.error.code, 'ACCOUNT_SUSPENDED');
      assert.equal(r.body.error.details.reason, 'Payment dispute');
      await t.request('PATCH', `/api/admin/users/${me.id}/status`, { token: admin, body: { status: 'DISABLED' } });
      const r2 = await upload(dave, m4a, meta);
      assert.equal(r2.status, 403);
      assert.equal(r2.body.error.code, 'ACCOUNT_DISABLED');
    });

    test('usage guards answer 429 with the limit; deleting calls does not give uploads back', async () => {
      const erin = await t.idp.token({ sub: 'erin', email: 'erin@example.com', name: 'Erin' });
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const r = await upload(erin, m4a, meta);
        assert.equal(r.status, 202);
        ids.push(r.body.callId);
      }
      const busy = await upload(erin, m4a, meta);
      assert.equal(busy.status, 429);
      assert.equal(busy.body.error.code, 'concurrent_calls_limit');
      assert.deepEqual(busy.body.error.details, { limit: 5, current: 5 });
      const limits = (await t.request('GET', '/api/users/me/limits', { token: erin })).body;
      assert.equal(limits.uploadsThisHour, 5);
      assert.equal(limits.activeCalls, 5);
      assert.ok(limits.uploadedBytesThisMonth >= 5 * fs.statSync(m4a).size);

      await t.request('DELETE', '/api/calls', { token: erin, body: { callIds: ids.slice(0, 3) } });
      assert.equal((await upload(erin, m4a, meta)).status, 202, 'sixth upload of the hour');
      const rate = await upload(erin, m4a, meta);
      assert.equal(rate.status, 429);
      assert.equal(rate.body.error.code, 'upload_rate_limited');
      assert.equal(rate.body.error.details.limit, 6);
      assert.equal(rate.body.error.details.current, 6);
    });

    test('list is newest first with cursor pagination, counts and a status filter', async () => {
      const fay = await t.idp.token({ sub: 'fay', email: 'fay@example.com', name: 'Fay' });
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) ids.push((await upload(fay, m4a, { title: `call ${i}` })).body.callId);
      const p1 = await t.request('GET', '/api/calls?limit=2', { token: fay });
      assert.equal(p1.status, 200);
      assert.deepEqual(p1.body.items.map((c: { callId: string }) => c.callId), [ids[2], ids[1]]);
      assert.ok(p1.body.nextCursor);
      const item = p1.body.items[0];
      assert.deepEqual(Object.keys(item).sort(), ['actionItemCount', 'callId', 'contactName', 'createdAt', 'direction', 'durationSeconds', 'firstActionTitle', 'status', 'title'].sort());
      assert.equal(item.actionItemCount, 0);
      assert.equal(item.firstActionTitle, null);
      const p2 = await t.request('GET', `/api/calls?limit=2&cursor=${encodeURIComponent(p1.body.nextCursor)}`, { token: fay });
      assert.deepEqual(p2.body.items.map((c: { callId: string }) => c.callId), [ids[0]]);
      assert.equal(p2.body.nextCursor, undefined);
      const done = await t.request('GET', '/api/calls?status=COMPLETED', { token: fay });
      assert.equal(done.body.items.length, 0);
      assert.equal((await t.request('GET', '/api/calls?limit=101', { token: fay })).status, 400);
      assert.equal((await t.request('GET', '/api/calls?cursor=garbage', { token: fay })).status, 400);

      const st = await t.request('GET', `/api/calls/status?ids=${ids.join(',')},not-a-uuid,00000000-0000-4000-8000-000000000000`, { token: fay });
      assert.equal(st.status, 200);
      assert.deepEqual(st.body.items, ids.map((callId) => ({ callId, status: 'QUEUED' })));
    });

    test('PATCH edits title, summary and notes; empty string clears', async () => {
      const gina = await t.idp.token({ sub: 'gina', email: 'gina@example.com', name: 'Gina' });
      const id = (await upload(gina, m4a, { title: 'Original' })).body.callId;
      const r = await t.request('PATCH', `/api/calls/${id}`, { token: gina, body: { title: 'Renamed', notes: 'bring papers', summary: 'short' } });
      assert.equal(r.status, 200);
      assert.equal(r.body.title, 'Renamed');
      assert.equal(r.body.notes, 'bring papers');
      assert.equal(r.body.summary, 'short');
      const cleared = await t.request('PATCH', `/api/calls/${id}`, { token: gina, body: { title: '', notes: '' } });
      assert.equal(cleared.body.title, 'Original', 'a cleared title falls back to the upload title');
      assert.equal(cleared.body.notes, null);
      assert.equal(cleared.body.summary, 'short', 'omitted field unchanged');
      assert.equal((await t.request('PATCH', `/api/calls/${id}`, { token: gina, body: { title: 5 } })).status, 400);
    });

    test('transcript before completion answers 422 call_not_completed', async () => {
      const hank = await t.idp.token({ sub: 'hank', email: 'hank@example.com', name: 'Hank' });
      const id = (await upload(hank, m4a, meta)).body.callId;
      const r = await t.request('GET', `/api/calls/${id}/transcript`, { token: hank });
      assert.equal(r.status, 422);
      assert.equal(r.body.error.code, 'call_not_completed');
      const a = await t.request('GET', `/api/calls/${id}/analysis`, { token: hank });
      assert.equal(a.status, 422);
    });

    test('another user gets 404 on every call route', async () => {
      const ivy = await t.idp.token({ sub: 'ivy', email: 'ivy@example.com', name: 'Ivy' });
      const id = (await upload(ivy, m4a, meta)).body.callId;
      const routes: Array<[string, string, unknown?]> = [
        ['GET', `/api/calls/${id}`],
        ['PATCH', `/api/calls/${id}`, { title: 'x' }],
        ['PATCH', `/api/calls/${id}/contact`, { contactId: null }],
        ['GET', `/api/calls/${id}/transcript`],
        ['GET', `/api/calls/${id}/analysis`],
        ['POST', `/api/calls/${id}/reanalyze`],
        ['GET', `/api/calls/${id}/action-items`],
        ['POST', `/api/calls/${id}/action-items`, { title: 'x' }],
        ['DELETE', `/api/calls/${id}`],
      ];
      for (const [method, p, body] of routes) {
        const r = await t.request(method, p, { token: bob, body });
        assert.equal(r.status, 404, `${method} ${p}`);
      }
      const st = await t.request('GET', `/api/calls/status?ids=${id}`, { token: bob });
      assert.deepEqual(st.body.items, []);
      const bulk = await t.request('DELETE', '/api/calls', { token: bob, body: { callIds: [id] } });
      assert.deepEqual(bulk.body, { deleted: 0, missing: 1, failed: [] });
      assert.equal((await t.request('GET', `/api/calls/${id}`, { token: ivy })).status, 200, 'still there for its owner');
    });

    test('DELETE removes the call and its audio; bulk delete counts deleted and missing', async () => {
      const jack = await t.idp.token({ sub: 'jack', email: 'jack@example.com', name: 'Jack' });
      const id = (await upload(jack, m4a, meta)).body.callId;
      const me = (await t.request('GET', '/api/users/me', { token: jack })).body.id;
      const dir = path.join(t.dataDir, 'blobs/users', me, 'calls', id);
      assert.ok(fs.existsSync(dir));
      assert.equal((await t.request('DELETE', `/api/calls/${id}`, { token: jack })).status, 204);
      assert.ok(!fs.existsSync(dir), 'audio removed');
      assert.equal((await t.request('GET', `/api/calls/${id}`, { token: jack })).status, 404);
      assert.equal((await t.request('DELETE', `/api/calls/${id}`, { token: jack })).status, 404);

      const a = (await upload(jack, m4a, meta)).body.callId;
      const b = (await upload(jack, m4a, meta)).body.callId;
      const bulk = await t.request('DELETE', '/api/calls', { token: jack, body: { callIds: [a, b, id, 'junk'] } });
      assert.equal(bulk.status, 200);
      assert.deepEqual(bulk.body, { deleted: 2, missing: 2, failed: [] });
    });
  });
}

// Hostile input that once answered 500 or a body without the spec's error shape: the NUL character
// in any text that reaches PostgreSQL, multipart bodies without a boundary or cut off mid-part,
// path ids longer than the router's limit, paths that are not valid percent-encoding, and requests
// Node's HTTP parser rejects. Every answer is a 4xx with {error: {code, message}}.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { dbModes, tempDir } from '../support/service.js';
import { withIdpService } from '../support/two-users.js';
import { sql } from 'kysely';
import { insertCall } from '../fixtures/seed.js';

const work = tempDir('cas-hostile-');
const wavPath = path.join(work, 'tone.wav');
execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=1', '-ar', '16000', '-ac', '1', wavPath]);
const wav = fs.readFileSync(wavPath);
after(() => fs.rmSync(work, { recursive: true, force: true }));

function assertErrorBody(body: any, code: string): void {
  assert.equal(typeof body?.error?.message, 'string', JSON.stringify(body));
  assert.equal(body.error.code, code, JSON.stringify(body));
  assert.deepEqual(Object.keys(body).sort(), ['error']);
}

/** Writes raw bytes on a socket and returns the status line's code and the parsed body. */
function rawRequest(url: string, bytes: string | Buffer): Promise<{ status: number; body: any }> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1');
    let data = '';
    socket.on('data', (d) => (data += d.toString('utf8')));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head, ...rest] = data.split('\r\n\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
      let body: any = null;
      try {
        body = JSON.parse(rest.join('\r\n\r\n'));
      } catch {
        body = rest.join('');
      }
      resolve({ status, body });
    });
    socket.write(bytes);
  });
}

for (const mode of await dbModes()) {
  describe(`hostile input (${mode} database)`, () => {
    let token: string;
    let callId: string;

    const t = withIdpService(mode, { env: { SERVICE_ADMIN_ALLOWED_EMAILS: 'hostile-admin@example.test' } });
    before(async () => {
      token = await t.idp.token({ sub: 'hostile-a', email: 'hostile-a@example.test' });
      callId = await insertCall(t, await t.userIdOf(token), { status: 'COMPLETED' });
    });

    const countRows = async (table: 'calls' | 'contacts' | 'action_items') =>
      Number((await sql<{ n: string }>`SELECT count(*) AS n FROM ${sql.table(table)}`.execute(t.service.ctx.database.db)).rows[0].n);

    test('NUL in a JSON text field, a key, a query string or a path is 400 validation_failed naming the field; nothing is created', async () => {
      const contactsBefore = await countRows('contacts');
      const itemsBefore = await countRows('action_items');
      const cases: Array<[string, string, unknown, string]> = [
        ['POST', '/api/contacts', { name: 'Dana\u0000Scully' }, 'body/name'],
        ['POST', '/api/contacts', { name: 'Dana', notes: 'a\u0000' }, 'body/notes'],
        ['POST', '/api/contacts', { name: 'Dana', ['x\u0000y']: 1 }, 'body/x\\u0000y'],
        ['POST', `/api/calls/${callId}/action-items`, { title: 'Call back\u0000' }, 'body/title'],
        ['PATCH', `/api/calls/${callId}`, { title: '\u0000' }, 'body/title'],
        ['PATCH', '/api/users/me', { displayName: 'A\u0000' }, 'body/displayName'],
      ];
      for (const [method, p, body, field] of cases) {
        const r = await t.request(method, p, { token, body });
        assert.equal(r.status, 400, `${method} ${p}: ${r.text}`);
        assertErrorBody(r.body, 'validation_failed');
        assert.equal(r.body.error.details.fields[0].path, field);
        assert.ok(!r.text.includes('\u0000') && !r.text.includes('Dana'), 'the value is not echoed');
      }
      for (const p of ['/api/calls?status=%00', '/api/actions?status=OPEN%00', `/api/calls/${callId}%00`]) {
        const r = await t.request('GET', p, { token });
        assert.equal(r.status, 400, `${p}: ${r.text}`);
        assertErrorBody(r.body, 'validation_failed');
      }
      assert.equal(await countRows('contacts'), contactsBefore);
      assert.equal(await countRows('action_items'), itemsBefore);
    });

    test('NUL in an upload title part or metadata field is 400 naming it, and leaves no call', async () => {
      const callsBefore = await countRows('calls');
      const titled = new FormData();
      titled.append('title', 'Dentist\u0000');
      titled.append('file', new Blob([wav], { type: 'audio/wav' }), 'tone.wav');
      const r1 = await t.request('POST', '/api/calls/analyze', { token, form: titled });
      assert.equal(r1.status, 400, r1.text);
      assert.equal(r1.body.error.details.fields[0].path, '/title');
      const meta = new FormData();
      meta.append('metadata', JSON.stringify({ contactName: 'Zoë\u0000' }));
      meta.append('file', new Blob([wav], { type: 'audio/wav' }), 'tone.wav');
      const r2 = await t.request('POST', '/api/calls/analyze', { token, form: meta });
      assert.equal(r2.status, 400, r2.text);
      assert.equal(r2.body.error.details.fields[0].path, '/metadata/contactName');
      assert.equal(await countRows('calls'), callsBefore);
      assert.deepEqual(fs.readdirSync(path.join(t.dataDir, 'blobs')).filter((f) => !f.startsWith('.')).flatMap((u) => fs.readdirSync(path.join(t.dataDir, 'blobs', u), { recursive: true }).filter((f) => String(f).endsWith('.wav'))), []);
    });

    test('multipart without a boundary, or cut off mid-part, is 400 validation_failed on both multipart routes', async () => {
      const cut = '--XX\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\nContent-Type: audio/wav\r\n\r\n' + wav.subarray(0, 2000).toString('latin1');
      for (const p of ['/api/calls/analyze', '/api/users/me/voice-profile']) {
        for (const [contentType, body] of [
          ['multipart/form-data', 'abc'],
          ['multipart/form-data; boundary=', '--\r\n'],
          ['multipart/form-data; boundary=XX', Buffer.from(cut, 'latin1')],
        ] as const) {
          const r = await fetch(`${t.url}${p}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': contentType }, body });
          const text = await r.text();
          assert.ok(r.status === 400 || r.status === 404, `${p} ${contentType}: ${r.status} ${text}`); // 404 feature_not_available when voice is off
          assertErrorBody(JSON.parse(text), r.status === 400 ? 'validation_failed' : JSON.parse(text).error.code);
        }
      }
    });

    test('a path id of any length: up to 1024 characters it is an invalid id (400), beyond that 414 uri_too_long, always with the error body', async () => {
      for (const len of [37, 101, 150, 1024]) {
        const r = await t.request('GET', `/api/calls/${'a'.repeat(len)}`, { token });
        assert.equal(r.status, 400, `${len}: ${r.text}`);
        assertErrorBody(r.body, 'validation_failed');
      }
      for (const p of [`/api/calls/${'a'.repeat(1025)}`, `/api/contacts/${'b'.repeat(5000)}`, `/api/action-items/${'c'.repeat(5000)}`]) {
        const r = await t.request('DELETE', p, { token });
        assert.equal(r.status, 414, r.text);
        assertErrorBody(r.body, 'uri_too_long');
      }
    });

    test('found by the fuzzer: JSON nested thousands deep, and a page number past the SQL bigint range, are 400', async () => {
      for (const body of ['['.repeat(5000) + ']'.repeat(5000), `{"name":${'{"a":'.repeat(40)}1${'}'.repeat(40)}}`]) {
        const r = await t.request('POST', '/api/contacts', { token, body });
        assert.equal(r.status, 400, r.text.slice(0, 300));
        assertErrorBody(r.body, 'validation_failed');
      }
      const admin = await t.idp.token({ sub: 'hostile-admin', email: 'hostile-admin@example.test', email_verified: true });
      for (const p of ['/api/admin/audit-log?page=18446744073709552000', '/api/admin/users?page=99999999999999&size=200']) {
        const r = await t.request('GET', p, { token: admin });
        assert.equal(r.status, 400, `${p}: ${r.text}`);
        assertErrorBody(r.body, 'validation_failed');
      }
      assert.equal((await t.request('GET', '/api/admin/audit-log?page=1000000', { token: admin })).status, 200);
    });

    test('a path that is not valid percent-encoding is 400 with the error body', async () => {
      const r = await t.request('GET', '/api/calls/%zz', { token });
      assert.equal(r.status, 400, r.text);
      assertErrorBody(r.body, 'validation_failed');
    });

    test('requests the HTTP parser rejects get the error body: garbage request line, control characters in a header, headers too large', async () => {
      const garbage = await rawRequest(t.url, 'GARBAGE\r\n\r\n');
      assert.equal(garbage.status, 400);
      assertErrorBody(garbage.body, 'validation_failed');
      const control = await rawRequest(t.url, `GET /api/users/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer a\u0001b\r\n\r\n`);
      assert.equal(control.status, 400);
      assertErrorBody(control.body, 'validation_failed');
      const huge = await rawRequest(t.url, `GET /api/health HTTP/1.1\r\nHost: x\r\nX-Filler: ${'a'.repeat(20_000)}\r\n\r\n`);
      assert.equal(huge.status, 431);
      assertErrorBody(huge.body, 'request_headers_too_large');
      // The service still answers.
      assert.equal((await t.request('GET', '/api/health')).status, 200);
    });
  });
}

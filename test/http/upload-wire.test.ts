// The upload as real clients put it on the wire. Each multipart body here is built byte for byte
// the way OkHttp/Retrofit, Alamofire, browsers' FormData and curl build theirs (boundaries, part
// headers, CRLF line ends, typed and untyped parts, in either order), and the real curl binary is
// run too. The spec's `metadata` is an application/json part: every form of it must keep the
// envelope, and a broken one must answer 400 validation_failed naming the field.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { dbModes, startTestService, tempDir, TestIdp, type TestService } from '../support/service.js';
import { rawRequest, type RawResponse } from '../support/raw-http.js';

const modes = await dbModes();
const CRLF = '\r\n';

const work = tempDir('cas-wire-');
const wavPath = path.join(work, 'call.wav');
const m4aPath = path.join(work, 'call.m4a');
// Two short recordings made here: what is sent matters, not what they say.
execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=1', '-ar', '16000', '-ac', '1', wavPath]);
execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=1', '-ar', '16000', '-ac', '1', '-c:a', 'aac', m4aPath]);
const wav = fs.readFileSync(wavPath);
const m4a = fs.readFileSync(m4aPath);

const envelope = {
  contactName: 'Zoë Ñúñez-Okafor 李',
  phoneNumber: '+1 (555) 010-7788',
  direction: 'OUTGOING',
  organization: 'Harbor Clinic',
  recordedAt: '2026-03-04T09:15:00Z',
};
const envelopeJson = JSON.stringify(envelope);

interface Part {
  headers: string[];
  body: Buffer | string;
}

/** A multipart body exactly as given: each part's header lines, CRLF line ends, closing delimiter. */
function multipart(boundary: string, parts: Part[]): Buffer {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    chunks.push(Buffer.from(`--${boundary}${CRLF}${p.headers.join(CRLF)}${CRLF}${CRLF}`, 'utf8'));
    chunks.push(typeof p.body === 'string' ? Buffer.from(p.body, 'utf8') : p.body);
    chunks.push(Buffer.from(CRLF));
  }
  chunks.push(Buffer.from(`--${boundary}--${CRLF}`));
  return Buffer.concat(chunks);
}

/** Sends the bytes unchanged with the given Content-Type (node's fetch would not let us choose). */
function send(url: string, token: string, contentType: string, body: Buffer, extraHeaders: Record<string, string> = {}): Promise<RawResponse> {
  return rawRequest(url, { method: 'POST', path: '/api/calls/analyze', headers: { authorization: `Bearer ${token}`, 'content-type': contentType, ...extraHeaders }, body });
}

const okhttpBoundary = () => crypto.randomUUID();
const alamofireBoundary = () => `alamofire.boundary.${crypto.randomBytes(8).toString('hex')}`;
const webkitBoundary = () => `----WebKitFormBoundary${crypto.randomBytes(12).toString('base64url').slice(0, 16)}`;
const curlBoundary = () => `------------------------${crypto.randomBytes(11).toString('hex')}`;

for (const mode of modes) {
  describe(`upload on the wire (${mode} PostgreSQL)`, () => {
    let t: TestService;
    let idp: TestIdp;
    let token: string;

    before(async () => {
      idp = await TestIdp.start();
      t = await startTestService({ db: mode, env: { ...idp.env(), SERVICE_MAX_UPLOADS_PER_HOUR: '1000', SERVICE_MAX_CONCURRENT_ACTIVE_CALLS: '1000', PLAN_FREE_TRANSCRIPTS_PER_DAY: '1000' } });
      token = await idp.token({ sub: 'wire-user', email: 'wire@example.com', name: 'Wire User' });
    });
    after(async () => {
      await t?.stop();
      await idp?.stop();
    });

    /** The call detail shows the envelope exactly as it was sent. */
    async function assertEnvelopeKept(r: RawResponse, title: string | null = null) {
      assert.equal(r.status, 202, JSON.stringify(r.body));
      assert.equal(r.body.status, 'QUEUED');
      const d = await t.request('GET', `/api/calls/${r.body.callId}`, { token });
      assert.equal(d.status, 200);
      assert.equal(d.body.contactName, envelope.contactName);
      assert.equal(d.body.phoneNumber, envelope.phoneNumber);
      assert.equal(d.body.direction, envelope.direction);
      assert.equal(d.body.recordedAt, '2026-03-04T09:15:00.000Z');
      if (title !== null) assert.equal(d.body.title, title);
      return d.body;
    }

    function assertMetadataRejected(r: RawResponse) {
      assert.equal(r.status, 400, JSON.stringify(r.body));
      assert.equal(r.body.error.code, 'validation_failed');
      assert.equal(r.body.error.details.fields[0].path, '/metadata');
      assert.ok(!JSON.stringify(r.body).includes('Okafor'), 'the error does not echo what was sent');
    }

    test('OkHttp/Retrofit: @Part("metadata") RequestBody application/json; charset=utf-8 before the file', async () => {
      const b = okhttpBoundary();
      const metaBytes = Buffer.from(envelopeJson, 'utf8');
      const body = multipart(b, [
        { headers: ['Content-Disposition: form-data; name="metadata"', 'Content-Transfer-Encoding: binary', 'Content-Type: application/json; charset=utf-8', `Content-Length: ${metaBytes.length}`], body: metaBytes },
        { headers: ['Content-Disposition: form-data; name="file"; filename="call.m4a"', 'Content-Type: audio/mp4', `Content-Length: ${m4a.length}`], body: m4a },
      ]);
      await assertEnvelopeKept(await send(t.url, token, `multipart/form-data; boundary=${b}`, body));
    });

    test('Alamofire: file first, then metadata with mimeType application/json, then a title part', async () => {
      const b = alamofireBoundary();
      const body = multipart(b, [
        { headers: ['Content-Disposition: form-data; name="file"; filename="call.m4a"', 'Content-Type: audio/x-m4a'], body: m4a },
        { headers: ['Content-Disposition: form-data; name="metadata"', 'Content-Type: application/json'], body: envelopeJson },
        { headers: ['Content-Disposition: form-data; name="title"'], body: 'Réunion de suivi' },
      ]);
      await assertEnvelopeKept(await send(t.url, token, `multipart/form-data; boundary=${b}`, body), 'Réunion de suivi');
    });

    test('browser FormData: metadata as a Blob of type application/json (filename "blob")', async () => {
      const b = webkitBoundary();
      const body = multipart(b, [
        { headers: ['Content-Disposition: form-data; name="metadata"; filename="blob"', 'Content-Type: application/json'], body: envelopeJson },
        { headers: ['Content-Disposition: form-data; name="file"; filename="call.wav"', 'Content-Type: audio/wav'], body: wav },
      ]);
      await assertEnvelopeKept(await send(t.url, token, `multipart/form-data; boundary=${b}`, body));
    });

    test('a real FormData (undici) with a JSON Blob and a plain string title', async () => {
      const form = new FormData();
      form.append('title', 'Quarterly check-in');
      form.append('metadata', new Blob([envelopeJson], { type: 'application/json' }));
      form.append('file', new Blob([wav], { type: 'audio/wav' }), 'call.wav');
      const r = await t.request('POST', '/api/calls/analyze', { token, form });
      await assertEnvelopeKept({ status: r.status, body: r.body }, 'Quarterly check-in');
    });

    test('a plain text metadata field (no Content-Type), after the file', async () => {
      const b = curlBoundary();
      const body = multipart(b, [
        { headers: ['Content-Disposition: form-data; name="file"; filename="call.wav"', 'Content-Type: audio/x-wav'], body: wav },
        { headers: ['Content-Disposition: form-data; name="metadata"'], body: envelopeJson },
      ]);
      await assertEnvelopeKept(await send(t.url, token, `multipart/form-data; boundary=${b}`, body));
    });

    test('a quoted boundary with characters that need quoting, and parameters in another order', async () => {
      const b = `b0und:ary ${crypto.randomBytes(4).toString('hex')}`;
      const body = multipart(b, [
        { headers: ['Content-Disposition: form-data; name="metadata"', 'Content-Type: application/json;charset=UTF-8'], body: envelopeJson },
        { headers: ['Content-Disposition: form-data; name="file"; filename="call.m4a"', 'Content-Type: audio/mp4'], body: m4a },
      ]);
      await assertEnvelopeKept(await send(t.url, token, `multipart/form-data; charset=utf-8; boundary="${b}"`, body));
    });

    test('a UTF-8 filename (filename*=) and a file part without Content-Type are accepted and sniffed', async () => {
      const b = okhttpBoundary();
      const body = multipart(b, [
        { headers: [`Content-Disposition: form-data; name="file"; filename="appel.m4a"; filename*=UTF-8''appel%20%C3%A0%20Zo%C3%AB.m4a`], body: m4a },
        { headers: ['Content-Disposition: form-data; name="metadata"', 'Content-Type: application/json'], body: envelopeJson },
      ]);
      await assertEnvelopeKept(await send(t.url, token, `multipart/form-data; boundary=${b}`, body));

      const b2 = webkitBoundary();
      const raw = multipart(b2, [{ headers: ['Content-Disposition: form-data; name="file"; filename="réunion 李.wav"'], body: wav }]);
      const r = await send(t.url, token, `multipart/form-data; boundary=${b2}`, raw);
      assert.equal(r.status, 202, JSON.stringify(r.body));
      const d = await t.request('GET', `/api/calls/${r.body.callId}`, { token });
      assert.equal(d.body.contactName, null);
    });

    test('invalid JSON in every form of the metadata part answers 400 validation_failed', async () => {
      const broken = '{"contactName": "Zoë Okafor", ';
      const forms: Array<[string, string[]]> = [
        ['application/json field', ['Content-Disposition: form-data; name="metadata"', 'Content-Type: application/json']],
        ['application/json; charset=utf-8 field', ['Content-Disposition: form-data; name="metadata"', 'Content-Type: application/json; charset=utf-8']],
        ['plain text field', ['Content-Disposition: form-data; name="metadata"']],
        ['JSON file part', ['Content-Disposition: form-data; name="metadata"; filename="metadata.json"', 'Content-Type: application/json']],
      ];
      for (const [, headers] of forms) {
        for (const metadataFirst of [true, false]) {
          const b = okhttpBoundary();
          const file: Part = { headers: ['Content-Disposition: form-data; name="file"; filename="call.wav"', 'Content-Type: audio/wav'], body: wav };
          const meta: Part = { headers, body: broken };
          assertMetadataRejected(await send(t.url, token, `multipart/form-data; boundary=${b}`, multipart(b, metadataFirst ? [meta, file] : [file, meta])));
        }
      }
      const b = okhttpBoundary();
      const notObject = multipart(b, [
        { headers: ['Content-Disposition: form-data; name="metadata"', 'Content-Type: application/json'], body: '["OUTGOING"]' },
        { headers: ['Content-Disposition: form-data; name="file"; filename="call.wav"'], body: wav },
      ]);
      assertMetadataRejected(await send(t.url, token, `multipart/form-data; boundary=${b}`, notObject));
    });

    test('a field error inside a typed metadata part names the field', async () => {
      const b = alamofireBoundary();
      const body = multipart(b, [
        { headers: ['Content-Disposition: form-data; name="metadata"', 'Content-Type: application/json'], body: JSON.stringify({ direction: 'SIDEWAYS' }) },
        { headers: ['Content-Disposition: form-data; name="file"; filename="call.wav"', 'Content-Type: audio/wav'], body: wav },
      ]);
      const r = await send(t.url, token, `multipart/form-data; boundary=${b}`, body);
      assert.equal(r.status, 400);
      assert.equal(r.body.error.code, 'validation_failed');
      assert.deepEqual(r.body.error.details.fields.map((f: { path: string }) => f.path), ['/metadata/direction']);
    });

    test('bare LF line ends are not multipart: 400, not 500', async () => {
      const b = okhttpBoundary();
      const body = Buffer.from(`--${b}\nContent-Disposition: form-data; name="metadata"\n\n${envelopeJson}\n--${b}--\n`);
      const r = await send(t.url, token, `multipart/form-data; boundary=${b}`, body);
      assert.equal(r.status, 400, JSON.stringify(r.body));
      assert.equal(r.body.error.code, 'validation_failed');
    });

    test('the real curl: -F file=@x.wav -F "metadata=<meta.json;type=application/json"', async () => {
      const metaFile = path.join(work, 'meta.json');
      fs.writeFileSync(metaFile, envelopeJson);
      // Asynchronously: the service runs in this process, so a synchronous child would block it.
      const run = async (metadataArg: string): Promise<RawResponse> => {
        const { stdout: out } = await promisify(execFile)('curl', ['-sS', '-H', `Authorization: Bearer ${token}`, '-F', `file=@${wavPath}`, '-F', metadataArg, '-F', 'title=From curl', '-w', '\n%{http_code}', `${t.url}/api/calls/analyze`], { encoding: 'utf8', timeout: 30_000 });
        const lines = out.trimEnd().split('\n');
        return { status: Number(lines.pop()), body: JSON.parse(lines.join('\n')) };
      };
      await assertEnvelopeKept(await run(`metadata=<${metaFile};type=application/json`), 'From curl');
      await assertEnvelopeKept(await run(`metadata=@${metaFile};type=application/json`), 'From curl');
    });
  });
}

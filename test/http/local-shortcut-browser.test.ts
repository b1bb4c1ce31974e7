// The local development shortcut (no identity provider, no API key) acts as the local user on every
// request, with no credential at all. A web page the developer happens to visit must not borrow
// that: by DNS rebinding (a name of the attacker's that resolves to 127.0.0.1, so the page is
// same-origin with the service and reads every answer) or by a cross-site request a page may send
// without a preflight (a multipart POST that uploads into the local account). Clients that are not
// browsers (curl, mobile apps, the tests) send neither Origin nor Sec-Fetch-Site and are unaffected.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../support/service.js';
import { pcmWavHeader } from '../support/wav.js';
import { rawRequest, type RawResponse } from '../support/raw-http.js';

/** A request with exactly the headers given (fetch does not let a test choose Host). */
function raw(t: TestService, method: string, path: string, headers: Record<string, string>, body?: { type: string; data: Buffer }): Promise<RawResponse> {
  return rawRequest(t.url, { method, path, headers: body ? { ...headers, 'content-type': body.type } : headers, body: body?.data });
}

/** A one-second silent WAV as a browser's FormData would send it. */
function uploadBody(): { type: string; data: Buffer } {
  const pcm = Buffer.alloc(16000 * 2);
  const boundary = '----cas-local-shortcut';
  const data = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="call.wav"\r\nContent-Type: audio/wav\r\n\r\n`),
    pcmWavHeader(pcm.length),
    pcm,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { type: `multipart/form-data; boundary=${boundary}`, data };
}

describe('local shortcut: other sites cannot act as the local user', () => {
  let t: TestService;
  let port: string;
  before(async () => {
    t = await startTestService({ env: { WORKER_ENABLED: 'false' } });
    port = new URL(t.url).port;
  });
  after(async () => {
    await t?.stop();
  });

  test('DNS rebinding: a request naming another host is not the local user (401 auth_missing)', async () => {
    for (const host of [`attacker.example:${port}`, `rebind.attacker.example`, `127.0.0.1.nip.io:${port}`, `localhost.attacker.example:${port}`, `internal.attacker.example.:${port}`]) {
      const r = await raw(t, 'GET', '/api/calls', { host });
      assert.equal(r.status, 401, host);
      assert.equal(r.body.error.code, 'auth_missing', host);
    }
  });

  test('loopback names, address literals and private names (a compose service, host.docker.internal) still reach the local user', async () => {
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`, `app.localhost:${port}`, `[::1]:${port}`, `10.0.2.2:${port}`, `192.168.1.20:${port}`, `app:${port}`, `call-analysis`, `host.docker.internal:${port}`, `nas.local:${port}`, `box.home.arpa`]) {
      const r = await raw(t, 'GET', '/api/users/me', { host });
      assert.equal(r.status, 200, host);
      assert.equal(r.body.externalUserId, 'local-user', host);
    }
  });

  test('cross-site request forgery: an upload posted by another site creates nothing', async () => {
    const before = await raw(t, 'GET', '/api/calls', { host: `127.0.0.1:${port}` });
    const attempts: Array<Record<string, string>> = [
      { origin: 'https://attacker.example', 'sec-fetch-site': 'cross-site' },
      { origin: 'https://attacker.example' },
      { origin: 'null' },
      { origin: `http://localhost:3999`, 'sec-fetch-site': 'same-site' },
    ];
    for (const h of attempts) {
      const r = await raw(t, 'POST', '/api/calls/analyze', { host: `127.0.0.1:${port}`, ...h }, uploadBody());
      assert.equal(r.status, 401, JSON.stringify(h));
      assert.equal(r.body.error.code, 'auth_missing');
    }
    const after = await raw(t, 'GET', '/api/calls', { host: `127.0.0.1:${port}` });
    assert.equal(after.status, 200);
    assert.deepEqual(after.body, before.body);
  });

  test('the console\'s own requests (same origin) are the local user', async () => {
    const origin = `http://127.0.0.1:${port}`;
    const r = await raw(t, 'POST', '/api/calls/analyze', { host: `127.0.0.1:${port}`, origin, 'sec-fetch-site': 'same-origin' }, uploadBody());
    assert.equal(r.status, 202, JSON.stringify(r.body));
    const g = await raw(t, 'GET', '/api/users/me', { host: `127.0.0.1:${port}`, 'sec-fetch-site': 'same-origin' });
    assert.equal(g.status, 200);
    // A development front end behind its own proxy forwards the browser's headers: same-origin wins over the Origin of its port.
    const proxied = await raw(t, 'GET', '/api/users/me', { host: `127.0.0.1:${port}`, origin: 'http://localhost:5173', 'sec-fetch-site': 'same-origin' });
    assert.equal(proxied.status, 200);
  });
});

// JSON requests and query lists byte for byte as real clients send them (status ids as Retrofit
// and Alamofire encode a list are tested here too). Many clients put
// `Content-Type: application/json` on every request (a default header or an interceptor in OkHttp,
// Retrofit, Ktor or a fetch wrapper), so body-less DELETEs and POSTs arrive with that header and an
// empty body (Content-Length: 0). Those must work like the same request without the header; a route
// that needs a body still answers 400 validation_failed; malformed JSON stays 400.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, TestIdp, type TestService } from '../support/service.js';
import { insertCall, userIdOf } from '../fixtures/seed.js';

describe('JSON bodies and query lists as clients send them', () => {
  let t: TestService;
  let idp: TestIdp;
  let token: string;

  before(async () => {
    idp = await TestIdp.start();
    t = await startTestService({ db: 'embedded', env: idp.env() });
    token = await idp.token({ sub: 'json-wire-a', email: 'json-wire-a@example.test' });
  });
  after(async () => {
    await t?.stop();
    await idp?.stop();
  });

  /** A request exactly as fetch sends it: the given headers, the given body (none when undefined). */
  const send = (method: string, p: string, headers: Record<string, string>, body?: string) =>
    fetch(`${t.url}${p}`, { method, headers: { authorization: `Bearer ${token}`, ...headers }, body });

  for (const contentType of ['application/json', 'application/json; charset=utf-8']) {
    test(`body-less DELETE and POST with Content-Type: ${contentType} and an empty body succeed`, async () => {
      const created = await send('POST', '/api/contacts', { 'content-type': contentType }, JSON.stringify({ name: 'Wire Contact' }));
      assert.equal(created.status, 201, await created.clone().text());
      const contactId = ((await created.json()) as { id: string }).id;

      const del = await send('DELETE', `/api/contacts/${contactId}`, { 'content-type': contentType }, '');
      assert.equal(del.status, 204, await del.text());
      const again = await send('GET', `/api/contacts/${contactId}`, {});
      assert.equal(again.status, 404, 'the contact is gone');

      const voice = await send('DELETE', '/api/users/me/voice-profile', { 'content-type': contentType, 'content-length': '0' });
      assert.equal(voice.status, 204, await voice.text());

      const callId = await insertCall(t, await userIdOf(t, token), { status: 'COMPLETED' });
      const deleted = await send('DELETE', `/api/calls/${callId}`, { 'content-type': contentType }, '');
      assert.equal(deleted.status, 204, await deleted.text());
      const gone = await send('GET', `/api/calls/${callId}`, {});
      assert.equal(gone.status, 404);

      // A POST without a body on a route that takes none reaches the route (404 for an unknown call, not 400).
      const reanalyze = await send('POST', '/api/calls/00000000-0000-4000-8000-000000000000/reanalyze', { 'content-type': contentType }, '');
      const answer = await reanalyze.text();
      assert.equal(reanalyze.status, 404, answer);
      assert.equal((JSON.parse(answer) as { error: { code: string } }).error.code, 'call_not_found');
    });
  }

  test('a route that needs a body answers 400 validation_failed for an empty or whitespace JSON body', async () => {
    for (const body of ['', '  \r\n']) {
      const r = await send('PATCH', '/api/users/me', { 'content-type': 'application/json' }, body);
      assert.equal(r.status, 400);
      const json = (await r.json()) as { error: { code: string } };
      assert.equal(json.error.code, 'validation_failed');
    }
  });

  test('status ids as client libraries encode a list: comma-separated, repeated keys, bracketed keys', async () => {
    const userId = await userIdOf(t, token);
    const a = await insertCall(t, userId, { status: 'QUEUED' });
    const b = await insertCall(t, userId, { status: 'COMPLETED' });
    const expected = [{ callId: a, status: 'QUEUED' }, { callId: b, status: 'COMPLETED' }].sort((x, y) => x.callId.localeCompare(y.callId));
    for (const query of [`ids=${a},${b}`, `ids=${a}&ids=${b}`, `ids%5B%5D=${a}&ids%5B%5D=${b}`, `ids[]=${a}&ids=${b}`]) {
      const r = await send('GET', `/api/calls/status?${query}`, {});
      const text = await r.text();
      assert.equal(r.status, 200, `${query}: ${text}`);
      const items = (JSON.parse(text) as { items: Array<{ callId: string; status: string }> }).items.sort((x, y) => x.callId.localeCompare(y.callId));
      assert.deepEqual(items, expected, query);
    }
    const none = await send('GET', '/api/calls/status', {});
    assert.equal(none.status, 400, 'ids stays required');
  });

  test('malformed JSON and prototype poisoning stay 400 validation_failed', async () => {
    for (const body of ['{bad', '{"__proto__":{"admin":true}}', 'null x']) {
      const r = await send('PATCH', '/api/users/me', { 'content-type': 'application/json' }, body);
      assert.equal(r.status, 400, body);
      const json = (await r.json()) as { error: { code: string; message: string } };
      assert.equal(json.error.code, 'validation_failed');
      assert.equal(json.error.message, 'The request body is malformed.');
    }
  });
});

// Authorization, swept over every route of the OpenAPI document (generated, so a new route is
// covered without editing this file): user B asking for user A's objects gets exactly the answer
// a missing id gets, for every method, and changes nothing; every /api/admin/** route answers a
// non-admin with the plain 404 of an unknown route; in JWT mode no route but health answers
// without a valid token.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { dbModes, startTestService, TestIdp, type TestService } from '../support/service.js';
import { seedCompletedCall, userIdOf } from '../fixtures/seed.js';
import { fillPath, loadOpenApi, operationsOf, sample, type Operation } from '../support/openapi-routes.js';

/** Which of A's objects a path parameter names, from the route's path. */
function objectFor(op: Operation, param: string, a: Record<string, string>): string {
  if (param === 'callId') return a.call;
  if (param === 'userId') return a.user;
  if (param === 'key') return a.flag;
  if (op.path.startsWith('/api/contacts/')) return a.contact;
  if (op.path.startsWith('/api/action-items/') || op.path.startsWith('/api/actions/')) return a.item;
  if (op.path.startsWith('/api/calls/')) return a.call;
  if (op.path.startsWith('/api/webhooks/')) return a.webhook;
  throw new Error(`no object for {${param}} in ${op.method} ${op.path}: extend objectFor`);
}

for (const mode of await dbModes()) {
  describe(`authorization sweep over the OpenAPI document (${mode} database)`, () => {
    let t: TestService;
    let idp: TestIdp;
    let tokenA: string;
    let tokenB: string;
    let tokenAdmin: string;
    let ops: Operation[];
    let doc: any;
    const a: Record<string, string> = {};

    before(async () => {
      idp = await TestIdp.start();
      t = await startTestService({ db: mode, env: { ...idp.env(), SERVICE_ADMIN_ALLOWED_EMAILS: 'admin@example.test' } });
      tokenA = await idp.token({ sub: 'sweep-a', email: 'a@example.test', name: 'Alice' });
      tokenB = await idp.token({ sub: 'sweep-b', email: 'b@example.test', name: 'Bob' });
      tokenAdmin = await idp.token({ sub: 'sweep-admin', email: 'admin@example.test', email_verified: true });
      a.user = await userIdOf(t, tokenA);
      await userIdOf(t, tokenB);
      a.call = await seedCompletedCall(t, a.user, { title: 'Dentist' });
      const contact = await t.request('POST', '/api/contacts', { token: tokenA, body: { name: 'Dana' } });
      a.contact = contact.body.id;
      const item = await t.request('POST', `/api/calls/${a.call}/action-items`, { token: tokenA, body: { title: 'Call back' } });
      a.item = item.body.id;
      a.flag = 'billing_enabled';
      const webhook = await t.request('POST', '/api/webhooks', { token: tokenA, body: { url: 'https://hooks.example.test/calls', events: ['call.completed'] } });
      assert.equal(webhook.status, 201, webhook.text);
      a.webhook = webhook.body.id;
      doc = await loadOpenApi(t.url);
      ops = operationsOf(doc);
    });

    after(async () => {
      await t?.stop();
      await idp?.stop();
    });

    const send = (op: Operation, values: Record<string, string>, token?: string) => {
      const query = op.params.filter((p) => p.in === 'query' && p.required).map((p) => `${p.name}=${encodeURIComponent(String(sample(doc, p.schema)))}`);
      const p = fillPath(op.path, values) + (query.length ? `?${query.join('&')}` : '');
      if (op.multipart) {
        const form = new FormData();
        form.append('file', new Blob([Buffer.from('RIFF')], { type: 'audio/wav' }), 'a.wav');
        return t.request(op.method, p, { token, form });
      }
      return t.request(op.method, p, { token, body: op.jsonBody ? sample(doc, op.jsonBody) : undefined });
    };

    /** Everything A can read, to prove the sweep changed nothing. */
    const snapshotOfA = async () => {
      const paths = ['/api/users/me', `/api/calls/${a.call}`, `/api/calls/${a.call}/transcript`, `/api/calls/${a.call}/analysis`, `/api/calls/${a.call}/action-items`, `/api/contacts/${a.contact}`, `/api/webhooks/${a.webhook}`, '/api/calls', '/api/contacts', '/api/actions', '/api/webhooks'];
      const out: Record<string, unknown> = {};
      for (const p of paths) {
        const r = await t.request('GET', p, { token: tokenA });
        assert.equal(r.status, 200, `${p}: ${r.text}`);
        out[p] = r.body;
      }
      delete (out['/api/users/me'] as Record<string, unknown>).lastLoginAt;
      return out;
    };

    test('for every route with an id and every method, B on A\'s object gets the same 404 as a missing id, and A\'s data is unchanged', async (ctx) => {
      const withIds = ops.filter((op) => /\{\w+\}/.test(op.path) && !op.path.startsWith('/api/admin/'));
      assert.ok(withIds.length >= 15, `only ${withIds.length} routes with ids in the document`);
      const before = await snapshotOfA();
      for (const op of withIds) {
        const names = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
        const owned = Object.fromEntries(names.map((n) => [n, objectFor(op, n, a)]));
        const missing = Object.fromEntries(names.map((n) => [n, crypto.randomUUID()]));
        const foreign = await send(op, owned, tokenB);
        const absent = await send(op, missing, tokenA);
        const label = `${op.method} ${op.path}`;
        assert.equal(foreign.status, 404, `${label} as B: ${foreign.status} ${foreign.text}`);
        assert.equal(absent.status, 404, `${label} missing: ${absent.status} ${absent.text}`);
        assert.deepEqual(foreign.body, absent.body, label);
        assert.ok(!foreign.text.includes(a.call) && !foreign.text.includes(a.contact), `${label} leaks an id`);
      }
      ctx.diagnostic(`${withIds.length} routes with ids swept`);
      assert.deepEqual(await snapshotOfA(), before);
      for (const p of ['/api/calls', '/api/contacts', '/api/actions']) {
        const r = await t.request('GET', p, { token: tokenB });
        assert.equal(r.status, 200);
        for (const id of [a.call, a.contact, a.item]) assert.ok(!r.text.includes(id), `${p} as B lists A's object`);
      }
    });

    test('every /api/admin/** route answers a non-admin with the plain 404 of an unknown route', async (ctx) => {
      const admin = ops.filter((op) => op.path.startsWith('/api/admin/'));
      assert.ok(admin.length >= 5);
      const unknown = await t.request('GET', '/api/no-such-route', { token: tokenB });
      assert.equal(unknown.status, 404);
      for (const op of admin) {
        const values = { userId: a.user, key: a.flag };
        const r = await send(op, values, tokenB);
        assert.equal(r.status, 404, `${op.method} ${op.path}: ${r.text}`);
        assert.deepEqual(r.body, unknown.body, `${op.method} ${op.path}`);
        // A malformed body or id changes nothing: the route's existence is not revealed.
        const bad = await t.request(op.method, fillPath(op.path, { userId: 'x', key: 'x' }), op.method === 'GET' ? { token: tokenB } : { token: tokenB, body: '{"broken', headers: { 'content-type': 'application/json' } });
        assert.deepEqual([bad.status, bad.body], [404, unknown.body], `${op.method} ${op.path} malformed`);
      }
      // The same routes do answer an admin, so the 404s above are the authorization's doing.
      assert.equal((await t.request('GET', '/api/admin/users', { token: tokenAdmin })).status, 200);
      ctx.diagnostic(`${admin.length} admin routes swept`);
    });

    test('in JWT mode no route but health answers without a valid token', async (ctx) => {
      const expired = await idp.token({ sub: 'sweep-a' }, { expiresIn: -60 });
      for (const op of ops) {
        const values = { id: a.call, callId: a.call, userId: a.user, key: a.flag };
        for (const token of [undefined, 'not-a-jwt', expired]) {
          const r = await send(op, values, token);
          if (op.path === '/api/health') {
            assert.equal(r.status, 200);
            continue;
          }
          assert.equal(r.status, 401, `${op.method} ${op.path} token=${token ? 'bad' : 'none'}: ${r.status} ${r.text}`);
          assert.match(r.body.error.code, /^auth_(missing|invalid)$/);
        }
      }
      ctx.diagnostic(`${ops.length} routes x 3 credentials`);
    });
  });
}

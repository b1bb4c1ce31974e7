// Webhooks against the real service and queue: the routes (success, validation, ownership), and
// deliveries to a local receiver that verifies every request with the `standardwebhooks` package,
// sees a retry after answering 500, and sees nothing more once its endpoint is deleted. Calls
// complete through the real job (a seeded transcript is reused, a scripted analyzer answers), so
// the delivery is enqueued by the transaction that completes or fails the call.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import http from 'node:http';
import { sql } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { dbModes } from '../support/service.js';
import { withTwoUsers } from '../support/two-users.js';
import { fixture, insertArtifact, insertCall, transcriptFor } from '../fixtures/seed.js';
import { PipelineError, type Analyzer } from '../../src/pipeline/types.js';
import type { Analysis } from '../../src/domain/analysis.js';
import { isPublicAddress, literalAddressBlocked } from '../../src/domain/network-guard.js';
import { postSigned } from '../../src/domain/webhook-delivery.js';
import { checkEndpointUrl } from '../../src/domain/webhooks.js';
import { WEBHOOK_QUEUE } from '../../src/store/queue.js';

interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A loopback receiver: records every request; `answer` picks the status per path and hit count. */
class Receiver {
  received: Received[] = [];
  answer: (path: string, n: number) => number = () => 200;
  private server!: http.Server;
  url = '';

  async start() {
    this.server = http.createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const path = req.url ?? '/';
        this.received.push({ path, headers: req.headers, body });
        const status = this.answer(path, this.received.filter((r) => r.path === path).length);
        if (status >= 300 && status < 400) res.writeHead(status, { location: `${this.url}/redirected` }).end();
        else res.writeHead(status, { 'content-type': 'text/plain' }).end('ok');
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as { port: number }).port}`;
  }

  at(path: string) {
    return this.received.filter((r) => r.path === path);
  }

  async stop() {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

async function until<T>(what: string, fn: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Completes or fails the call by its title: 'fail' → a permanent analysis error. */
const analyzer: Analyzer = {
  provider: 'test',
  model: 'scripted',
  async analyze(_transcript, context) {
    if (context.title === 'fail') throw new PipelineError('analysis_failed', 'scripted failure');
    return fixture<Analysis>('analysis-v3.json');
  },
};

const modes = await dbModes();
for (const mode of modes) {
  describe(`webhooks (${mode} database)`, () => {
    const receiver = new Receiver();

    before(() => receiver.start());
    const t = withTwoUsers(
      mode,
      { a: { sub: 'hooks-a', name: 'Olivia Park' }, b: { sub: 'hooks-b' } },
      {
        env: { WORKER_ENABLED: 'true', WEBHOOK_RETRY_LIMIT: '2', WEBHOOK_RETRY_DELAY_SECONDS: '1', WEBHOOK_TIMEOUT_MS: '3000', WEBHOOK_MAX_ENDPOINTS_PER_USER: '4' },
        pipeline: { analyzer },
      },
    );
    after(() => receiver.stop());

    const register = (path: string, events: string[], token = t.tokenA) => t.request('POST', '/api/webhooks', { token, body: { url: `${receiver.url}${path}`, events } });
    const deliveries = async (id: string) => (await t.request('GET', `/api/webhooks/${id}/deliveries`, { token: t.tokenA })).body.items as Array<Record<string, any>>;

    /** A queued call with a stored transcript, sent through the real processing job. */
    async function processSeededCall(title: string): Promise<string> {
      const callId = await insertCall(t, t.userA, { status: 'QUEUED', title });
      await insertArtifact(t, t.userA, callId, 'transcript', transcriptFor(callId));
      await t.service.ctx.database.db.transaction().execute((trx) => t.service.queue.enqueueCall(trx, { callId, userId: t.userA, kind: 'process' }));
      return callId;
    }

    function verify(secret: string, r: Received): any {
      return new Webhook(secret).verify(r.body, {
        'webhook-id': String(r.headers['webhook-id']),
        'webhook-timestamp': String(r.headers['webhook-timestamp']),
        'webhook-signature': String(r.headers['webhook-signature']),
      });
    }

    test('register, list, read and delete; the secret is shown once; foreign endpoints are 404', async () => {
      const created = await t.request('POST', '/api/webhooks', { token: t.tokenA, body: { url: `${receiver.url}/crud`, events: ['call.failed', 'call.completed'], description: 'CRM sync' } });
      assert.equal(created.status, 201);
      assert.match(created.body.secret, /^whsec_[A-Za-z0-9+/]+=*$/);
      assert.deepEqual(created.body.events, ['call.completed', 'call.failed']);
      assert.equal(created.body.description, 'CRM sync');
      const id = created.body.id as string;

      const list = await t.request('GET', '/api/webhooks', { token: t.tokenA });
      assert.equal(list.status, 200);
      const mine = list.body.items.find((e: any) => e.id === id);
      assert.equal(mine.url, `${receiver.url}/crud`);
      assert.equal('secret' in mine, false);
      const one = await t.request('GET', `/api/webhooks/${id}`, { token: t.tokenA });
      assert.equal(one.status, 200);
      assert.equal('secret' in one.body, false);

      // Another user sees nothing of it.
      assert.deepEqual((await t.request('GET', '/api/webhooks', { token: t.tokenB })).body.items, []);
      for (const [method, path] of [['GET', `/api/webhooks/${id}`], ['GET', `/api/webhooks/${id}/deliveries`], ['DELETE', `/api/webhooks/${id}`]] as const) {
        const r = await t.request(method, path, { token: t.tokenB });
        assert.equal(r.status, 404, `${method} ${path}`);
        assert.equal(r.body.error.code, 'webhook_not_found');
      }
      assert.equal((await t.request('GET', `/api/webhooks/${crypto.randomUUID()}`, { token: t.tokenA })).status, 404);

      assert.equal((await t.request('DELETE', `/api/webhooks/${id}`, { token: t.tokenA })).status, 204);
      assert.equal((await t.request('DELETE', `/api/webhooks/${id}`, { token: t.tokenA })).status, 404);
      assert.equal((await t.request('GET', `/api/webhooks/${id}`, { token: t.tokenA })).status, 404);
    });

    test('with an Idempotency-Key the signing secret is not stored in the idempotency record; a replay reads it from the endpoint', async () => {
      const key = `hook-${crypto.randomUUID()}`;
      const body = { url: `${receiver.url}/idem`, events: ['call.completed'] };
      const first = await t.request('POST', '/api/webhooks', { token: t.tokenA, body, headers: { 'idempotency-key': key } });
      assert.equal(first.status, 201);
      const secret = first.body.secret as string;
      assert.match(secret, /^whsec_/);

      const db = t.service.ctx.database.db;
      const row = await db.selectFrom('idempotencyKeys').selectAll().where('userId', '=', t.userA).where('key', '=', key).executeTakeFirstOrThrow();
      assert.equal(row.state, 'DONE');
      assert.equal(row.responseStatus, 201);
      const stored = JSON.stringify(row);
      assert.ok(!stored.includes(secret) && !stored.includes(secret.slice('whsec_'.length)), 'the secret is nowhere in the record');
      assert.equal('secret' in (row.responseBody as object), false);
      assert.equal((row.responseBody as { id: string }).id, first.body.id, 'the rest of the response is kept');

      const replay = await t.request('POST', '/api/webhooks', { token: t.tokenA, body, headers: { 'idempotency-key': key } });
      assert.equal(replay.status, 201);
      assert.equal(replay.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(replay.body, first.body, 'the replay is the original response, secret included');
      assert.equal((await t.request('GET', '/api/webhooks', { token: t.tokenA })).body.items.filter((e: any) => e.url === body.url).length, 1, 'one endpoint');

      // Another user's replay of the same key is their own request, never this secret.
      const other = await t.request('POST', '/api/webhooks', { token: t.tokenB, body, headers: { 'idempotency-key': key } });
      assert.equal(other.status, 201);
      assert.notEqual(other.body.secret, secret);
      await t.request('DELETE', `/api/webhooks/${other.body.id}`, { token: t.tokenB });

      assert.equal((await t.request('DELETE', `/api/webhooks/${first.body.id}`, { token: t.tokenA })).status, 204);
      const gone = await t.request('POST', '/api/webhooks', { token: t.tokenA, body, headers: { 'idempotency-key': key } });
      assert.equal(gone.status, 404, 'the endpoint it created is gone');
      assert.equal(gone.body.error.code, 'webhook_not_found');
    });

    test('invalid registrations answer 400 validation_failed; the per-user limit 422', async () => {
      const bad: Array<[unknown, string]> = [
        [{ url: 'not a url', events: ['call.completed'] }, 'body/url'],
        [{ url: 'ftp://example.com/hook', events: ['call.completed'] }, 'body/url'],
        [{ url: 'http://example.com/hook', events: ['call.completed'] }, 'body/url'],
        [{ url: 'https://user:pw@example.com/hook', events: ['call.completed'] }, 'body/url'],
        [{ url: 'https://example.com/hook', events: [] }, 'body/events'],
        [{ url: 'https://example.com/hook', events: ['call.deleted'] }, 'body/events/0'],
        [{ url: 'https://example.com/hook', events: ['call.completed', 'call.completed'] }, 'body/events'],
        [{ events: ['call.completed'] }, 'body'],
        [{ url: 'https://example.com/hook', events: ['call.completed'], secret: 'mine' }, 'body'],
      ];
      for (const [body, path] of bad) {
        const r = await t.request('POST', '/api/webhooks', { token: t.tokenB, body });
        assert.equal(r.status, 400, JSON.stringify(body));
        assert.equal(r.body.error.code, 'validation_failed');
        assert.ok(r.body.error.details.fields.some((f: any) => String(f.path).replace(/^\//, '').startsWith(path)), `${JSON.stringify(body)}: ${JSON.stringify(r.body.error.details)}`);
      }
      for (let i = 0; i < 4; i++) assert.equal((await register(`/limit-${i}`, ['call.completed'], t.tokenB)).status, 201);
      const over = await register('/limit-5', ['call.completed'], t.tokenB);
      assert.equal(over.status, 422);
      assert.equal(over.body.error.code, 'webhook_limit_reached');
      for (const e of (await t.request('GET', '/api/webhooks', { token: t.tokenB })).body.items) await t.request('DELETE', `/api/webhooks/${e.id}`, { token: t.tokenB });
    });

    test('call.completed and call.failed are delivered signed; a 500 is retried with the same webhook-id', async () => {
      const ok = await register('/ok', ['call.completed', 'call.failed']);
      const flaky = await register('/flaky', ['call.completed']);
      receiver.answer = (path, n) => (path === '/flaky' && n === 1 ? 500 : 200);

      const completed = await processSeededCall('complete me');
      await until('both endpoints served', () => receiver.at('/ok').length >= 1 && receiver.at('/flaky').length >= 2);
      const [first] = receiver.at('/ok');
      const payload = verify(ok.body.secret, first!);
      assert.deepEqual(payload.data, {
        callId: completed,
        status: 'COMPLETED',
        errorReason: null,
        links: { call: `/api/calls/${completed}`, transcript: `/api/calls/${completed}/transcript`, analysis: `/api/calls/${completed}/analysis` },
      });
      assert.equal(payload.type, 'call.completed');
      assert.equal((await t.request('GET', `/api/calls/${completed}`, { token: t.tokenA })).body.status, 'COMPLETED');

      // The retry carries the same id, a fresh valid signature, and the secret of its own endpoint.
      const [try1, try2] = receiver.at('/flaky');
      assert.equal(try1!.headers['webhook-id'], try2!.headers['webhook-id']);
      assert.equal(verify(flaky.body.secret, try2!).data.callId, completed);
      assert.throws(() => verify(ok.body.secret, try2!), /signature/i);
      const log = await until('the flaky delivery to succeed', async () => {
        const d = await deliveries(flaky.body.id);
        return d[0]?.status === 'SUCCEEDED' ? d : undefined;
      });
      assert.equal(log.length, 1);
      assert.deepEqual(log[0]!.attempts.map((a: any) => [a.statusCode, a.error]), [[500, 'http_500'], [200, null]]);
      assert.equal(log[0]!.id, try1!.headers['webhook-id']);
      assert.ok(log[0]!.deliveredAt);

      // A failed call reaches only the endpoint subscribed to call.failed, with its errorReason.
      const failed = await processSeededCall('fail');
      await until('the failure notice', () => receiver.at('/ok').length >= 2);
      const notice = verify(ok.body.secret, receiver.at('/ok')[1]!);
      assert.equal(notice.type, 'call.failed');
      assert.deepEqual(notice.data, { callId: failed, status: 'FAILED', errorReason: 'analysis_failed', links: { call: `/api/calls/${failed}` } });
      assert.equal((await deliveries(flaky.body.id)).length, 1, 'flaky is not subscribed to call.failed');

      // The deliveries were written with the status change, in the same transaction.
      const rows = await t.service.ctx.database.db.selectFrom('webhookDeliveries').select(['callId', 'event']).where('userId', '=', t.userA).execute();
      assert.equal(rows.filter((r) => r.callId === completed).length, 2);
      assert.equal(rows.filter((r) => r.callId === failed).length, 1);
      // The log pages newest first.
      const page1 = await t.request('GET', `/api/webhooks/${ok.body.id}/deliveries?limit=1`, { token: t.tokenA });
      assert.equal(page1.status, 200);
      assert.deepEqual(page1.body.items.map((d: any) => d.callId), [failed]);
      const page2 = await t.request('GET', `/api/webhooks/${ok.body.id}/deliveries?limit=1&cursor=${page1.body.nextCursor}`, { token: t.tokenA });
      assert.deepEqual(page2.body.items.map((d: any) => [d.callId, d.event, d.status]), [[completed, 'call.completed', 'SUCCEEDED']]);
      assert.equal(page2.body.nextCursor, undefined);
      const badCursor = await t.request('GET', `/api/webhooks/${ok.body.id}/deliveries?cursor=nonsense`, { token: t.tokenA });
      assert.equal(badCursor.status, 400);
      for (const id of [ok.body.id, flaky.body.id]) await t.request('DELETE', `/api/webhooks/${id}`, { token: t.tokenA });
    });

    test('an endpoint that keeps failing is retried until the limit, and hears nothing after deletion', async () => {
      const down = await register('/down', ['call.completed']);
      receiver.answer = (path) => (path === '/down' ? 500 : 200);
      await processSeededCall('complete me too');
      await until('the first attempt', () => receiver.at('/down').length >= 1);
      assert.equal((await t.request('DELETE', `/api/webhooks/${down.body.id}`, { token: t.tokenA })).status, 204);
      const seen = receiver.at('/down').length;
      // Another completion, and the deleted endpoint's pending retry, run to their end without a
      // request: once no delivery job waits or runs, none can come (no fixed wait on the clock).
      const later = await processSeededCall('after deletion');
      await until('the delivery jobs to finish', async () => {
        const r = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pgboss.job WHERE name = ${WEBHOOK_QUEUE} AND state IN ('created', 'retry', 'active')`.execute(t.service.ctx.database.db);
        return r.rows[0]!.n === 0;
      });
      assert.equal((await t.request('GET', `/api/calls/${later}`, { token: t.tokenA })).body.status, 'COMPLETED');
      assert.equal(receiver.at('/down').length, seen);
      assert.equal(await t.service.ctx.database.db.selectFrom('webhookDeliveries').select('id').where('endpointId', '=', down.body.id).executeTakeFirst(), undefined);

      // With an endpoint left in place, the retries stop at the limit and the delivery is FAILED.
      const down2 = await register('/down2', ['call.completed']);
      receiver.answer = () => 500;
      await processSeededCall('retry to the end');
      const log = await until('the delivery to fail', async () => {
        const d = await deliveries(down2.body.id);
        return d[0]?.status === 'FAILED' ? d : undefined;
      });
      assert.equal(log[0]!.attempts.length, 3, 'the first attempt and two retries');
      assert.equal(receiver.at('/down2').length, 3);
      await t.request('DELETE', `/api/webhooks/${down2.body.id}`, { token: t.tokenA });
    });
  });
}

describe('webhook network guard', () => {
  const strict = { allowPrivateNetworks: false, maxEndpointsPerUser: 10 };

  test('only public unicast addresses qualify', () => {
    for (const a of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', 'fc00::1', 'fe80::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', '224.0.0.1', '::7f00:1', '::a9fe:a9fe', '64:ff9b::a9fe:a9fe']) {
      assert.equal(isPublicAddress(a), false, a);
    }
    for (const a of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8']) assert.equal(isPublicAddress(a), true, a);
    assert.equal(literalAddressBlocked('[::1]'), true);
    assert.equal(literalAddressBlocked('example.com'), false);
  });

  test('outside development, private and loopback URLs are refused at registration', () => {
    for (const url of ['http://127.0.0.1:8080/hook', 'https://127.0.0.1/hook', 'https://10.0.0.5/hook', 'https://[::1]/hook', 'https://localhost/hook', 'https://169.254.169.254/latest', 'https://[::ffff:192.168.0.1]/x']) {
      assert.throws(() => checkEndpointUrl(url, strict), (e: any) => e.code === 'validation_failed', url);
    }
    assert.equal(checkEndpointUrl('https://hooks.example.com/in', strict), 'https://hooks.example.com/in');
    assert.equal(checkEndpointUrl('http://localhost:9000/in', { ...strict, allowPrivateNetworks: true }), 'http://localhost:9000/in');
  });

  test('a name resolving to a private address is blocked before connecting; redirects are not followed', async () => {
    const r = new Receiver();
    await r.start();
    try {
      const port = new URL(r.url).port;
      // localhost resolves to loopback: refused without a request, and not retried.
      const blocked = await postSigned(`http://localhost:${port}/guarded`, {}, '{}', { timeoutMs: 2000, allowPrivateNetworks: false });
      assert.deepEqual(blocked, { statusCode: null, error: 'blocked_address', permanent: true });
      const literal = await postSigned(`${r.url}/guarded`, {}, '{}', { timeoutMs: 2000, allowPrivateNetworks: false });
      assert.equal(literal.error, 'blocked_address');
      assert.equal(r.received.length, 0);

      r.answer = () => 302;
      const redirected = await postSigned(`${r.url}/moved`, {}, '{}', { timeoutMs: 2000, allowPrivateNetworks: true });
      assert.deepEqual(redirected, { statusCode: 302, error: 'http_302', permanent: false });
      assert.deepEqual(r.received.map((x) => x.path), ['/moved']);
    } finally {
      await r.stop();
    }
  });
});

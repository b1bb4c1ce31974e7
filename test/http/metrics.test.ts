// GET /metrics (Prometheus) and the orchestrator health routes (/health/live, /health/ready).
// A short rendered call goes through the real pipeline (ffmpeg, pocketsphinx with the recognition
// cache, diarization, embedded analyzer); /metrics is scraped while it waits and once it is
// COMPLETED: the documented names are there, the call's stage durations are counted, and no user
// id, call id, name, email or transcript text appears anywhere in the scrape. The scrape needs its
// own token; readiness fails while the database is down, a migration is missing or the blob store
// is gone, while liveness keeps answering.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import pino from 'pino';
import { sql } from 'kysely';
import { startTestService, TestIdp, uploadForm, waitForCall, type TestService } from '../support/service.js';
import { renderShortCall } from '../support/short-calls.js';
import { cachingTranscriber } from '../support/recognition-cache.js';
import { createTranscriber } from '../../src/pipeline/transcription/index.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { instrumentProvider, registry } from '../../src/observability/metrics.js';

const METRICS_TOKEN = 'scrape-token-0123456789abcdef';
const EMAIL = 'winifred.quackenbush@example.org';
const DISPLAY_NAME = 'Winifred Quackenbush';
const CONTACT_NAME = 'Bartholomew Oyelaran';
const TITLE = 'Marmalade shipment review';
/** Words the rendered call speaks that no metric name, help text or label could hold by chance. */
const SPOKEN_RARE_WORDS = ['marmalade', 'rotterdam', 'gooseberry'];

/** Every name docs/deployment.md documents (histograms by their base name). */
const DOCUMENTED = [
  'cas_http_request_duration_seconds',
  'cas_upload_size_bytes',
  'cas_pipeline_stage_duration_seconds',
  'cas_pipeline_real_time_factor',
  'cas_pipeline_audio_seconds_total',
  'cas_pipeline_calls_total',
  'cas_provider_requests_total',
  'cas_provider_errors_total',
  'cas_provider_request_duration_seconds',
  'cas_webhook_deliveries_total',
  'cas_queue_jobs',
  'cas_queue_oldest_waiting_job_age_seconds',
  'cas_queue_stats_up',
  'cas_process_cpu_seconds_total',
  'cas_process_resident_memory_bytes',
  'cas_nodejs_eventloop_lag_seconds',
];

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a Prometheus text exposition (comments skipped). */
function parseSamples(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)$/.exec(line);
    assert.ok(m, `a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2];
    samples.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return samples;
}

function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  return samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
}

describe('metrics and health for orchestrators', () => {
  let t: TestService;
  let idp: TestIdp;
  let token: string;
  let userId: string;
  let receiver: http.Server;
  let hookUrl: string;
  let deliveries = 0;

  const scrape = (auth: string | null = METRICS_TOKEN) => t.request('GET', '/metrics', { headers: auth === null ? {} : { authorization: `Bearer ${auth}` } });

  before(async () => {
    idp = await TestIdp.start();
    const transcriber = cachingTranscriber(await createTranscriber({ provider: 'pocketsphinx' }, pino({ level: 'silent' })));
    t = await startTestService({ env: { ...idp.env(), WORKER_ENABLED: 'true', METRICS_ENABLED: 'true', METRICS_TOKEN }, pipeline: { transcriber } });
    token = await idp.token({ sub: 'metrics-user', email: EMAIL, email_verified: true, name: DISPLAY_NAME });
    const me = await t.request('GET', '/api/users/me', { token });
    assert.equal(me.status, 200, me.text);
    userId = me.body.id;
    // A webhook receiver, so a delivery is attempted when the call completes.
    receiver = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        deliveries++;
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    hookUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hooks/quackenbush-private`;
    const hook = await t.request('POST', '/api/webhooks', { token, body: { url: hookUrl, events: ['call.completed'] } });
    assert.equal(hook.status, 201, hook.text);
  });

  after(async () => {
    await t?.stop();
    await idp?.stop();
    await new Promise((r) => receiver?.close(r));
  });

  test('the scrape needs METRICS_TOKEN as a bearer token; API credentials are not enough', async () => {
    const none = await scrape(null);
    assert.equal(none.status, 401);
    assert.equal(none.body.error.code, 'auth_missing');
    const wrong = await scrape('scrape-token-0123456789abcdeX');
    assert.equal(wrong.status, 401);
    assert.equal(wrong.body.error.code, 'auth_invalid');
    const userToken = await t.request('GET', '/metrics', { token });
    assert.equal(userToken.status, 401);
    const ok = await scrape();
    assert.equal(ok.status, 200);
    assert.match(ok.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  });

  test('an upload processed by the real pipeline: names, stage durations, and no personal data', async () => {
    const audio = renderShortCall([
      { voice: 'slt', text: 'Hello, this is about the marmalade shipment.' },
      { voice: 'kal16', text: 'The gooseberry marmalade leaves Rotterdam on Tuesday.' },
    ]);
    const up = await t.request('POST', '/api/calls/analyze', { token, form: uploadForm(audio.wavPath, { title: TITLE, contactName: CONTACT_NAME, phoneNumber: '+15550104477' }) });
    assert.equal(up.status, 202, up.text);
    const callId: string = up.body.callId;

    // While the call waits or runs: the upload is counted and the queue figures are read.
    const during = await scrape();
    assert.equal(during.status, 200);
    const d = parseSamples(during.text);
    assert.ok((value(d, 'cas_upload_size_bytes_count', { kind: 'call' }) ?? 0) >= 1, 'the upload is counted');
    assert.ok((value(d, 'cas_upload_size_bytes_sum', { kind: 'call' }) ?? 0) >= fs.statSync(audio.wavPath).size, 'its bytes are summed');
    assert.equal(value(d, 'cas_queue_stats_up'), 1);
    const finite = (v: number | undefined) => typeof v === 'number' && Number.isFinite(v) && v >= 0;
    for (const state of ['created', 'retry', 'active']) assert.ok(finite(value(d, 'cas_queue_jobs', { queue: 'call-process', state })), `queue state ${state}`);
    // The call's job is waiting or running right after the upload.
    const callJobs = ['created', 'retry', 'active'].reduce((n, state) => n + (value(d, 'cas_queue_jobs', { queue: 'call-process', state }) ?? 0), 0);
    const completedAlready = (await t.request('GET', `/api/calls/${callId}`, { token })).body.status === 'COMPLETED';
    assert.ok(callJobs >= 1 || completedAlready, 'the call job is in the queue figures');
    assert.ok(finite(value(d, 'cas_queue_oldest_waiting_job_age_seconds', { queue: 'call-process' })));
    assert.ok(finite(value(d, 'cas_queue_oldest_waiting_job_age_seconds', { queue: 'webhook-deliver' })));

    assert.equal(await waitForCall(t, callId, token), 'COMPLETED');
    const transcript = (await t.request('GET', `/api/calls/${callId}/transcript`, { token })).body;
    assert.ok(transcript.segments.length > 0);

    for (const deadline = Date.now() + 30_000; deliveries === 0 && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 200));
    assert.ok(deliveries >= 1, 'the webhook was delivered');
    let done = await scrape();
    // The delivery's outcome is counted right after the receiver answered.
    for (const deadline = Date.now() + 10_000; !/^cas_webhook_deliveries_total\{outcome="delivered"\} [1-9]/m.test(done.text) && Date.now() < deadline; ) {
      await new Promise((r) => setTimeout(r, 200));
      done = await scrape();
    }
    assert.equal(done.status, 200);
    const text = done.text;
    const s = parseSamples(text);

    for (const name of DOCUMENTED) assert.match(text, new RegExp(`^# TYPE ${name} `, 'm'), `${name} is exposed`);
    // The call's stages, each with its duration and real-time factor.
    for (const stage of ['decode', 'vad', 'transcribe', 'diarize', 'voice', 'analyze', 'total']) {
      assert.ok((value(s, 'cas_pipeline_stage_duration_seconds_count', { stage }) ?? 0) >= 1, `stage ${stage} duration`);
      assert.ok((value(s, 'cas_pipeline_stage_duration_seconds_sum', { stage }) ?? -1) >= 0, `stage ${stage} duration sum`);
      assert.ok((value(s, 'cas_pipeline_real_time_factor_count', { stage }) ?? 0) >= 1, `stage ${stage} real-time factor`);
    }
    assert.ok((value(s, 'cas_pipeline_audio_seconds_total') ?? 0) >= 1);
    assert.ok((value(s, 'cas_pipeline_calls_total', { outcome: 'completed' }) ?? 0) >= 1);
    assert.ok((value(s, 'cas_provider_requests_total', { kind: 'transcription', provider: 'pocketsphinx' }) ?? 0) >= 1);
    assert.ok((value(s, 'cas_provider_requests_total', { kind: 'analysis' }) ?? 0) >= 1);
    assert.ok((value(s, 'cas_provider_requests_total', { kind: 'diarization' }) ?? 0) >= 1);
    assert.ok((value(s, 'cas_webhook_deliveries_total', { outcome: 'delivered' }) ?? 0) >= 1);
    // Requests by route pattern, never the URL: the status polling of waitForCall shows as /api/calls/:id.
    assert.ok((value(s, 'cas_http_request_duration_seconds_count', { method: 'GET', route: '/api/calls/:id', status_code: '200' }) ?? 0) >= 1);
    assert.ok((value(s, 'cas_http_request_duration_seconds_count', { method: 'POST', route: '/api/calls/analyze', status_code: '202' }) ?? 0) >= 1);

    // No personal data anywhere: ids, email, names, title, phone, transcript text.
    const forbidden = [userId, callId, EMAIL, DISPLAY_NAME, CONTACT_NAME, TITLE, '+15550104477', 'metrics-user', hookUrl, 'quackenbush-private', ...SPOKEN_RARE_WORDS];
    for (const segment of transcript.segments as Array<{ text: string }>) if (segment.text.trim().length >= 8) forbidden.push(segment.text.trim());
    for (const f of forbidden) assert.ok(!text.toLowerCase().includes(f.toLowerCase()), `the scrape does not contain ${JSON.stringify(f)}`);
    for (const f of [DISPLAY_NAME, CONTACT_NAME]) for (const part of f.split(' ')) assert.ok(!text.toLowerCase().includes(part.toLowerCase()), `the scrape does not contain ${part}`);
    // Every label value is one of the closed forms the metrics module chooses.
    const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
    for (const sample of s) {
      for (const [k, v] of Object.entries(sample.labels)) {
        assert.doesNotMatch(v, UUID, `${sample.name} ${k}`);
        if (k === 'route') assert.match(v, /^(unmatched|\/[\w/:.*-]*)$/, `route label ${v}`);
        assert.ok(!v.includes('?'), `${sample.name} ${k}=${v} carries no query`);
      }
    }
  });

  test('/health/live answers 200; /health/ready checks database, migrations and blob store', async () => {
    assert.deepEqual((await t.request('GET', '/health/live')).body, { status: 'UP' });
    const ready = await t.request('GET', '/health/ready');
    assert.equal(ready.status, 200);
    assert.deepEqual(ready.body, { status: 'UP', checks: { database: 'UP', migrations: 'UP', blobStore: 'UP' } });
    // The spec's route is unchanged.
    assert.deepEqual((await t.request('GET', '/api/health')).body, { status: 'UP', database: 'UP' });

    // A migration this code knows that the database lacks.
    const db = t.service.database.db;
    const last = await sql<{ name: string; timestamp: string }>`SELECT name, timestamp FROM kysely_migration ORDER BY name DESC LIMIT 1`.execute(db);
    await sql`DELETE FROM kysely_migration WHERE name = ${last.rows[0].name}`.execute(db);
    try {
      const r = await t.request('GET', '/health/ready');
      assert.equal(r.status, 503);
      assert.deepEqual(r.body, { status: 'DOWN', checks: { database: 'UP', migrations: 'DOWN', blobStore: 'UP' } });
    } finally {
      await sql`INSERT INTO kysely_migration (name, timestamp) VALUES (${last.rows[0].name}, ${last.rows[0].timestamp})`.execute(db);
    }
    assert.equal((await t.request('GET', '/health/ready')).status, 200);

    // The blob store's directory gone.
    const blobs = path.join(t.dataDir, 'blobs');
    fs.renameSync(blobs, `${blobs}.away`);
    try {
      const r = await t.request('GET', '/health/ready');
      assert.equal(r.status, 503);
      assert.equal(r.body.checks.blobStore, 'DOWN');
      assert.equal((await t.request('GET', '/health/live')).status, 200);
    } finally {
      fs.renameSync(`${blobs}.away`, blobs);
    }
    assert.equal((await t.request('GET', '/health/ready')).status, 200);
  });

  test('readiness fails while the database is down and recovers after; liveness keeps answering', async () => {
    await t.service.database.embedded!.stopServerOnly();
    try {
      let r;
      const deadline = Date.now() + 30_000;
      do r = await t.request('GET', '/health/ready');
      while (r.status !== 503 && Date.now() < deadline);
      assert.equal(r.status, 503);
      assert.equal(r.body.status, 'DOWN');
      assert.equal(r.body.checks.database, 'DOWN');
      assert.equal((await t.request('GET', '/health/live')).status, 200);
      assert.equal((await t.request('GET', '/api/health')).status, 503);
      // The scrape still answers; the queue figures say they could not be read.
      const m = await scrape();
      assert.equal(m.status, 200);
      assert.equal(value(parseSamples(m.text), 'cas_queue_stats_up'), 0);
    } finally {
      await t.service.database.embedded!.startServerOnly();
    }
    const deadline = Date.now() + 30_000;
    let r;
    do r = await t.request('GET', '/health/ready');
    while (r.status !== 200 && Date.now() < deadline);
    assert.equal(r.status, 200);
  });
});

describe('metrics off by default', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService({});
  });
  after(async () => {
    await t?.stop();
  });

  test('/metrics is an unknown route unless METRICS_ENABLED; the health routes are always there', async () => {
    const r = await t.request('GET', '/metrics');
    assert.equal(r.status, 404);
    assert.equal((await t.request('GET', '/health/live')).status, 200);
    assert.equal((await t.request('GET', '/health/ready')).status, 200);
  });
});

describe('a worker-only process with metrics', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService({ http: false, workers: true, env: { METRICS_ENABLED: 'true', METRICS_TOKEN } });
  });
  after(async () => {
    await t?.stop();
  });

  test('serves /metrics and the health routes on PORT, and nothing of the API', async () => {
    const m = await t.request('GET', '/metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    assert.equal(m.status, 200);
    assert.match(m.text, /^# TYPE cas_pipeline_stage_duration_seconds histogram$/m);
    assert.equal((await t.request('GET', '/metrics')).status, 401);
    assert.equal((await t.request('GET', '/health/ready')).status, 200);
    assert.equal((await t.request('GET', '/health/live')).status, 200);
    assert.equal((await t.request('GET', '/api/users/me')).status, 404);
  });
});

describe('provider instrumentation', () => {
  test('counts requests and errors, and honours a method replaced afterwards (a cache in front of it)', async () => {
    const labels = { kind: 'transcription', provider: 'unit-test-provider' } as const;
    const count = async (name: string) => value(parseSamples(await registry.metrics()), name, labels) ?? 0;
    let fail = false;
    class Recogniser {
      readonly provider = 'unit-test-provider';
      calls = 0;
      async transcribe(x: number): Promise<number> {
        this.calls++;
        if (fail) throw new Error('provider down');
        return x * 2;
      }
    }
    const component = instrumentProvider(new Recogniser(), 'transcription', 'transcribe');
    assert.equal(await component.transcribe(2), 4);
    fail = true;
    await assert.rejects(component.transcribe(1), /provider down/);
    fail = false;
    assert.equal(await count('cas_provider_requests_total'), 2);
    assert.equal(await count('cas_provider_errors_total'), 1);
    assert.equal(component.calls, 2, 'the component keeps its own state');
    // A cache put in front after wrapping, calling the method it read before: used, no recursion.
    const inner = component.transcribe.bind(component);
    const cache = new Map<number, Promise<number>>();
    component.transcribe = (x: number) => cache.get(x) ?? (cache.set(x, inner(x)), cache.get(x)!);
    assert.equal(await component.transcribe(5), 10);
    assert.equal(await component.transcribe(5), 10);
    assert.equal(await count('cas_provider_requests_total'), 3);
  });
});

describe('metrics configuration', () => {
  const base = { SERVICE_ENV: 'production', IDP_PROJECT_ID: 'p' };
  test('production refuses METRICS_ENABLED without METRICS_TOKEN, and a short token anywhere', () => {
    assert.throws(() => loadConfig({ ...base, METRICS_ENABLED: 'true' }), (e: unknown) => e instanceof ConfigError && e.variable === 'METRICS_TOKEN');
    assert.deepEqual(loadConfig({ ...base, METRICS_ENABLED: 'true', METRICS_TOKEN: METRICS_TOKEN }).metrics, { enabled: true, token: METRICS_TOKEN });
    assert.deepEqual(loadConfig({ ...base }).metrics, { enabled: false, token: null });
    assert.throws(() => loadConfig({ SERVICE_ENV: 'development', METRICS_TOKEN: 'short' }), (e: unknown) => e instanceof ConfigError && e.variable === 'METRICS_TOKEN');
    assert.deepEqual(loadConfig({ SERVICE_ENV: 'development', METRICS_ENABLED: 'true' }).metrics, { enabled: true, token: null });
  });
});

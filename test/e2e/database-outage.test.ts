// The database goes away while requests and jobs run (embedded: the server is stopped under the
// running service; external: a loopback proxy in front of the shared server is cut). Every
// request answers 503 service_unavailable within a bounded time, never 500 and never a hang; an
// upload accepted (202) just before the outage is not lost and completes once the database is
// back; uploads refused during it leave nothing behind; the service recovers by itself. A job that
// ends while the database is away (its outcome cannot be written) is neither stuck until its time
// limit nor an unhandled rejection: its outcome is recorded once the database answers.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { dbModes, startTestService, tempDir, uploadForm, waitForCall, type TestService } from '../support/service.js';
import type { CuttableProxy } from '../support/tcp-proxy.js';
import { PipelineError, type Transcriber } from '../../src/pipeline/types.js';
import { proxiedExternalDatabase } from '../support/proxied-database.js';
import { assertNothingHalfCreated } from '../support/invariants.js';

/** The longest any request may take while the database is down (pool connect timeout is 5 s). */
const BOUNDED_MS = 15_000;

const work = tempDir('cas-outage-');
const tone = path.join(work, 'tone.wav');
execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'sine=frequency=300:duration=2', '-ar', '16000', '-ac', '1', tone]);
/** Noise that the voice detector takes for speech, so that a job reaches the recogniser. */
const noise = path.join(work, 'noise.wav');
execFileSync('sox', ['-n', '-r', '16000', '-c', '1', '-b', '16', noise, 'synth', '5', 'pinknoise', 'vol', '0.3']);

// Unhandled rejections fail this file in any case; counted too, so the test says which one.
const unhandled: unknown[] = [];
process.on('unhandledRejection', (reason) => unhandled.push(reason));

for (const mode of await dbModes()) {
  describe(`database outage under load (${mode} database)`, () => {
    let t: TestService;
    let proxy: CuttableProxy | null = null;
    let drop: (() => Promise<void>) | null = null;
    // The recogniser hears no word at once, except while a test holds it: a job then waits in it
    // and, released, fails it.
    let holding = false;
    let recognizing = 0;
    const waiting: Array<() => void> = [];
    const transcriber: Transcriber = {
      provider: 'held',
      model: 'held',
      async transcribe() {
        recognizing++;
        if (!holding) return { words: [], language: 'en', provider: 'held', model: 'held' };
        await new Promise<void>((r) => waiting.push(r));
        throw new PipelineError('transcription_failed', 'released by the test');
      },
    };

    before(async () => {
      const env: Record<string, string> = { WORKER_ENABLED: 'true', WORKER_RETRY_LIMIT: '5', WORKER_RETRY_DELAY_SECONDS: '1' };
      if (mode === 'external') {
        const db = await proxiedExternalDatabase();
        ({ proxy, drop } = db);
        env.DATABASE_URL = db.url;
      }
      t = await startTestService({ env, pipeline: { transcriber } });
    });

    after(async () => {
      await proxy?.restore().catch(() => undefined);
      await t?.stop();
      await proxy?.stop();
      await drop?.();
    });

    const goDown = () => (proxy ? proxy.cut() : t.service.database.embedded!.stopServerOnly());
    const comeBack = () => (proxy ? proxy.restore() : t.service.database.embedded!.startServerOnly());

    test('503 within a bounded time for every kind of request, the accepted upload survives, recovery by itself', async (ctx) => {
      const contact = await t.request('POST', '/api/contacts', { body: { name: 'Before the outage' } });
      assert.equal(contact.status, 201);
      const accepted = await t.request('POST', '/api/calls/analyze', { form: uploadForm(tone, { title: 'accepted before the outage' }) });
      assert.equal(accepted.status, 202);
      await goDown();
      let slowest = 0;
      const statuses: number[] = [];
      try {
        const requests: Array<[string, string, { body?: unknown; form?: FormData }?]> = [
          ['GET', '/api/health'],
          ['GET', '/api/users/me'],
          ['GET', '/api/calls'],
          ['GET', `/api/calls/${accepted.body.callId}`],
          ['POST', '/api/contacts', { body: { name: 'During the outage' } }],
          ['PUT', `/api/contacts/${contact.body.id}`, { body: { name: 'x' } }],
          ['DELETE', `/api/contacts/${contact.body.id}`],
          ['POST', '/api/calls/analyze', { form: uploadForm(tone, { title: 'refused during the outage' }) }],
          ['GET', '/api/actions'],
          ['GET', '/api/users/me/limits'],
        ];
        for (let round = 0; round < 2; round++) {
          // In parallel, as clients would: a pool waiting on connections must not pile up into a hang.
          const answers = await Promise.all(
            requests.map(async ([method, p, opts]) => {
              const started = Date.now();
              const form = opts?.form ? uploadForm(tone, { title: 'refused during the outage' }) : undefined;
              const r = await t.request(method, p, { ...opts, form });
              slowest = Math.max(slowest, Date.now() - started);
              return { method, p, r };
            }),
          );
          for (const { method, p, r } of answers) {
            statuses.push(r.status);
            assert.equal(r.status, 503, `${method} ${p}: ${r.status} ${r.text}`);
            if (p !== '/api/health') assert.equal(r.body.error.code, 'service_unavailable', `${method} ${p}`);
          }
        }
      } finally {
        await comeBack();
      }
      ctx.diagnostic(`outage: ${statuses.length} requests, all 503, slowest ${slowest} ms`);
      assert.ok(slowest < BOUNDED_MS, `a request took ${slowest} ms during the outage`);
      // Recovery without a restart (no deadline of its own: the runner's timeout catches a service
      // that never recovers; a fixed wait would measure the machine's load).
      while ((await t.request('GET', '/api/health')).status !== 200) await new Promise((r) => setTimeout(r, 250));
      // The upload accepted before the outage is processed to its end (a 2 s tone: no speech).
      assert.equal(await waitForCall(t, accepted.body.callId), 'FAILED');
      assert.equal((await t.request('GET', `/api/calls/${accepted.body.callId}`)).body.errorReason, 'no_speech_detected');
      const calls = await t.request('GET', '/api/calls');
      assert.deepEqual(calls.body.items.map((c: { title: string }) => c.title), ['accepted before the outage'], 'uploads refused during the outage left no call');
      const contacts = await t.request('GET', '/api/contacts');
      assert.deepEqual(contacts.body.items?.map((c: { name: string }) => c.name) ?? contacts.body.map((c: { name: string }) => c.name), ['Before the outage']);
      await assertNothingHalfCreated(t);
      // And it takes new work again.
      const afterwards = await t.request('POST', '/api/calls/analyze', { form: uploadForm(tone, { title: 'after the outage' }) });
      assert.equal(afterwards.status, 202);
      assert.equal(await waitForCall(t, afterwards.body.callId), 'FAILED');
      assert.deepEqual(unhandled, []);
    });

    test('a job that ends while the database is away has its outcome recorded once it is back', async () => {
      holding = true;
      const before = recognizing;
      const r = await t.request('POST', '/api/calls/analyze', { form: uploadForm(noise, { title: 'in the recogniser during the outage' }) });
      assert.equal(r.status, 202, r.text);
      while (recognizing === before) await new Promise((res) => setTimeout(res, 50));
      await goDown();
      try {
        // The job leaves the recogniser and cannot write what happened: its failure, then the
        // job's own outcome, wait for the database.
        holding = false;
        waiting.splice(0).forEach((release) => release());
        await new Promise((res) => setTimeout(res, 1500));
      } finally {
        await comeBack();
      }
      // Retried (WORKER_RETRY_LIMIT 5) and settled, not left active until its time limit: the
      // second attempt hears no word.
      assert.equal(await waitForCall(t, r.body.callId), 'FAILED');
      assert.equal((await t.request('GET', `/api/calls/${r.body.callId}`)).body.errorReason, 'no_speech_detected');
      assert.ok(recognizing >= before + 2, 'the job ran again after the outage');
      assert.deepEqual(unhandled, [], 'no unhandled rejection');
    });
  });
}

after(() => fs.rmSync(work, { recursive: true, force: true }));

// Property-based fuzzing of every route in the OpenAPI document (test/support/fuzz.ts): no
// request, however malformed, gets a 5xx or an error without the spec's body, and nothing is left
// half-created (every call has its audio, no stray call file, no idempotency key stuck in
// progress). A fixed seed and bounded runs here; `npm run fuzz` runs longer with a random seed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { startTestService, tempDir, TestIdp, type TestService } from '../support/service.js';
import { seedCompletedCall, userIdOf } from '../fixtures/seed.js';
import { loadOpenApi } from '../support/openapi-routes.js';
import { fuzzOperations } from '../support/fuzz.js';
import { assertNothingHalfCreated } from '../support/invariants.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20261124);
const RUNS = Number(process.env.FUZZ_RUNS ?? 60);

describe('fuzzing every route of the OpenAPI document', () => {
  let t: TestService;
  let idp: TestIdp;
  let tokens: string[];
  let ids: string[];
  let audio: Buffer;

  before(async () => {
    const work = tempDir('cas-fuzz-');
    const wav = path.join(work, 'tone.wav');
    execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'sine=frequency=300:duration=0.5', '-ar', '8000', '-ac', '1', wav]);
    audio = fs.readFileSync(wav);
    fs.rmSync(work, { recursive: true, force: true });
    idp = await TestIdp.start();
    // Workers off: uploads stay queued, so what the fuzz leaves is exactly what requests created.
    t = await startTestService({ env: { ...idp.env(), SERVICE_ADMIN_ALLOWED_EMAILS: 'fuzz-admin@example.test' } });
    const user = await idp.token({ sub: 'fuzz-user', email: 'fuzz-user@example.test', name: 'Fuzz' });
    const admin = await idp.token({ sub: 'fuzz-admin', email: 'fuzz-admin@example.test', email_verified: true });
    const userId = await userIdOf(t, user);
    const callId = await seedCompletedCall(t, userId);
    const contact = await t.request('POST', '/api/contacts', { token: user, body: { name: 'Dana' } });
    const item = await t.request('POST', `/api/calls/${callId}/action-items`, { token: user, body: { title: 'Call back' } });
    tokens = [user, admin];
    ids = [callId, contact.body.id, item.body.id, userId, 'billing_enabled'];
  });

  after(async () => {
    await t?.stop();
    await idp?.stop();
  });

  test(`no 5xx and the error body on every answer (seed ${SEED}, ${RUNS} cases per route)`, async (ctx) => {
    const doc = await loadOpenApi(t.url);
    const result = await fuzzOperations({ url: t.url, doc, tokens, ids, audio }, { seed: SEED, runs: RUNS });
    ctx.diagnostic(`fuzz: ${result.cases} cases over ${result.operations} operations, seed ${SEED}; statuses ${JSON.stringify(result.statuses)}`);
    console.log(`fuzz: ${result.cases} cases over ${result.operations} operations, seed ${SEED}`);
    assert.equal(result.cases, result.operations * RUNS);
    assert.ok(Object.keys(result.statuses).some((s) => s.startsWith('2')), 'some requests got through to a handler');
    assert.equal((await t.request('GET', '/api/health')).status, 200);
    await assertNothingHalfCreated(t);
  });
});

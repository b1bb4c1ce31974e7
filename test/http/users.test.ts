// /api/users/me against the real service on both databases: profile, display name, consent,
// limits, statistics, account deletion and per-caller isolation.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { dbModes } from '../support/service.js';
import { withIdpService } from '../support/two-users.js';
import { insertCall, seedCompletedCall } from '../fixtures/seed.js';
import { LIMIT_FIELDS } from '../support/spec-fields.js';

const PROFILE_FIELDS = [
  'accountStatus',
  'accountStatusReason',
  'callRecordingDisclaimerAcceptedAt',
  'callRecordingDisclaimerVersion',
  'createdAt',
  'displayName',
  'email',
  'externalUserId',
  'id',
  'isAdmin',
  'lastLoginAt',
  'marketingOptIn',
  'marketingOptInAt',
  'photoUrl',
  'plan',
  'plansIntroShownAt',
  'privacyPolicyAcceptedAt',
  'privacyPolicyVersion',
  'termsAcceptedAt',
  'termsVersion',
];
const STATS_FIELDS = ['averageCallDurationSeconds', 'callsThisWeek', 'completedActionItems', 'openActionItems', 'overdueActionItems', 'totalCalls'];
/** Every table of src/store/schema.ts that holds rows of a user, with its user column. */
const USER_TABLES: Array<[string, string]> = [
  ['users', 'id'],
  ['contacts', 'user_id'],
  ['calls', 'user_id'],
  ['call_artifacts', 'user_id'],
  ['action_items', 'user_id'],
  ['call_action_summaries', 'user_id'],
  ['processing_events', 'user_id'],
  ['call_stages', 'user_id'],
  ['voice_profiles', 'user_id'],
  ['idempotency_keys', 'user_id'],
  ['usage_ledger', 'user_id'],
  ['voice_enrolment_attempts', 'user_id'],
];

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ISO_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

function assertWithin(iso: string, from: number, to: number, what: string) {
  assert.match(iso, ISO_Z, what);
  const t = Date.parse(iso);
  assert.ok(t >= from - 2000 && t <= to + 2000, `${what} ${iso} is the server's time of the request`);
}

for (const mode of await dbModes()) {
  describe(`users (${mode} database)`, () => {
    let tokenA: string;
    let tokenB: string;

    const t = withIdpService(mode, {
      env: {
        SERVICE_ADMIN_ALLOWED_EMAILS: 'Boss@Example.TEST, second-admin@example.test',
        SERVICE_MAX_UPLOADS_PER_HOUR: '11',
        SERVICE_MAX_CONCURRENT_ACTIVE_CALLS: '3',
        SERVICE_MAX_MONTHLY_UPLOAD_BYTES: '987654321',
      },
    });
    // Tokens only: each user is created by the first request a test makes.
    before(async () => {
      tokenA = await t.idp.token({ sub: 'users-a', email: 'alice@example.test', name: 'Alice Archer' });
      tokenB = await t.idp.token({ sub: 'users-b', email: 'bob@example.test', name: 'Bob Baker' });
    });

    const db = () => t.service.ctx.database.db;
    const me = (token: string) => t.request('GET', '/api/users/me', { token });

    test('GET /api/users/me has every profile field with the right type', async () => {
      const before = Date.now();
      const r = await me(tokenA);
      const after = Date.now();
      assert.equal(r.status, 200);
      assert.match(r.headers.get('content-type') ?? '', /^application\/json; charset=utf-8/);
      const p = r.body;
      assert.deepEqual(Object.keys(p).sort(), PROFILE_FIELDS);
      assert.match(p.id, UUID_V4);
      assert.equal(p.externalUserId, 'users-a');
      assert.equal(p.email, 'alice@example.test');
      assert.equal(p.displayName, 'Alice Archer');
      assert.equal(p.photoUrl, null);
      assertWithin(p.createdAt, before, after, 'createdAt');
      assertWithin(p.lastLoginAt, before, after, 'lastLoginAt');
      for (const f of ['privacyPolicyVersion', 'termsVersion', 'callRecordingDisclaimerVersion', 'privacyPolicyAcceptedAt', 'termsAcceptedAt', 'callRecordingDisclaimerAcceptedAt', 'marketingOptInAt', 'plansIntroShownAt', 'accountStatusReason']) {
        assert.equal(p[f], null, f);
      }
      assert.equal(p.marketingOptIn, false);
      assert.equal(p.plan, 'FREE');
      assert.equal(p.isAdmin, false);
      assert.equal(p.accountStatus, 'ACTIVE');
    });

    test('PATCH /api/users/me changes the display name (trimmed) and nothing else', async () => {
      const before = (await me(tokenA)).body;
      const r = await t.request('PATCH', '/api/users/me', { token: tokenA, body: { displayName: '  Alice A. Archer ' } });
      assert.equal(r.status, 200);
      assert.deepEqual(Object.keys(r.body).sort(), PROFILE_FIELDS);
      assert.equal(r.body.displayName, 'Alice A. Archer');
      assert.deepEqual({ ...r.body, displayName: before.displayName, lastLoginAt: before.lastLoginAt }, before);
      assert.equal((await me(tokenA)).body.displayName, 'Alice A. Archer');
      const row = await db().selectFrom('users').select('displayName').where('externalUserId', '=', 'users-a').executeTakeFirstOrThrow();
      assert.equal(row.displayName, 'Alice A. Archer');
    });

    test('PATCH /api/users/me: missing, blank, wrong type or extra fields are 400 validation_failed', async () => {
      for (const body of [{}, { displayName: '' }, { displayName: '   ' }, { displayName: null }, { displayName: { a: 1 } }, { displayName: 'Ok', email: 'x@example.test' }, { displayName: 'x'.repeat(201) }]) {
        const r = await t.request('PATCH', '/api/users/me', { token: tokenA, body });
        assert.equal(r.status, 400, JSON.stringify(body));
        assert.equal(r.body.error.code, 'validation_failed');
      }
      const bad = await t.request('PATCH', '/api/users/me', { token: tokenA, body: '{"displayName": ' });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.error.code, 'validation_failed');
      assert.equal((await me(tokenA)).body.displayName, 'Alice A. Archer', 'unchanged by the rejected requests');
    });

    test('PATCH /api/users/me/consent stamps server time, ignores client times, keeps omitted fields', async () => {
      const t0 = Date.now();
      const r1 = await t.request('PATCH', '/api/users/me/consent', {
        token: tokenA,
        body: { privacyPolicyVersion: 'pp-2024-01', privacyPolicyAcceptedAt: '2001-01-01T00:00:00Z', termsAcceptedAt: '2001-01-01T00:00:00Z' },
      });
      const t1 = Date.now();
      assert.equal(r1.status, 200, r1.text);
      assert.deepEqual(Object.keys(r1.body).sort(), PROFILE_FIELDS);
      assert.equal(r1.body.privacyPolicyVersion, 'pp-2024-01');
      assertWithin(r1.body.privacyPolicyAcceptedAt, t0, t1, 'privacyPolicyAcceptedAt');
      assert.equal(r1.body.termsVersion, null);
      assert.equal(r1.body.termsAcceptedAt, null, 'a client-supplied time alone stamps nothing');
      assert.equal(r1.body.callRecordingDisclaimerVersion, null);
      assert.equal(r1.body.marketingOptIn, false);
      assert.equal(r1.body.marketingOptInAt, null);

      await new Promise((r) => setTimeout(r, 20));
      const t2 = Date.now();
      const r2 = await t.request('PATCH', '/api/users/me/consent', { token: tokenA, body: { termsVersion: 'tos-3', callRecordingDisclaimerVersion: 'rec-1' } });
      const t3 = Date.now();
      assert.equal(r2.status, 200);
      assert.equal(r2.body.termsVersion, 'tos-3');
      assertWithin(r2.body.termsAcceptedAt, t2, t3, 'termsAcceptedAt');
      assert.equal(r2.body.callRecordingDisclaimerVersion, 'rec-1');
      assertWithin(r2.body.callRecordingDisclaimerAcceptedAt, t2, t3, 'callRecordingDisclaimerAcceptedAt');
      assert.equal(r2.body.privacyPolicyVersion, 'pp-2024-01', 'omitted field unchanged');
      assert.equal(r2.body.privacyPolicyAcceptedAt, r1.body.privacyPolicyAcceptedAt, 'omitted field keeps its time');

      // an empty body changes nothing
      const r3 = await t.request('PATCH', '/api/users/me/consent', { token: tokenA, body: {} });
      assert.equal(r3.status, 200);
      for (const f of ['privacyPolicyVersion', 'privacyPolicyAcceptedAt', 'termsVersion', 'termsAcceptedAt', 'callRecordingDisclaimerVersion', 'callRecordingDisclaimerAcceptedAt', 'marketingOptIn', 'marketingOptInAt']) {
        assert.deepEqual(r3.body[f], r2.body[f], f);
      }
    });

    test('marketingOptIn toggles independently and stamps marketingOptInAt each time', async () => {
      const on = await t.request('PATCH', '/api/users/me/consent', { token: tokenA, body: { marketingOptIn: true, marketingOptInAt: '1999-01-01T00:00:00Z' } });
      assert.equal(on.status, 200);
      assert.equal(on.body.marketingOptIn, true);
      assert.match(on.body.marketingOptInAt, ISO_Z);
      assert.ok(Date.parse(on.body.marketingOptInAt) > Date.parse('2020-01-01T00:00:00Z'), 'server time, not the client time');
      assert.equal(on.body.termsVersion, 'tos-3', 'versions untouched');
      await new Promise((r) => setTimeout(r, 20));
      const off = await t.request('PATCH', '/api/users/me/consent', { token: tokenA, body: { marketingOptIn: false } });
      assert.equal(off.body.marketingOptIn, false);
      assert.ok(Date.parse(off.body.marketingOptInAt) > Date.parse(on.body.marketingOptInAt), 'stamped again');
      assert.equal((await me(tokenA)).body.marketingOptIn, false);
    });

    test('consent validation: wrong types and empty versions are 400', async () => {
      for (const body of [{ privacyPolicyVersion: '' }, { termsVersion: { v: 1 } }, { marketingOptIn: 'maybe' }, { callRecordingDisclaimerVersion: 'x'.repeat(65) }]) {
        const r = await t.request('PATCH', '/api/users/me/consent', { token: tokenA, body });
        assert.equal(r.status, 400, JSON.stringify(body));
        assert.equal(r.body.error.code, 'validation_failed');
      }
    });

    test('isAdmin is true only for an allow-listed email, compared case-insensitively', async () => {
      const cases: Array<[string, boolean]> = [
        ['boss@example.test', true],
        ['BOSS@EXAMPLE.test', true],
        ['Second-Admin@example.test', true],
        ['notboss@example.test', false],
        ['boss@example.test.evil', false],
        ['boss@example', false],
      ];
      for (const [email, expected] of cases) {
        const r = await me(await t.idp.token({ sub: `admin-check-${email}`, email, email_verified: true }));
        assert.equal(r.status, 200);
        assert.equal(r.body.isAdmin, expected, email);
      }
      const noEmail = await me(await t.idp.token({ sub: 'admin-check-no-email' }));
      assert.equal(noEmail.body.isAdmin, false);
      assert.equal(noEmail.body.email, null);
    });

    test('GET /api/users/me/limits: real numbers with the configured limits and plan values', async () => {
      const r = await t.request('GET', '/api/users/me/limits', { token: tokenB });
      assert.equal(r.status, 200);
      assert.deepEqual(Object.keys(r.body).sort(), LIMIT_FIELDS);
      assert.deepEqual(r.body, {
        maxUploadsPerHour: 11,
        uploadsThisHour: 0,
        maxConcurrentActiveCalls: 3,
        activeCalls: 0,
        maxMonthlyUploadBytes: 987654321,
        uploadedBytesThisMonth: 0,
        plan: 'FREE',
        minutesUsedThisPeriod: 0,
        minutesLimit: 60,
        transcriptsToday: 0,
        dailyTranscriptLimit: 5,
        topupMinutesBalance: 0,
        topupTranscriptsBalance: 0,
      });
    });

    test('limits count the usage ledger and active calls over their windows', async () => {
      const userB = (await me(tokenB)).body.id as string;
      const queued = await insertCall(t, userB, { status: 'QUEUED' });
      await insertCall(t, userB, { status: 'TRANSCRIBING' });
      await insertCall(t, userB, { status: 'COMPLETED' });
      await insertCall(t, userB, { status: 'FAILED' });
      const ago = (s: string) => sql<Date>`now() - ${s}::interval`;
      await db()
        .insertInto('usageLedger')
        .values([
          { userId: userB, callId: queued, bytes: 1000, durationSeconds: 61 },
          { userId: userB, callId: null, bytes: 500, durationSeconds: 30, createdAt: ago('2 hours') },
          { userId: userB, callId: null, bytes: 700, durationSeconds: 600, createdAt: ago('40 days') },
        ])
        .execute();
      const r = await t.request('GET', '/api/users/me/limits', { token: tokenB });
      assert.equal(r.status, 200);
      assert.equal(r.body.uploadsThisHour, 1);
      assert.equal(r.body.activeCalls, 2);
      assert.equal(r.body.uploadedBytesThisMonth, 1500);
      // 91 s in the ledger, and the two calls in processing (no length known, no audio) reserve a
      // minute each (issue 22): 211 s round up to 4 minutes.
      assert.equal(r.body.minutesUsedThisPeriod, 4, '91 seconds in 30 days and two reserved minutes round up to 4 minutes');
      const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
      assert.equal(r.body.transcriptsToday, day(Date.now() - 2 * 3600_000) === day(Date.now()) ? 2 : 1, 'uploads since 00:00 UTC');
      // Other users are not counted.
      assert.equal((await t.request('GET', '/api/users/me/limits', { token: tokenA })).body.uploadsThisHour, 0);
    });

    test('limits of a PRO account: PRO minutes, no daily transcript numbers', async () => {
      await db().updateTable('users').set({ plan: 'PRO', topupMinutesBalance: 15, topupTranscriptsBalance: 2 }).where('externalUserId', '=', 'users-b').execute();
      const r = await t.request('GET', '/api/users/me/limits', { token: tokenB });
      assert.equal(r.status, 200);
      assert.deepEqual(Object.keys(r.body).sort(), LIMIT_FIELDS);
      assert.equal(r.body.plan, 'PRO');
      assert.equal(r.body.minutesLimit, 1200);
      assert.equal(r.body.transcriptsToday, null);
      assert.equal(r.body.dailyTranscriptLimit, null);
      assert.equal(r.body.topupMinutesBalance, 15);
      assert.equal(r.body.topupTranscriptsBalance, 2);
      assert.equal((await me(tokenB)).body.plan, 'PRO');
    });

    test('GET /api/users/me/stats: zeros for a new user, integers after calls', async () => {
      const token = await t.idp.token({ sub: 'users-stats', email: 'stats@example.test' });
      const r = await t.request('GET', '/api/users/me/stats', { token });
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, { totalCalls: 0, callsThisWeek: 0, openActionItems: 0, overdueActionItems: 0, completedActionItems: 0, averageCallDurationSeconds: 0 });
      const id = (await me(token)).body.id;
      await seedCompletedCall(t, id);
      await insertCall(t, id, { createdAt: new Date(Date.now() - 30 * 86400_000) });
      const s = await t.request('GET', '/api/users/me/stats', { token });
      assert.deepEqual(Object.keys(s.body).sort(), STATS_FIELDS);
      for (const f of STATS_FIELDS) assert.ok(Number.isInteger(s.body[f]), f);
      assert.equal(s.body.totalCalls, 2);
      assert.equal(s.body.callsThisWeek, 1);
      assert.equal(s.body.averageCallDurationSeconds, 42);
      assert.ok(s.body.openActionItems > 0, 'the seeded analysis has action items');
    });

    test('profiles are per caller: B sees and changes only B', async () => {
      const a = (await me(tokenA)).body;
      const b = (await me(tokenB)).body;
      assert.notEqual(a.id, b.id);
      assert.equal(b.email, 'bob@example.test');
      await t.request('PATCH', '/api/users/me', { token: tokenB, body: { displayName: 'Bobby' } });
      await t.request('PATCH', '/api/users/me/consent', { token: tokenB, body: { privacyPolicyVersion: 'b-only' } });
      const a2 = (await me(tokenA)).body;
      assert.equal(a2.displayName, a.displayName);
      assert.equal(a2.privacyPolicyVersion, a.privacyPolicyVersion);
      assert.equal((await me(tokenB)).body.displayName, 'Bobby');
    });

    test('DELETE /api/users/me: 204, no row of the user in any table, no stored file; others untouched', async () => {
      const token = await t.idp.token({ sub: 'users-delete', email: 'del@example.test', name: 'Del Ete' });
      const id = (await me(token)).body.id as string;
      const otherId = (await me(tokenA)).body.id as string;

      // Something in every table, through the API where a route exists and directly otherwise.
      const contact = await t.request('POST', '/api/contacts', { token, body: { name: 'Someone' }, headers: { 'idempotency-key': 'del-contact-1' } });
      assert.equal(contact.status, 201, contact.text);
      const callId = await seedCompletedCall(t, id, { serviceContactId: contact.body.id });
      await db().insertInto('processingEvents').values({ callId, userId: id, step: 'test', outcome: 'ok', detail: null }).execute();
      await db()
        .insertInto('voiceProfiles')
        .values({ userId: id, provider: 'test', consentVersion: 'v1', embedding: Buffer.from([1, 2, 3]), sampleDurationSeconds: 7, updatedAt: new Date() })
        .execute();
      await db().insertInto('usageLedger').values({ userId: id, callId, bytes: 10, durationSeconds: 42 }).execute();
      await db().insertInto('voiceEnrolmentAttempts').values({ userId: id }).execute();
      const blobDir = path.join(t.dataDir, 'blobs', 'users', id);
      fs.mkdirSync(path.join(blobDir, 'calls', callId), { recursive: true });
      fs.writeFileSync(path.join(blobDir, 'calls', callId, 'audio.wav'), crypto.randomBytes(64));
      // and something of another user that must survive
      const otherCall = await seedCompletedCall(t, otherId);
      const otherBlob = path.join(t.dataDir, 'blobs', 'users', otherId, 'calls', otherCall, 'audio.wav');
      fs.mkdirSync(path.dirname(otherBlob), { recursive: true });
      fs.writeFileSync(otherBlob, 'x');
      for (const [userId, call] of [[id, callId], [otherId, otherCall]]) {
        await db().insertInto('callStages').values({ callId: call, userId, stage: 'decode', outcome: 'COMPLETED' }).execute();
      }

      const count = async (table: string, column: string, userId: string) =>
        Number((await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql.table(table)} WHERE ${sql.ref(column)} = ${userId}`.execute(db())).rows[0].n);
      for (const [table, column] of USER_TABLES) assert.ok((await count(table, column, id)) > 0, `seeded ${table}`);
      const otherBefore = await Promise.all(USER_TABLES.map(([table, column]) => count(table, column, otherId)));

      const r = await t.request('DELETE', '/api/users/me', { token });
      assert.equal(r.status, 204);
      assert.equal(r.text, '');

      for (const [table, column] of USER_TABLES) assert.equal(await count(table, column, id), 0, `no ${table} row left`);
      assert.equal(fs.existsSync(blobDir), false, 'the user folder of stored files is gone');
      assert.deepEqual(await Promise.all(USER_TABLES.map(([table, column]) => count(table, column, otherId))), otherBefore, 'other users keep their rows');
      assert.ok(fs.existsSync(otherBlob), 'other users keep their files');

      // The identity still exists at the provider: the next request is a brand-new account.
      const again = await me(token);
      assert.equal(again.status, 200);
      assert.notEqual(again.body.id, id);
      assert.equal(again.body.privacyPolicyVersion, null);
      assert.equal((await t.request('GET', '/api/contacts', { token })).body.length, 0);
    });
  });
}

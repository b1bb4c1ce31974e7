// The guards of POST /api/users/me/voice-profile that a security review found missing (review 15):
// a SUSPENDED or DISABLED account is refused as for call uploads (403 with the reason) before any
// byte of its sample is stored, and a user's samples that reach decoding are limited per rolling
// hour (429 voice_enrolment_rate_limited, the upload guards' error body), counted in the database
// so two service processes on one database share the window. Each refusal leaves the profile from
// before as it was; other users are not affected.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { dbModes, startTestService, tempDir, TestIdp, uploadForm, type TestService } from '../support/service.js';
import { voiceSample } from '../support/voices.js';
import { sweepOldEnrolmentAttempts } from '../../src/domain/voice-enrolment.js';

const PROFILE = '/api/users/me/voice-profile';
const STATUS = '/api/users/me/voice-profile/status';
const LIMIT = 3;
const ENV = {
  SERVICE_VOICE_SAMPLE_MIN_SECONDS: '5',
  SERVICE_VOICE_SAMPLE_MAX_SECONDS: '10',
  SERVICE_VOICE_SAMPLE_MAX_SIZE_MB: '1',
  SERVICE_MAX_VOICE_ENROLMENTS_PER_HOUR: String(LIMIT),
  // Room for the burst test: the rate limit, not the upload slots, must decide it.
  SERVICE_MAX_UPLOADS_IN_FLIGHT: '10',
  SERVICE_ADMIN_ALLOWED_EMAILS: 'boss@example.test',
};

const dir = tempDir('voice-guards-test-');
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
const samples = {
  good: voiceSample(dir, 'rms', { seconds: 7 }),
  other: voiceSample(dir, 'slt', { seconds: 7, textOffset: 1 }),
  // Decoded and measured, then refused before any embedding: a cheap attempt that still counts.
  short: voiceSample(dir, 'rms', { seconds: 2 }),
  text: path.join(dir, 'notes.wav'),
};
fs.writeFileSync(samples.text, 'Not audio at all, only text under a .wav name.\n'.repeat(20));

const form = (file: string) => uploadForm(file, undefined, {}, path.basename(file), 'audio/wav');

/** A DATABASE_URL for another process on the same database (the embedded server listens on a Unix socket). */
function urlOf(conn: { connectionString?: string; host?: string; port?: number; user?: string; database?: string }): string {
  if (conn.connectionString) return conn.connectionString;
  return `postgresql://${conn.user}@localhost:${conn.port}/${conn.database}?host=${encodeURIComponent(conn.host!)}`;
}

for (const mode of await dbModes()) {
  describe(`voice enrolment guards (${mode} database)`, () => {
    let t: TestService;
    let idp: TestIdp;
    let admin: string;
    const tokens: Record<string, string> = {};
    const ids: Record<string, string> = {};
    /** Blob keys written through the store: a refused request must not have stored its sample. */
    const written: string[] = [];

    before(async () => {
      idp = await TestIdp.start();
      t = await startTestService({ db: mode, env: { ...idp.env(), ...ENV } });
      const blobs = t.service.ctx.blobs;
      const put = blobs.put.bind(blobs);
      blobs.put = async (key, source) => {
        written.push(key);
        return put(key, source);
      };
      admin = await idp.token({ sub: 'guards-boss', email: 'boss@example.test', name: 'Boss', email_verified: true });
      for (const u of ['suspended', 'rate', 'other', 'burst', 'cross', 'old']) {
        tokens[u] = await idp.token({ sub: `guards-${u}`, email: `guards-${u}@example.test`, name: `Guards ${u}` });
        const me = await t.request('GET', '/api/users/me', { token: tokens[u] });
        assert.equal(me.status, 200, me.text);
        ids[u] = me.body.id;
      }
    });
    after(async () => {
      await t?.stop();
      await idp?.stop();
    });

    const db = () => t.service.ctx.database.db;
    const enrol = (u: string, file: string, on: TestService = t) => on.request('POST', PROFILE, { token: tokens[u], form: form(file) });
    const status = (u: string) => t.request('GET', STATUS, { token: tokens[u] });
    const profileRow = async (u: string) => db().selectFrom('voiceProfiles').selectAll().where('userId', '=', ids[u]).executeTakeFirst();
    const attempts = async (u: string) =>
      Number((await db().selectFrom('voiceEnrolmentAttempts').select((eb) => eb.fn.countAll<number>().as('n')).where('userId', '=', ids[u]).executeTakeFirstOrThrow()).n);
    const samplesWritten = (u: string) => written.filter((k) => k.startsWith(`users/${ids[u]}/`)).length;
    const setStatus = (u: string, body: { status: string; reason?: string }) => t.request('PATCH', `/api/admin/users/${ids[u]}/status`, { token: admin, body });

    /** The profile (status answer and stored row) is exactly as it was. */
    async function assertProfileUnchanged(u: string, before: { status: unknown; row: Awaited<ReturnType<typeof profileRow>> }, what: string) {
      assert.deepEqual((await status(u)).body, before.status, `${what}: status answer`);
      const row = await profileRow(u);
      assert.ok(row && before.row, `${what}: the profile row is still there`);
      assert.equal(row.createdAt.toISOString(), before.row.createdAt.toISOString(), `${what}: createdAt`);
      assert.ok(Buffer.from(row.embedding).equals(Buffer.from(before.row.embedding)), `${what}: the embedding is the one from before`);
    }

    test('a SUSPENDED, then DISABLED account gets 403 with the reason before its sample is stored; the profile stays; ACTIVE again enrols', async () => {
      const first = await enrol('suspended', samples.good);
      assert.equal(first.status, 201, first.text);
      const before = { status: (await status('suspended')).body, row: await profileRow('suspended') };
      const writtenBefore = samplesWritten('suspended');
      const attemptsBefore = await attempts('suspended');

      assert.equal((await setStatus('suspended', { status: 'SUSPENDED', reason: 'Chargeback under review' })).status, 200);
      const r = await enrol('suspended', samples.other);
      assert.equal(r.status, 403, r.text);
      assert.deepEqual(r.body, { error: { code: 'ACCOUNT_SUSPENDED', message: 'This account is suspended.', details: { reason: 'Chargeback under review' } } });

      assert.equal((await setStatus('suspended', { status: 'DISABLED', reason: 'Terms violation' })).status, 200);
      const r2 = await enrol('suspended', samples.other);
      assert.equal(r2.status, 403, r2.text);
      assert.deepEqual(r2.body, { error: { code: 'ACCOUNT_DISABLED', message: 'This account is disabled.', details: { reason: 'Terms violation' } } });

      assert.equal(samplesWritten('suspended'), writtenBefore, 'no byte of either sample was stored');
      assert.equal(await attempts('suspended'), attemptsBefore, 'the refusals are not counted as enrolments');
      await assertProfileUnchanged('suspended', before, 'after the 403s');

      // The status decides: the same account, ACTIVE again, enrols.
      assert.equal((await setStatus('suspended', { status: 'ACTIVE' })).status, 200);
      const r3 = await enrol('suspended', samples.other);
      assert.equal(r3.status, 201, r3.text);
    });

    let limited: { status: unknown; row: Awaited<ReturnType<typeof profileRow>> };
    test(`the ${LIMIT + 1}th sample decoded in the hour gets 429 voice_enrolment_rate_limited; the profile from before stays`, async () => {
      // Refused before decoding: not counted.
      const notAudio = await enrol('rate', samples.text);
      assert.equal(notAudio.status, 415, notAudio.text);
      const noFile = new FormData();
      noFile.append('note', 'no file');
      assert.equal((await t.request('POST', PROFILE, { token: tokens.rate, form: noFile })).status, 400);
      assert.equal(await attempts('rate'), 0, 'requests refused before decoding are not counted');

      // LIMIT samples decoded, whatever their outcome: a profile, one too short, a new profile.
      assert.equal((await enrol('rate', samples.good)).status, 201);
      const short = await enrol('rate', samples.short);
      assert.equal(short.status, 400, short.text);
      assert.equal(short.body.error.code, 'voice_sample_too_short');
      const last = await enrol('rate', samples.other);
      assert.equal(last.status, 201, last.text);
      assert.equal(await attempts('rate'), LIMIT);
      limited = { status: (await status('rate')).body, row: await profileRow('rate') };
      assert.equal((limited.status as { createdAt: string }).createdAt, last.body.createdAt);

      const writtenBefore = samplesWritten('rate');
      const refused = await enrol('rate', samples.good);
      assert.equal(refused.status, 429, refused.text);
      assert.deepEqual(refused.body, {
        error: { code: 'voice_enrolment_rate_limited', message: 'Too many voice samples in the last hour.', details: { limit: LIMIT, current: LIMIT, windowSeconds: 3600 } },
      });
      assert.equal(samplesWritten('rate'), writtenBefore, 'the refused sample was not stored');
      assert.equal(await attempts('rate'), LIMIT, 'a refusal is not counted');
      await assertProfileUnchanged('rate', limited, 'after the 429');
      // Deleting the profile does not give enrolments back.
      assert.equal((await t.request('DELETE', PROFILE, { token: tokens.rate })).status, 204);
      assert.equal((await enrol('rate', samples.good)).status, 429);
    });

    test('another user is not affected by one at the limit', async () => {
      assert.equal(await attempts('rate'), LIMIT, 'user "rate" is at the limit');
      const r = await enrol('other', samples.good);
      assert.equal(r.status, 201, r.text);
      assert.equal((await status('other')).body.status, 'ACTIVE');
      assert.equal(await attempts('other'), 1);
    });

    test('enrolments sent at once never pass the limit', async () => {
      const answers = await Promise.all(Array.from({ length: LIMIT + 2 }, () => enrol('burst', samples.short)));
      const codes = answers.map((a) => (a.status === 429 ? a.body.error.code : a.status)).sort();
      assert.deepEqual(codes, [...Array(LIMIT).fill(400), 'voice_enrolment_rate_limited', 'voice_enrolment_rate_limited'], JSON.stringify(answers.map((a) => a.body)));
      assert.equal(await attempts('burst'), LIMIT);
    });

    test('two service processes on one database share the window', async () => {
      const t2 = await startTestService({ env: { ...idp.env(), ...ENV, DATABASE_URL: urlOf(t.service.ctx.database.connection as never) } });
      try {
        // The user at the limit in the first process is refused by the second.
        const r = await enrol('rate', samples.good, t2);
        assert.equal(r.status, 429, r.text);
        assert.equal(r.body.error.details.current, LIMIT);
        // Samples sent to both count together.
        assert.equal((await enrol('cross', samples.short, t)).status, 400);
        assert.equal((await enrol('cross', samples.short, t2)).status, 400);
        assert.equal((await enrol('cross', samples.good, t)).status, 201);
        const over = await enrol('cross', samples.good, t2);
        assert.equal(over.status, 429, over.text);
        assert.equal(over.body.error.code, 'voice_enrolment_rate_limited');
      } finally {
        await t2.stop();
      }
    });

    test('the window rolls: attempts older than an hour do not count and are swept', async () => {
      for (let i = 0; i < LIMIT; i++) {
        await db().insertInto('voiceEnrolmentAttempts').values({ userId: ids.old, attemptedAt: sql<Date>`now() - interval '61 minutes'` }).execute();
      }
      const r = await enrol('old', samples.short);
      assert.equal(r.status, 400, `decoded, not refused by the limit: ${r.text}`);
      assert.equal(r.body.error.code, 'voice_sample_too_short');
      assert.ok((await sweepOldEnrolmentAttempts(db())) >= LIMIT);
      assert.equal(await attempts('old'), 1, 'the recent attempt stays');
      assert.equal(await attempts('rate'), LIMIT, 'recent attempts of other users stay');
    });
  });
}

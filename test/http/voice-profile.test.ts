// The voice-profile routes against the real service on both databases: create from WAV, MP3 and
// M4A samples synthesised with flite, status, replacement in place, deletion, the sample bounds and
// their error codes, the feature switch, that the sample never stays on disk, account deletion
// and per-user isolation.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { dbModes, startTestService, tempDir, TestIdp, uploadForm, type TestService } from '../support/service.js';
import { voiceSample } from '../support/voices.js';
import { EMBEDDED_PROVIDER, FEATURE_DIM, FUSED_PROVIDER, FusedStatsEmbedder, V1_PROVIDER, deserializeEmbedding, serializeEmbedding } from '../../src/pipeline/voice/embedder.js';

const ISO_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const CREATED_FIELDS = ['consentVersion', 'createdAt', 'provider', 'sampleDurationSeconds', 'status'];
const STATUS_FIELDS = ['consentVersion', 'createdAt', 'provider', 'status'];
const PROFILE = '/api/users/me/voice-profile';
const STATUS = '/api/users/me/voice-profile/status';

// Bounds chosen so that every error case has a sample of otherwise valid shape.
const VOICE_ENV = {
  SERVICE_VOICE_CONSENT_VERSION: 'v7',
  SERVICE_VOICE_SAMPLE_MIN_SECONDS: '5',
  SERVICE_VOICE_SAMPLE_MAX_SECONDS: '10',
  SERVICE_VOICE_SAMPLE_MAX_SIZE_MB: '1',
};

const dir = tempDir('voice-profile-test-');
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
const samples = {
  wav: voiceSample(dir, 'rms', { seconds: 8 }),
  mp3: voiceSample(dir, 'slt', { seconds: 8, format: 'mp3', textOffset: 1 }),
  m4a: voiceSample(dir, 'kal16', { seconds: 9, format: 'm4a', textOffset: 2 }),
  ogg: voiceSample(dir, 'rms', { seconds: 8, format: 'ogg' }),
  short: voiceSample(dir, 'rms', { seconds: 2 }),
  long: voiceSample(dir, 'rms', { seconds: 15 }),
  // Valid durations, too many bytes: 48 kHz stereo. ~1.15 MB is caught while streaming, ~3.5 MB
  // already by the request's Content-Length.
  large: voiceSample(dir, 'rms', { seconds: 6, sampleRate: 48000, channels: 2 }),
  huge: voiceSample(dir, 'rms', { seconds: 9, sampleRate: 48000, channels: 2, bits: 32 }),
  text: path.join(dir, 'notes.wav'),
};
fs.writeFileSync(samples.text, 'This is not audio, only a text file with a .wav name.\n'.repeat(20));

function fileForm(file: string, mime: string, name = path.basename(file)): FormData {
  return uploadForm(file, undefined, {}, name, mime);
}

/** Every file under a folder, relative to it (none when it does not exist). */
function filesUnder(root: string): string[] {
  if (!fs.existsSync(root)) return [];
  return (fs.readdirSync(root, { recursive: true, withFileTypes: true }) as fs.Dirent[])
    .filter((e) => !e.isDirectory())
    .map((e) => path.relative(root, path.join(e.parentPath ?? (e as any).path, e.name)));
}

for (const mode of await dbModes()) {
  describe(`voice profile routes (${mode} database)`, () => {
    let t: TestService;
    let idp: TestIdp;
    const tokens: Record<string, string> = {};
    const ids: Record<string, string> = {};
    /** Blob keys written through the store, to see where samples go and that they are gone after. */
    const written: string[] = [];

    before(async () => {
      idp = await TestIdp.start();
      t = await startTestService({ db: mode, env: { ...idp.env(), ...VOICE_ENV } });
      const blobs = t.service.ctx.blobs;
      const put = blobs.put.bind(blobs);
      blobs.put = async (key, source) => {
        written.push(key);
        return put(key, source);
      };
      for (const u of ['a', 'b', 'c', 'd']) {
        tokens[u] = await idp.token({ sub: `voice-${u}`, email: `voice-${u}@example.test`, name: `Voice ${u.toUpperCase()}` });
        const me = await t.request('GET', '/api/users/me', { token: tokens[u] });
        assert.equal(me.status, 200);
        ids[u] = me.body.id;
      }
    });

    after(async () => {
      await t?.stop();
      await idp?.stop();
    });

    const db = () => t.service.ctx.database.db;
    const rows = (userId: string) => db().selectFrom('voiceProfiles').selectAll().where('userId', '=', userId).execute();
    const upload = (u: string, file: string, mime: string, name?: string) => t.request('POST', PROFILE, { token: tokens[u], form: fileForm(file, mime, name) });
    const status = (u: string) => t.request('GET', STATUS, { token: tokens[u] });
    /** Asserts nothing of the user's is stored on disk and no voice work folder is left. */
    function assertNoSampleKept(u: string, what: string) {
      const userDir = path.join(t.dataDir, 'blobs', 'users', ids[u]);
      assert.deepEqual(filesUnder(path.join(userDir, 'voice-samples')), [], `${what}: no file under voice-samples`);
      assert.deepEqual(filesUnder(userDir), [], `${what}: no file of the user at all`);
      const work = path.join(t.dataDir, 'work');
      const left = fs.existsSync(work) ? fs.readdirSync(work).filter((n) => n.startsWith('voice-')) : [];
      assert.deepEqual(left, [], `${what}: no decode folder left`);
    }

    test('without a token all three routes are 401', async () => {
      for (const [method, p] of [['POST', PROFILE], ['GET', STATUS], ['DELETE', PROFILE]] as const) {
        const r = await t.request(method, p, method === 'POST' ? { form: fileForm(samples.wav, 'audio/wav') } : {});
        assert.equal(r.status, 401, `${method} ${p}`);
      }
    });

    test('GET status before any upload is exactly {status: MISSING}', async () => {
      const r = await status('a');
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, { status: 'MISSING' });
    });

    let first: any;
    test('POST a WAV sample: 201 with exactly the five fields, consent version stamped, sample not kept', async () => {
      const t0 = Date.now();
      const r = await upload('a', samples.wav, 'audio/wav');
      const t1 = Date.now();
      assert.equal(r.status, 201, r.text);
      assert.deepEqual(Object.keys(r.body).sort(), CREATED_FIELDS);
      assert.equal(r.body.status, 'ACTIVE');
      assert.equal(r.body.provider, EMBEDDED_PROVIDER);
      assert.equal(r.body.consentVersion, 'v7', 'SERVICE_VOICE_CONSENT_VERSION is stamped');
      assert.equal(r.body.sampleDurationSeconds, 8);
      assert.match(r.body.createdAt, ISO_Z);
      const created = Date.parse(r.body.createdAt);
      assert.ok(created >= t0 - 2000 && created <= t1 + 2000, `createdAt ${r.body.createdAt} is the time of the request`);
      assert.doesNotMatch(r.text, /embedding/i, 'the embedding is never returned');
      first = r.body;

      const [row, ...more] = await rows(ids.a);
      assert.equal(more.length, 0);
      assert.equal(row.status, 'ACTIVE');
      assert.equal(row.consentVersion, 'v7');
      assert.equal(row.provider, EMBEDDED_PROVIDER);
      assert.equal(EMBEDDED_PROVIDER, FUSED_PROVIDER, 'the default stores the fused profile');
      assert.equal(row.sampleDurationSeconds, 8);
      assert.equal(deserializeEmbedding(row.embedding).length, new FusedStatsEmbedder().dimension, 'an opaque embedding is stored');

      // The sample went through the blob store under the user's voice-samples folder, and is gone.
      const keys = written.filter((k) => k.startsWith(`users/${ids.a}/`));
      assert.equal(keys.length, 1, `one sample written: ${keys.join(', ')}`);
      assert.match(keys[0], new RegExp(`^users/${ids.a}/voice-samples/.+/sample\\.wav$`));
      assert.equal(await t.service.ctx.blobs.exists(keys[0]), false);
      assertNoSampleKept('a', 'after success');
    });

    test('GET status: ACTIVE with provider, consentVersion, createdAt; no sampleDurationSeconds, no embedding', async () => {
      const r = await status('a');
      assert.equal(r.status, 200);
      assert.deepEqual(Object.keys(r.body).sort(), STATUS_FIELDS);
      assert.deepEqual(r.body, { status: 'ACTIVE', provider: first.provider, consentVersion: 'v7', createdAt: first.createdAt });
      assert.doesNotMatch(r.text, /embedding|sampleDuration/i);
    });

    test('re-upload (MP3, another voice) replaces the profile in place: one row, new createdAt and embedding', async () => {
      const before = (await rows(ids.a))[0];
      await new Promise((r) => setTimeout(r, 30));
      const r = await upload('a', samples.mp3, 'audio/mpeg');
      assert.equal(r.status, 201, r.text);
      assert.deepEqual(Object.keys(r.body).sort(), CREATED_FIELDS);
      assert.equal(r.body.status, 'ACTIVE');
      assert.equal(r.body.consentVersion, 'v7');
      assert.equal(r.body.sampleDurationSeconds, 8);
      assert.ok(Date.parse(r.body.createdAt) > Date.parse(first.createdAt), `createdAt moved on: ${first.createdAt} -> ${r.body.createdAt}`);
      const after = await rows(ids.a);
      assert.equal(after.length, 1, 'still one profile');
      assert.equal(after[0].createdAt.toISOString(), r.body.createdAt);
      assert.ok(!Buffer.from(after[0].embedding).equals(Buffer.from(before.embedding)), 'the embedding is the new sample\'s');
      assert.equal((await status('a')).body.createdAt, r.body.createdAt);
      assertNoSampleKept('a', 'after replacement');
    });

    test('an M4A sample is accepted and its duration rounded to whole seconds', async () => {
      const r = await upload('a', samples.m4a, 'audio/mp4');
      assert.equal(r.status, 201, r.text);
      assert.equal(r.body.status, 'ACTIVE');
      assert.equal(r.body.sampleDurationSeconds, 9);
      assert.equal((await rows(ids.a)).length, 1);
      assertNoSampleKept('a', 'after m4a');
    });

    test("user B's profile is independent of user A's", async () => {
      assert.deepEqual((await status('b')).body, { status: 'MISSING' }, 'A has one, B has none');
      const rb = await upload('b', samples.wav, 'audio/wav');
      assert.equal(rb.status, 201, rb.text);
      const a = (await status('a')).body;
      assert.equal(a.status, 'ACTIVE');
      assert.notEqual(a.createdAt, rb.body.createdAt, "B's upload did not touch A's profile");
      const del = await t.request('DELETE', PROFILE, { token: tokens.a });
      assert.equal(del.status, 204);
      assert.deepEqual((await status('a')).body, { status: 'MISSING' });
      assert.deepEqual((await status('b')).body, { status: 'ACTIVE', provider: EMBEDDED_PROVIDER, consentVersion: 'v7', createdAt: rb.body.createdAt });
      assert.equal((await rows(ids.b)).length, 1);
    });

    test('a profile of the statistics embedder (the default before issue 27) is REENROLLMENT_REQUIRED; a new sample makes it ACTIVE', async () => {
      const [before] = await rows(ids.b);
      // What an installation stored before the fused decision became the default: the statistics vector under its id.
      await db().updateTable('voiceProfiles').set({ provider: V1_PROVIDER, embedding: serializeEmbedding(new Float32Array(FEATURE_DIM).fill(0.25)) }).where('userId', '=', ids.b).execute();
      const s = await status('b');
      assert.equal(s.status, 200);
      assert.deepEqual(s.body, { status: 'REENROLLMENT_REQUIRED', provider: V1_PROVIDER, consentVersion: 'v7', createdAt: before.createdAt.toISOString() });
      const r = await upload('b', samples.wav, 'audio/wav');
      assert.equal(r.status, 201, r.text);
      assert.equal(r.body.provider, EMBEDDED_PROVIDER);
      assert.deepEqual((await status('b')).body, { status: 'ACTIVE', provider: EMBEDDED_PROVIDER, consentVersion: 'v7', createdAt: r.body.createdAt });
      const [row] = await rows(ids.b);
      assert.equal(deserializeEmbedding(row.embedding).length, new FusedStatsEmbedder().dimension);
    });

    test('DELETE is 204 with no body, then status is MISSING, and DELETE again is 204', async () => {
      const r1 = await t.request('DELETE', PROFILE, { token: tokens.b });
      assert.equal(r1.status, 204);
      assert.equal(r1.text, '');
      assert.deepEqual((await status('b')).body, { status: 'MISSING' });
      assert.equal((await rows(ids.b)).length, 0, 'the row is gone');
      const r2 = await t.request('DELETE', PROFILE, { token: tokens.b });
      assert.equal(r2.status, 204, 'idempotent');
      assert.equal(r2.text, '');
      assert.deepEqual((await status('b')).body, { status: 'MISSING' });
    });

    describe('rejected samples leave an existing profile as it was and nothing on disk', () => {
      let existing: any;
      before(async () => {
        const r = await upload('c', samples.wav, 'audio/wav');
        assert.equal(r.status, 201, r.text);
        existing = r.body;
      });
      async function assertUnchanged(what: string) {
        const s = await status('c');
        assert.deepEqual(s.body, { status: 'ACTIVE', provider: existing.provider, consentVersion: existing.consentVersion, createdAt: existing.createdAt }, what);
        assert.equal((await rows(ids.c)).length, 1, what);
        assertNoSampleKept('c', what);
      }

      test('2 s with a 5 s minimum: 400 voice_sample_too_short', async () => {
        const from = written.length;
        const r = await upload('c', samples.short, 'audio/wav');
        assert.equal(r.status, 400, r.text);
        assert.equal(r.body.error.code, 'voice_sample_too_short');
        assert.equal(r.body.error.details?.minSeconds, 5);
        const keys = written.slice(from);
        assert.equal(keys.length, 1, 'the sample was stored before it was measured');
        assert.match(keys[0], new RegExp(`^users/${ids.c}/voice-samples/.+/sample\\.wav$`));
        await assertUnchanged('after too short');
      });

      test('15 s with a 10 s maximum: 400 voice_sample_too_long', async () => {
        const r = await upload('c', samples.long, 'audio/wav');
        assert.equal(r.status, 400, r.text);
        assert.equal(r.body.error.code, 'voice_sample_too_long');
        assert.equal(r.body.error.details?.maxSeconds, 10);
        await assertUnchanged('after too long');
      });

      test('more than 1 MB with a 1 MB limit: 413 voice_sample_too_large (while streaming and by Content-Length)', async () => {
        for (const file of [samples.large, samples.huge]) {
          const size = fs.statSync(file).size;
          assert.ok(size > 1024 * 1024, `${path.basename(file)} is ${size} bytes`);
          const r = await upload('c', file, 'audio/wav');
          assert.equal(r.status, 413, `${size} bytes: ${r.text}`);
          assert.equal(r.body.error.code, 'voice_sample_too_large');
          await assertUnchanged(`after ${size} bytes`);
        }
      });

      test('an OGG file or a text file: 415 unsupported_media_type', async () => {
        for (const [file, mime, name] of [
          [samples.ogg, 'audio/ogg', 'sample.ogg'],
          [samples.ogg, 'audio/wav', 'sample.wav'], // the bytes decide, not the claimed type
          [samples.text, 'audio/wav', 'notes.wav'],
          [samples.text, 'text/plain', 'notes.txt'],
        ] as const) {
          const r = await upload('c', file, mime, name);
          assert.equal(r.status, 415, `${name} as ${mime}: ${r.text}`);
          assert.equal(r.body.error.code, 'unsupported_media_type');
        }
        await assertUnchanged('after unsupported files');
      });

      test('no file part: 400 validation_failed', async () => {
        const form = new FormData();
        form.append('note', 'no file here');
        const r1 = await t.request('POST', PROFILE, { token: tokens.c, form });
        assert.equal(r1.status, 400, r1.text);
        assert.equal(r1.body.error.code, 'validation_failed');
        const wrongField = new FormData();
        wrongField.append('audio', new Blob([fs.readFileSync(samples.wav)], { type: 'audio/wav' }), 'sample.wav');
        const r2 = await t.request('POST', PROFILE, { token: tokens.c, form: wrongField });
        assert.equal(r2.status, 400, `a file under another field name: ${r2.text}`);
        assert.equal(r2.body.error.code, 'validation_failed');
        const r3 = await t.request('POST', PROFILE, { token: tokens.c, body: { file: 'x' } });
        assert.equal(r3.status, 400, `not multipart: ${r3.text}`);
        assert.equal(r3.body.error.code, 'validation_failed');
        await assertUnchanged('after missing file');
      });
    });

    test('account deletion removes the voice profile row', async () => {
      const r = await upload('d', samples.wav, 'audio/wav');
      assert.equal(r.status, 201, r.text);
      assert.equal((await rows(ids.d)).length, 1);
      const del = await t.request('DELETE', '/api/users/me', { token: tokens.d });
      assert.equal(del.status, 204, del.text);
      assert.equal((await rows(ids.d)).length, 0, 'no profile row of the deleted user');
      assert.equal((await db().selectFrom('users').select('id').where('id', '=', ids.d).execute()).length, 0);
      assertNoSampleKept('d', 'after account deletion');
      // Other users' profiles are untouched.
      assert.equal((await status('c')).body.status, 'ACTIVE');
    });
  });
}

describe('voice profile routes with SERVICE_VOICE_EMBEDDING_ENABLED=false', () => {
  let t: TestService;
  let idp: TestIdp;
  let token: string;

  before(async () => {
    idp = await TestIdp.start();
    // The database plays no part here: the faster one available.
    const db = (await dbModes()).includes('external') ? 'external' : 'embedded';
    t = await startTestService({ db, env: { ...idp.env(), ...VOICE_ENV, SERVICE_VOICE_EMBEDDING_ENABLED: 'false' } });
    token = await idp.token({ sub: 'voice-off', email: 'voice-off@example.test', name: 'Voice Off' });
  });
  after(async () => {
    await t?.stop();
    await idp?.stop();
  });

  test('all three routes answer 404 feature_not_available and nothing is stored', async () => {
    for (const [method, p] of [['POST', PROFILE], ['GET', STATUS], ['DELETE', PROFILE]] as const) {
      const r = await t.request(method, p, { token, ...(method === 'POST' ? { form: fileForm(samples.wav, 'audio/wav') } : {}) });
      assert.equal(r.status, 404, `${method} ${p}: ${r.text}`);
      assert.equal(r.body.error.code, 'feature_not_available', `${method} ${p}`);
    }
    const count = await t.service.ctx.database.db.selectFrom('voiceProfiles').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
    assert.equal(Number(count.n), 0);
    assert.deepEqual(filesUnder(path.join(t.dataDir, 'blobs', 'users')), []);
  });
});

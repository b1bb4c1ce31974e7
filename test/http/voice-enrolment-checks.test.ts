// Enrolment checks of POST /api/users/me/voice-profile: a sample that is clipped, too quiet, too
// noisy or mostly silence is refused with a message saying what is wrong, and leaves the existing
// profile as it was; a profile of another embedder is reported as REENROLLMENT_REQUIRED.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { startTestService, tempDir, TestIdp, uploadForm, type TestService } from '../support/service.js';
import { voiceSample } from '../support/voices.js';

const PROFILE = '/api/users/me/voice-profile';
const STATUS = '/api/users/me/voice-profile/status';
const VOICE_ENV = { SERVICE_VOICE_CONSENT_VERSION: 'v7', SERVICE_VOICE_SAMPLE_MIN_SECONDS: '5', SERVICE_VOICE_SAMPLE_MAX_SECONDS: '12', SERVICE_VOICE_SAMPLE_MAX_SIZE_MB: '2' };

const dir = tempDir('voice-enrolment-test-');
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
const good = voiceSample(dir, 'rms', { seconds: 8 });
const sox = (...args: string[]) => execFileSync('sox', ['-V1', ...args]);
const variant = (name: string, ...effects: string[]) => {
  const out = path.join(dir, `${name}.wav`);
  sox(good, out, ...effects);
  return out;
};
const samples = {
  // +30 dB: the speech is flattened at full scale.
  clipped: variant('clipped', 'gain', '30'),
  // -60 dB: a muted or far microphone.
  quiet: variant('quiet', 'gain', '-60'),
  // Loud white noise under the speech (pauses filled).
  noisy: (() => {
    const noise = path.join(dir, 'noise.wav');
    sox('-r', '16000', '-c', '1', '-n', '-b', '16', '-e', 'signed-integer', noise, 'synth', '8', 'whitenoise', 'vol', '0.3');
    const out = path.join(dir, 'noisy.wav');
    sox('-m', good, noise, out);
    return out;
  })(),
  // 1.5 s of speech, then silence: long enough as a file, too little speech.
  sparse: variant('sparse', 'trim', '0', '1.5', 'pad', '0', '6.5'),
};

describe('voice enrolment checks (embedded database)', () => {
  let t: TestService;
  let idp: TestIdp;
  let token: string;
  let userId: string;
  let existing: any;

  before(async () => {
    idp = await TestIdp.start();
    t = await startTestService({ db: 'embedded', env: { ...idp.env(), ...VOICE_ENV } });
    token = await idp.token({ sub: 'enrol-a', email: 'enrol-a@example.test', name: 'Enrol A' });
    userId = (await t.request('GET', '/api/users/me', { token })).body.id;
    const r = await t.request('POST', PROFILE, { token, form: uploadForm(good, undefined, {}, 'good.wav', 'audio/wav') });
    assert.equal(r.status, 201, r.text);
    existing = r.body;
  });
  after(async () => {
    await t?.stop();
    await idp?.stop();
  });

  const upload = (file: string) => t.request('POST', PROFILE, { token, form: uploadForm(file, undefined, {}, path.basename(file), 'audio/wav') });
  async function assertUnchanged(what: string) {
    const s = await t.request('GET', STATUS, { token });
    assert.deepEqual(s.body, { status: 'ACTIVE', provider: existing.provider, consentVersion: existing.consentVersion, createdAt: existing.createdAt }, what);
  }

  for (const [name, problem, words] of [
    ['clipped', 'clipped', /clipped/],
    ['quiet', 'too_quiet', /too quiet/],
    ['noisy', 'too_noisy', /too noisy/],
  ] as const) {
    test(`a ${name} sample: 400 validation_failed saying what is wrong, profile unchanged`, async () => {
      const r = await upload(samples[name]);
      assert.equal(r.status, 400, r.text);
      assert.equal(r.body.error.code, 'validation_failed');
      assert.match(r.body.error.message, words);
      assert.equal(r.body.error.details.problem, problem);
      assert.equal(r.body.error.details.fields[0].path, '/file');
      assert.match(r.body.error.details.fields[0].message, words);
      await assertUnchanged(name);
    });
  }

  test('a sample of the right length with 1.5 s of speech: 400 voice_sample_too_short about the speech', async () => {
    const r = await upload(samples.sparse);
    assert.equal(r.status, 400, r.text);
    assert.equal(r.body.error.code, 'voice_sample_too_short');
    assert.match(r.body.error.message, /s of speech/);
    assert.equal(r.body.error.details.problem, 'not_enough_speech');
    assert.equal(r.body.error.details.minSeconds, 5);
    assert.equal(typeof r.body.error.details.minSpeechSeconds, 'number');
    await assertUnchanged('sparse');
  });

  test('a profile stored by another embedder is reported as REENROLLMENT_REQUIRED until a new sample', async () => {
    const db = t.service.ctx.database.db;
    await db.updateTable('voiceProfiles').set({ provider: 'embedded-older-v0' }).where('userId', '=', userId).execute();
    const s = await t.request('GET', STATUS, { token });
    assert.equal(s.status, 200);
    assert.deepEqual(s.body, { status: 'REENROLLMENT_REQUIRED', provider: 'embedded-older-v0', consentVersion: 'v7', createdAt: existing.createdAt });
    const r = await upload(good);
    assert.equal(r.status, 201, r.text);
    assert.equal((await t.request('GET', STATUS, { token })).body.status, 'ACTIVE');
  });
});

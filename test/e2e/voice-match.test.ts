// Voice matching end to end on the embedded default: users enroll a voice profile from a separate
// flite sample (sentences the call never says) and upload car-repair, a call with no names at
// all, without any name evidence (no display name, no contact name, no phone number). The profile
// of the user's own corpus voice must pick that speaker as the USER (VOICE_EMBEDDING); a profile
// of a voice absent from the call must match nobody; no profile at all gives NO_PROFILE.
//
// The three uploads are the same audio, so the real recogniser runs once and its result is reused
// for the identical decoded PCM (keyed by content hash) to keep the suite short; decoding,
// diarization, voice matching, naming and analysis run for every call.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { Value } from '@sinclair/typebox/value';
import { Transcript } from '../../src/domain/transcript.js';
import { readWavMono } from '../../src/pipeline/audio/decode.js';
import { MfccStatsEmbedder, serializeEmbedding } from '../../src/pipeline/voice/embedder.js';
import { corpusFile, loadScorer, loadTruth, type Truth } from '../support/corpus.js';
import { startTestService, tempDir, TestIdp, uploadForm, type TestService, waitForCallSettled } from '../support/service.js';
import { harvardText, voiceSample, type FliteVoice } from '../support/voices.js';
import { recogniseOncePerAudio } from '../support/recognition-cache.js';

const CALL = 'car-repair';
const VOICES: FliteVoice[] = ['slt', 'kal16', 'rms', 'awb'];

const norm = (s: string) => s.toLowerCase().replace(/[^a-z ]+/g, ' ').replace(/\s+/g, ' ').trim();

describe(`voice matching end to end (${CALL}, embedded PostgreSQL, real pipeline)`, () => {
  let t: TestService;
  let idp: TestIdp;
  let truth: Truth;
  let userSpeaker: 'A' | 'B';
  let userVoice: FliteVoice;
  let absentVoice: FliteVoice;
  let threshold: number;
  const dir = tempDir('voice-match-test-');
  const results: Partial<Record<'present' | 'presentFlipped' | 'absent' | 'none' | 'older' | 'deleted', { transcript: any; score: any }>> = {};
  let present: string;
  let recognitions: ReturnType<typeof recogniseOncePerAudio>;

  before(async () => {
    truth = loadTruth(CALL);
    // The call must really be the no-names case this test is about.
    assert.equal(truth.expect.naming.situation, 'no_names');
    assert.equal(truth.speakers.A.name === null || truth.speakers.B.name === null, true);
    userSpeaker = truth.speakers.A.role === 'USER' ? 'A' : 'B';
    userVoice = truth.speakers[userSpeaker].voice as FliteVoice;
    const inCall = new Set([truth.speakers.A.voice, truth.speakers.B.voice]);
    absentVoice = (['slt', ...VOICES] as FliteVoice[]).find((v) => !inCall.has(v))!;
    assert.ok(VOICES.includes(userVoice), `the user's corpus voice ${userVoice} is a flite voice`);
    assert.ok(absentVoice && !inCall.has(absentVoice));

    idp = await TestIdp.start();
    t = await startTestService({ env: { ...idp.env(), WORKER_ENABLED: 'true', WORKER_CONCURRENCY: '2' } });
    threshold = t.service.pipeline.voiceMatchThreshold;
    recognitions = recogniseOncePerAudio(t.service.pipeline.transcriber);
  });

  after(async () => {
    await t?.stop();
    await idp?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A user without any name: the token has no name claim. */
  async function namelessUser(sub: string): Promise<string> {
    const token = await idp.token({ sub, email: `${sub}@example.test` });
    const me = await t.request('GET', '/api/users/me', { token });
    assert.equal(me.status, 200);
    assert.equal(me.body.displayName, null, 'no display name to match in the transcript');
    return token;
  }

  async function enroll(token: string, voice: FliteVoice): Promise<void> {
    const sample = voiceSample(dir, voice, { seconds: 15, textOffset: 0 });
    const r = await t.request('POST', '/api/users/me/voice-profile', { token, form: uploadForm(sample, undefined, {}, 'enrollment.wav', 'audio/wav') });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.status, 'ACTIVE');
    assert.equal(r.body.sampleDurationSeconds, 15);
  }

  async function uploadCall(token: string, direction = truth.upload.direction): Promise<string> {
    // Direction only: no contactName, no phoneNumber, no title.
    const r = await t.request('POST', '/api/calls/analyze', { token, form: uploadForm(corpusFile(CALL, 'call.m4a'), { direction }) });
    assert.equal(r.status, 202, r.text);
    return r.body.callId as string;
  }

  async function finish(token: string, callId: string) {
    // However long the real recogniser takes on this machine: the service's own limits end the call.
    const status = await waitForCallSettled(t, callId, token);
    const detail = (await t.request('GET', `/api/calls/${callId}`, { token })).body;
    assert.equal(status, 'COMPLETED', `call failed: ${detail.errorReason}`);
    assert.equal(detail.contactName ?? null, null);
    assert.equal(detail.phoneNumber ?? null, null);
    const r = await t.request('GET', `/api/calls/${callId}/transcript`, { token });
    assert.equal(r.status, 200);
    const transcript = r.body;
    assert.ok(Value.Check(Transcript, transcript), `transcript validates: ${JSON.stringify([...Value.Errors(Transcript, transcript)][0])}`);
    const scorer = await loadScorer();
    return { transcript, score: scorer.scoreTranscript(truth, transcript) };
  }

  test('three users (own voice, absent voice, no profile) upload the call without names; all COMPLETED', async () => {
    // The enrollment sentences are not in the call: matching has to be text-independent.
    const dialogue = norm(truth.turns.map((x) => x.text).join(' '));
    for (const sentence of harvardText(0, 4).split('. ')) assert.ok(!dialogue.includes(norm(sentence)), `"${sentence}" is not in the call`);

    present = await namelessUser('voice-present');
    const absent = await namelessUser('voice-absent');
    const none = await namelessUser('voice-none');
    await enroll(present, userVoice);
    await enroll(absent, absentVoice);
    assert.deepEqual((await t.request('GET', '/api/users/me/voice-profile/status', { token: none })).body, { status: 'MISSING' });

    const calls = {
      present: await uploadCall(present),
      // The same call with the opposite direction: the positional guess now points at the other
      // speaker, so only the voice can still make the truth USER speaker the USER.
      presentFlipped: await uploadCall(present, truth.upload.direction === 'INCOMING' ? 'OUTGOING' : 'INCOMING'),
      absent: await uploadCall(absent),
      none: await uploadCall(none),
    };
    results.present = await finish(present, calls.present);
    results.presentFlipped = await finish(present, calls.presentFlipped);
    results.absent = await finish(absent, calls.absent);
    results.none = await finish(none, calls.none);
    assert.equal(recognitions.distinctInputs, 1, 'the uploads decoded to the same PCM');
  });

  /** Scores of the speakers, for the test log. */
  const scoresOf = (transcript: any) => transcript.speakers.map((s: any) => `${s.speakerId} ${s.role} ${s.labelSource} ${s.voiceMatchScore?.toFixed(3) ?? 'null'}`).join('; ');

  function assertUserFoundByVoice(transcript: any, score: any) {
    const res = transcript.speakerResolution;
    assert.equal(res.voiceEmbeddingEnabled, true);
    assert.equal(res.voiceMatchStatus, 'MATCHED');
    assert.equal(res.voiceProfileUsed, true);
    assert.equal(res.usedUserDisplayName, false);
    assert.equal(res.usedContactName, false);
    assert.equal(res.usedPhoneFallback, false);

    // The diarization must be good enough for "which transcript speaker is truth speaker X" to mean something.
    assert.ok(score.attribution >= 0.8, `attribution ${score.attribution}`);
    const mapping: Record<string, string> = score.details.attribution.mapping;

    const users = transcript.speakers.filter((s: any) => s.role === 'USER');
    assert.equal(users.length, 1, `exactly one USER: ${JSON.stringify(transcript.speakers)}`);
    const user = users[0];
    assert.equal(mapping[user.speakerId], userSpeaker, `the USER speaker ${user.speakerId} is truth speaker ${userSpeaker} (${userVoice}); mapping ${JSON.stringify(mapping)}`);
    assert.equal(user.labelSource, 'VOICE_EMBEDDING');
    assert.equal(user.voiceProfileMatched, true);
    assert.equal(typeof user.voiceMatchScore, 'number');
    assert.ok(user.voiceMatchScore >= threshold && user.voiceMatchScore <= 1, `score ${user.voiceMatchScore} reaches the threshold ${threshold}`);
    assert.notEqual(user.confidence, 'LOW');

    // Independent of the scorer: most of the USER's segment time lies in the truth speaker's turns.
    const overlapWith = (sp: 'A' | 'B') =>
      transcript.segments
        .filter((seg: any) => seg.speakerId === user.speakerId)
        .reduce((sum: number, seg: any) => sum + truth.turns.filter((x) => x.speaker === sp).reduce((a, x) => a + Math.max(0, Math.min(seg.endSeconds, x.endSeconds) - Math.max(seg.startSeconds, x.startSeconds)), 0), 0);
    const other = userSpeaker === 'A' ? 'B' : 'A';
    assert.ok(overlapWith(userSpeaker) > 2 * overlapWith(other), `USER segment time: ${overlapWith(userSpeaker).toFixed(1)} s in ${userSpeaker}'s turns, ${overlapWith(other).toFixed(1)} s in ${other}'s`);
    for (const seg of transcript.segments.filter((s: any) => s.speakerId === user.speakerId)) assert.equal(seg.role, 'USER');

    for (const s of transcript.speakers.filter((x: any) => x.speakerId !== user.speakerId)) {
      assert.equal(s.voiceProfileMatched, false, `${s.speakerId} is not the user`);
      assert.notEqual(s.labelSource, 'VOICE_EMBEDDING');
      assert.notEqual(s.role, 'USER');
      if (s.voiceMatchScore !== null) assert.ok(s.voiceMatchScore < user.voiceMatchScore, `${s.speakerId} scores below the user`);
    }
    assert.equal(score.roleAccuracy, 1, `roles: ${JSON.stringify(score.details.roles)}`);
  }

  test("the profile of the user's own voice makes the truth USER speaker the USER, by VOICE_EMBEDDING", (ctx) => {
    const r = results.present;
    assert.ok(r, 'the upload test produced a transcript');
    ctx.diagnostic(`${userVoice} profile, ${truth.upload.direction}: ${scoresOf(r.transcript)} (threshold ${threshold})`);
    assertUserFoundByVoice(r.transcript, r.score);
  });

  test('the voice outranks the positional guess: with the direction flipped the same speaker is the USER', (ctx) => {
    const r = results.presentFlipped;
    assert.ok(r, 'the upload test produced a transcript');
    ctx.diagnostic(`${userVoice} profile, flipped direction: ${scoresOf(r.transcript)}`);
    assertUserFoundByVoice(r.transcript, r.score);
    assert.equal(r.transcript.speakerResolution.warnings.includes('speaker_roles_unresolved'), false, 'the voice resolved the roles');
  });

  test('the profile of a voice absent from the call matches nobody: NO_MATCH', (ctx) => {
    const r = results.absent;
    assert.ok(r, 'the upload test produced a transcript');
    ctx.diagnostic(`${absentVoice} profile: ${scoresOf(r.transcript)}`);
    const res = r.transcript.speakerResolution;
    assert.equal(res.voiceEmbeddingEnabled, true);
    assert.equal(res.voiceMatchStatus, 'NO_MATCH');
    assert.equal(res.voiceProfileUsed, false);
    assert.ok(r.transcript.speakers.length >= 2);
    for (const s of r.transcript.speakers) {
      assert.notEqual(s.labelSource, 'VOICE_EMBEDDING', `${s.speakerId}`);
      assert.equal(s.voiceProfileMatched, false, `${s.speakerId}`);
      if (s.voiceMatchScore !== null) assert.ok(s.voiceMatchScore >= 0 && s.voiceMatchScore < threshold, `${s.speakerId} score ${s.voiceMatchScore} below ${threshold}`);
    }
    assert.ok(r.transcript.speakers.some((s: any) => typeof s.voiceMatchScore === 'number'), 'the speakers were scored');
  });

  function assertNoProfile(r: { transcript: any; score: any } | undefined) {
    assert.ok(r, 'the upload produced a transcript');
    const res = r.transcript.speakerResolution;
    assert.equal(res.voiceEmbeddingEnabled, true);
    assert.equal(res.voiceMatchStatus, 'NO_PROFILE');
    assert.equal(res.voiceProfileUsed, false);
    for (const s of r.transcript.speakers) {
      assert.notEqual(s.labelSource, 'VOICE_EMBEDDING', `${s.speakerId}`);
      assert.notEqual(s.voiceProfileMatched, true, `${s.speakerId}`);
      assert.equal(s.voiceMatchScore, null, `${s.speakerId}: no profile, no score`);
    }
  }

  test('a user without a profile gets NO_PROFILE and text-only naming', () => {
    assertNoProfile(results.none);
  });

  test('a profile of the statistics embedder (the default before issue 27) is never scored by the default: NO_PROFILE, and the status asks for a new sample', async () => {
    assert.ok(present, 'the upload test enrolled the user');
    const me = (await t.request('GET', '/api/users/me', { token: present })).body;
    const db = t.service.ctx.database.db;
    // The user's own voice as the statistics embedder stored it before the fused decision became the
    // default (or as VOICE_EMBEDDING_PROVIDER=embedded-stats stores it): another provider id.
    const sample = voiceSample(dir, userVoice, { seconds: 15, textOffset: 0 });
    const { samples, sampleRate } = await readWavMono(sample);
    const stats = new MfccStatsEmbedder();
    assert.notEqual(stats.provider, t.service.pipeline.embedder.provider);
    await db.updateTable('voiceProfiles').set({ provider: stats.provider, embedding: serializeEmbedding(await stats.embed(samples, sampleRate)) }).where('userId', '=', me.id).execute();
    assert.equal((await t.request('GET', '/api/users/me/voice-profile/status', { token: present })).body.status, 'REENROLLMENT_REQUIRED');
    results.older = await finish(present, await uploadCall(present));
    assertNoProfile(results.older);
  });

  test('after DELETE of the profile, the next call of that user is NO_PROFILE again', async () => {
    assert.ok(present, 'the upload test enrolled the user');
    const del = await t.request('DELETE', '/api/users/me/voice-profile', { token: present });
    assert.equal(del.status, 204);
    results.deleted = await finish(present, await uploadCall(present));
    assertNoProfile(results.deleted);
  });
});

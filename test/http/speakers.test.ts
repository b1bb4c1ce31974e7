// PATCH /api/calls/{id}/speakers against the real service with the real embedded analyzer on a
// seeded transcript: the corrections, the analysis that follows them, the audit event, survival
// through re-analysis, atomicity when the analysis fails, validation and ownership, and the route
// in production (where re-analysis itself is not available).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { dbModes, startTestService, TestIdp, type TestService } from '../support/service.js';
import { withTwoUsers } from '../support/two-users.js';
import { insertArtifact, insertCall, seedCompletedCall, transcriptFor, userIdOf } from '../fixtures/seed.js';
import { EmbeddedAnalyzer } from '../../src/pipeline/analysis/embedded/index.js';
import { PipelineError, type Analyzer } from '../../src/pipeline/types.js';
import { applySpeakerCorrections } from '../../src/domain/speaker-corrections.js';
import { applyResolution } from '../../src/pipeline/normalize.js';
import type { Transcript } from '../../src/domain/transcript.js';

/** The real embedded analyzer, with a switch to make it fail like a provider outage. */
const real = new EmbeddedAnalyzer();
let outage = false;
const analyzer: Analyzer = {
  provider: real.provider,
  model: real.model,
  async analyze(transcript, context, signal) {
    if (outage) throw new PipelineError('analysis_provider_error', 'scripted outage', true);
    return real.analyze(transcript, context, signal);
  },
};

const ownersOf = (analysis: any) => (analysis.actionItems as any[]).map((i) => [i.ownerSpeakerId, i.ownerDisplayName, i.ownerRole]);

describe('speaker corrections (pure)', () => {
  test('swap, rename, role and move; segments and cleanText follow', () => {
    const t = transcriptFor(crypto.randomUUID()) as Transcript;
    const { transcript, changes } = applySpeakerCorrections(t, [
      { type: 'SWAP_SPEAKERS' },
      { type: 'RENAME_SPEAKER', speakerId: 'spk_2', displayName: '  Olivia P.  ' },
      { type: 'MOVE_SEGMENT', segmentId: 'seg_0003' },
    ]);
    assert.deepEqual(transcript.speakers.map((s) => [s.speakerId, s.displayName, s.label, s.role, s.labelSource, s.confidence]), [
      ['spk_1', 'Bayview Logistics', 'Bayview Logistics', 'CONTACT', 'MANUAL', 'HIGH'],
      ['spk_2', 'Olivia P.', 'Olivia P.', 'USER', 'MANUAL', 'HIGH'],
    ]);
    const seg3 = transcript.segments[2]!;
    assert.deepEqual([seg3.speakerId, seg3.speakerDisplayName, seg3.role, seg3.sourceSpeakerId], ['spk_2', 'Olivia P.', 'USER', 'S0']);
    assert.equal(transcript.cleanText.split('\n')[2], '[00:10 - 00:14] Olivia P.: Sure, how about a Zoom call next Tuesday at eleven?');
    assert.equal(transcript.cleanText.split('\n')[0], '[00:00 - 00:04] Bayview Logistics: Good morning, Northwind Software, Olivia speaking.');
    assert.deepEqual(changes, [
      { type: 'SWAP_SPEAKERS', speakerIds: ['spk_1', 'spk_2'] },
      { type: 'RENAME_SPEAKER', speakerId: 'spk_2' },
      { type: 'MOVE_SEGMENT', segmentId: 'seg_0003', from: 'spk_1', to: 'spk_2' },
    ]);
    assert.equal(t.speakers[0]!.displayName, 'Olivia Park', 'the input is not modified');
  });

  test('setting a role moves the other holder of it to the opposite role; a lone speaker gains a second one', () => {
    const t = transcriptFor(crypto.randomUUID()) as Transcript;
    const { transcript } = applySpeakerCorrections(t, [{ type: 'SET_ROLE', speakerId: 'spk_2', role: 'USER' }]);
    assert.deepEqual(transcript.speakers.map((s) => s.role), ['CONTACT', 'USER']);
    const lone = { ...t, speakers: [t.speakers[0]!], segments: t.segments.map((s) => ({ ...s, speakerId: 'spk_1', speaker: 'Olivia Park' })) };
    const moved = applySpeakerCorrections(lone, [{ type: 'MOVE_SEGMENT', segmentId: 'seg_0002' }]).transcript;
    assert.deepEqual(moved.speakers.map((s) => [s.speakerId, s.displayName, s.role, s.labelSource]), [['spk_1', 'Olivia Park', 'USER', 'GREETING_MATCH'], ['spk_2', 'Speaker 2', 'UNKNOWN', 'MANUAL']]);
    assert.equal(moved.segments[1]!.speakerId, 'spk_2');
  });

  test('an automatic re-resolution keeps MANUAL speakers', () => {
    const t = applySpeakerCorrections(transcriptFor(crypto.randomUUID()) as Transcript, [{ type: 'RENAME_SPEAKER', speakerId: 'spk_1', displayName: 'Liv' }]).transcript;
    const auto = (sourceSpeakerId: string, displayName: string) => ({
      sourceSpeakerId, role: 'CONTACT' as const, displayName, label: displayName, labelSource: 'NAME_MENTION' as const, confidence: 'MEDIUM' as const, voiceMatchScore: null, voiceProfileMatched: null,
    });
    const again = applyResolution(t, { speakers: [auto('S0', 'Someone'), auto('S1', 'Bayview Co')], speakerResolution: t.speakerResolution } as never);
    assert.deepEqual(again.speakers.map((s) => s.displayName), ['Liv', 'Bayview Co']);
  });
});

for (const mode of await dbModes()) {
  describe(`PATCH /api/calls/{id}/speakers (${mode} database)`, () => {
    const t = withTwoUsers(mode, { a: { sub: 'speakers-a', name: 'Olivia Park' }, b: { sub: 'speakers-b' } }, { pipeline: { analyzer } });

    const patch = (callId: string, operations: unknown, token = t.tokenA) => t.request('PATCH', `/api/calls/${callId}/speakers`, { token, body: { operations } });
    const get = async (callId: string, what: 'transcript' | 'analysis') => (await t.request('GET', `/api/calls/${callId}/${what}`, { token: t.tokenA })).body;

    test('a swap re-attributes the speakers, the analysis owners follow, and the change is audited', async () => {
      const callId = await seedCompletedCall(t, t.userA);
      // Start from an analysis of the uncorrected transcript by the same analyzer.
      await t.request('POST', `/api/calls/${callId}/reanalyze`, { token: t.tokenA });
      assert.ok(ownersOf(await get(callId, 'analysis')).every(([id, name, role]) => id === 'spk_1' && name === 'Olivia Park' && role === 'USER'));

      const r = await patch(callId, [{ type: 'SWAP_SPEAKERS' }]);
      assert.equal(r.status, 200);
      assert.deepEqual(r.body.speakers.map((s: any) => [s.speakerId, s.displayName, s.role, s.labelSource, s.confidence]), [
        ['spk_1', 'Bayview Logistics', 'CONTACT', 'MANUAL', 'HIGH'],
        ['spk_2', 'Olivia Park', 'USER', 'MANUAL', 'HIGH'],
      ]);
      assert.deepEqual(await get(callId, 'transcript'), r.body);
      assert.match(r.body.cleanText.split('\n')[0], /^\[00:00 - 00:04\] Bayview Logistics: Good morning/);

      const analysis = await get(callId, 'analysis');
      const owners = ownersOf(analysis);
      assert.ok(owners.length > 0);
      assert.ok(owners.every(([id, name, role]) => id === 'spk_1' && name === 'Bayview Logistics' && role === 'CONTACT'), JSON.stringify(owners));
      const items = (await t.request('GET', `/api/calls/${callId}/action-items`, { token: t.tokenA })).body as any[];
      assert.ok(items.filter((i) => i.source === 'AI').every((i) => i.ownerDisplayName === 'Bayview Logistics' && i.ownerRole === 'CONTACT'));

      const events = await t.service.ctx.database.db.selectFrom('processingEvents').select(['step', 'outcome', 'detail']).where('callId', '=', callId).execute();
      const audit = events.filter((e) => e.step === 'SPEAKERS');
      assert.equal(audit.length, 1);
      assert.deepEqual(audit[0]!.detail, { actorUserId: t.userA, changes: [{ type: 'SWAP_SPEAKERS', speakerIds: ['spk_1', 'spk_2'] }] });
    });

    test('rename, role and move in one request survive re-analysis', async () => {
      const callId = await seedCompletedCall(t, t.userA);
      const r = await patch(callId, [
        { type: 'RENAME_SPEAKER', speakerId: 'spk_2', displayName: 'Dana from Bayview' },
        { type: 'SET_ROLE', speakerId: 'spk_2', role: 'CONTACT' },
        { type: 'MOVE_SEGMENT', segmentId: 'seg_0008', speakerId: 'spk_1' },
      ]);
      assert.equal(r.status, 200);
      assert.equal(r.body.speakers[1].displayName, 'Dana from Bayview');
      assert.equal(r.body.segments[7].speakerId, 'spk_1');
      assert.equal(r.body.segments[1].speakerDisplayName, 'Dana from Bayview');
      assert.ok((await get(callId, 'analysis')).keyDiscussionPoints.some((p: any) => p.speakerDisplayName === 'Dana from Bayview'));

      assert.equal((await t.request('POST', `/api/calls/${callId}/reanalyze`, { token: t.tokenA })).status, 200);
      assert.deepEqual(await get(callId, 'transcript'), r.body);
      assert.ok((await get(callId, 'analysis')).keyDiscussionPoints.some((p: any) => p.speakerDisplayName === 'Dana from Bayview'));
    });

    test('a failing analysis changes nothing (503)', async () => {
      const callId = await seedCompletedCall(t, t.userA);
      const before = await get(callId, 'transcript');
      outage = true;
      try {
        const r = await patch(callId, [{ type: 'SWAP_SPEAKERS' }]);
        assert.equal(r.status, 503);
        assert.equal(r.body.error.code, 'service_unavailable');
      } finally {
        outage = false;
      }
      assert.deepEqual(await get(callId, 'transcript'), before);
    });

    test('validation errors answer 400; missing, foreign and transcript-less calls 404; unfinished calls 422', async () => {
      const callId = await seedCompletedCall(t, t.userA, { analysis: null });
      const bad: Array<[unknown, string]> = [
        [[], 'body/operations'],
        [[{ type: 'MERGE_SPEAKERS' }], 'body/operations/0'],
        [[{ type: 'RENAME_SPEAKER', speakerId: 'spk_9', displayName: 'X' }], 'body/operations/0/speakerId'],
        [[{ type: 'RENAME_SPEAKER', speakerId: 'spk_1', displayName: 'Two\nlines' }], 'body/operations/0'],
        [[{ type: 'RENAME_SPEAKER', speakerId: 'spk_1', displayName: '   ' }], 'body/operations/0/displayName'],
        [[{ type: 'SET_ROLE', speakerId: 'spk_1', role: 'ADMIN' }], 'body/operations/0'],
        [[{ type: 'MOVE_SEGMENT', segmentId: 'seg_0099' }], 'body/operations/0/segmentId'],
        [[{ type: 'SWAP_SPEAKERS', speakerId: 'spk_1' }], 'body/operations/0'],
      ];
      for (const [operations, path] of bad) {
        const r = await patch(callId, operations);
        assert.equal(r.status, 400, JSON.stringify(operations));
        assert.equal(r.body.error.code, 'validation_failed');
        assert.ok(r.body.error.details.fields.some((f: any) => String(f.path).replace(/^\//, '').startsWith(path)), `${JSON.stringify(operations)}: ${JSON.stringify(r.body.error.details)}`);
      }
      assert.equal((await t.request('PATCH', `/api/calls/${callId}/speakers`, { token: t.tokenA, body: {} })).status, 400);

      for (const [token, id] of [[t.tokenA, crypto.randomUUID()], [t.tokenB, callId]] as const) {
        const r = await patch(id, [{ type: 'SWAP_SPEAKERS' }], token);
        assert.equal(r.status, 404);
        assert.equal(r.body.error.code, 'call_not_found');
      }
      const noTranscript = await insertCall(t, t.userA);
      assert.equal((await patch(noTranscript, [{ type: 'SWAP_SPEAKERS' }])).status, 404);

      const queued = await insertCall(t, t.userA, { status: 'TRANSCRIBING' });
      const notDone = await patch(queued, [{ type: 'SWAP_SPEAKERS' }]);
      assert.equal(notDone.status, 422);
      assert.equal(notDone.body.error.code, 'call_not_completed');

      const lone = await insertCall(t, t.userA);
      const one = transcriptFor(lone);
      await insertArtifact(t, t.userA, lone, 'transcript', { ...one, speakers: [one.speakers[0]], segments: one.segments.map((s) => ({ ...s, speakerId: 'spk_1' })) });
      const swap = await patch(lone, [{ type: 'SWAP_SPEAKERS' }]);
      assert.equal(swap.status, 422);
      assert.equal(swap.body.error.code, 'speaker_correction_not_applicable');
      assert.equal(swap.body.error.details.operation, 0);
      // Nothing of a rejected request was applied.
      assert.deepEqual((await get(callId, 'transcript')).speakers.map((s: any) => s.labelSource), ['GREETING_MATCH', 'GREETING_MATCH']);
    });
  });
}

describe('speaker corrections in production', () => {
  let t: TestService;
  let idp: TestIdp;
  let token: string;
  let user: string;

  before(async () => {
    idp = await TestIdp.start();
    t = await startTestService({ env: { ...idp.env(), SERVICE_ENV: 'production' }, pipeline: { analyzer } });
    token = await idp.token({ sub: 'speakers-prod', name: 'Olivia Park' });
    user = await userIdOf(t, token);
  });
  after(async () => {
    await t?.stop();
    await idp?.stop();
  });

  test('the analysis is re-run although the re-analysis route is absent', async () => {
    const callId = await seedCompletedCall(t, user);
    assert.equal((await t.request('POST', `/api/calls/${callId}/reanalyze`, { token })).status, 404);
    const r = await t.request('PATCH', `/api/calls/${callId}/speakers`, { token, body: { operations: [{ type: 'SWAP_SPEAKERS' }] } });
    assert.equal(r.status, 200);
    const analysis = (await t.request('GET', `/api/calls/${callId}/analysis`, { token })).body;
    const owners = ownersOf(analysis);
    assert.ok(owners.length > 0 && owners.every(([, name, role]) => name === 'Bayview Logistics' && role === 'CONTACT'), JSON.stringify(owners));
  });
});

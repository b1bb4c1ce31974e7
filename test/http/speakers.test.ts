// PATCH /api/calls/{id}/speakers against the real service with the real embedded analyzer on a
// seeded transcript: the corrections, the analysis that follows them on the analysis queue (the
// request answers before it; the call detail says it is pending; repeated corrections coalesce),
// the audit event, survival through re-analysis, an analysis that fails for good, validation and
// ownership, and the route in production (where re-analysis itself is not available).
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

/**
 * The real embedded analyzer, with a switch to make it fail for good, a cooperative hold (an
 * analysis waits at its start until the test releases it) and a count of runs per call.
 */
const real = new EmbeddedAnalyzer();
let broken = false;
let hold: { entered: () => void; released: Promise<void> } | null = null;
const runs = new Map<string, number>();
const analyzer: Analyzer = {
  provider: real.provider,
  model: real.model,
  async analyze(transcript, context, signal) {
    runs.set(transcript.callId, (runs.get(transcript.callId) ?? 0) + 1);
    if (hold) {
      hold.entered();
      await hold.released;
    }
    if (broken) throw new PipelineError('analysis_failed', 'scripted failure', false);
    return real.analyze(transcript, context, signal);
  },
};

/**
 * Holds every analysis at its start until `release()`. A safety valve releases it after 60 s so
 * that code which wrongly waits for the analysis inside the request fails its assertions instead
 * of hanging; the assertions never depend on that time.
 */
function holdAnalyses() {
  let release!: () => void;
  let entered!: () => void;
  const started = new Promise<void>((r) => (entered = r));
  const released = new Promise<void>((r) => {
    release = r;
    setTimeout(r, 60_000).unref();
  });
  hold = { entered, released };
  let finished = false;
  void released.then(() => (finished = true));
  return {
    started,
    isReleased: () => finished,
    release() {
      release();
      hold = null;
    },
  };
}

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
    // Workers on: the analysis of a correction runs on the analysis queue, in this process.
    const t = withTwoUsers(mode, { a: { sub: 'speakers-a', name: 'Olivia Park' }, b: { sub: 'speakers-b' } }, { pipeline: { analyzer }, workers: true });

    const patch = (callId: string, operations: unknown, token = t.tokenA) => t.request('PATCH', `/api/calls/${callId}/speakers`, { token, body: { operations } });
    const get = async (callId: string, what: 'transcript' | 'analysis') => (await t.request('GET', `/api/calls/${callId}/${what}`, { token: t.tokenA })).body;
    const detail = async (callId: string) => (await t.request('GET', `/api/calls/${callId}`, { token: t.tokenA })).body;
    /** Polls the call detail until no analysis is pending (a cooperative wait, no timing assertion). */
    const settled = async (callId: string) => {
      for (let i = 0; i < 480; i++) {
        const d = await detail(callId);
        if (d.analysisPending === undefined) return d;
        await new Promise((res) => setTimeout(res, 250));
      }
      throw new Error('the analysis did not arrive');
    };

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

      await settled(callId);
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
      await settled(callId);
      assert.ok((await get(callId, 'analysis')).keyDiscussionPoints.some((p: any) => p.speakerDisplayName === 'Dana from Bayview'));

      assert.equal((await t.request('POST', `/api/calls/${callId}/reanalyze`, { token: t.tokenA })).status, 200);
      assert.deepEqual(await get(callId, 'transcript'), r.body);
      assert.ok((await get(callId, 'analysis')).keyDiscussionPoints.some((p: any) => p.speakerDisplayName === 'Dana from Bayview'));
    });

    test('the request answers before the analysis, the detail says it is pending, then the analysis arrives', async () => {
      const callId = await seedCompletedCall(t, t.userA);
      const before = await get(callId, 'analysis');
      const held = holdAnalyses();
      let r;
      try {
        r = await patch(callId, [{ type: 'SWAP_SPEAKERS' }]);
        assert.equal(held.isReleased(), false, 'the PATCH answered while the analysis was still held');
        assert.equal(r.status, 200);
        assert.equal(r.body.speakers[0].displayName, 'Bayview Logistics');
        const pending = await detail(callId);
        assert.equal(pending.analysisPending, true);
        assert.equal(pending.status, 'COMPLETED');
        assert.deepEqual(await get(callId, 'analysis'), before, 'the previous analysis is served meanwhile');
        await held.started; // the queue picked the job up and the analyzer is waiting
      } finally {
        held.release();
      }
      const done = await settled(callId);
      assert.equal(done.analysisPending, undefined);
      const owners = ownersOf(await get(callId, 'analysis'));
      assert.ok(owners.length > 0 && owners.every(([, name, role]) => name === 'Bayview Logistics' && role === 'CONTACT'), JSON.stringify(owners));
      const events = await t.service.ctx.database.db.selectFrom('processingEvents').select(['step', 'outcome', 'detail']).where('callId', '=', callId).execute();
      assert.deepEqual(events.filter((e) => e.step === 'ANALYZE').map((e) => [e.outcome, (e.detail as any).trigger]), [['COMPLETED', 'SPEAKERS']]);
    });

    test('repeated corrections coalesce into one or two analyses, and the latest transcript wins', async () => {
      const callId = await seedCompletedCall(t, t.userA);
      runs.delete(callId);
      const held = holdAnalyses();
      try {
        for (let i = 1; i <= 6; i++) {
          const r = await patch(callId, [{ type: 'RENAME_SPEAKER', speakerId: 'spk_2', displayName: `Dana ${i}` }]);
          assert.equal(r.status, 200);
          assert.equal(r.body.speakers[1].displayName, `Dana ${i}`);
          if (i === 1) await held.started; // the first analysis runs (held) while the others arrive
        }
        assert.equal(held.isReleased(), false);
      } finally {
        held.release();
      }
      await settled(callId);
      const count = runs.get(callId) ?? 0;
      assert.ok(count >= 1 && count <= 2, `six corrections ran the analyzer ${count} times`);
      const analysis = await get(callId, 'analysis');
      const names = new Set((analysis.keyDiscussionPoints as any[]).filter((p) => p.speakerId === 'spk_2').map((p) => p.speakerDisplayName));
      assert.deepEqual([...names], ['Dana 6'], 'the stored analysis is the one of the latest transcript');
      const stored = await t.service.ctx.database.db.selectFrom('processingEvents').select('detail').where('callId', '=', callId).where('step', '=', 'ANALYZE').where('outcome', '=', 'COMPLETED').execute();
      assert.equal(stored.length, 1, 'the analysis of an older transcript was dropped, not stored');
    });

    test('an analysis that fails for good leaves the corrected transcript and the previous analysis, and clears pending', async () => {
      const callId = await seedCompletedCall(t, t.userA);
      const before = await get(callId, 'analysis');
      broken = true;
      try {
        const r = await patch(callId, [{ type: 'SWAP_SPEAKERS' }]);
        assert.equal(r.status, 200);
        await settled(callId);
      } finally {
        broken = false;
      }
      assert.equal((await get(callId, 'transcript')).speakers[0].displayName, 'Bayview Logistics');
      assert.deepEqual(await get(callId, 'analysis'), before);
      const failed = await t.service.ctx.database.db.selectFrom('processingEvents').select('detail').where('callId', '=', callId).where('step', '=', 'ANALYZE').where('outcome', '=', 'FAILED').execute();
      assert.deepEqual(failed.map((e) => (e.detail as any).reason), ['analysis_failed']);
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
    t = await startTestService({ env: { ...idp.env(), SERVICE_ENV: 'production' }, pipeline: { analyzer }, workers: true });
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
    for (let i = 0; i < 480 && (await t.request('GET', `/api/calls/${callId}`, { token })).body.analysisPending; i++) await new Promise((res) => setTimeout(res, 250));
    const analysis = (await t.request('GET', `/api/calls/${callId}/analysis`, { token })).body;
    const owners = ownersOf(analysis);
    assert.ok(owners.length > 0 && owners.every(([, name, role]) => name === 'Bayview Logistics' && role === 'CONTACT'), JSON.stringify(owners));
  });
});

// GET /api/calls/:id/analysis and POST /api/calls/:id/reanalyze against the real service. The
// analyzer is a test double whose answer each test chooses, so the effects of re-analysis (and of
// a failure in the middle of it) can be asserted exactly.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { sql } from 'kysely';
import { dbModes, startTestService, TestIdp, type TestService } from '../support/service.js';
import { withTwoUsers } from '../support/two-users.js';
import { fixture, insertArtifact, insertCall, seedCompletedCall, transcriptFor, userIdOf } from '../fixtures/seed.js';
import type { Analysis, AnalysisContext } from '../../src/domain/analysis.js';
import type { Transcript } from '../../src/domain/transcript.js';
import type { Analyzer } from '../../src/pipeline/types.js';

/** What the next analyze() call does: return this analysis, or throw. */
let nextResult: (() => Analysis) | null = null;
const seen: Array<{ transcript: Transcript; context: AnalysisContext }> = [];
const analyzer: Analyzer = {
  provider: 'test',
  model: 'scripted',
  async analyze(transcript, context) {
    seen.push({ transcript, context });
    if (!nextResult) throw new Error('boom');
    return nextResult();
  },
};

function reanalysis(titles: string[]): Analysis {
  const a = fixture<Analysis>('analysis-v3.json');
  a.suggestedTitle = 'Re-analysed title';
  a.oneLineSummary = 'Re-analysed summary.';
  a.shortSummary = a.oneLineSummary;
  a.actionItems = titles.map((title, i) => ({
    title,
    ownerSpeakerId: 'spk_2',
    ownerSpeakerLabel: 'Bayview Logistics',
    ownerDisplayName: 'Bayview Logistics',
    ownerRole: 'CONTACT',
    dueDate: null,
    priority: i === 0 ? 'low' : 'high',
    sourceSegmentIds: ['seg_0008'],
    intent: 'task',
    intentMetadata: { title, notes: null },
  }));
  return a;
}

for (const mode of await dbModes()) {
  describe(`analysis and re-analysis (${mode} database)`, () => {
    const t = withTwoUsers(mode, { a: { sub: 'analysis-a', name: 'Olivia Park' }, b: { sub: 'analysis-b' } }, { pipeline: { analyzer } });

    const db = () => t.service.ctx.database.db;
    const itemsOf = async (callId: string) => (await t.request('GET', `/api/calls/${callId}/action-items`, { token: t.tokenA })).body as Array<Record<string, any>>;

    test('a v3 analysis is served as stored, unknown keys included', async () => {
      const stored = { ...fixture('analysis-v3.json'), futureField: { nested: [1, 'two', null] }, emptyList: [] };
      const callId = await seedCompletedCall(t, t.userA, { analysis: stored });
      const r = await t.request('GET', `/api/calls/${callId}/analysis`, { token: t.tokenA });
      assert.equal(r.status, 200);
      assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
      assert.deepEqual(r.body, stored);
    });

    test('legacy schemaVersion 1 and 2 artifacts are served unchanged', async () => {
      for (const name of ['analysis-v1.json', 'analysis-v2.json']) {
        const stored = fixture(name);
        const callId = await insertCall(t, t.userA);
        await insertArtifact(t, t.userA, callId, 'analysis', stored);
        const r = await t.request('GET', `/api/calls/${callId}/analysis`, { token: t.tokenA });
        assert.equal(r.status, 200, name);
        assert.deepEqual(r.body, stored, name);
      }
      // v2 bullets keep their flat legacy shape.
      const v2 = fixture('analysis-v2.json');
      assert.ok('category' in v2.executiveSummaryBullets[0]);
    });

    test('422 call_not_completed before completion; 404 when missing, foreign or without analysis', async () => {
      for (const status of ['QUEUED', 'TRANSCRIBING', 'ANALYZING', 'FAILED'] as const) {
        const callId = await insertCall(t, t.userA, { status });
        const r = await t.request('GET', `/api/calls/${callId}/analysis`, { token: t.tokenA });
        assert.equal(r.status, 422, status);
        assert.equal(r.body.error.code, 'call_not_completed');
      }
      const withAnalysis = await seedCompletedCall(t, t.userA);
      const noAnalysis = await seedCompletedCall(t, t.userA, { analysis: null });
      for (const [token, id] of [
        [t.tokenA, crypto.randomUUID()],
        [t.tokenB, withAnalysis],
        [t.tokenA, noAnalysis],
      ] as const) {
        const r = await t.request('GET', `/api/calls/${id}/analysis`, { token });
        assert.equal(r.status, 404);
        assert.equal(r.body.error.code, 'call_not_found');
      }
    });

    test('reanalyze replaces the analysis and the AI items, keeps MANUAL items, answers the call detail', async () => {
      const callId = await seedCompletedCall(t, t.userA, { contactName: 'Bayview Logistics' });
      const manual = await t.request('POST', `/api/calls/${callId}/action-items`, { token: t.tokenA, body: { title: 'My own note', priority: 'LOW' } });
      assert.equal(manual.status, 201);
      const before = await itemsOf(callId);
      assert.equal(before.filter((i) => i.source === 'AI').length, 2);

      nextResult = () => reanalysis(['Prepare the demo data', 'Confirm attendance']);
      seen.length = 0;
      const r = await t.request('POST', `/api/calls/${callId}/reanalyze`, { token: t.tokenA });
      assert.equal(r.status, 200);
      assert.equal(r.body.callId, callId);
      assert.equal(r.body.status, 'COMPLETED');
      assert.equal(r.body.summary, 'Re-analysed summary.');

      // The analyzer got the stored transcript and the call's context.
      assert.equal(seen.length, 1);
      assert.equal(seen[0].transcript.callId, callId);
      assert.equal(seen[0].transcript.segments.length, transcriptFor(callId).segments.length);
      assert.equal(seen[0].context.contactName, 'Bayview Logistics');
      assert.equal(seen[0].context.userDisplayName, 'Olivia Park');

      const analysis = await t.request('GET', `/api/calls/${callId}/analysis`, { token: t.tokenA });
      assert.equal(analysis.body.oneLineSummary, 'Re-analysed summary.');
      assert.deepEqual(
        analysis.body.actionItems.map((i: { title: string }) => i.title),
        ['Prepare the demo data', 'Confirm attendance'],
      );

      const items = await itemsOf(callId);
      const ai = items.filter((i) => i.source === 'AI');
      assert.deepEqual(ai.map((i) => i.title), ['Prepare the demo data', 'Confirm attendance']);
      assert.deepEqual(ai.map((i) => i.priority), ['LOW', 'HIGH']);
      assert.equal(ai[0].ownerRole, 'CONTACT');
      assert.equal(ai[0].intent, 'task');
      assert.equal(JSON.parse(ai[0].sourceText).excerpt, '[00:35] Bayview Logistics: Thanks, looking forward to it.');
      const oldIds = new Set(before.filter((i) => i.source === 'AI').map((i) => i.id));
      assert.ok(ai.every((i) => !oldIds.has(i.id)));
      const kept = items.filter((i) => i.source === 'MANUAL');
      assert.equal(kept.length, 1);
      assert.equal(kept[0].id, manual.body.id);

      const row = await db().selectFrom('calls').select(['suggestedTitle', 'summary']).where('id', '=', callId).executeTakeFirstOrThrow();
      assert.equal(row.suggestedTitle, 'Re-analysed title');

      // Idempotent: running it again leaves the same set, not duplicates.
      const again = await t.request('POST', `/api/calls/${callId}/reanalyze`, { token: t.tokenA });
      assert.equal(again.status, 200);
      const afterAgain = await itemsOf(callId);
      assert.deepEqual(
        afterAgain.map((i) => `${i.source}:${i.title}`).sort(),
        ['AI:Confirm attendance', 'AI:Prepare the demo data', 'MANUAL:My own note'],
      );
    });

    test('a failing analyzer leaves the previous analysis and items intact', async () => {
      const callId = await seedCompletedCall(t, t.userA);
      const analysisBefore = (await t.request('GET', `/api/calls/${callId}/analysis`, { token: t.tokenA })).body;
      const itemsBefore = await itemsOf(callId);

      nextResult = null;
      const r = await t.request('POST', `/api/calls/${callId}/reanalyze`, { token: t.tokenA });
      assert.equal(r.status, 500);
      assert.equal(r.body.error.code, 'internal_error');
      assert.doesNotMatch(r.text, /boom/);

      assert.deepEqual((await t.request('GET', `/api/calls/${callId}/analysis`, { token: t.tokenA })).body, analysisBefore);
      assert.deepEqual(await itemsOf(callId), itemsBefore);
    });

    test('a failure in the middle of the write transaction rolls everything back', async () => {
      const callId = await seedCompletedCall(t, t.userA);
      const analysisBefore = (await t.request('GET', `/api/calls/${callId}/analysis`, { token: t.tokenA })).body;
      const itemsBefore = await itemsOf(callId);
      const callBefore = (await t.request('GET', `/api/calls/${callId}`, { token: t.tokenA })).body;

      // The artifact overwrite and the delete of the old items succeed; inserting this item fails.
      await sql`CREATE OR REPLACE FUNCTION test_refuse_item() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF NEW.title = 'explode' THEN RAISE EXCEPTION 'refused by test'; END IF; RETURN NEW; END $$`.execute(db());
      await sql`CREATE TRIGGER test_refuse_item BEFORE INSERT ON action_items FOR EACH ROW EXECUTE FUNCTION test_refuse_item()`.execute(db());
      try {
        nextResult = () => reanalysis(['fine', 'explode']);
        const r = await t.request('POST', `/api/calls/${callId}/reanalyze`, { token: t.tokenA });
        assert.equal(r.status, 500);
        assert.doesNotMatch(r.text, /refused by test/);
      } finally {
        await sql`DROP TRIGGER IF EXISTS test_refuse_item ON action_items`.execute(db());
        await sql`DROP FUNCTION IF EXISTS test_refuse_item()`.execute(db());
      }

      assert.deepEqual((await t.request('GET', `/api/calls/${callId}/analysis`, { token: t.tokenA })).body, analysisBefore);
      assert.deepEqual(await itemsOf(callId), itemsBefore);
      assert.deepEqual((await t.request('GET', `/api/calls/${callId}`, { token: t.tokenA })).body, callBefore);
    });

    test('reanalyze: 409 with the status when not completed; 404 when missing, foreign or without transcript', async () => {
      nextResult = () => reanalysis(['never stored']);
      for (const status of ['QUEUED', 'PROCESSING', 'ANALYZING', 'FAILED'] as const) {
        const callId = await insertCall(t, t.userA, { status });
        const r = await t.request('POST', `/api/calls/${callId}/reanalyze`, { token: t.tokenA });
        assert.equal(r.status, 409, status);
        assert.equal(r.body.error.code, 'call_not_reanalyzable');
        assert.deepEqual(r.body.error.details, { status });
      }
      const mine = await seedCompletedCall(t, t.userA);
      const noTranscript = await insertCall(t, t.userA);
      for (const [token, id] of [
        [t.tokenA, crypto.randomUUID()],
        [t.tokenB, mine],
        [t.tokenA, noTranscript],
      ] as const) {
        const r = await t.request('POST', `/api/calls/${id}/reanalyze`, { token });
        assert.equal(r.status, 404);
        assert.equal(r.body.error.code, 'call_not_found');
      }
      const rows = await db().selectFrom('actionItems').select('id').where('title', '=', 'never stored').execute();
      assert.equal(rows.length, 0);
    });
  });
}

describe('re-analysis in production', () => {
  let t: TestService;
  let idp: TestIdp;

  before(async () => {
    idp = await TestIdp.start();
    // The external server starts in a fraction of the embedded one's time; the route table does
    // not depend on the database.
    const db = (await dbModes()).includes('external') ? 'external' : 'embedded';
    t = await startTestService({ db, env: { ...idp.env(), SERVICE_ENV: 'production' }, pipeline: { analyzer } });
  });

  after(async () => {
    await t?.stop();
    await idp?.stop();
  });

  test('the route is not registered: the same 404 as an unknown route', async () => {
    const token = await idp.token({ sub: 'prod-user' });
    const userId = await userIdOf(t, token);
    const callId = await seedCompletedCall(t, userId);
    nextResult = () => reanalysis(['never stored']);
    seen.length = 0;

    const r = await t.request('POST', `/api/calls/${callId}/reanalyze`, { token });
    const unknown = await t.request('POST', `/api/calls/${callId}/no-such-route`, { token });
    assert.equal(r.status, 404);
    assert.equal(unknown.status, 404);
    assert.deepEqual(r.body, unknown.body);
    assert.equal(seen.length, 0);

    // Reading the analysis stays available.
    const analysis = await t.request('GET', `/api/calls/${callId}/analysis`, { token });
    assert.equal(analysis.status, 200);
    assert.equal(analysis.body.schemaVersion, 3);
  });
});

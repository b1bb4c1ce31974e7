// conversationMetrics in the analysis (re-analysis with the real embedded analyzer adds them from
// the stored transcript) and their averages in GET /api/analytics/vibe.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dbModes } from '../support/service.js';
import { withTwoUsers } from '../support/two-users.js';
import { fixture, insertArtifact, insertCall, seedCompletedCall, transcriptFor, userIdOf } from '../fixtures/seed.js';
import { computeConversationMetrics } from '../../src/domain/conversation-metrics.js';

for (const mode of await dbModes()) {
  describe(`conversation metrics (${mode} database)`, () => {
    const t = withTwoUsers(mode, { a: { sub: 'metrics-a', name: 'Olivia Park' }, b: { sub: 'metrics-b' } });

    test('an analysis run adds conversationMetrics from the transcript timing; existing fields stay', async () => {
      const callId = await seedCompletedCall(t, t.userA);
      const before = (await t.request('GET', `/api/calls/${callId}/analysis`, { token: t.tokenA })).body;
      assert.equal(before.conversationMetrics, undefined);
      const re = await t.request('POST', `/api/calls/${callId}/reanalyze`, { token: t.tokenA });
      assert.equal(re.status, 200);
      const after = (await t.request('GET', `/api/calls/${callId}/analysis`, { token: t.tokenA })).body;
      assert.equal(after.schemaVersion, 3);
      const m = after.conversationMetrics;
      assert.deepEqual(m, computeConversationMetrics(transcriptFor(callId) as never));
      // The seeded call: eight alternating 4.5 s segments every 5 s over 42 s.
      assert.equal(m.turnCount, 8);
      assert.equal(m.talkSeconds, 36);
      assert.equal(m.silenceSeconds, 6);
      assert.equal(m.silenceShare, 0.143);
      assert.equal(m.interruptionCount, 0);
      assert.deepEqual(m.responseLatency, { count: 7, averageSeconds: 0.5, medianSeconds: 0.5 });
      assert.deepEqual(m.parties.map((p: { role: string; talkShare: number; turnCount: number }) => [p.role, p.talkShare, p.turnCount]), [['USER', 0.5, 4], ['CONTACT', 0.5, 4]]);
      assert.equal(m.parties[0].wordCount, 7 + 10 + 6 + 9);
      assert.equal(m.parties[0].wordsPerMinute, Math.round((32 / 18) * 60 * 10) / 10);
      // Every field of the analysis before is still there.
      for (const k of Object.keys(before)) assert.ok(k in after, k);
    });

    test('vibe averages the metrics per call and per role; calls without metrics and other users are left out', async () => {
      const fresh = await t.idp.token({ sub: 'metrics-vibe' });
      const user = await userIdOf(t, fresh);
      const metricsOf = (shift: number) => {
        const tr = transcriptFor('00000000-0000-4000-8000-000000000000');
        // The contact answers `shift` seconds later each time in the second call.
        tr.segments.forEach((s, i) => {
          s.startSeconds += i * shift;
          s.endSeconds += i * shift;
        });
        tr.durationSeconds = 42 + 8 * shift;
        return computeConversationMetrics(tr as never);
      };
      const m1 = metricsOf(0);
      const m2 = metricsOf(1);
      for (const m of [m1, m2]) {
        const id = await insertCall(t, user);
        await insertArtifact(t, user, id, 'analysis', { ...fixture<Record<string, unknown>>('analysis-v3.json'), conversationMetrics: m });
      }
      await insertArtifact(t, user, await insertCall(t, user), 'analysis', fixture('analysis-v3.json'));
      await insertArtifact(t, user, await insertCall(t, user), 'analysis', fixture('analysis-v1.json'));

      const r = await t.request('GET', '/api/analytics/vibe', { token: fresh });
      assert.equal(r.status, 200);
      const avg = (a: number, b: number) => Math.round(((a + b) / 2) * 1000) / 1000;
      const c = r.body.conversationMetrics;
      assert.equal(c.callCount, 2);
      assert.equal(c.averageTurnCount, 8);
      assert.equal(c.averageSilenceShare, avg(m1.silenceShare, m2.silenceShare));
      assert.equal(c.averageResponseLatencySeconds, avg(m1.responseLatency.averageSeconds!, m2.responseLatency.averageSeconds!));
      assert.equal(c.averageLongestMonologueSeconds, 4.5);
      assert.equal(c.averageInterruptionCount, 0);
      assert.deepEqual(Object.keys(c.byRole).sort(), ['CONTACT', 'USER']);
      assert.equal(c.byRole.USER.callCount, 2);
      assert.equal(c.byRole.USER.averageTalkShare, 0.5);
      assert.equal(c.byRole.CONTACT.averageWordsPerMinute, avg(m1.parties[1].wordsPerMinute!, m2.parties[1].wordsPerMinute!));
      assert.equal(c.byRole.CONTACT.averageResponseLatencySeconds, avg(m1.parties[1].averageResponseLatencySeconds!, m2.parties[1].averageResponseLatencySeconds!));

      const other = await t.request('GET', '/api/analytics/vibe', { token: t.tokenB });
      assert.equal(other.body.conversationMetrics.callCount, 0);
      assert.deepEqual(other.body.conversationMetrics.byRole, {});
    });
  });
}

// Re-running the analysis keeps the user's work on AI action items (issue 22, finding 3): an item
// the user edited (every PUT field, or its status) keeps the user's fields and its id, an item the
// user deleted stays deleted, an unchanged untouched item keeps its id, and only the untouched
// items the analysis words differently are replaced. Exercised through a speaker rename (whose
// analysis runs on the analysis queue) and then re-analysis, against the real service.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dbModes } from '../support/service.js';
import { withTwoUsers } from '../support/two-users.js';
import { fixture, seedCompletedCall } from '../fixtures/seed.js';
import type { Analyzer } from '../../src/pipeline/types.js';
import type { Analysis } from '../../src/domain/analysis.js';
import { storeAnalysis } from '../../src/domain/call-results.js';

/**
 * A scripted analyzer: the same five items on every run, two of which name the contact (speaker
 * spk_2) in their title, so renaming that speaker rewords them as a model would.
 */
const analyzer: Analyzer = {
  provider: 'scripted',
  model: 'scripted',
  async analyze(transcript) {
    const contact = transcript.speakers.find((s) => s.speakerId === 'spk_2')?.displayName ?? 'the caller';
    const user = transcript.speakers.find((s) => s.speakerId === 'spk_1')!;
    const item = (title: string, seg: string, intent: string, priority: 'low' | 'medium' | 'high') => ({
      title,
      description: `About ${seg}.`,
      ownerSpeaker: user.displayName,
      ownerSpeakerId: user.speakerId,
      ownerSpeakerLabel: user.label,
      ownerDisplayName: user.displayName,
      ownerRole: user.role,
      dueDate: '2025-04-01',
      priority,
      sourceSegmentIds: [seg],
      intent,
      intentMetadata: null,
    });
    const base = fixture<Analysis>('analysis-v3.json');
    return {
      ...base,
      actionItems: [
        item(`Send the Zoom invite to ${contact}`, 'seg_0003', 'meeting', 'high'),
        item('Email the pricing sheet', 'seg_0007', 'email', 'medium'),
        item('Confirm the invite address', 'seg_0006', 'task', 'low'),
        item('Prepare the fleet scheduling demo', 'seg_0004', 'task', 'medium'),
        item(`Ask ${contact} about their fleet size`, 'seg_0002', 'task', 'low'),
      ],
    } as Analysis;
  },
};

for (const mode of await dbModes()) {
  describe(`re-analysis keeps the user's action items (${mode} database)`, () => {
    const t = withTwoUsers(mode, { a: { sub: 'keep-a', name: 'Olivia Park' }, b: { sub: 'keep-b' } }, { pipeline: { analyzer }, workers: true });

    const items = async (callId: string) => {
      const r = await t.request('GET', `/api/calls/${callId}/action-items`, { token: t.tokenA });
      assert.equal(r.status, 200);
      return r.body as any[];
    };
    /** Polls the call detail until the queued analysis is stored (a cooperative wait, no timing assertion). */
    const settled = async (callId: string) => {
      for (let i = 0; i < 240; i++) {
        const r = await t.request('GET', `/api/calls/${callId}`, { token: t.tokenA });
        if (r.status === 200 && r.body.analysisPending === undefined) return r.body;
        await new Promise((res) => setTimeout(res, 250));
      }
      throw new Error('the analysis did not arrive');
    };

    test('edited, completed and deleted AI items survive a speaker rename and re-analysis; unchanged ones keep their ids', async () => {
      const callId = await seedCompletedCall(t, t.userA);
      assert.equal((await t.request('POST', `/api/calls/${callId}/reanalyze`, { token: t.tokenA })).status, 200);
      const first = await items(callId);
      const byTitle = (list: any[], title: string) => list.find((i) => i.title === title);
      const invite = byTitle(first, 'Send the Zoom invite to Bayview Logistics');
      const pricing = byTitle(first, 'Email the pricing sheet');
      const address = byTitle(first, 'Confirm the invite address');
      const demo = byTitle(first, 'Prepare the fleet scheduling demo');
      const fleet = byTitle(first, 'Ask Bayview Logistics about their fleet size');
      assert.ok(invite && pricing && address && demo && fleet, JSON.stringify(first.map((i) => i.title)));

      // Every field PUT lets a user change, on one item; DONE by the status route on another; a third deleted.
      const edited = { title: 'Invite Dana and Sam to the demo', description: 'Both of them.', dueDate: '2025-04-03', priority: 'LOW', status: 'IN_PROGRESS' };
      assert.equal((await t.request('PUT', `/api/action-items/${invite.id}`, { token: t.tokenA, body: edited })).status, 200);
      assert.equal((await t.request('PATCH', `/api/actions/${pricing.id}`, { token: t.tokenA, body: { status: 'DONE' } })).status, 200);
      assert.equal((await t.request('DELETE', `/api/action-items/${address.id}`, { token: t.tokenA })).status, 204);
      const manual = (await t.request('POST', `/api/calls/${callId}/action-items`, { token: t.tokenA, body: { title: 'My own note' } })).body;

      const check = async (when: string, fleetId?: string) => {
        const now = await items(callId);
        const ctx = `${when}: ${JSON.stringify(now.map((i) => [i.id, i.title, i.status]))}`;
        const keptInvite = now.find((i) => i.id === invite.id);
        assert.ok(keptInvite, `the edited item keeps its id (${ctx})`);
        assert.deepEqual(
          { title: keptInvite.title, description: keptInvite.description, dueDate: keptInvite.dueDate, priority: keptInvite.priority, status: keptInvite.status },
          edited,
          ctx,
        );
        assert.equal(now.filter((i) => /Zoom invite/.test(i.title)).length, 0, `the edited item is not doubled by a fresh copy (${ctx})`);
        const keptPricing = now.find((i) => i.id === pricing.id);
        assert.equal(keptPricing?.status, 'DONE', ctx);
        assert.equal(keptPricing?.title, 'Email the pricing sheet', ctx);
        assert.ok(!now.some((i) => i.id === address.id || i.title === 'Confirm the invite address'), `the deleted item does not come back (${ctx})`);
        assert.ok(now.some((i) => i.id === demo.id && i.title === 'Prepare the fleet scheduling demo' && i.status === 'OPEN'), `the unchanged untouched item keeps its id (${ctx})`);
        assert.ok(now.some((i) => i.id === manual.id), ctx);
        const newFleet = now.find((i) => i.title === 'Ask Dana from Bayview about their fleet size');
        assert.ok(newFleet && newFleet.id !== fleet.id, `the reworded untouched item is replaced (${ctx})`);
        if (fleetId) assert.equal(newFleet.id, fleetId, `once replaced, it keeps its new id (${ctx})`);
        assert.equal(now.length, 5, ctx);
        return newFleet.id as string;
      };

      const r = await t.request('PATCH', `/api/calls/${callId}/speakers`, { token: t.tokenA, body: { operations: [{ type: 'RENAME_SPEAKER', speakerId: 'spk_2', displayName: 'Dana from Bayview' }] } });
      assert.equal(r.status, 200);
      await settled(callId);
      const fleetId = await check('after the rename');

      assert.equal((await t.request('POST', `/api/calls/${callId}/reanalyze`, { token: t.tokenA })).status, 200);
      await check('after re-analysis', fleetId);

      // Counts and the user-wide list agree: the deleted item is gone everywhere.
      const all = (await t.request('GET', '/api/actions', { token: t.tokenA })).body as any[];
      assert.ok(!all.some((i) => i.id === address.id));
      const listed = (await t.request('GET', '/api/calls?limit=100', { token: t.tokenA })).body.items.find((c: any) => c.callId === callId);
      assert.equal(listed.actionItemCount, 5);
    });

    test('a re-analysis that finds the same items changes no id and no updatedAt', async () => {
      const callId = await seedCompletedCall(t, t.userA);
      assert.equal((await t.request('POST', `/api/calls/${callId}/reanalyze`, { token: t.tokenA })).status, 200);
      const before = await items(callId);
      assert.equal((await t.request('POST', `/api/calls/${callId}/reanalyze`, { token: t.tokenA })).status, 200);
      const after = await items(callId);
      assert.deepEqual(after.map((i) => [i.id, i.updatedAt]), before.map((i) => [i.id, i.updatedAt]));
    });

    test('stored analyses merge: an edited item the analysis no longer finds stays, an untouched one goes, rows older than fingerprints still match', async () => {
      const callId = await seedCompletedCall(t, t.userA, { analysis: null });
      const db = t.service.ctx.database.db;
      const base = fixture<Analysis>('analysis-v3.json');
      const [invite, pricing] = base.actionItems as any[];
      const store = (items: unknown[]) => db.transaction().execute((trx) => storeAnalysis(trx, t.userA, callId, { ...base, actionItems: items } as Analysis));
      await store([invite, pricing]);
      const first = await items(callId);
      const [a, b] = [first.find((i) => i.title === invite.title), first.find((i) => i.title === pricing.title)];
      assert.equal((await t.request('PATCH', `/api/actions/${a.id}`, { token: t.tokenA, body: { status: 'IN_PROGRESS' } })).status, 200);
      // A row stored before fingerprints were recorded: its fingerprint is computed from the row.
      await db.updateTable('actionItems').set({ aiFingerprint: null }).where('id', '=', b.id).execute();

      await store([pricing, { ...invite, title: 'Something else entirely', sourceSegmentIds: ['seg_0001'] }]);
      const now = await items(callId);
      assert.ok(now.some((i) => i.id === a.id && i.status === 'IN_PROGRESS' && i.title === invite.title), 'the edited item stays although the analysis no longer finds it');
      assert.ok(now.some((i) => i.id === b.id), 'the legacy row is recognised and keeps its id');
      assert.ok(now.some((i) => i.title === 'Something else entirely' && i.status === 'OPEN'));
      assert.equal(now.length, 3);

      await store([]);
      assert.deepEqual((await items(callId)).map((i) => i.id), [a.id], 'an empty analysis removes only the untouched AI items');
    });
  });
}

// Action items across re-analyses (replaceAiActionItems), against a real PostgreSQL through the
// repositories: which rows keep their id, which user edits and deletions survive, and how the
// content fingerprint and the source key decide it. The end-to-end view (HTTP, a real analyzer)
// is test/http/analysis-keeps-edits.test.ts; these pin the rules one by one.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { domainDatabase, skipWithoutDatabase } from '../support/domain-db.js';
import { aiFingerprint, aiSourceKey, createManual, deleteActionItem, listForCall, replaceActionItem, replaceAiActionItems } from '../../src/domain/action-items.js';
import type { Analysis } from '../../src/domain/analysis.js';

type Found = { title: string; description?: string; intent?: string; sourceSegmentIds?: string[]; ownerSpeakerId?: string; ownerDisplayName?: string; priority?: string };

describe('fingerprint and source key of an AI action item', () => {
  const base = { title: 'Send the contract', description: null, dueDate: null, priority: null, intent: 'email', sourceSegmentIds: ['s2', 's1'], ownerSpeakerId: 'spk_0' };

  test('the fingerprint ignores case, spacing and citation order, and changes with what the item says or whose it is', () => {
    const print = aiFingerprint(base);
    assert.equal(aiFingerprint({ ...base, title: '  send   THE contract ', sourceSegmentIds: ['s1', 's2'] }), print);
    assert.notEqual(aiFingerprint({ ...base, title: 'Send the invoice' }), print);
    assert.notEqual(aiFingerprint({ ...base, dueDate: '2026-12-01' }), print);
    assert.notEqual(aiFingerprint({ ...base, ownerSpeakerId: 'spk_1' }), print);
    assert.notEqual(aiFingerprint({ ...base, sourceSegmentIds: ['s1'] }), print);
  });

  test('the source key is the intent and the cited segments in any order; an item citing nothing has none', () => {
    assert.equal(aiSourceKey(base), aiSourceKey({ intent: 'email', sourceSegmentIds: ['s1', 's2'] }));
    assert.notEqual(aiSourceKey(base), aiSourceKey({ intent: 'call', sourceSegmentIds: ['s1', 's2'] }));
    assert.equal(aiSourceKey({ intent: 'email', sourceSegmentIds: [] }), null);
  });
});

describe('action items across re-analyses (external database)', { skip: skipWithoutDatabase }, () => {
  const { db, user, call } = domainDatabase();

  const analyse = (userId: string, callId: string, found: Found[]) =>
    db()
      .transaction()
      .execute((trx) => replaceAiActionItems(trx, userId, callId, { actionItems: found } as unknown as Analysis));
  const itemsOf = async (userId: string, callId: string) => (await listForCall(db(), userId, callId))!;

  test('an item found again keeps its id, even reworded only in case and spacing; a changed one is replaced; a vanished one goes', async () => {
    const a = await user('again');
    const callId = await call(a.id);
    await analyse(a.id, callId, [{ title: 'Send the contract', sourceSegmentIds: ['s1'] }, { title: 'Book the room' }, { title: 'Call the bank' }]);
    const [contract, room, bank] = await itemsOf(a.id, callId);
    const inserted = await analyse(a.id, callId, [{ title: 'send  the CONTRACT', sourceSegmentIds: ['s1'] }, { title: 'Book the large room' }]);
    assert.equal(inserted, 1, 'only the changed item is new');
    const after = await itemsOf(a.id, callId);
    assert.equal(after.length, 2);
    assert.equal(after[0].id, contract.id);
    assert.notEqual(after[1].id, room.id);
    assert.equal(after[1].title, 'Book the large room');
    assert.ok(!after.some((i) => i.id === bank.id), 'an item the analysis no longer finds is removed');
  });

  test("an item the user edited keeps the user's words and status; the re-analysis's rewording of it (same intent and citations) is not added beside it", async () => {
    const a = await user('edited');
    const callId = await call(a.id);
    await analyse(a.id, callId, [{ title: 'Email Dana the quote', intent: 'email', sourceSegmentIds: ['s3', 's4'], ownerSpeakerId: 'spk_0', ownerDisplayName: 'Speaker 1' }]);
    const [item] = await itemsOf(a.id, callId);
    await replaceActionItem(db(), a.id, item.id, { title: 'Email Dana the revised quote', description: 'by Friday', dueDate: '2026-12-04', priority: 'HIGH', status: 'IN_PROGRESS' });
    // The speaker was renamed meanwhile: the analysis words the item differently, citing the same segments.
    const inserted = await analyse(a.id, callId, [{ title: 'Email Dana Reyes the quote', intent: 'email', sourceSegmentIds: ['s4', 's3'], ownerSpeakerId: 'spk_0', ownerDisplayName: 'Dana Reyes' }]);
    assert.equal(inserted, 0);
    const after = await itemsOf(a.id, callId);
    assert.equal(after.length, 1);
    assert.equal(after[0].id, item.id);
    assert.deepEqual(
      [after[0].title, after[0].description, after[0].dueDate, after[0].priority, after[0].status],
      ['Email Dana the revised quote', 'by Friday', '2026-12-04', 'HIGH', 'IN_PROGRESS'],
    );
    assert.equal(after[0].ownerDisplayName, 'Dana Reyes', 'the owner follows the transcript');
  });

  test('an edited item stays when the re-analysis no longer finds it; an unedited one does not', async () => {
    const a = await user('kept');
    const callId = await call(a.id);
    await analyse(a.id, callId, [{ title: 'Renew the lease' }, { title: 'Pay the deposit' }]);
    const [lease, deposit] = await itemsOf(a.id, callId);
    await replaceActionItem(db(), a.id, lease.id, { title: 'Renew the lease', description: null, dueDate: null, priority: null, status: 'DONE' });
    await analyse(a.id, callId, []);
    const after = await itemsOf(a.id, callId);
    assert.deepEqual(after.map((i) => [i.id, i.status]), [[lease.id, 'DONE']]);
    assert.ok(!after.some((i) => i.id === deposit.id));
  });

  test('a deleted item stays deleted when reworded with the same citations; deleting one of two items citing the same segments hides neither sibling', async () => {
    const a = await user('tomb');
    const callId = await call(a.id);
    await analyse(a.id, callId, [{ title: 'Ship the samples', intent: 'task', sourceSegmentIds: ['s7'] }]);
    const [ship] = await itemsOf(a.id, callId);
    await deleteActionItem(db(), a.id, ship.id);
    assert.equal(await analyse(a.id, callId, [{ title: 'Ship the samples to Lyon', intent: 'task', sourceSegmentIds: ['s7'] }]), 0, 'the source key suppresses the rewording');
    assert.equal((await itemsOf(a.id, callId)).length, 0);

    const other = await call(a.id);
    const twins: Found[] = [
      { title: 'Order the paint', intent: 'task', sourceSegmentIds: ['s9'] },
      { title: 'Order the brushes', intent: 'task', sourceSegmentIds: ['s9'] },
    ];
    await analyse(a.id, other, twins);
    const [paint, brushes] = await itemsOf(a.id, other);
    await deleteActionItem(db(), a.id, paint.id);
    await analyse(a.id, other, twins);
    const after = await itemsOf(a.id, other);
    assert.deepEqual(after.map((i) => [i.id, i.title]), [[brushes.id, 'Order the brushes']], 'the deleted twin stays gone (its fingerprint), the sibling stays');
  });

  test('manual items are never touched by a re-analysis', async () => {
    const a = await user('manual');
    const callId = await call(a.id);
    const manual = await createManual(db(), a.id, callId, { title: 'Ask about parking' });
    await analyse(a.id, callId, [{ title: 'Ask about parking' }]);
    await analyse(a.id, callId, []);
    const after = await itemsOf(a.id, callId);
    assert.deepEqual(after.map((i) => [i.id, i.source]), [[manual.id, 'MANUAL']]);
  });
});

// Domain rules through the repositories against a real PostgreSQL (a fresh, migrated database on
// the external server): no HTTP, no pipeline. Each rule is one the routes rely on.
import { describe, test } from 'node:test';
import crypto from 'node:crypto';
import assert from 'node:assert/strict';
import { domainDatabase, skipWithoutDatabase } from '../support/domain-db.js';
import { createManual, deleteActionItem, replaceAiActionItems, setActionItemStatus, listForCall } from '../../src/domain/action-items.js';
import { autoAssignContact } from '../../src/domain/contact-assignment.js';
import { toggleFlag } from '../../src/domain/admin.js';
import { addCredits, auditLogPage } from '../../src/store/repos/admin.js';
import { recordUpload } from '../../src/store/repos/usage.js';
import { getUser } from '../../src/store/repos/users.js';
import { billCallMinutes } from '../../src/domain/billing.js';
import type { UsageLimits } from '../../src/domain/usage.js';
import { ErrorCode, ServiceError } from '../../src/domain/errors.js';
import type { Analysis } from '../../src/domain/analysis.js';

describe('domain rules through the repositories (external database)', { skip: skipWithoutDatabase }, () => {
  const { db, user, call } = domainDatabase();
  const codeOf = (code: ErrorCode) => (err: unknown) => err instanceof ServiceError && err.code === code;

  test("another user's action item is answered exactly like a missing one, and is left unchanged", async () => {
    const [a, b] = [await user('a'), await user('b')];
    const callId = await call(a.id);
    const item = await createManual(db(), a.id, callId, { title: ' Send the quote ' });
    assert.equal(item.title, 'Send the quote');
    await assert.rejects(setActionItemStatus(db(), b.id, item.id, 'DONE'), codeOf(ErrorCode.ActionItemNotFound));
    await assert.rejects(setActionItemStatus(db(), a.id, crypto.randomUUID(), 'DONE'), codeOf(ErrorCode.ActionItemNotFound));
    await assert.rejects(createManual(db(), b.id, callId, { title: 'x' }), codeOf(ErrorCode.CallNotFound));
    assert.equal(await listForCall(db(), b.id, callId), undefined);
    const [stored] = (await listForCall(db(), a.id, callId))!;
    assert.equal(stored.status, 'OPEN');
  });

  test('DONE stamps completedAt once; saving DONE again keeps it, another status clears it', async () => {
    const a = await user('done');
    const item = await createManual(db(), a.id, await call(a.id), { title: 'Call back' });
    const first = await setActionItemStatus(db(), a.id, item.id, 'DONE');
    assert.ok(first.completedAt instanceof Date);
    const again = await setActionItemStatus(db(), a.id, item.id, 'DONE');
    assert.equal(again.completedAt?.getTime(), first.completedAt.getTime());
    const reopened = await setActionItemStatus(db(), a.id, item.id, 'OPEN');
    assert.equal(reopened.completedAt, null);
    assert.ok(reopened.userEditedAt instanceof Date);
  });

  test('an AI item the user deleted does not come back with the next analysis; the others keep their ids', async () => {
    const a = await user('ai');
    const callId = await call(a.id);
    const analysis = { actionItems: [{ title: 'Send the contract' }, { title: 'Book the room' }] } as unknown as Analysis;
    await db().transaction().execute((trx) => replaceAiActionItems(trx, a.id, callId, analysis));
    const before = (await listForCall(db(), a.id, callId))!;
    assert.deepEqual(before.map((i) => i.title), ['Send the contract', 'Book the room']);
    await deleteActionItem(db(), a.id, before[0].id);
    const inserted = await db().transaction().execute((trx) => replaceAiActionItems(trx, a.id, callId, analysis));
    assert.equal(inserted, 0);
    const afterItems = (await listForCall(db(), a.id, callId))!;
    assert.deepEqual(afterItems.map((i) => [i.id, i.title]), [[before[1].id, 'Book the room']]);
  });

  test('contact auto-assignment matches a name case-insensitively and creates one contact per user', async () => {
    const [a, b] = [await user('ca'), await user('cb')];
    const meta = { serviceContactId: null, contactName: 'Olivia Park', phoneNumber: ' +1 555 0100 ' };
    const first = await db().transaction().execute((trx) => autoAssignContact(trx, a.id, meta));
    const second = await db().transaction().execute((trx) => autoAssignContact(trx, a.id, { ...meta, contactName: '  olivia PARK ' }));
    assert.equal(second, first);
    const other = await db().transaction().execute((trx) => autoAssignContact(trx, b.id, meta));
    assert.notEqual(other, first, "another user's contact of the same name is never linked");
    assert.equal(await db().transaction().execute((trx) => autoAssignContact(trx, a.id, { ...meta, contactName: '   ' })), null);
    const linked = crypto.randomUUID();
    assert.equal(await db().transaction().execute((trx) => autoAssignContact(trx, a.id, { ...meta, serviceContactId: linked })), linked);
  });

  test('a flag toggle and its audit entry commit together; an unknown flag changes nothing and leaves no entry', async () => {
    const before = await auditLogPage(db(), { limit: 100, offset: 0 });
    const flag = await toggleFlag(db(), 'admin@example.test', 'billing_enabled', true);
    assert.deepEqual([flag.flagKey, flag.enabled, flag.updatedBy], ['billing_enabled', true, 'admin@example.test']);
    await assert.rejects(toggleFlag(db(), 'admin@example.test', 'no_such_flag', true), codeOf(ErrorCode.FlagNotFound));
    const afterLog = await auditLogPage(db(), { limit: 100, offset: 0 });
    assert.equal(afterLog.total, before.total + 1);
    assert.equal(afterLog.rows[0].action, 'FLAG_TOGGLE');
    assert.equal(afterLog.rows[0].targetId, 'billing_enabled');
  });

  test("billing a call's minutes: the ledger gets its length, minutes beyond the allowance come off the top-up balance (never below zero)", async () => {
    const a = await user('bill');
    await db().transaction().execute((trx) => addCredits(trx, a.id, 10, 0));
    const limits = { minutesLimit: 30, minutesUsedThisPeriod: 28 } as UsageLimits;
    const first = await call(a.id);
    await recordUpload(db(), a.id, first, 1000);
    // 5 minutes with 2 left in the allowance: 3 from the top-up balance.
    await db().transaction().execute((trx) => billCallMinutes(trx, a.id, first, 300, limits));
    assert.equal((await getUser(db(), a.id))!.topupMinutesBalance, 7);
    const ledger = await db().selectFrom('usageLedger').select('durationSeconds').where('callId', '=', first).executeTakeFirstOrThrow();
    assert.equal(ledger.durationSeconds, 300);
    // Billing off (no limits): the length is recorded, the balance untouched.
    const second = await call(a.id);
    await recordUpload(db(), a.id, second, 1000);
    await db().transaction().execute((trx) => billCallMinutes(trx, a.id, second, 6000, null));
    assert.equal((await getUser(db(), a.id))!.topupMinutesBalance, 7);
    // 100 minutes beyond: the balance stops at zero.
    await db().transaction().execute((trx) => billCallMinutes(trx, a.id, second, 6000, limits));
    assert.equal((await getUser(db(), a.id))!.topupMinutesBalance, 0);
  });
});

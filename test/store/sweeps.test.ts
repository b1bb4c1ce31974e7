// sweepOrphanCallFiles against the real database and blob store.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import crypto from 'node:crypto';
import fs from 'node:fs';
import { startTestService, type TestService } from '../support/service.js';
import { sweepOrphanCallFiles } from '../../src/store/sweeps.js';
import { audioKey, type FileBlobStore } from '../../src/store/blobs.js';

let t: TestService;
before(async () => {
  t = await startTestService();
});
after(async () => t?.stop());

test('sweepOrphanCallFiles removes old files of calls that do not exist and keeps the rest', async () => {
  const { db } = t.service.ctx.database;
  const blobs = t.service.ctx.blobs;
  const me = (await t.request('GET', '/api/users/me')).body.id;
  const [call] = await db
    .insertInto('calls')
    .values({ userId: me, updatedAt: new Date(), title: null, uploadTitle: null, suggestedTitle: null, direction: null, contactName: null, legacyContactId: null, phoneNumber: null, organization: null, durationSeconds: null, recordedAt: null, completedAt: null, errorReason: null, summary: null, notes: null, serviceContactId: null, audioKey: null, audioFormat: null, idempotencyKey: null })
    .returning('id')
    .execute();
  const kept = audioKey(me, call.id, 'wav');
  const orphan = audioKey(me, crypto.randomUUID(), 'wav');
  const fresh = audioKey(me, crypto.randomUUID(), 'wav');
  for (const k of [kept, orphan, fresh]) await blobs.put(k, Readable.from([Buffer.from('RIFF')]));
  const old = new Date(Date.now() - 2 * 3600_000);
  for (const k of [kept, orphan]) fs.utimesSync((blobs as FileBlobStore).localPath(k), old, old);

  assert.equal(await sweepOrphanCallFiles(db, blobs), 1);
  assert.equal(await blobs.exists(orphan), false, 'old file without a call removed');
  assert.equal(await blobs.exists(kept), true, 'file of an existing call kept');
  assert.equal(await blobs.exists(fresh), true, 'recent file kept: its upload may still be committing');
});

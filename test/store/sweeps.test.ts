// sweepOrphanCallFiles against the real database and blob store, including the careless operator's
// second deployment next to the same blob store (issue 22, finding 7).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { startTestService, tempDir, type TestService } from '../support/service.js';
import { sweepOrphanCallFiles, sweepStrayVoiceSamples } from '../../src/store/sweeps.js';
import { audioKey, type FileBlobStore } from '../../src/store/blobs.js';
import { BINDING_KEY, databaseId, ensureBlobBinding, readBindingMarker, writeBindingMarker } from '../../src/store/blob-binding.js';

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

/** A call row of `userId` with a file aged two hours in the blob store; returns the file's key. */
async function callWithOldFile(svc: TestService, userId: string): Promise<string> {
  const { db } = svc.service.ctx.database;
  const blobs = svc.service.ctx.blobs;
  const [call] = await db
    .insertInto('calls')
    .values({ userId, updatedAt: new Date(), title: null, uploadTitle: null, suggestedTitle: null, direction: null, contactName: null, legacyContactId: null, phoneNumber: null, organization: null, durationSeconds: null, recordedAt: null, completedAt: null, errorReason: null, summary: null, notes: null, serviceContactId: null, audioKey: null, audioFormat: null, idempotencyKey: null })
    .returning('id')
    .execute();
  const key = audioKey(userId, call.id, 'wav');
  await blobs.put(key, Readable.from([Buffer.from('RIFF')]));
  const old = new Date(Date.now() - 2 * 3600_000);
  fs.utimesSync((blobs as FileBlobStore).localPath(key), old, old);
  return key;
}

describe('the orphan sweep only runs against the database its blob store belongs to', () => {
  test('a second service started on an empty database next to the same blob folder deletes nothing', async () => {
    // The careless operator: a second deployment (staging, a fresh container) whose database is
    // empty, but whose DATA_DIR/blobs is the production folder.
    const me = (await t.request('GET', '/api/users/me')).body.id;
    const keys = [await callWithOldFile(t, me), await callWithOldFile(t, me)];
    // The second service's own empty database; its blob folder then replaced by the first's.
    let second = await startTestService();
    const secondDir = second.dataDir;
    // Test databases are copies of one template and so share its id, as a restored backup would;
    // a database made by its own migrations has an id of its own.
    await second.service.ctx.database.db.updateTable('serviceIdentity').set({ databaseId: crypto.randomUUID() }).execute();
    await second.service.stop(); // keeps its DATA_DIR (second.stop() would remove it)
    fs.rmSync(path.join(secondDir, 'blobs'), { recursive: true, force: true });
    fs.symlinkSync(path.join(t.dataDir, 'blobs'), path.join(secondDir, 'blobs'));
    second = await startTestService({ dataDir: secondDir });
    try {
      // Its start-up sweep runs in the background; the explicit sweep below does the same work.
      assert.equal(await sweepOrphanCallFiles(second.service.ctx.database.db, second.service.ctx.blobs, 0), 0);
      for (const k of keys) assert.equal(await t.service.ctx.blobs.exists(k), true, 'a recording of the first service survives');
      assert.notEqual(await databaseId(second.service.ctx.database.db), await databaseId(t.service.ctx.database.db));
      assert.equal(await readBindingMarker(t.service.ctx.blobs), await databaseId(t.service.ctx.database.db), 'the marker still names the first database');
    } finally {
      await second.stop();
      fs.rmSync(secondDir, { recursive: true, force: true });
    }
    // The first service, whose store it is, still sweeps its own orphans.
    const { db } = t.service.ctx.database;
    await db.deleteFrom('calls').where('userId', '=', me).execute();
    assert.ok((await sweepOrphanCallFiles(db, t.service.ctx.blobs)) >= 2);
    for (const k of keys) assert.equal(await t.service.ctx.blobs.exists(k), false);
  });

  test('an install from before the marker: bound when its database holds the stored calls, refused when not', async () => {
    const { db } = t.service.ctx.database;
    const blobs = t.service.ctx.blobs as FileBlobStore;
    const me = (await t.request('GET', '/api/users/me')).body.id;
    await db.deleteFrom('calls').execute();
    await blobs.deletePrefix('users');
    const kept = await callWithOldFile(t, me);
    const orphan = audioKey(me, crypto.randomUUID(), 'wav');
    await blobs.put(orphan, Readable.from([Buffer.from('RIFF')]));
    const old = new Date(Date.now() - 2 * 3600_000);
    fs.utimesSync(blobs.localPath(orphan), old, old);

    // No marker and a database that knows none of the stored calls (a wrong DATABASE_URL on an
    // old install): nothing is deleted and the store stays unbound.
    fs.rmSync(blobs.localPath(BINDING_KEY));
    const realId = await databaseId(db);
    await db.updateTable('serviceIdentity').set({ databaseId: crypto.randomUUID() }).execute();
    await db.deleteFrom('calls').where('userId', '=', me).execute();
    assert.deepEqual(await ensureBlobBinding(db, blobs), { bound: false, databaseId: await databaseId(db), reason: 'files_of_unknown_calls' });
    assert.equal(await sweepOrphanCallFiles(db, blobs), 0);
    assert.equal(await blobs.exists(orphan), true);
    assert.equal(await blobs.exists(kept), true);
    assert.equal(await readBindingMarker(blobs), null, 'no marker written for a database that does not own the files');

    // The real database of that install (it holds the stored calls): the upgrade binds the store
    // and the sweep removes the true orphan only.
    await db.updateTable('serviceIdentity').set({ databaseId: realId }).execute();
    const keptCallId = kept.split('/')[3];
    await db
      .insertInto('calls')
      .values({ id: keptCallId, userId: me, updatedAt: new Date(), title: null, uploadTitle: null, suggestedTitle: null, direction: null, contactName: null, legacyContactId: null, phoneNumber: null, organization: null, durationSeconds: null, recordedAt: null, completedAt: null, errorReason: null, summary: null, notes: null, serviceContactId: null, audioKey: null, audioFormat: null, idempotencyKey: null })
      .execute();
    assert.equal(await sweepOrphanCallFiles(db, blobs), 1);
    assert.equal(await blobs.exists(orphan), false);
    assert.equal(await blobs.exists(kept), true);
    assert.equal(await readBindingMarker(blobs), realId);

    // A marker someone edited by hand is not trusted either.
    fs.writeFileSync(blobs.localPath(BINDING_KEY), 'not json');
    assert.equal((await ensureBlobBinding(db, blobs)).bound, false);
    await writeBindingMarker(blobs, realId);
    assert.equal((await ensureBlobBinding(db, blobs)).bound, true);
    await db.deleteFrom('calls').where('userId', '=', me).execute();
  });
});

test('voice samples left by a crash mid-request are removed by the next start; a sample of a request in progress is kept', async () => {
  // The service stands for a process killed while a voice sample was being embedded: the sample
  // sits where the voice-profile route stores it, with no request left to delete it.
  let svc = await startTestService();
  const dataDir = svc.dataDir;
  try {
    const me = (await svc.request('GET', '/api/users/me')).body.id;
    const blobs = svc.service.ctx.blobs as FileBlobStore;
    const stray = `users/${me}/voice-samples/${crypto.randomUUID()}/sample.wav`;
    const inProgress = `users/${me}/voice-samples/${crypto.randomUUID()}/sample.wav`;
    for (const k of [stray, inProgress]) await blobs.put(k, Readable.from([Buffer.from('RIFF')]));
    const old = new Date(Date.now() - 2 * 3600_000);
    fs.utimesSync(blobs.localPath(stray), old, old);
    await svc.service.stop(); // keeps the DATA_DIR, as a killed process does

    // The start asks for a sweep on the durable queue; a worker (here the restarted process) runs it.
    svc = await startTestService({ dataDir, env: { WORKER_ENABLED: 'true' } });
    const restarted = svc.service.ctx.blobs;
    // The start-up sweep runs in the background.
    for (let i = 0; i < 100 && (await restarted.exists(stray)); i++) await new Promise((r) => setTimeout(r, 100));
    assert.equal(await restarted.exists(stray), false, 'the stray sample is gone');
    assert.equal(await restarted.exists(inProgress), true, 'a recent sample may belong to a request still running');
    assert.equal(await sweepStrayVoiceSamples(restarted), 0);
    assert.equal(await sweepStrayVoiceSamples(restarted, 0), 1);
  } finally {
    await svc.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

// What must hold in a service's storage whatever happened to it: every call has its audio, no call
// file lacks its call (beyond an upload still committing), no idempotency key is stuck in progress.
import assert from 'node:assert/strict';
import type { TestService } from './service.js';

const CALL_FILE = /^users\/([0-9a-f-]{36})\/calls\/([0-9a-f-]{36})\//;

export async function assertNothingHalfCreated(t: Pick<TestService, 'service'>): Promise<{ calls: number; files: number }> {
  const { database, blobs } = t.service.ctx;
  const calls = await database.db.selectFrom('calls').select(['id', 'audioKey', 'status']).execute();
  for (const c of calls) {
    assert.ok(c.audioKey, `call ${c.id} has no audio key`);
    assert.ok(await blobs.exists(c.audioKey), `call ${c.id} lost its audio`);
  }
  const callIds = new Set(calls.map((c) => c.id));
  const files = await blobs.list('users');
  for (const key of files) {
    assert.ok(!key.endsWith('.partial'), `half-written file ${key}`);
    const m = CALL_FILE.exec(key);
    if (m) assert.ok(callIds.has(m[2]), `file without a call: ${key}`);
  }
  const stuck = await database.db.selectFrom('idempotencyKeys').select('key').where('state', '=', 'IN_PROGRESS').execute();
  assert.deepEqual(stuck, [], 'idempotency keys stuck in progress');
  return { calls: calls.length, files: files.length };
}

// Storage faults during an upload: the blob directory full (a 256 KiB tmpfs) or read-only (the same
// tmpfs remounted read-only; chmod does not stop root). The upload answers a 5xx with the spec's
// error body, and nothing is half-created: no call row, no file, no partial file. The service
// takes uploads again once there is room. Needs permission to mount (root); skipped otherwise.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { startTestService, tempDir, uploadForm, type TestService } from '../support/service.js';
import { assertNothingHalfCreated } from '../support/invariants.js';
import { mountTmpfs, tmpfsSkip, type Tmpfs } from '../support/tmpfs.js';

describe('storage faults during an upload', { skip: tmpfsSkip('storage fault tests') }, () => {
  let t: TestService;
  let blobsDir: string;
  let disk: Tmpfs | undefined;
  const work = tempDir('cas-storage-');
  const big = path.join(work, 'big.wav');
  const small = path.join(work, 'small.wav');

  before(async () => {
    execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'sine=frequency=300:duration=20', '-ar', '16000', '-ac', '1', big]); // 640 KB
    execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'sine=frequency=300:duration=1', '-ar', '8000', '-ac', '1', small]); // 16 KB
    const dataDir = tempDir('cas-storage-data-');
    blobsDir = path.join(dataDir, 'blobs');
    disk = mountTmpfs(blobsDir, '256k');
    t = await startTestService({ dataDir, env: {} });
  });

  after(async () => {
    await t?.stop();
    disk?.unmount();
    fs.rmSync(path.dirname(blobsDir), { recursive: true, force: true });
    fs.rmSync(work, { recursive: true, force: true });
  });

  const countCalls = async () => (await t.service.ctx.database.db.selectFrom('calls').select('id').execute()).length;

  test('disk full mid-upload: 5xx with the error body, no call, no file, no partial', async () => {
    const r = await t.request('POST', '/api/calls/analyze', { form: uploadForm(big, { title: 'too big for the disk' }) });
    assert.ok(r.status >= 500 && r.status < 600, `${r.status} ${r.text}`);
    assert.equal(r.body.error.code, 'storage_unavailable', r.text);
    assert.doesNotMatch(r.text, /ENOSPC|blobs|\/tmp/);
    assert.equal(await countCalls(), 0);
    // Nothing but the store's binding to its database (service/, written at start).
    assert.deepEqual(fs.readdirSync(blobsDir, { recursive: true }).map(String).filter((f) => !f.startsWith('service/') && fs.statSync(path.join(blobsDir, f)).isFile()), []);
    // A file that fits is taken.
    const ok = await t.request('POST', '/api/calls/analyze', { form: uploadForm(small, { title: 'fits' }) });
    assert.equal(ok.status, 202, ok.text);
    await assertNothingHalfCreated(t);
  });

  test('read-only storage: 5xx with the error body, no call; uploads work again when writable', async () => {
    const before = await countCalls();
    disk!.remount('ro');
    try {
      const r = await t.request('POST', '/api/calls/analyze', { form: uploadForm(small, { title: 'read-only' }) });
      assert.ok(r.status >= 500 && r.status < 600, `${r.status} ${r.text}`);
      assert.equal(r.body.error.code, 'storage_unavailable', r.text);
      assert.doesNotMatch(r.text, /EROFS|blobs|\/tmp/);
      assert.equal(await countCalls(), before);
    } finally {
      disk!.remount('rw');
    }
    const ok = await t.request('POST', '/api/calls/analyze', { form: uploadForm(small, { title: 'writable again' }) });
    assert.equal(ok.status, 202, ok.text);
    assert.equal(await countCalls(), before + 1);
    await assertNothingHalfCreated(t);
  });
});

// The sweep of work directories left by a worker that died mid-job: old ones go, recent ones (a
// job of another process sharing the DATA_DIR may be running) stay.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { sweepWorkFiles } from '../../src/store/sweeps.js';
import { tempDir } from '../support/service.js';

test('work directories older than the job timeout are removed, recent ones kept', async () => {
  const dataDir = tempDir('cas-work-sweep-');
  try {
    assert.equal(await sweepWorkFiles(dataDir, 1000), 0, 'no work folder yet');
    const dead = path.join(dataDir, 'work', 'call-a-job-1');
    const running = path.join(dataDir, 'work', 'call-b-job-2');
    for (const d of [dead, running]) {
      fs.mkdirSync(d, { recursive: true });
      fs.writeFileSync(path.join(d, 'blob-audio.wav'), 'RIFF');
    }
    const old = new Date(Date.now() - 2 * 3600_000);
    fs.utimesSync(dead, old, old);
    assert.equal(await sweepWorkFiles(dataDir, 3600_000), 1);
    assert.equal(fs.existsSync(dead), false);
    assert.ok(fs.existsSync(path.join(running, 'blob-audio.wav')));
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

// The service on object storage (BLOB_STORE=s3, s3rver on loopback or TEST_S3_ENDPOINT): uploads
// land in the bucket under the owner's id and nothing under DATA_DIR, an upload cut off in the
// middle leaves no object and no call, a delete that object storage carries out only in part
// still deletes the call and the orphan sweep removes the rest, account deletion empties the
// user's folder, and a voice sample is downloaded, used and removed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { DeleteObjectsCommand } from '@aws-sdk/client-s3';
import { startTestService, tempDir, uploadForm, type TestService } from '../support/service.js';
import { startTestBucket, type TestBucket } from '../support/s3.js';
import { voiceSample } from '../support/voices.js';
import { pcmWavHeader } from '../support/wav.js';
import { sweepOrphanCallFiles } from '../../src/store/sweeps.js';
import type { S3BlobStore } from '../../src/store/s3-blobs.js';

function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}

describe('service on S3-compatible object storage', () => {
  let bucket: TestBucket;
  let t: TestService;
  let me: string;
  const samples = tempDir('cas-s3-samples-');
  const sample = voiceSample(samples, 'rms', { seconds: 8 });

  before(async () => {
    bucket = await startTestBucket();
    t = await startTestService({ env: { ...bucket.env, SERVICE_MAX_UPLOADS_PER_HOUR: '100' } });
    me = (await t.request('GET', '/api/users/me')).body.id;
  });
  after(async () => {
    await t?.stop();
    await bucket?.stop();
    fs.rmSync(samples, { recursive: true, force: true });
  });

  const upload = async (title: string) => {
    const r = await t.request('POST', '/api/calls/analyze', { form: uploadForm(sample, { title }) });
    assert.equal(r.status, 202, r.text);
    return r.body.callId as string;
  };

  test('an upload is stored in the bucket under the owner, and nothing under DATA_DIR', async () => {
    assert.equal(t.service.ctx.blobs.kind, 's3');
    const callId = await upload('stored');
    assert.deepEqual(await bucket.keys(`users/${me}/`), [`users/${me}/calls/${callId}/audio.wav`]);
    assert.deepEqual(filesUnder(path.join(t.dataDir, 'blobs')), []);
    assert.equal((await t.request('DELETE', `/api/calls/${callId}`)).status, 204);
    assert.deepEqual(await bucket.keys(`users/${me}/`), []);
  });

  test('an upload cut off in the middle leaves no object and no call', async () => {
    const blobs = t.service.ctx.blobs;
    const put = blobs.put.bind(blobs);
    let settled: Promise<unknown> | null = null;
    blobs.put = (key, source) => {
      const p = put(key, source);
      settled = p.then(() => 'stored', (err: Error) => err);
      return p;
    };
    try {
      const boundary = `----cas${crypto.randomBytes(8).toString('hex')}`;
      const audioBytes = 12 * 1024 * 1024;
      const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="call.wav"\r\nContent-Type: audio/wav\r\n\r\n`);
      const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
      const req = http.request(`${t.url}/api/calls/analyze`, {
        method: 'POST',
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(head.length + 44 + audioBytes + tail.length) },
      });
      req.on('error', () => undefined); // the socket is destroyed on purpose
      req.write(head);
      req.write(pcmWavHeader(audioBytes));
      const chunk = crypto.randomBytes(64 * 1024);
      for (let sent = 0; sent < 7 * 1024 * 1024; sent += chunk.length) {
        if (!req.write(chunk)) await new Promise((r) => req.once('drain', r));
      }
      const deadline = Date.now() + 30_000;
      while (!settled && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      assert.ok(settled, 'the server started storing the audio');
      await new Promise((r) => setTimeout(r, 300));
      req.destroy();
      const outcome = await settled!;
      assert.ok(outcome instanceof Error, `the store rejected the cut-off upload (got ${String(outcome)})`);
    } finally {
      blobs.put = put;
    }
    assert.deepEqual(await bucket.keys(`users/${me}/`), []);
    assert.deepEqual((await t.request('GET', '/api/calls')).body.items, []);
  });

  test('a delete that object storage carries out only in part deletes the call; the sweep removes the rest', async () => {
    const callId = await upload('partly deleted');
    const key = `users/${me}/calls/${callId}/audio.wav`;
    const store = t.service.ctx.blobs as S3BlobStore;
    const send = store.client.send;
    // Object storage reports the audio as not deleted (a per-key error in the DeleteObjects answer).
    store.client.send = (async (command: unknown) => {
      if (command instanceof DeleteObjectsCommand) return { Deleted: [], Errors: command.input.Delete!.Objects!.map((o) => ({ Key: o.Key, Code: 'InternalError' })) };
      return (send as (c: unknown) => Promise<unknown>).call(store.client, command);
    }) as typeof send;
    try {
      assert.equal((await t.request('DELETE', `/api/calls/${callId}`)).status, 204);
    } finally {
      store.client.send = send;
    }
    assert.equal((await t.request('GET', `/api/calls/${callId}`)).status, 404);
    assert.deepEqual(await bucket.keys(`users/${me}/`), [key], 'the refused object is an orphan');
    assert.equal(await sweepOrphanCallFiles(t.service.database.db, store, 0), 1);
    assert.deepEqual(await bucket.keys(`users/${me}/`), []);
  });

  test('object storage that cannot be reached during an upload answers 503 and leaves no call', async () => {
    const store = t.service.ctx.blobs as S3BlobStore;
    const send = store.client.send;
    store.client.send = (async () => {
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
    }) as typeof send;
    let r;
    try {
      r = await t.request('POST', '/api/calls/analyze', { form: uploadForm(sample, { title: 'storage down' }) });
    } finally {
      store.client.send = send;
    }
    assert.equal(r.status, 503, r.text);
    assert.equal(r.body.error.code, 'service_unavailable');
    assert.deepEqual((await t.request('GET', '/api/calls')).body.items, []);
  });

  test('a voice sample is downloaded for decoding, and neither it nor its copy is kept', async () => {
    const form = new FormData();
    form.append('file', new Blob([fs.readFileSync(sample)], { type: 'audio/wav' }), 'sample.wav');
    const r = await t.request('POST', '/api/users/me/voice-profile', { form });
    assert.ok(r.status === 201, r.text);
    assert.deepEqual(await bucket.keys(`users/${me}/`), []);
    assert.deepEqual(filesUnder(t.dataDir).filter((f) => !f.startsWith(path.join(t.dataDir, 'postgres'))).filter((f) => /\.(wav|pcm|raw|m4a|mp3|ogg|aac)$/.test(f)), []);
  });

  test('account deletion removes every object of the user', async () => {
    const ids = [await upload('one'), await upload('two')];
    assert.equal((await bucket.keys(`users/${me}/`)).length, ids.length);
    assert.equal((await t.request('DELETE', '/api/users/me')).status, 204);
    assert.deepEqual(await bucket.keys(`users/${me}/`), []);
  });
});

// An upload reads nothing but its own bytes, tried as an attacker would through the real HTTP API
// (real ffmpeg, the real recogniser, a worker): user B uploads a few dozen bytes of "mp3" that are an
// ID3 tag and an HLS playlist naming user A's recording by its relative path in the blob store, the
// same playlist repeating one segment 300 times (15 kB that would decode to hours), or an ffconcat
// script; and sends the same as a voice-profile sample, which is decoded inside the API process.
// Each is refused at upload with 415 and none of A's speech reaches B. Recordings on disk are
// readable by the service's account only. A disk that fills up under the decoder is the machine's
// fault: the job is retried and the call completes once there is room.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { startTestService, tempDir, uploadForm, waitForCall, type TestService } from '../support/service.js';
import { TwoUserService } from '../support/two-users.js';
import { corpusFile, ensureCorpus } from '../support/corpus.js';
import { cachingTranscriber } from '../support/recognition-cache.js';
import { ffconcatScript, hlsPlaylist, id3Tag } from '../support/hostile-audio.js';
import { createTranscriber } from '../../src/pipeline/transcription/index.js';
import { FileBlobStore } from '../../src/store/blobs.js';
import { mountTmpfs, tmpfsSkip, type Tmpfs } from '../support/tmpfs.js';

const dir = tempDir('cas-contained-media-');
/**
 * A's recording: the first 15 s of a corpus call's MP3, cut by stream copy (the MP3 muxer writes
 * an ID3 tag in front, as the whole file has). Short, so that each real recognition of it in this
 * file costs seconds, not the whole call's.
 */
const CLIP_SECONDS = 15;
let clipFile = '';
function clip(): string {
  if (!clipFile) {
    ensureCorpus(['car-repair']);
    clipFile = path.join(dir, 'garage-call.mp3');
    execFileSync('ffmpeg', ['-nostdin', '-v', 'error', '-i', corpusFile('car-repair', 'call.mp3'), '-t', String(CLIP_SECONDS), '-c', 'copy', clipFile]);
    assert.equal(fs.readFileSync(clipFile).subarray(0, 3).toString('latin1'), 'ID3', 'the clip is an ID3-tagged MP3');
  }
  return clipFile;
}
const write = (name: string, body: string): string => {
  const f = path.join(dir, name);
  fs.writeFileSync(f, Buffer.concat([id3Tag(), Buffer.from(body)]));
  return f;
};

/** Every entry under `root` with its permission bits. */
function modesUnder(root: string): Array<{ path: string; dir: boolean; mode: number }> {
  const out = [{ path: '.', dir: true, mode: fs.statSync(root).mode & 0o777 }];
  for (const e of fs.readdirSync(root, { recursive: true, withFileTypes: true }) as fs.Dirent[]) {
    const p = path.join(e.parentPath ?? (e as any).path, e.name);
    out.push({ path: path.relative(root, p), dir: e.isDirectory(), mode: fs.statSync(p).mode & 0o777 });
  }
  return out;
}

describe('uploads contained to their own bytes (HTTP, worker, real ffmpeg)', () => {
  const t = new TwoUserService();
  let victimCall = '';
  /** Where A's recording sits, relative to the folder of any blob of B's (users/<B>/<kind>/<id>/). */
  let victimPath = '';

  before(async () => {
    // Rendered before the service starts (see ensureCorpus).
    const victimRecording = clip();
    const transcriber = cachingTranscriber(await createTranscriber({ provider: 'pocketsphinx' }, pino({ level: 'silent' })));
    await t.startWithUsers(
      'embedded',
      { a: { sub: 'contained-victim', name: 'Vera Victim' }, b: { sub: 'contained-attacker', name: 'Mallory Attacker' } },
      { env: { WORKER_ENABLED: 'true', WORKER_CONCURRENCY: '1', SERVICE_MAX_CONCURRENT_ACTIVE_CALLS: '20' }, pipeline: { transcriber } },
    );
    // A's call: an ID3-tagged MP3 of 15 s of speech, stored as users/<A>/calls/<id>/audio.mp3.
    const r = await t.request('POST', '/api/calls/analyze', { token: t.tokenA, form: uploadForm(victimRecording, { title: 'Garage call' }) });
    assert.equal(r.status, 202, r.text);
    victimCall = r.body.callId;
    victimPath = `../../../${t.userA}/calls/${victimCall}/audio.mp3`;
    assert.ok(fs.existsSync(path.join(t.dataDir, 'blobs', 'users', t.userB, 'calls', 'x', victimPath)), 'the relative path names A\'s recording');
  });
  after(async () => {
    await t.stop();
  });

  test('an ID3 tag in front of a playlist or script naming another user\'s recording is refused with 415', async () => {
    const attacks = {
      'ID3 + HLS playlist naming A\'s recording': write('hls.mp3', hlsPlaylist([victimPath])),
      'ID3 + HLS playlist repeating it 300 times': write('repeat.mp3', hlsPlaylist(Array(300).fill(victimPath))),
      'ID3 + ffconcat script naming it': write('concat.mp3', ffconcatScript([victimPath])),
    };
    assert.ok(fs.statSync(attacks['ID3 + HLS playlist naming A\'s recording']).size < 200, 'a few dozen bytes');
    for (const [name, file] of Object.entries(attacks)) {
      for (const mime of ['audio/mpeg', 'application/octet-stream']) {
        const r = await t.request('POST', '/api/calls/analyze', { token: t.tokenB, form: uploadForm(file, { title: name }, {}, 'call.mp3', mime) });
        assert.equal(r.status, 415, `${name}: ${r.status} ${r.text}`);
        assert.equal(r.body.error.code, 'unsupported_media_type');
      }
    }
    // B has no call and nothing stored; A's own ID3-tagged MP3 goes through decoding as before.
    const list = await t.request('GET', '/api/calls', { token: t.tokenB });
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.items, []);
    assert.ok(!fs.existsSync(path.join(t.dataDir, 'blobs', 'users', t.userB)), 'no blob of B\'s');
    assert.equal(await waitForCall(t, victimCall, t.tokenA), 'COMPLETED');
    const d = await t.request('GET', `/api/calls/${victimCall}`, { token: t.tokenA });
    assert.ok(d.body.durationSeconds > CLIP_SECONDS - 1, `A's call decoded whole: ${d.body.durationSeconds} s`);

    // A real MP3 behind 200 kB of tag (cover art) is still accepted: the sniffer reads past the tag.
    const bigTag = path.join(dir, 'big-tag.mp3');
    fs.writeFileSync(bigTag, Buffer.concat([id3Tag(200_000), fs.readFileSync(clip())]));
    const ok = await t.request('POST', '/api/calls/analyze', { token: t.tokenB, form: uploadForm(bigTag, { title: 'Tagged' }, {}, 'call.mp3', 'audio/mpeg') });
    assert.equal(ok.status, 202, ok.text);
    assert.equal(await waitForCall(t, ok.body.callId, t.tokenB), 'COMPLETED');
  });

  test('the voice-profile route (decoding inside the API process) refuses the same sample with 415', async () => {
    for (const body of [hlsPlaylist([victimPath]), ffconcatScript([victimPath])]) {
      const r = await t.request('POST', '/api/users/me/voice-profile', { token: t.tokenB, form: uploadForm(write('sample.mp3', body), undefined, {}, 'sample.mp3', 'audio/mpeg') });
      assert.equal(r.status, 415, r.text);
      assert.equal(r.body.error.code, 'unsupported_media_type');
    }
    const s = await t.request('GET', '/api/users/me/voice-profile/status', { token: t.tokenB });
    assert.equal(s.body.status, 'MISSING', 'no profile was made from A\'s voice');
  });

  test('stored recordings and the work folder are readable by the service account only', async () => {
    const blobs = modesUnder(path.join(t.dataDir, 'blobs'));
    assert.ok(blobs.some((e) => e.path.endsWith('audio.mp3')), 'A\'s recording is there');
    for (const e of blobs) assert.equal(e.mode.toString(8), e.dir ? '700' : '600', `blobs/${e.path}`);
    assert.equal((fs.statSync(path.join(t.dataDir, 'work')).mode & 0o777).toString(8), '700', 'work');
  });
});

describe('an existing blobs folder with open modes', () => {
  test('is closed when the store opens, and new files are private', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cas-blob-modes-'));
    try {
      const old = path.join(dataDir, 'blobs', 'users', 'u1', 'calls', 'c1');
      fs.mkdirSync(old, { recursive: true, mode: 0o755 });
      fs.chmodSync(path.join(dataDir, 'blobs'), 0o755);
      fs.writeFileSync(path.join(old, 'audio.wav'), 'x', { mode: 0o644 });
      const store = new FileBlobStore(dataDir);
      assert.equal((fs.statSync(store.root).mode & 0o777).toString(8), '700');
      const { Readable } = await import('node:stream');
      await store.put('users/u2/calls/c2/audio.mp3', Readable.from([Buffer.from('y')]));
      for (const p of ['users/u2', 'users/u2/calls', 'users/u2/calls/c2']) assert.equal((fs.statSync(path.join(store.root, p)).mode & 0o777).toString(8), '700', p);
      assert.equal((fs.statSync(store.localPath('users/u2/calls/c2/audio.mp3')).mode & 0o777).toString(8), '600');
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('a disk full under the decoder (DATA_DIR/work on a 256 kB tmpfs)', { skip: tmpfsSkip('the disk-full test') }, () => {
  let t: TestService;
  let disk: Tmpfs | undefined;

  before(async () => {
    clip(); // rendered before the service starts (see ensureCorpus)
    const transcriber = cachingTranscriber(await createTranscriber({ provider: 'pocketsphinx' }, pino({ level: 'silent' })));
    // Retries 5 s apart: time to make room before the next attempt.
    t = await startTestService({ env: { WORKER_ENABLED: 'true', WORKER_CONCURRENCY: '1', WORKER_RETRY_DELAY_SECONDS: '5' }, pipeline: { transcriber } });
    disk = mountTmpfs(path.join(t.dataDir, 'work'), '256k');
  });
  after(async () => {
    disk?.unmount();
    await t?.stop();
  });

  test('the call is not failed as audio_undecodable: the job is retried and completes once there is room', async () => {
    // 15 s of audio decode to 480 kB of PCM: the work folder fills up during decoding.
    const r = await t.request('POST', '/api/calls/analyze', { form: uploadForm(clip(), { title: 'Disk full' }) });
    assert.equal(r.status, 202, r.text);
    const callId = r.body.callId as string;
    const db = t.service.ctx.database.db;
    const deadline = Date.now() + 120_000;
    for (;;) {
      const retry = await db.selectFrom('processingEvents').select('detail').where('callId', '=', callId).where('outcome', '=', 'RETRY_SCHEDULED').executeTakeFirst();
      if (retry) break;
      const d = await t.request('GET', `/api/calls/${callId}`);
      assert.ok(!['FAILED', 'COMPLETED'].includes(d.body.status), `ended ${d.body.status} ${d.body.errorReason ?? ''} without a retry`);
      assert.ok(Date.now() < deadline, 'no retry was scheduled');
      await new Promise((res) => setTimeout(res, 200));
    }
    disk!.unmount(); // room again
    assert.equal(await waitForCall(t, callId), 'COMPLETED');
    const d = await t.request('GET', `/api/calls/${callId}`);
    assert.ok(d.body.durationSeconds > CLIP_SECONDS - 1, `decoded whole: ${d.body.durationSeconds} s`);
    const events = await db.selectFrom('processingEvents').select(['outcome', 'detail']).where('callId', '=', callId).where('outcome', '=', 'RETRY_SCHEDULED').execute();
    for (const e of events) assert.equal((typeof e.detail === 'string' ? JSON.parse(e.detail) : e.detail).reason, 'internal_error');
  });
});

after(() => fs.rmSync(dir, { recursive: true, force: true }));

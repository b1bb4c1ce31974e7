// Hostile media through the real pipeline (ffmpeg, the recogniser): files that are empty, not
// audio at all, truncated, lying about their length, tiny but decoding to far more audio than
// allowed (a "zip bomb" of silence), or audio-less containers. Each is either refused at upload
// (415, no call) or its call ends FAILED with a documented errorReason within its time limit, and
// the single worker goes on to the next call.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { startTestService, tempDir, uploadForm, waitForCall, type TestService } from '../support/service.js';
import { assertNothingHalfCreated } from '../support/invariants.js';
import { pcmWavHeader } from '../support/wav.js';

const MAX_AUDIO_SECONDS = 30;
const DOCUMENTED_REASONS = ['audio_undecodable', 'audio_too_long', 'audio_missing', 'no_speech_detected', 'transcription_failed', 'transcription_provider_error', 'diarization_failed', 'analysis_failed', 'analysis_provider_error', 'internal_error'];

const dir = tempDir('cas-hostile-media-');
const file = (name: string) => path.join(dir, name);
const ffmpeg = (...args: string[]) => execFileSync('ffmpeg', ['-v', 'error', '-y', ...args]);

/** A WAV header declaring `declaredBytes` of 16 kHz mono 16-bit data, followed by `actual` bytes of it. */
function lyingWav(declaredBytes: number, actual: Buffer): Buffer {
  return Buffer.concat([pcmWavHeader(declaredBytes), actual]);
}

interface Case {
  name: string;
  make: () => string;
  /** 415 at the door, or the errorReason the call ends with. */
  expect: { refused: true } | { reason: string };
}

const cases: Case[] = [
  { name: 'a 0-byte file', make: () => (fs.writeFileSync(file('empty.wav'), ''), file('empty.wav')), expect: { refused: true } },
  { name: 'a text file with an audio extension', make: () => (fs.writeFileSync(file('notes.mp3'), 'Meeting notes, not audio.\n'.repeat(200)), file('notes.mp3')), expect: { refused: true } },
  {
    name: 'a truncated m4a (cut before its index)',
    make: () => {
      ffmpeg('-f', 'lavfi', '-i', 'sine=frequency=300:duration=20', '-ac', '1', '-c:a', 'aac', '-b:a', '32k', file('whole.m4a'));
      const whole = fs.readFileSync(file('whole.m4a'));
      fs.writeFileSync(file('truncated.m4a'), whole.subarray(0, Math.floor(whole.length / 2)));
      return file('truncated.m4a');
    },
    expect: { reason: 'audio_undecodable' },
  },
  {
    name: 'a WAV declaring 4 GiB of data that holds one second of silence',
    make: () => (fs.writeFileSync(file('liar.wav'), lyingWav(0xfffffff0, Buffer.alloc(32000))), file('liar.wav')),
    expect: { reason: 'no_speech_detected' },
  },
  {
    name: 'a WAV header declaring an hour with no samples at all',
    make: () => (fs.writeFileSync(file('hollow.wav'), lyingWav(3600 * 32000, Buffer.alloc(0))), file('hollow.wav')),
    expect: { reason: 'audio_undecodable' },
  },
  {
    name: 'a bomb: a small Ogg Vorbis file of 10 minutes of silence (limit 30 s)',
    make: () => (ffmpeg('-f', 'lavfi', '-i', 'anullsrc=r=8000:cl=mono', '-t', '600', '-c:a', 'libvorbis', '-q:a', '0', file('bomb.ogg')), file('bomb.ogg')),
    expect: { reason: 'audio_too_long' },
  },
  {
    name: 'the wrong container: an MP4 with a video stream and no audio',
    make: () => (ffmpeg('-f', 'lavfi', '-i', 'testsrc=size=64x64:rate=5:duration=2', '-c:v', 'mpeg4', '-an', file('video.m4a')), file('video.m4a')),
    expect: { reason: 'audio_undecodable' },
  },
  {
    name: 'an Ogg page header followed by garbage',
    make: () => (fs.writeFileSync(file('garbage.ogg'), Buffer.concat([Buffer.from('OggS\u0000\u0002', 'latin1'), Buffer.alloc(20_000, 0x5a)])), file('garbage.ogg')),
    expect: { reason: 'audio_undecodable' },
  },
];

describe('hostile media', () => {
  let t: TestService;

  before(async () => {
    t = await startTestService({ env: { WORKER_ENABLED: 'true', WORKER_CONCURRENCY: '1', MAX_AUDIO_SECONDS: String(MAX_AUDIO_SECONDS), WORKER_JOB_TIMEOUT_SECONDS: '300', SERVICE_MAX_CONCURRENT_ACTIVE_CALLS: '50' } });
  });
  after(async () => {
    await t?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('each file is refused at upload or its call fails with a documented reason; the worker goes on', async (ctx) => {
    // All uploaded first: one worker takes them in turn, so each later call finishing shows it went on.
    const accepted: Array<{ c: Case; callId: string }> = [];
    for (const c of cases) {
      const r = await t.request('POST', '/api/calls/analyze', { form: uploadForm(c.make(), { title: c.name }) });
      if ('refused' in c.expect) {
        assert.equal(r.status, 415, `${c.name}: ${r.text}`);
        assert.equal(r.body.error.code, 'unsupported_media_type');
        continue;
      }
      assert.equal(r.status, 202, `${c.name}: ${r.text}`);
      accepted.push({ c, callId: r.body.callId });
    }
    for (const { c, callId } of accepted) {
      assert.equal(await waitForCall(t, callId), 'FAILED', c.name);
      const d = await t.request('GET', `/api/calls/${callId}`);
      assert.ok(DOCUMENTED_REASONS.includes(d.body.errorReason), `${c.name}: ${d.body.errorReason}`);
      assert.equal(d.body.errorReason, (c.expect as { reason: string }).reason, c.name);
      const row = await t.service.ctx.database.db.selectFrom('calls').select(['createdAt', 'completedAt']).where('id', '=', callId).executeTakeFirstOrThrow();
      const seconds = (row.completedAt!.getTime() - row.createdAt.getTime()) / 1000;
      ctx.diagnostic(`${c.name}: FAILED ${d.body.errorReason}, ${seconds.toFixed(1)} s after its upload`);
    }
    ctx.diagnostic(`hostile media: ${cases.length} cases (${cases.length - accepted.length} refused at upload, ${accepted.length} failed in processing)`);
    assert.equal(fs.readdirSync(path.join(t.dataDir, 'work'), { withFileTypes: true }).length, 0, 'work files removed');
    await assertNothingHalfCreated(t);
  });
});

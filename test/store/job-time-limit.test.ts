// Issue 14: a long call's job must not be presumed dead while it is still being processed. The
// job's time limit (pg-boss expireInSeconds) follows the call's audio: at upload it covers the most
// audio the file's size can hold, after decoding it is lowered to the measured length; a job is
// aborted by its own signal shortly before its limit; and the sweep of work directories keeps a
// running job's files however old they are. Audio of a few seconds to two minutes, decoded only:
// the recogniser holds each job until the test lets it fail.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../src/config.js';
import { audioSecondsUpperBound, callJobTimeLimitSeconds, maxJobTimeLimitSeconds } from '../../src/domain/job-time-limit.js';
import { createCallProcessor } from '../../src/pipeline/process-call.js';
import { PipelineError, type Transcriber } from '../../src/pipeline/types.js';
import { CALL_QUEUE, JobTimeLimitReached, reachedTimeLimit, type CallJobContext } from '../../src/store/queue.js';
import { sweepWorkFiles } from '../../src/store/sweeps.js';
import { anotherQueue, startTestService, tempDir, uploadForm, waitForCall, type TestService } from '../support/service.js';

test('the time limit grows with the audio, between the floor and the limit for MAX_AUDIO_SECONDS', () => {
  const worker = loadConfig({ SERVICE_ENV: 'test' }).worker;
  assert.equal(worker.jobTimeoutSeconds, 1800);
  assert.equal(worker.jobSecondsPerAudioSecond, 1);
  assert.equal(callJobTimeLimitSeconds(worker, 120), 1800, 'a short call gets the floor');
  assert.equal(callJobTimeLimitSeconds(worker, 3 * 3600), 3 * 3600, 'a 3-hour call gets 3 hours, not 30 minutes');
  assert.equal(callJobTimeLimitSeconds(worker, 10 * 3600), 4 * 3600, 'capped at the limit for MAX_AUDIO_SECONDS');
  assert.equal(callJobTimeLimitSeconds(worker, null), maxJobTimeLimitSeconds(worker), 'unknown length: the ceiling');
  const tuned = loadConfig({ SERVICE_ENV: 'test', WORKER_JOB_TIMEOUT_SECONDS: '600', WORKER_JOB_SECONDS_PER_AUDIO_SECOND: '0.5', MAX_AUDIO_SECONDS: '7200' }).worker;
  assert.equal(callJobTimeLimitSeconds(tuned, 1000), 600);
  assert.equal(callJobTimeLimitSeconds(tuned, 3000), 1500);
  assert.equal(maxJobTimeLimitSeconds(tuned), 3600);
  // A floor above the factor's ceiling wins: no job ever gets less than WORKER_JOB_TIMEOUT_SECONDS.
  const floorHigh = loadConfig({ SERVICE_ENV: 'test', WORKER_JOB_TIMEOUT_SECONDS: '900', MAX_AUDIO_SECONDS: '60' }).worker;
  assert.equal(callJobTimeLimitSeconds(floorHigh, 60), 900);
  assert.throws(() => loadConfig({ SERVICE_ENV: 'test', WORKER_JOB_SECONDS_PER_AUDIO_SECOND: '0' }), /WORKER_JOB_SECONDS_PER_AUDIO_SECOND/);
  // 6 kbit/s: 750 bytes a second at the least.
  assert.equal(audioSecondsUpperBound(750 * 3600), 3600);
  assert.equal(audioSecondsUpperBound(0), 0);
});

describe('per-call job time limits on a running service', () => {
  const FLOOR = 30;
  let t: TestService;
  const dir = tempDir('cas-job-limit-');
  const shortWav = path.join(dir, 'short.wav');
  const longWav = path.join(dir, 'long.wav');
  let recognizing = 0;
  const waiting: Array<() => void> = [];
  const releaseRecognizer = () => waiting.splice(0).forEach((release) => release());
  const heldRecognizer: Transcriber = {
    provider: 'held',
    model: 'held',
    async transcribe() {
      recognizing++;
      await new Promise<void>((r) => waiting.push(r));
      throw new PipelineError('transcription_failed', 'released by the test');
    },
  };

  before(async () => {
    execFileSync('sox', ['-n', '-r', '16000', '-c', '1', '-b', '16', shortWav, 'synth', '5', 'pinknoise', 'vol', '0.3']);
    execFileSync('sox', ['-n', '-r', '16000', '-c', '1', '-b', '16', longWav, 'synth', '120', 'pinknoise', 'vol', '0.3']);
    // Workers are started by the test once the enqueued limits are read; each job then waits in
    // the recogniser, after decoding has fitted its limit to the audio, as a long recognition would.
    t = await startTestService({
      workers: false,
      env: { WORKER_JOB_TIMEOUT_SECONDS: String(FLOOR), WORKER_RETRY_LIMIT: '0', WORKER_CONCURRENCY: '2', SERVICE_MAX_CONCURRENT_ACTIVE_CALLS: '10' },
      pipeline: { transcriber: heldRecognizer },
    });
  });
  after(async () => {
    releaseRecognizer();
    await t?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function jobOf(callId: string): Promise<{ id: string; expireInSeconds: number; state: string }> {
    const { rows } = await t.service.database.pool.query(
      `SELECT id, EXTRACT(epoch FROM expire_in)::int AS "expireInSeconds", state FROM pgboss.job WHERE name = $1 AND singleton_key = $2`,
      [CALL_QUEUE, callId],
    );
    assert.equal(rows.length, 1);
    return rows[0];
  }

  test('a job aborts itself before its time limit, and a lowered limit is written to the queue', async () => {
    // A second queue on the same database stands for another worker process.
    const queue = await anotherQueue(t.service);
    const callId = crypto.randomUUID();
    let runs = 0;
    const seen = new Promise<{ ctx: CallJobContext; lowered: number; stored: number; reason: unknown }>((resolve, reject) => {
      void queue
        .work(async (data, ctx) => {
          if (data.callId !== callId) return;
          runs++;
          try {
            const lowered = await ctx.lowerTimeLimit(1);
            const stored = (await jobOf(callId)).expireInSeconds;
            assert.equal(await ctx.lowerTimeLimit(600), lowered, 'a limit is never raised');
            await new Promise((r) => ctx.signal.addEventListener('abort', r, { once: true }));
            resolve({ ctx, lowered, stored, reason: ctx.signal.reason });
          } catch (err) {
            reject(err);
          }
        }, 1)
        .catch(reject);
    });
    await t.service.database.db.transaction().execute((trx) => queue.enqueueCall(trx, { callId, userId: crypto.randomUUID(), kind: 'process' }, { timeLimitSeconds: 3600 }));
    try {
      const { ctx, lowered, stored, reason } = await seen;
      assert.ok(lowered < 3600 && lowered >= 6, `lowered to what the job had spent and a few seconds (${lowered})`);
      assert.equal(stored, lowered, 'the queue holds the lowered limit, so a crash is recovered after it');
      assert.ok(reason instanceof JobTimeLimitReached, 'aborted for its time limit, not a shutdown');
      assert.equal(reason.limitSeconds, lowered);
      assert.ok(reachedTimeLimit(ctx.signal));
      assert.equal(ctx.timeLimitSeconds(), lowered);
      assert.equal(runs, 1, 'the job ran once: the queue did not hand it to another worker while it ran');
    } finally {
      await queue.stop(5);
    }
  });

  test('a long call gets a longer limit than a short one, at upload and after decoding, and its work files survive the sweep while it runs', async () => {
    const ids: Record<'short' | 'long', string> = { short: '', long: '' };
    for (const [name, file] of [['short', shortWav], ['long', longWav]] as const) {
      const r = await t.request('POST', '/api/calls/analyze', { form: uploadForm(file) });
      assert.equal(r.status, 202, r.text);
      ids[name] = r.body.callId;
    }
    const worker = t.service.config.worker;
    // At upload: the limit for the most audio the file's size can hold.
    const enqueued = { short: await jobOf(ids.short), long: await jobOf(ids.long) };
    for (const name of ['short', 'long'] as const) {
      const bytes = fs.statSync(name === 'short' ? shortWav : longWav).size;
      assert.equal(enqueued[name].expireInSeconds, callJobTimeLimitSeconds(worker, audioSecondsUpperBound(bytes)), name);
    }
    assert.ok(enqueued.long.expireInSeconds > 120 && enqueued.long.expireInSeconds > enqueued.short.expireInSeconds, `long ${enqueued.long.expireInSeconds} s, short ${enqueued.short.expireInSeconds} s`);

    // The workers decode both calls and wait in the recogniser.
    await t.service.queue.work(createCallProcessor({ ...t.service.ctx, pipeline: t.service.pipeline }), 2);
    const deadline = Date.now() + 120_000;
    while (recognizing < 2) {
      assert.ok(Date.now() < deadline, 'both calls reached recognition');
      await new Promise((r) => setTimeout(r, 200));
    }
    const running = { short: await jobOf(ids.short), long: await jobOf(ids.long) };
    assert.equal(running.short.state, 'active');
    assert.equal(running.long.state, 'active');
    assert.equal(running.short.expireInSeconds, FLOOR, 'a 5-second call: the floor');
    assert.equal(running.long.expireInSeconds, 120, 'a 2-minute call: 120 s at 1 s per second of audio');
    assert.ok(running.long.expireInSeconds < enqueued.long.expireInSeconds, 'lowered from the size bound once measured');

    // Both jobs' work directories, made to look hours old, and one of a job that is gone.
    const workRoot = path.join(t.dataDir, 'work');
    const live = fs.readdirSync(workRoot).sort();
    assert.deepEqual(live, [`${ids.long}-${running.long.id}`, `${ids.short}-${running.short.id}`].sort());
    const dead = path.join(workRoot, `${crypto.randomUUID()}-${crypto.randomUUID()}`);
    fs.mkdirSync(dead);
    fs.writeFileSync(path.join(dead, 'audio.wav'), 'RIFF');
    const old = new Date(Date.now() - 5 * 3600_000);
    for (const name of [...live, path.basename(dead)]) fs.utimesSync(path.join(workRoot, name), old, old);
    const removed = await sweepWorkFiles(t.dataDir, FLOOR * 1000, (jobId) => t.service.queue.callJobLive(jobId));
    assert.equal(removed, 1);
    assert.equal(fs.existsSync(dead), false, 'the directory of a job that is gone is removed');
    for (const name of live) assert.ok(fs.readdirSync(path.join(workRoot, name)).length > 0, `${name}: a running job's files are kept`);

    // Once the jobs end, their own clean-up removes the directories.
    releaseRecognizer();
    for (const id of [ids.short, ids.long]) assert.equal(await waitForCall(t, id), 'FAILED');
    assert.deepEqual(fs.readdirSync(workRoot), []);
  });
});

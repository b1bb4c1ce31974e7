// A two-hour call through the service with the OpenAI-compatible recogniser, against a local
// server that refuses files over 25 MB as OpenAI and Groq do. The call is a corpus call in stereo
// (one party per channel, so the cheap channel diarizer runs) looped to two hours at test time by
// stream copy. The server answers instantly, one word per stretch of sound, named after its call
// time; it learns where a part starts from the lengths of the parts before it and the configured
// overlap. One part fails twice before it succeeds.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { corpusFile } from '../support/corpus.js';
import { decodeToPcm, soundRegions, startMockRecognizer, wordsBody, OPENAI_FILE_LIMIT_BYTES, type MockRecognizer } from '../support/mock-recognizer.js';
import { startTestService, tempDir, uploadForm, type TestService } from '../support/service.js';

const SR = 16000;
const OVERLAP_SECONDS = 1; // the adapter's default
const CALL_SECONDS = 7200;
const FLAKY_PART = 3;

describe('a two-hour call through the OpenAI-compatible recogniser', () => {
  let t: TestService;
  let mock: MockRecognizer;
  const dir = tempDir('cas-long-');
  let longFile: string;
  /** Samples of each part as received, by part index; a part's start is the sum of the earlier parts' new audio. */
  const partSamples = new Map<number, number>();
  const waiting: Array<() => void> = [];

  async function partStart(part: number): Promise<number> {
    const known = () => [...Array(part).keys()].every((j) => partSamples.has(j));
    while (!known()) await new Promise<void>((r) => waiting.push(r));
    let start = 0;
    for (let j = 0; j < part; j++) start += partSamples.get(j)! / SR - 2 * OVERLAP_SECONDS;
    return start;
  }

  before(async () => {
    const base = path.join(dir, 'base.ogg');
    execFileSync('ffmpeg', ['-nostdin', '-loglevel', 'error', '-i', corpusFile('car-repair', 'stereo.wav'), '-c:a', 'libopus', '-b:a', '24k', base]);
    longFile = path.join(dir, 'two-hours.ogg');
    execFileSync('ffmpeg', ['-nostdin', '-loglevel', 'error', '-stream_loop', '-1', '-i', base, '-t', String(CALL_SECONDS), '-c', 'copy', longFile]);
    mock = await startMockRecognizer(async (req) => {
      if (!partSamples.has(req.part)) {
        partSamples.set(req.part, req.pcm.length);
        waiting.splice(0).forEach((w) => w());
      }
      if (req.part === FLAKY_PART && req.attempt <= 2) return { status: 503, body: { error: { code: 'server_overloaded' } } };
      const start = await partStart(req.part);
      const words = soundRegions(req.pcm, SR).map((r) => ({ word: `t${Math.round((start + r.start) * 100)}`, start: r.start, end: r.end }));
      return { status: 200, body: wordsBody(words) };
    });
    t = await startTestService({
      env: {
        WORKER_ENABLED: 'true',
        TRANSCRIPTION_PROVIDER: 'openai',
        TRANSCRIPTION_OPENAI_BASE_URL: mock.baseUrl,
        TRANSCRIPTION_OPENAI_MODEL: 'whisper-1',
        TRANSCRIPTION_OPENAI_RETRY_DELAY_MS: '200',
        PLAN_FREE_MINUTES_PER_MONTH: '600',
      },
    });
  });
  after(async () => {
    await t?.stop();
    await mock?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A GET retried on a dropped connection: on a loaded machine a kept-alive socket can be reset between polls. */
  async function get(p: string) {
    for (let attempt = 1; ; attempt++) {
      try {
        return await t.request('GET', p);
      } catch (err) {
        if (attempt >= 5) throw err;
        await new Promise((res) => setTimeout(res, 500));
      }
    }
  }

  test('completes with every word once, in order, in call time, progress reported on the way', async () => {
    const started = Date.now();
    const r = await t.request('POST', '/api/calls/analyze', { form: uploadForm(longFile, { title: 'two hours' }) });
    assert.equal(r.status, 202, r.text);
    const callId = r.body.callId as string;
    const seen: Array<{ stage: string; percent: number | null }> = [];
    let status = '';
    // No deadline of its own: the call's job limit ends it, the runner's timeout catches a hang.
    for (;;) {
      const d = await get(`/api/calls/${callId}`);
      status = d.body.status;
      if (status === 'COMPLETED' || status === 'FAILED') {
        assert.equal(d.body.progress, undefined, 'no progress on a finished call');
        if (status === 'FAILED') assert.fail(`call failed: ${d.body.errorReason}`);
        // Stream-copied Ogg pages end a few seconds past the cut.
        assert.ok(Math.abs(d.body.durationSeconds - CALL_SECONDS) <= 10, `${d.body.durationSeconds} s`);
        break;
      }
      if (d.body.progress) seen.push(d.body.progress);
      await new Promise((res) => setTimeout(res, 250));
    }
    assert.equal(status, 'COMPLETED');
    const seconds = (Date.now() - started) / 1000;

    // Requests: all FLAC, none over the limit, the flaky part answered on its third attempt.
    assert.ok(mock.requests.length >= 12, `${mock.requests.length} requests`);
    assert.ok(mock.requests.every((q) => q.fileSize <= OPENAI_FILE_LIMIT_BYTES && q.fileName.endsWith('.flac')));
    assert.deepEqual(mock.requests.filter((q) => q.part === FLAKY_PART).map((q) => q.status), [503, 503, 200]);

    // Progress: recorded per part in the processing events, visible in the call detail.
    const events = await t.service.ctx.database.db.selectFrom('processingEvents').select(['step', 'outcome', 'detail']).where('callId', '=', callId).orderBy('id').execute();
    const percents = events.filter((e) => e.step === 'TRANSCRIBE' && e.outcome === 'PROGRESS').map((e) => (e.detail as { percent: number }).percent);
    assert.equal(percents.length, new Set(mock.requests.map((q) => q.part)).size);
    assert.deepEqual([...percents].sort((a, b) => a - b), percents);
    assert.equal(percents.at(-1), 100);
    assert.ok(seen.some((p) => p.stage === 'TRANSCRIBE'), JSON.stringify(seen.slice(0, 5)));

    // The transcript: word labels (true call times in centiseconds) strictly increase, no word
    // twice, segment times agree with the labels and never go back.
    const tr = await get(`/api/calls/${callId}/transcript`);
    assert.equal(tr.status, 200);
    const segments = tr.body.segments as Array<{ startSeconds: number; endSeconds: number; text: string }>;
    let prevStart = -1;
    const labels: number[] = [];
    for (const s of segments) {
      assert.ok(s.startSeconds >= prevStart && s.endSeconds >= s.startSeconds, `segment at ${s.startSeconds}`);
      prevStart = s.startSeconds;
      const own = s.text.split(/\s+/).filter(Boolean).map((w) => {
        const m = /^t(\d+)[.,!?]?$/i.exec(w);
        assert.ok(m, `unexpected word ${w}`);
        return Number(m[1]);
      });
      assert.ok(Math.abs(own[0] / 100 - s.startSeconds) <= 0.05, `segment at ${s.startSeconds} starts with word t${own[0]}`);
      labels.push(...own);
    }
    for (let i = 1; i < labels.length; i++) assert.ok(labels[i] - labels[i - 1] >= 15, `t${labels[i - 1]} then t${labels[i]}`);
    assert.ok(labels.at(-1)! / 100 > CALL_SECONDS - 60, `last word at ${labels.at(-1)! / 100} s`);
    // As many words as 188 loops of the call have sound regions (opus keeps them within a few percent).
    const basePcm = await decodeToPcm(path.join(dir, 'base.ogg'));
    const expected = (soundRegions(basePcm, SR).length * CALL_SECONDS) / (basePcm.length / SR);
    assert.ok(Math.abs(labels.length - expected) / expected < 0.03, `${labels.length} words, about ${Math.round(expected)} expected`);
    const done = events.find((e) => e.step === 'PIPELINE' && e.outcome === 'COMPLETED')?.detail as { timings?: unknown } | undefined;
    console.log(`# two-hour call: ${seconds.toFixed(1)} s from upload to COMPLETED, ${mock.requests.length} requests, ${labels.length} words, stage ms ${JSON.stringify(done?.timings)}`);
  });
});

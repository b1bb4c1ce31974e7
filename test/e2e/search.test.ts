// Search over calls processed by the real pipeline (ffmpeg, pocketsphinx, diarization, embedded
// analyzer): twenty very short rendered calls, one of which speaks the phrase searched for. The
// hit must name that call and the segment that holds the phrase, at the time it was spoken.
// Recognitions are cached on disk (test/support/recognition-cache.ts), so a warm run pays only for
// decoding, diarization, analysis and indexing.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import pino from 'pino';
import { startTestService, TestIdp, uploadForm, waitForCall, type TestService } from '../support/service.js';
import { renderShortCall, type ShortCall } from '../support/short-calls.js';
import { cachingTranscriber } from '../support/recognition-cache.js';
import { createTranscriber } from '../../src/pipeline/transcription/index.js';

const SENTENCES = [
  'the train leaves at noon on friday',
  'my sister bought a new bicycle',
  'we should paint the kitchen walls',
  'the doctor will see you next week',
  'please send the report by email',
  'the coffee machine is broken again',
  'our flight was delayed by two hours',
  'the dog needs a walk after dinner',
  'i lost my keys at the station',
  'the meeting moved to thursday afternoon',
  'can you pick up some bread and milk',
  'the printer is out of paper',
  'the green umbrella is in the garage',
  'the rent is due on the first',
  'the library closes early today',
  'i will call the plumber tomorrow',
  'the kids have a soccer game tonight',
  'the package arrived this morning',
  'we need more chairs for the party',
  'the car battery died last night',
];
const TARGET = 12;

describe('search over twenty processed calls', () => {
  let t: TestService;
  let idp: TestIdp;
  let token: string;
  const calls: Array<{ callId: string; audio: ShortCall }> = [];

  before(async () => {
    idp = await TestIdp.start();
    const transcriber = cachingTranscriber(await createTranscriber({ provider: 'pocketsphinx' }, pino({ level: 'silent' })));
    t = await startTestService({ env: { ...idp.env(), WORKER_ENABLED: 'true', WORKER_CONCURRENCY: '2', SERVICE_MAX_CONCURRENT_ACTIVE_CALLS: '25' }, pipeline: { transcriber } });
    token = await idp.token({ sub: 'search-e2e', name: 'Olivia Park' });
    for (const [i, sentence] of SENTENCES.entries()) {
      const audio = renderShortCall([
        { voice: 'slt', text: 'Hello, thanks for calling.' },
        { voice: 'kal16', text: `${sentence}.` },
      ]);
      const r = await t.request('POST', '/api/calls/analyze', { token, form: uploadForm(audio.wavPath, { title: `Short call ${i + 1}` }) });
      assert.equal(r.status, 202, r.text);
      calls.push({ callId: r.body.callId, audio });
    }
    for (const c of calls) assert.equal(await waitForCall(t, c.callId, token), 'COMPLETED');
  });

  after(async () => {
    await t?.stop();
    await idp?.stop();
  });

  test('a phrase spoken in one call finds that call, its segment and the time it was said', async () => {
    const target = calls[TARGET];
    const transcript = (await t.request('GET', `/api/calls/${target.callId}/transcript`, { token })).body;
    const spoken = transcript.segments.find((s: { text: string }) => /green umbrella/i.test(s.text));
    assert.ok(spoken, `the recogniser heard the phrase: ${JSON.stringify(transcript.segments.map((s: { text: string }) => s.text))}`);

    const r = await t.request('GET', `/api/calls/search?q=${encodeURIComponent('"green umbrella"')}`, { token });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.items.map((h: { callId: string }) => h.callId), [target.callId]);
    const hit = r.body.items[0];
    assert.equal(hit.title, `Short call ${TARGET + 1}`);
    assert.deepEqual(hit.segments, [
      { segmentId: spoken.id, startSeconds: spoken.startSeconds, endSeconds: spoken.endSeconds, speakerId: spoken.speakerId, speakerDisplayName: spoken.speakerDisplayName, role: spoken.role },
    ]);
    // The segment starts where the rendered turn starts (within the recogniser's word timing).
    assert.ok(Math.abs(hit.segments[0].startSeconds - target.audio.turns[1].startSeconds) < 0.6, `${hit.segments[0].startSeconds} vs ${target.audio.turns[1].startSeconds}`);
    assert.match(hit.snippet, /<mark>green<\/mark> <mark>umbrella<\/mark>/);

    // Words in any order with stemming ("umbrellas") find the same call; a phrase from no call finds none.
    const words = await t.request('GET', `/api/calls/search?q=${encodeURIComponent('umbrellas green')}`, { token });
    assert.deepEqual(words.body.items.map((h: { callId: string }) => h.callId), [target.callId]);
    const none = await t.request('GET', `/api/calls/search?q=${encodeURIComponent('"purple umbrella"')}`, { token });
    assert.deepEqual(none.body.items, []);
    // Every processed call is in the index.
    const indexed = await t.service.ctx.database.db.selectFrom('call_search' as never).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    assert.equal(Number((indexed as { n: number }).n), SENTENCES.length);
  });

  test('the pipeline\'s analysis carries conversationMetrics measured from the transcript', async () => {
    const target = calls[TARGET];
    const analysis = (await t.request('GET', `/api/calls/${target.callId}/analysis`, { token })).body;
    const m = analysis.conversationMetrics;
    assert.equal(m.version, 1);
    assert.ok(m.turnCount >= 1);
    assert.ok(m.talkSeconds > 1 && m.talkSeconds < m.durationSeconds);
    assert.ok(m.silenceShare > 0 && m.silenceShare < 1);
    assert.equal(m.parties.reduce((n: number, p: { wordCount: number }) => n + p.wordCount, 0) > 5, true);
  });

  test('a processed call\'s waveform is stored at decoding and its audio is served in ranges', async () => {
    const target = calls[TARGET];
    const file = fs.readFileSync(target.audio.wavPath);
    const seconds = (file.length - 44) / (2 * 16000);
    const wave = await t.request('GET', `/api/calls/${target.callId}/waveform?points=100`, { token });
    assert.equal(wave.status, 200, wave.text);
    assert.ok(Math.abs(wave.body.durationSeconds - seconds) < 0.1, `${wave.body.durationSeconds} vs ${seconds}`);
    assert.equal(wave.body.peaks.length, 100);
    // Speech is loud somewhere and the edges are near silence.
    assert.ok(Math.max(...wave.body.peaks) > 0.2);
    assert.ok(wave.body.peaks[0] < 0.05);

    const part = await fetch(`${t.url}/api/calls/${target.callId}/audio`, { headers: { authorization: `Bearer ${token}`, range: 'bytes=100-1099' } });
    assert.equal(part.status, 206);
    assert.equal(part.headers.get('content-range'), `bytes 100-1099/${file.length}`);
    assert.deepEqual(Buffer.from(await part.arrayBuffer()), file.subarray(100, 1100));
  });
});

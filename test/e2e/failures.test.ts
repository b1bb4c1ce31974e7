// Failure paths of processing with the real pipeline: a transient analysis error is retried (the
// stored transcript is reused, not recognised again), a permanent one fails the call with a
// stable errorReason, and audio that cannot be decoded or holds no speech fails with its reason.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { EmbeddedAnalyzer } from '../../src/pipeline/analysis/embedded/index.js';
import { PipelineError, type Analyzer } from '../../src/pipeline/types.js';
import { corpusFile, ensureCorpus } from '../support/corpus.js';
import { recogniseOncePerAudio } from '../support/recognition-cache.js';
import { startTestService, tempDir, uploadForm, waitForCall, type TestService } from '../support/service.js';

/** The real analyzer behind a switch the test flips per call title. */
class ScriptedAnalyzer implements Analyzer {
  readonly provider = 'embedded';
  readonly model = 'embedded-nlp-v1';
  private readonly real = new EmbeddedAnalyzer();
  calls = new Map<string, number>();
  async analyze(...args: Parameters<Analyzer['analyze']>) {
    const [, context] = args;
    const n = (this.calls.get(context.title ?? '') ?? 0) + 1;
    this.calls.set(context.title ?? '', n);
    if (context.title === 'flaky' && n === 1) throw new PipelineError('analysis_provider_error', 'provider answered 429', true);
    if (context.title === 'broken') throw new PipelineError('analysis_failed', 'model output failed validation twice');
    return this.real.analyze(args[0], args[1], args[2]);
  }
}

describe('processing failures', () => {
  let t: TestService;
  const analyzer = new ScriptedAnalyzer();
  const dir = tempDir('cas-fail-');

  before(async () => {
    // Rendered before the service starts (see ensureCorpus).
    ensureCorpus(['school-teacher-call', 'car-repair']);
    t = await startTestService({ env: { WORKER_ENABLED: 'true', WORKER_RETRY_LIMIT: '2' }, pipeline: { analyzer } });
    // Two tests upload the same recording to prove what happens after recognition: the real
    // recogniser runs for the first, the second reuses its result.
    recogniseOncePerAudio(t.service.pipeline.transcriber);
  });
  after(async () => {
    await t?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const events = async (callId: string) =>
    (await t.service.ctx.database.db.selectFrom('processingEvents').select(['step', 'outcome', 'detail']).where('callId', '=', callId).orderBy('id').execute()).map((e) => `${e.step}:${e.outcome}`);

  test('a transient analysis error is retried by the analysis job, which reuses the stored transcript', async () => {
    const r = await t.request('POST', '/api/calls/analyze', { form: uploadForm(corpusFile('school-teacher-call', 'call.ogg'), { title: 'flaky' }) });
    assert.equal(r.status, 202);
    assert.equal(await waitForCall(t, r.body.callId), 'COMPLETED');
    assert.equal(analyzer.calls.get('flaky'), 2);
    const ev = await events(r.body.callId);
    assert.ok(ev.includes('PIPELINE:RETRY_SCHEDULED'), ev.join(' '));
    assert.equal(ev.filter((e) => e === 'TRANSCRIBE:COMPLETED').length, 1, 'recognised once');
    // The retry was the analysis job's (call-analyze), which reads the stored speech stages: the
    // call job ran once.
    assert.equal(ev.filter((e) => e === 'PIPELINE:STARTED').length, 1, ev.join(' '));
  });

  test('a permanent analysis error fails the call with analysis_failed', async () => {
    const r = await t.request('POST', '/api/calls/analyze', { form: uploadForm(corpusFile('school-teacher-call', 'call.ogg'), { title: 'broken' }) });
    assert.equal(await waitForCall(t, r.body.callId), 'FAILED');
    const d = await t.request('GET', `/api/calls/${r.body.callId}`);
    assert.equal(d.body.errorReason, 'analysis_failed');
    assert.equal(analyzer.calls.get('broken'), 1, 'not retried');
    assert.equal((await t.request('GET', `/api/calls/${r.body.callId}/transcript`)).status, 422);
  });

  test('audio that sniffs as WAV but does not decode fails with audio_undecodable', async () => {
    const bad = path.join(dir, 'broken.wav');
    const header = fs.readFileSync(corpusFile('car-repair', 'mono16k.wav')).subarray(0, 12);
    fs.writeFileSync(bad, Buffer.concat([header, Buffer.from('garbage that is not a fmt chunk at all'.repeat(40))]));
    const r = await t.request('POST', '/api/calls/analyze', { form: uploadForm(bad, { title: 'undecodable' }) });
    assert.equal(r.status, 202);
    assert.equal(await waitForCall(t, r.body.callId), 'FAILED');
    assert.equal((await t.request('GET', `/api/calls/${r.body.callId}`)).body.errorReason, 'audio_undecodable');
  });

  test('silence fails with no_speech_detected', async () => {
    const silent = path.join(dir, 'silence.wav');
    execFileSync('sox', ['-n', '-r', '16000', '-c', '1', '-b', '16', silent, 'trim', '0', '8']);
    const r = await t.request('POST', '/api/calls/analyze', { form: uploadForm(silent, { title: 'silence' }) });
    assert.equal(await waitForCall(t, r.body.callId), 'FAILED');
    assert.equal((await t.request('GET', `/api/calls/${r.body.callId}`)).body.errorReason, 'no_speech_detected');
  });
});

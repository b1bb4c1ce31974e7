// The pipeline's stage state (call_stages, src/pipeline/stages/): a job retried after a failure
// resumes at the first unfinished stage, with the recognition (and diarization) kept from the
// failed attempt, so the recogniser runs once per call; and a call's progress is read from the
// stage table.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { EmbeddedAnalyzer } from '../../src/pipeline/analysis/embedded/index.js';
import { createTranscriber } from '../../src/pipeline/transcription/index.js';
import { createDiarizer } from '../../src/pipeline/diarization/index.js';
import { PipelineError, type Analyzer, type Diarizer } from '../../src/pipeline/types.js';
import { STAGES } from '../../src/pipeline/stages/index.js';
import { ANALYSIS_QUEUE, CALL_QUEUE } from '../../src/store/queue.js';
import { sql } from 'kysely';
import { corpusFile } from '../support/corpus.js';
import { cachingTranscriber } from '../support/recognition-cache.js';
import { startTestService, uploadForm, waitForCall, type TestService } from '../support/service.js';

const AUDIO = corpusFile('school-teacher-call', 'call.ogg');

/** Counts calls per call title (the analysis context carries it); fails or waits as the test says. */
class ScriptedAnalyzer implements Analyzer {
  readonly provider = 'embedded';
  readonly model = 'embedded-nlp-v1';
  private readonly real = new EmbeddedAnalyzer();
  calls = new Map<string, number>();
  release: (() => void) | null = null;
  async analyze(...args: Parameters<Analyzer['analyze']>) {
    const [transcript, context, signal, onProgress] = args;
    const n = (this.calls.get(context.title ?? '') ?? 0) + 1;
    this.calls.set(context.title ?? '', n);
    if (context.title === 'analysis fails once' && n === 1) throw new PipelineError('analysis_provider_error', 'provider answered 503', true);
    if (context.title === 'slow analysis') {
      onProgress?.({ done: 1, total: 4 });
      await new Promise<void>((resolve) => (this.release = resolve));
    }
    return this.real.analyze(transcript, context, signal);
  }
}

describe('stage state and resume', () => {
  let t: TestService;
  const analyzer = new ScriptedAnalyzer();
  // Every recognition the pipeline asks for, whether the on-disk cache answers it or not.
  const transcriberCalls = new Map<number, number>();
  let transcriber: Awaited<ReturnType<typeof cachingTranscriber>>;
  const realDiarizer = createDiarizer();
  let failNextDiarization = false;
  let diarizations = 0;
  const diarizer: Diarizer = {
    provider: realDiarizer.provider,
    model: realDiarizer.model,
    async diarize(audio, words) {
      diarizations++;
      if (failNextDiarization) {
        failNextDiarization = false;
        throw new PipelineError('diarization_failed', 'injected failure', true);
      }
      return realDiarizer.diarize(audio, words);
    },
  };

  before(async () => {
    transcriber = cachingTranscriber(await createTranscriber({ provider: 'pocketsphinx' }, pino({ level: 'silent' })));
    t = await startTestService({ env: { WORKER_ENABLED: 'true', WORKER_RETRY_LIMIT: '2', WORKER_RETRY_DELAY_SECONDS: '1' }, pipeline: { analyzer, transcriber, diarizer } });
  });
  after(async () => {
    analyzer.release?.();
    await t?.stop();
  });

  const recognitions = () => transcriber.hits + transcriber.misses;
  const db = () => t.service.ctx.database.db;
  const stages = async (callId: string) =>
    Object.fromEntries(
      (await db().selectFrom('callStages').select(['stage', 'attempt', 'outcome', 'progress']).where('callId', '=', callId).execute()).map((r) => [r.stage, r]),
    );
  const callJobs = async (callId: string) =>
    Number((await sql<{ n: number }>`SELECT count(*)::int AS n FROM pgboss.job WHERE name = ${CALL_QUEUE} AND singleton_key = ${callId}`.execute(db())).rows[0]?.n);
  const analysisJobRetries = async (callId: string) =>
    (await sql<{ retryCount: number }>`SELECT retry_count FROM pgboss.job WHERE name = ${ANALYSIS_QUEUE} AND singleton_key = ${callId}`.execute(db())).rows.map((r) => r.retryCount);
  const events = async (callId: string) =>
    (await db().selectFrom('processingEvents').select(['step', 'outcome']).where('callId', '=', callId).orderBy('id').execute()).map((e) => `${e.step}:${e.outcome}`);

  test('an analysis that fails once resumes at analysis: recognition and diarization are not run again', async () => {
    const before = { recognitions: recognitions(), diarizations };
    const r = await t.request('POST', '/api/calls/analyze', { form: uploadForm(AUDIO, { title: 'analysis fails once' }) });
    assert.equal(r.status, 202);
    assert.equal(await waitForCall(t, r.body.callId), 'COMPLETED');
    assert.equal(analyzer.calls.get('analysis fails once'), 2, 'analysed twice');
    assert.equal(recognitions() - before.recognitions, 1, 'recognised once');
    assert.equal(diarizations - before.diarizations, 1, 'diarized once');
    const s = await stages(r.body.callId);
    assert.deepEqual(Object.keys(s).sort(), STAGES.map((x) => x.name).sort(), 'a row per stage');
    for (const name of ['decode', 'transcribe', 'diarize', 'voice', 'resolve']) assert.equal(s[name].attempt, 1, `${name} ran once`);
    assert.equal(s.analyze.attempt, 2, 'analysis ran twice');
    for (const row of Object.values(s)) assert.equal(row.outcome, 'COMPLETED');
    const ev = await events(r.body.callId);
    assert.equal(ev.filter((e) => e === 'TRANSCRIBE:COMPLETED').length, 1, ev.join(' '));
    assert.ok(ev.includes('PIPELINE:RETRY_SCHEDULED'), ev.join(' '));
    // The retry was the analysis job's (ANALYSIS_QUEUE): the call job ran once, and handed over.
    assert.equal(await callJobs(r.body.callId), 1, 'one call job');
    assert.deepEqual(await analysisJobRetries(r.body.callId), [1], 'one analysis job, retried once');
  });

  test('a diarization that fails once after recognition resumes at diarization without recognising again', async () => {
    const before = { recognitions: recognitions(), diarizations };
    failNextDiarization = true;
    const r = await t.request('POST', '/api/calls/analyze', { form: uploadForm(AUDIO, { title: 'diarization fails once' }) });
    assert.equal(await waitForCall(t, r.body.callId), 'COMPLETED');
    assert.equal(diarizations - before.diarizations, 2, 'diarized twice');
    assert.equal(recognitions() - before.recognitions, 1, 'recognised once');
    const s = await stages(r.body.callId);
    assert.equal(s.transcribe.attempt, 1);
    assert.equal(s.diarize.attempt, 2);
    assert.ok((await events(r.body.callId)).includes('TRANSCRIBE:REUSED'), 'the retried call job noted the kept recognition');
    assert.equal((await t.request('GET', `/api/calls/${r.body.callId}/transcript`)).status, 200);
  });

  test("a call's progress is read from its stage state", async () => {
    const r = await t.request('POST', '/api/calls/analyze', { form: uploadForm(AUDIO, { title: 'slow analysis' }) });
    const callId = r.body.callId;
    const progress = async () => (await t.request('GET', `/api/calls/${callId}`)).body.progress;
    // The analyzer holds at 25 % until released (a cooperative hold): wait for it however long
    // recognition takes on this machine; the runner's timeout catches a call that never gets there.
    while (!(analyzer.release && (await progress())?.percent === 25)) await new Promise((res) => setTimeout(res, 200));
    const s = await stages(callId);
    assert.equal(s.analyze.outcome, 'RUNNING');
    assert.equal(s.analyze.progress, 25);
    assert.equal(s.transcribe.outcome, 'COMPLETED');
    assert.equal((await progress()).stage, 'ANALYZE');
    // The stage table, not the event log, is what progress reports.
    await db().updateTable('callStages').set({ progress: 60 }).where('callId', '=', callId).where('stage', '=', 'analyze').execute();
    assert.deepEqual({ ...(await progress()), updatedAt: undefined }, { stage: 'ANALYZE', percent: 60, updatedAt: undefined });
    await db().updateTable('callStages').set({ outcome: 'RUNNING' }).where('callId', '=', callId).where('stage', '=', 'diarize').execute();
    assert.equal((await progress()).stage, 'DIARIZE', 'the first unfinished stage of the list');
    await db().updateTable('callStages').set({ outcome: 'COMPLETED' }).where('callId', '=', callId).where('stage', '=', 'diarize').execute();
    analyzer.release!();
    assert.equal(await waitForCall(t, callId), 'COMPLETED');
    assert.equal(await progress(), undefined, 'no progress on a finished call');
  });
});

// End to end on the embedded default: every corpus call, in each of the five upload formats and
// in stereo, goes through the API and the real pipeline (ffmpeg, pocketsphinx, diarization,
// naming, the embedded analyzer) to COMPLETED; transcripts and analyses validate against the spec
// and are scored against the corpus ground truth.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Value } from '@sinclair/typebox/value';
import { Transcript } from '../../src/domain/transcript.js';
import { validateAnalysis } from '../../src/pipeline/analysis/validate.js';
import { corpusFile, corpusIds, loadScorer, loadTruth } from '../support/corpus.js';
import { startTestService, TestIdp, uploadForm, waitForCall, type TestService } from '../support/service.js';

const FORMATS = ['mono16k.wav', 'stereo.wav', 'call.m4a', 'call.mp3', 'call.ogg', 'call.aac'] as const;

describe('corpus end to end (embedded PostgreSQL, real pipeline)', () => {
  let t: TestService;
  let idp: TestIdp;
  const ids = corpusIds();
  const results: Array<{ id: string; format: string; score: any; transcript: any; analysis: any }> = [];

  before(async () => {
    idp = await TestIdp.start();
    t = await startTestService({ env: { ...idp.env(), WORKER_ENABLED: 'true', WORKER_CONCURRENCY: '2' } });
  });
  after(async () => {
    await t?.stop();
    await idp?.stop();
  });

  test('every corpus call reaches COMPLETED with a valid transcript and analysis', async () => {
    const scorer = await loadScorer();
    const uploads = [];
    for (const [i, id] of ids.entries()) {
      const truth = loadTruth(id);
      const format = FORMATS[i % FORMATS.length];
      // One app user per call: naming depends on the user's display name.
      const token = await idp.token({ sub: `corpus-${id}`, email: `${id}@example.com`, name: truth.user.displayName });
      const metadata: Record<string, unknown> = { title: truth.title, direction: truth.upload.direction, recordedAt: truth.upload.recordedAt };
      if (truth.upload.contactName) metadata.contactName = truth.upload.contactName;
      if (truth.upload.phoneNumber) metadata.phoneNumber = truth.upload.phoneNumber;
      const r = await t.request('POST', '/api/calls/analyze', { token, form: uploadForm(corpusFile(id, format), metadata) });
      assert.equal(r.status, 202, `${id}: ${r.text}`);
      uploads.push({ id, format, token, callId: r.body.callId as string, truth });
    }
    for (const u of uploads) {
      const status = await waitForCall(t, u.callId, u.token, 400_000);
      const detail = (await t.request('GET', `/api/calls/${u.callId}`, { token: u.token })).body;
      assert.equal(status, 'COMPLETED', `${u.id} (${u.format}) failed: ${detail.errorReason}`);
      assert.ok(Math.abs(detail.durationSeconds - u.truth.durationSeconds) <= 1, `${u.id}: duration from decoded PCM`);
      const transcript = (await t.request('GET', `/api/calls/${u.callId}/transcript`, { token: u.token })).body;
      const analysis = (await t.request('GET', `/api/calls/${u.callId}/analysis`, { token: u.token })).body;
      assert.ok(Value.Check(Transcript, transcript), `${u.id}: transcript validates: ${JSON.stringify([...Value.Errors(Transcript, transcript)][0])}`);
      assert.equal(transcript.callId, u.callId);
      assert.equal(transcript.schemaVersion, 2);
      assert.equal(transcript.pipeline.normalizationVersion, 3);
      assert.equal(transcript.speakerResolution.strategyVersion, 2);
      assert.match(transcript.cleanText.split('\n')[0], /^\[\d{2}:\d{2} - \d{2}:\d{2}\] [^:]+: .+/);
      // Word times fit the audio (issue 15): no segment before 0 or past the end, in order.
      transcript.segments.forEach((seg: { startSeconds: number; endSeconds: number }, k: number) => {
        assert.ok(seg.startSeconds >= 0 && seg.endSeconds >= seg.startSeconds, `${u.id}: segment ${k} times`);
        assert.ok(seg.endSeconds <= u.truth.durationSeconds + 0.05, `${u.id} (${u.format}): segment ${k} ends at ${seg.endSeconds} s, after the audio`);
        if (k > 0) assert.ok(seg.startSeconds >= transcript.segments[k - 1].startSeconds, `${u.id}: segment ${k} out of order`);
      });
      const checked = validateAnalysis(analysis);
      assert.ok(checked.ok, `${u.id}: analysis validates: ${checked.ok ? '' : checked.errors.join('; ')}`);
      assert.equal(analysis.schemaVersion, 3);
      assert.equal(analysis.shortSummary, analysis.oneLineSummary);
      results.push({ id: u.id, format: u.format, score: scorer.scoreTranscript(u.truth, transcript), transcript, analysis });
    }
    assert.equal(results.length, ids.length);
  });

  test('transcripts are attributed to the right speakers and named from the evidence', () => {
    assert.ok(results.length > 0, 'the end-to-end run produced results');
    for (const r of results) {
      // Per call a lenient floor; the benchmark reports the exact numbers.
      assert.ok(r.score.attribution >= 0.8, `${r.id} (${r.format}): attribution ${r.score.attribution}`);
      assert.ok(r.score.wer <= 0.6, `${r.id} (${r.format}): WER ${r.score.wer}`);
    }
    const mean = (k: string) => results.reduce((a, r) => a + r.score[k], 0) / results.length;
    assert.ok(mean('attribution') >= 0.9, `mean attribution ${mean('attribution')}`);
    assert.ok(mean('roleAccuracy') >= 0.75, `mean role accuracy ${mean('roleAccuracy')}`);
  });
});

// End to end on the embedded default: every corpus call, in each of the five upload formats and
// in stereo, goes through the API and the real pipeline (ffmpeg, pocketsphinx, diarization,
// naming, the embedded analyzer) to COMPLETED; transcripts and analyses validate against the spec
// and are scored against the corpus ground truth.
//
// The accuracy thresholds sit just below the figures measured on this test's own uploads (see
// docs/bench/e2e-thresholds.md), so a regression fails here: doubling the recogniser's word error
// rate (CORPUS_E2E_CORRUPT_WORDS=0.2, which replaces a fifth of the recognised words) makes this
// test fail. Recognitions are cached on disk keyed by the audio, the recogniser's version and
// settings (test/support/recognition-cache.ts): everything after recognition runs every time.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { Value } from '@sinclair/typebox/value';
import { Transcript } from '../../src/domain/transcript.js';
import { validateAnalysis } from '../../src/pipeline/analysis/validate.js';
import { corpusFile, corpusIds, ensureCorpus, loadScorer, loadTruth } from '../support/corpus.js';
import { startTestService, TestIdp, uploadForm, waitForCallSettled, type TestService } from '../support/service.js';
import { PocketsphinxTranscriber } from '../../src/pipeline/transcription/pocketsphinx.js';
import { cachingTranscriber } from '../support/recognition-cache.js';
import { degradedTranscriber } from '../support/degraded-recogniser.js';
import { checkLabelSources, type LabelSourceCheck } from '../support/label-sources.js';
import { THRESHOLDS } from './corpus-thresholds.js';

const FORMATS = ['mono16k.wav', 'stereo.wav', 'call.m4a', 'call.mp3', 'call.ogg', 'call.aac'] as const;
/** Uncompressed uploads: naming and label sources must be exact there. */
const CLEAN_FORMATS: readonly string[] = ['mono16k.wav', 'stereo.wav'];


/** Test-only: a deliberately worse recogniser (share of recognised words replaced), to show the thresholds bite. */
const corruptShare = Number(process.env.CORPUS_E2E_CORRUPT_WORDS ?? 0);

describe('corpus end to end (embedded PostgreSQL, real pipeline)', () => {
  let t: TestService;
  let idp: TestIdp;
  const ids = corpusIds();
  const results: Array<{ id: string; format: string; score: any; labels: LabelSourceCheck; transcript: any; analysis: any }> = [];

  before(async () => {
    // Rendered before the service starts (see ensureCorpus).
    ensureCorpus();
    idp = await TestIdp.start();
    // No machine-speed limit on the recogniser here: on a loaded machine it takes many times its
    // idle time, and this test measures accuracy (the limit has its own tests).
    const real = cachingTranscriber(new PocketsphinxTranscriber({ timeoutMsPerAudioSecond: 60_000 }));
    const transcriber = corruptShare > 0 ? degradedTranscriber(real, corruptShare) : real;
    t = await startTestService({ env: { ...idp.env(), WORKER_ENABLED: 'true', WORKER_CONCURRENCY: '2' }, pipeline: { transcriber } });
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
      const status = await waitForCallSettled(t, u.callId, u.token);
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
      const score = scorer.scoreTranscript(u.truth, transcript);
      results.push({ id: u.id, format: u.format, score, labels: checkLabelSources(u.truth, transcript, score), transcript, analysis });
    }
    assert.equal(results.length, ids.length);
  });

  test('transcripts are recognised, attributed, given roles and named as well as measured', () => {
    assert.ok(results.length > 0, 'the end-to-end run produced results');
    const mean = (k: string) => results.reduce((a, r) => a + r.score[k], 0) / results.length;
    const clean = results.filter((r) => CLEAN_FORMATS.includes(r.format));
    const agreement = results.reduce((a, r) => a + r.labels.agree, 0);
    const against = results.filter((r) => r.labels.positionalAgainstEvidence).map((r) => r.id);
    const measured = {
      corruptShare,
      calls: results.map((r) => ({ id: r.id, format: r.format, wer: r.score.wer, attribution: r.score.attribution, roles: r.score.roleAccuracy, naming: r.score.naming, labels: r.labels.bySpeaker })),
      meanWer: mean('wer'),
      meanAttribution: mean('attribution'),
      meanRoles: mean('roleAccuracy'),
      cleanNaming: clean.reduce((a, r) => a + r.score.naming, 0) / Math.max(1, clean.length),
      labelSourceAgreement: agreement,
      labelSourcesChecked: results.reduce((a, r) => a + r.labels.of, 0),
      positionalAgainstEvidence: against,
    };
    // bench/e2e-thresholds.ts reads this to publish the measured figures next to the thresholds.
    if (process.env.CORPUS_E2E_REPORT) fs.writeFileSync(process.env.CORPUS_E2E_REPORT, JSON.stringify(measured, null, 2));
    const failures: string[] = [];
    const check = (ok: boolean, what: string) => {
      if (!ok) failures.push(what);
    };
    for (const r of results) {
      check(r.score.wer <= THRESHOLDS.maxCallWer, `${r.id} (${r.format}): WER ${r.score.wer} > ${THRESHOLDS.maxCallWer}`);
      check(r.score.attribution >= THRESHOLDS.minCallAttribution, `${r.id} (${r.format}): attribution ${r.score.attribution} < ${THRESHOLDS.minCallAttribution}`);
    }
    check(measured.meanWer <= THRESHOLDS.maxMeanWer, `mean WER ${measured.meanWer.toFixed(4)} > ${THRESHOLDS.maxMeanWer}`);
    check(measured.meanAttribution >= THRESHOLDS.minMeanAttribution, `mean attribution ${measured.meanAttribution.toFixed(4)} < ${THRESHOLDS.minMeanAttribution}`);
    check(measured.meanRoles >= THRESHOLDS.minMeanRoles, `mean role accuracy ${measured.meanRoles.toFixed(4)} < ${THRESHOLDS.minMeanRoles}`);
    for (const r of clean) {
      check(r.score.naming >= THRESHOLDS.minCleanNaming, `${r.id} (${r.format}): naming ${r.score.naming} (${JSON.stringify(r.score.details.naming)})`);
    }
    check(agreement >= THRESHOLDS.minLabelSourceAgreement, `label sources as the corpus expects: ${agreement}/${measured.labelSourcesChecked} < ${THRESHOLDS.minLabelSourceAgreement}`);
    check(against.length <= THRESHOLDS.maxPositionalAgainstEvidence, `positional fallback where the corpus expects evidence: ${against.join(', ')}`);
    // All failures at once: one regression usually moves several figures.
    assert.deepEqual(failures, [], `measured ${JSON.stringify({ ...measured, calls: undefined })}`);
  });
});

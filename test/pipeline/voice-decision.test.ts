// The two-party decision on cohort-normalised scores (src/pipeline/voice/match.ts): normalisation
// against the cohort, the threshold and margin in normalised units, and the [0,1] scores the API
// shows. Pure functions on hand-made vectors; the accuracy on real voices is bench/voice-real.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_VOICE_MATCH_MARGIN, DEFAULT_VOICE_MATCH_THRESHOLD, fusedMatch, normalizedMatch, normalizedScores } from '../../src/pipeline/voice/match.js';
import { EMBEDDED_PROVIDER, FUSED_PROVIDER, FUSED_V1_GATE, ProjectedStatsEmbedder, V1_PROVIDER, STATISTICS_DIMS, createSpeakerEmbedder, projectStatistics, summariseFrames, v1Features } from '../../src/pipeline/voice/embedder.js';
import { VOICE_MODEL } from '../../src/pipeline/voice/voice-model.js';

const unit = (...xs: number[]) => {
  const n = Math.hypot(...xs);
  return Float32Array.from(xs.map((x) => x / n));
};
/** A cohort spread around the plane z = 0, far from the z axis. */
const cohort = Array.from({ length: 12 }, (_, i) => Array.from(unit(Math.cos(i), Math.sin(i), 0.2 * ((i % 3) - 1))));
const norm = { cohort, cohortTopK: 6 };

test('normalised scores: the same cosine counts for less against a voice close to the cohort', () => {
  const profile = unit(0.1, 0, 1);
  // Both speakers have the same cosine with the profile; B also resembles every cohort voice.
  const a = unit(0.1 + 0.3, 0, 1 - 0.05);
  const close = unit(1, 0.2, 0.3);
  const z = normalizedScores(profile, { A: a, B: close }, norm);
  assert.ok(z.A > z.B, `A ${z.A} above B ${z.B}`);
  // Symmetric: both sides' cohort statistics are used.
  const z2 = normalizedScores(a, { P: profile }, norm);
  assert.ok(Math.abs(z2.P - z.A) < 1e-9, 'S-norm is symmetric in profile and speaker');
});

test('normalizedMatch names a party only above the threshold and by the margin over the other', () => {
  const fit = { threshold: 2, margin: 1 };
  assert.deepEqual(normalizedMatch({ A: 3.5, B: 0.2 }, fit).match, { status: 'MATCHED', matchedSpeaker: 'A' });
  assert.deepEqual(normalizedMatch({ A: 0.2, B: 3.5 }, fit).match, { status: 'MATCHED', matchedSpeaker: 'B' });
  // Owner absent, typical: both low.
  assert.deepEqual(normalizedMatch({ A: 1.9, B: 0.1 }, fit).match, { status: 'NO_MATCH', matchedSpeaker: null });
  // Both high and close: the evidence cannot tell which one is the user, so nobody is named.
  assert.deepEqual(normalizedMatch({ A: 3.2, B: 2.5 }, fit).match, { status: 'NO_MATCH', matchedSpeaker: null });
  // One party only (the other had too little speech): the threshold alone decides.
  assert.deepEqual(normalizedMatch({ A: 2.1 }, fit).match, { status: 'MATCHED', matchedSpeaker: 'A' });
  assert.deepEqual(normalizedMatch({}, fit).match, { status: 'NO_MATCH', matchedSpeaker: null });
});

test('normalizedMatch: [0,1] scores put the fitted threshold on the default threshold, and a configured threshold moves the decision', () => {
  const fit = { threshold: 2, margin: 1 };
  const { scores } = normalizedMatch({ A: 2, B: 1, C: 100, D: -100 }, fit);
  assert.ok(Math.abs(scores.A - DEFAULT_VOICE_MATCH_THRESHOLD) < 1e-12);
  assert.ok(Math.abs(scores.A - scores.B - DEFAULT_VOICE_MATCH_MARGIN) < 1e-12, 'the fitted margin spans the default margin');
  assert.equal(scores.C, 1);
  assert.equal(scores.D, 0);
  // A stricter configured threshold (0.9 = one fitted margin higher, 3 in normalised units) rejects 2.5.
  assert.equal(normalizedMatch({ A: 2.5, B: 0 }, fit).match.status, 'MATCHED');
  assert.equal(normalizedMatch({ A: 2.5, B: 0 }, fit, 0.9).match.status, 'NO_MATCH');
  const strict = normalizedMatch({ A: 3.2, B: 0 }, fit, 0.9);
  assert.equal(strict.match.matchedSpeaker, 'A');
  assert.ok(strict.scores.A >= 0.9, 'a MATCHED speaker shows a score at or above the configured threshold');
});

test('the shipped model: fitted, versioned, and its embeddings unit length', () => {
  const e = new ProjectedStatsEmbedder();
  assert.equal(e.provider, VOICE_MODEL.id);
  assert.notEqual(e.provider, EMBEDDED_PROVIDER, 'profiles of the other embedded embedder are not scored by this one');
  assert.equal(e.normalization, VOICE_MODEL);
  assert.ok(VOICE_MODEL.cohort.length >= VOICE_MODEL.cohortTopK && VOICE_MODEL.cohortTopK > 1);
  assert.ok(VOICE_MODEL.margin > 0);
  const v = projectStatistics(VOICE_MODEL.center.map((c, i) => c + VOICE_MODEL.scale[i] * ((i % 5) - 2)), VOICE_MODEL);
  assert.equal(v.length, VOICE_MODEL.projection.length);
  assert.ok(Math.abs(Math.hypot(...v) - 1) < 1e-5);
  for (const c of VOICE_MODEL.cohort) assert.equal(c.length, v.length);
  assert.equal(VOICE_MODEL.center.length, STATISTICS_DIMS[VOICE_MODEL.statistics ?? 'msp'], 'the model projects the statistics it names');
});

test('frame summaries: cepstral means and deviations, delta deviations, pitch median and range', () => {
  // Two frames: c_k = k and c_k = k + 2 (mean k + 1, deviation 1); deltas +-k (deviation k); pitch 0..10 semitones.
  const cep = [Float64Array.from({ length: 20 }, (_, k) => k), Float64Array.from({ length: 20 }, (_, k) => k + 2)];
  const delta = [Float64Array.from({ length: 20 }, (_, k) => k), Float64Array.from({ length: 20 }, (_, k) => -k)];
  const logF0 = Array.from({ length: 11 }, (_, i) => i);
  const msp = summariseFrames({ cep, delta, logF0 }, 'msp');
  const mspd = summariseFrames({ cep, delta, logF0 }, 'mspd');
  assert.equal(msp.length, STATISTICS_DIMS.msp);
  assert.equal(mspd.length, STATISTICS_DIMS.mspd);
  for (let k = 0; k < 20; k++) {
    assert.ok(Math.abs(msp[k] - (k + 1)) < 1e-9 && Math.abs(msp[20 + k] - 1) < 1e-9, `c${k + 1} mean and deviation`);
    assert.ok(Math.abs(mspd[40 + k] - k) < 1e-9, `delta c${k + 1} deviation`);
  }
  assert.deepEqual([...msp.slice(40)], [5, 8]);
  assert.deepEqual([...mspd.slice(0, 40)], [...msp.slice(0, 40)], 'mspd extends msp');
  assert.deepEqual([...mspd.slice(60)], [5, 8]);
  // The default embedder's raw features: mean c1-c16 and the median pitch.
  assert.deepEqual([...v1Features({ cep, logF0 })], [...Array.from({ length: 16 }, (_, k) => k + 1), 5]);
});

test("VOICE_EMBEDDING_PROVIDER=embedded (and its earlier name embedded-fused) is the fused decision; 'embedded-stats' the statistics embedder, 'embedded-lda' the fitted model alone", async () => {
  assert.equal((await createSpeakerEmbedder({ provider: 'embedded-lda' })).provider, VOICE_MODEL.id);
  for (const provider of ['embedded', 'embedded-fused'] as const) {
    const fused = await createSpeakerEmbedder({ provider });
    assert.equal(fused.provider, FUSED_PROVIDER, provider);
    assert.equal(fused.normalization, VOICE_MODEL, 'the fitted model decides');
    assert.deepEqual(fused.fusion, { fittedDim: VOICE_MODEL.projection.length, gate: FUSED_V1_GATE });
  }
  assert.equal(EMBEDDED_PROVIDER, FUSED_PROVIDER);
  const plain = await createSpeakerEmbedder({ provider: 'embedded-stats' });
  assert.equal(plain.provider, V1_PROVIDER);
  assert.equal(plain.normalization, undefined, 'the statistics embedder keeps raw cosine scores');
  assert.equal(plain.fusion, undefined);
  // Profiles of each embedder are of another provider than the others': never scored by another.
  assert.notEqual(V1_PROVIDER, FUSED_PROVIDER);
  assert.notEqual(VOICE_MODEL.id, FUSED_PROVIDER);
});

describe('fusedMatch: only parties whose statistics score reaches the gate are candidates; the fitted decision is taken among them', () => {
  // Fitted part 3 values (normalised against `cohort`), statistics part 2 values.
  const fusion = { fittedDim: 3, gate: 0.8 };
  const fit = { ...norm, threshold: 2, margin: 1 };
  const fuse = (fitted: Float32Array, plain: Float32Array) => Float32Array.from([...fitted, ...plain]);
  const profileFitted = unit(0.1, 0, 1);
  const near = unit(0.15, 0.02, 1);
  const far = unit(1, 0.3, 0.1);
  const plainProfile = unit(1, 0);
  const plainSame = unit(1, 0.1); // (1 + cos) / 2 = 0.998
  const plainOther = unit(0.2, 1); // (1 + cos) / 2 = 0.598

  test('both agree: the fitted decision stands, and its [0,1] score', () => {
    const embs = { A: fuse(near, plainSame), B: fuse(far, plainOther) };
    const fitted = normalizedMatch(normalizedScores(profileFitted, { A: near, B: far }, norm), fit);
    assert.deepEqual(fitted.match, { status: 'MATCHED', matchedSpeaker: 'A' }, 'the hand-made case is one the fitted decision names');
    const r = fusedMatch(fuse(profileFitted, plainProfile), embs, fit, fusion);
    assert.deepEqual(r.match, { status: 'MATCHED', matchedSpeaker: 'A' });
    assert.equal(r.scores.A, fitted.scores.A);
    // B is under the gate: its reported score is its statistics score when that is lower.
    const plainB = (1 + plainOther[0] * plainProfile[0] + plainOther[1] * plainProfile[1]) / 2;
    assert.ok(plainB < fitted.scores.B, 'the hand-made case has B under the gate and under its fitted score');
    assert.ok(Math.abs(r.scores.B - plainB) < 1e-6, `B reports ${r.scores.B}, its statistics score ${plainB}`);
  });

  test('the named party under the gate: nobody is named, and no reported score reaches the threshold', () => {
    const r = fusedMatch(fuse(profileFitted, plainProfile), { A: fuse(near, plainOther), B: fuse(far, plainSame) }, fit, fusion);
    assert.deepEqual(r.match, { status: 'NO_MATCH', matchedSpeaker: null });
    assert.ok(r.scores.A < fusion.gate, `A reports ${r.scores.A}`);
    assert.ok(Object.values(r.scores).every((x) => x < DEFAULT_VOICE_MATCH_THRESHOLD));
  });

  test('a party under the fitted threshold is never named, however alike its statistics', () => {
    // Fitted: nobody (both far); statistics: A identical to the profile.
    const r = fusedMatch(fuse(profileFitted, plainProfile), { A: fuse(far, plainProfile), B: fuse(unit(0.9, -0.4, 0.1), plainOther) }, fit, fusion);
    assert.equal(normalizedMatch(normalizedScores(profileFitted, { A: far, B: unit(0.9, -0.4, 0.1) }, norm), fit).match.status, 'NO_MATCH');
    assert.deepEqual(r.match, { status: 'NO_MATCH', matchedSpeaker: null });
  });

  test('a rival under the gate does not hide the owner; two candidates still need the margin', () => {
    // Fitted: A and B alike (a tie, so the fitted decision alone names nobody); statistics: only A reaches the gate.
    assert.equal(normalizedMatch(normalizedScores(profileFitted, { A: near, B: near }, norm), fit).match.status, 'NO_MATCH');
    const r = fusedMatch(fuse(profileFitted, plainProfile), { A: fuse(near, plainSame), B: fuse(near, plainOther) }, fit, fusion);
    assert.deepEqual(r.match, { status: 'MATCHED', matchedSpeaker: 'A' });
    assert.ok(r.scores.A >= DEFAULT_VOICE_MATCH_THRESHOLD && r.scores.B < fusion.gate, 'the reported scores show the decision');
    // Both over the gate: the tie stands, nobody is named.
    assert.deepEqual(fusedMatch(fuse(profileFitted, plainProfile), { A: fuse(near, plainSame), B: fuse(near, plainSame) }, fit, fusion).match, { status: 'NO_MATCH', matchedSpeaker: null });
  });

  test('a configured threshold moves the fitted decision as in normalizedMatch', () => {
    const embs = { A: fuse(near, plainSame), B: fuse(far, plainOther) };
    const z = normalizedScores(profileFitted, { A: near, B: far }, norm);
    const strict = DEFAULT_VOICE_MATCH_THRESHOLD + ((z.A - fit.threshold) / fit.margin) * DEFAULT_VOICE_MATCH_MARGIN + 0.01;
    assert.equal(fusedMatch(fuse(profileFitted, plainProfile), embs, fit, fusion, strict).match.status, 'NO_MATCH');
  });
});

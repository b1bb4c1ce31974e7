// The pieces bench/fit-voice.ts --backends compares (issue 27): PLDA fitting and scoring, the
// GMM-UBM and its supervectors, randomised PCA, cepstral correlations, and the guard that keeps
// held-out voices out of the training speakers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HELD_OUT_SPEAKERS, SPEAKER_SOURCES, TRAINING_SPEAKERS, heldOutLeak } from '../../bench/support/real-speakers.js';
import { FRAME_DIM, correlations, meanSupervector, pldaProject, pldaScore, skewness, ubmStatistics } from '../../bench/support/voice-backends.js';
import { fitPlda, pca, rng, trainUbm } from '../../bench/support/voice-linalg.js';

test('PLDA score: a same-speaker pair far out along a speaker direction beats an opposite pair and a pair at the centre', () => {
  const between = [4, 0.01];
  const same = pldaScore([2, 0], [2, 0], between);
  const opposite = pldaScore([2, 0], [-2, 0], between);
  const centre = pldaScore([0, 0], [0, 0], between);
  assert.ok(same > centre && centre > opposite, `${same} ${centre} ${opposite}`);
  // A direction where speakers hardly differ carries almost no evidence.
  assert.ok(Math.abs(pldaScore([0, 2], [0, 2], between) - centre) < 0.05);
  // Symmetric.
  assert.equal(pldaScore([1, 0.5], [-0.3, 2], between), pldaScore([-0.3, 2], [1, 0.5], between));
});

test('fitPlda: within-speaker covariance becomes the identity, between-speaker variance found along the speaker axis', () => {
  const r = rng(3);
  const gauss = () => Math.sqrt(-2 * Math.log(r() + 1e-12)) * Math.cos(2 * Math.PI * r());
  const xs: number[][] = [];
  const labels: string[] = [];
  for (let s = 0; s < 40; s++) {
    const m = 3 * gauss(); // speakers differ along x only
    for (let k = 0; k < 30; k++) {
      xs.push([m + 0.5 * gauss(), 0.5 * gauss()]);
      labels.push(`s${s}`);
    }
  }
  const model = fitPlda(xs, labels, 0);
  assert.ok(model.between[0] > 10 && model.between[1] < 0.2, `between ${model.between}`);
  // Within one speaker the projected spread is about 1.
  const one = xs.slice(0, 30).map((x) => pldaProject(x, model));
  const mean = one.reduce((a, p) => a + p[0], 0) / one.length;
  const sd = Math.sqrt(one.reduce((a, p) => a + (p[0] - mean) ** 2, 0) / one.length);
  assert.ok(sd > 0.6 && sd < 1.5, `sd ${sd}`);
  // Two renderings of one speaker score higher than renderings of two speakers.
  const [a, b] = [pldaProject(xs[0], model), pldaProject(xs[1], model)];
  const far = xs.map((x) => pldaProject(x, model)).find((p) => Math.abs(p[0] - a[0]) > 4) as Float64Array;
  assert.ok(pldaScore(a, b, model.between) > pldaScore(a, far, model.between));
});

test('trainUbm and meanSupervector: two clusters found; frames of one cluster shift only its component', () => {
  const r = rng(5);
  const frame = (centre: number) => Float32Array.from({ length: FRAME_DIM }, () => centre + 0.1 * (r() - 0.5));
  const frames = (centre: number, n: number) => {
    const out = new Float32Array(n * FRAME_DIM);
    for (let t = 0; t < n; t++) out.set(frame(centre), t * FRAME_DIM);
    return out;
  };
  const ubm = trainUbm([frames(-1, 200), frames(1, 200)], FRAME_DIM, 2, 10, 1);
  const centres = [ubm.means[0], ubm.means[FRAME_DIM]].sort((x, y) => x - y);
  assert.ok(Math.abs(centres[0] + 1) < 0.05 && Math.abs(centres[1] - 1) < 0.05, `centres ${centres}`);
  const stats = ubmStatistics(frames(1, 50), ubm);
  assert.ok(Math.abs(stats.n[0] + stats.n[1] - 50) < 1e-6);
  const hi = ubm.means[0] > 0 ? 0 : 1;
  const shifted = frames(1.02, 50);
  const sv = meanSupervector(shifted, ubm);
  const lo = 1 - hi;
  assert.ok(sv[hi * FRAME_DIM] > 0, 'the component the frames fall in moves towards them');
  assert.ok(Math.abs(sv[lo * FRAME_DIM]) < 1e-6, 'the other component stays at the UBM');
});

test('pca: the leading component is the direction of most variance', () => {
  const r = rng(9);
  const xs = Array.from({ length: 200 }, () => {
    const t = 4 * (r() - 0.5);
    return Float64Array.from({ length: 30 }, (_, i) => (i === 7 ? t : 0) + 0.05 * (r() - 0.5));
  });
  const { components } = pca(xs, 3);
  assert.ok(Math.abs(components[0][7]) > 0.99, `component ${components[0][7]}`);
});

test('correlations: upper triangle of the cepstra (or of the deltas with offset 20)', () => {
  const n = 100;
  const fr = new Float32Array(n * FRAME_DIM);
  for (let t = 0; t < n; t++) {
    const x = Math.sin(t);
    fr[t * FRAME_DIM + 0] = x;
    fr[t * FRAME_DIM + 1] = -2 * x; // perfectly anti-correlated with c1
    fr[t * FRAME_DIM + 2] = Math.cos(3 * t);
    fr[t * FRAME_DIM + 20] = x;
    fr[t * FRAME_DIM + 21] = x;
  }
  const c = correlations(fr, 3);
  assert.equal(c.length, 3);
  assert.ok(Math.abs(c[0] + 1) < 1e-9, `c ${c}`);
  assert.ok(Math.abs(correlations(fr, 2, 20)[0] - 1) < 1e-9);
});

test('skewness: zero for a symmetric coefficient, positive for a right-skewed one', () => {
  const n = 4;
  const fr = new Float32Array(n * FRAME_DIM);
  [-1, 0, 0, 1].forEach((v, t) => (fr[t * FRAME_DIM] = v));
  [0, 0, 0, 4].forEach((v, t) => (fr[t * FRAME_DIM + 1] = v));
  const sk = skewness(fr, 2);
  assert.ok(Math.abs(sk[0]) < 1e-12);
  assert.ok(sk[1] > 1);
});

test('heldOutLeak: a training folder resolving into a held-out speaker is caught; the real split has none', () => {
  // Debian's asterisk `es` link without asterisk-prompt-es-co points at Allison's Spanish folder.
  const links: Record<string, string> = { '/usr/share/asterisk/sounds/es': '/usr/share/asterisk/sounds/es_MX_f_Allison' };
  const resolve = (p: string) => links[p] ?? p;
  assert.match(heldOutLeak('ast-es-co', resolve) ?? '', /es_MX_f_Allison/);
  assert.equal(heldOutLeak('tux-fr', resolve), null);
  for (const s of HELD_OUT_SPEAKERS) assert.equal(heldOutLeak(s, resolve), null);
  // Without links every folder is its own: no training speaker reads a held-out folder.
  for (const s of TRAINING_SPEAKERS) assert.equal(heldOutLeak(s, (p) => p), null, s);
  assert.ok(SPEAKER_SOURCES['ast-es-co'].length > 0);
});

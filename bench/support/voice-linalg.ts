// Small dense linear algebra for fitting the voice projection (bench/fit-voice.ts): a few dozen
// dimensions, so plain arrays and a Jacobi eigensolver are enough; nothing here runs in the service.

import { mulberry32 } from '../../src/pipeline/diarization/gmm.js';

export type Mat = number[][];

export function zeros(r: number, c: number): Mat {
  return Array.from({ length: r }, () => new Array<number>(c).fill(0));
}

export function matmul(a: Mat, b: Mat): Mat {
  const out = zeros(a.length, b[0].length);
  for (let i = 0; i < a.length; i++) for (let k = 0; k < b.length; k++) {
    const x = a[i][k];
    if (x === 0) continue;
    for (let j = 0; j < b[0].length; j++) out[i][j] += x * b[k][j];
  }
  return out;
}

export function transpose(a: Mat): Mat {
  return a[0].map((_, j) => a.map((row) => row[j]));
}

/** Eigen-decomposition of a symmetric matrix (cyclic Jacobi): values descending, vectors as columns. */
export function symmetricEigen(m: Mat): { values: number[]; vectors: Mat } {
  const n = m.length;
  const a = m.map((r) => [...r]);
  const v = zeros(n, n);
  for (let i = 0; i < n; i++) v[i][i] = 1;
  for (let sweep = 0; sweep < 100; sweep++) {
    let off = 0;
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) off += a[p][q] * a[p][q];
    if (off < 1e-20) break;
    for (let p = 0; p < n; p++) {
      for (let q = p + 1; q < n; q++) {
        if (Math.abs(a[p][q]) < 1e-300) continue;
        const theta = (a[q][q] - a[p][p]) / (2 * a[p][q]);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < n; k++) {
          const akp = a[k][p];
          const akq = a[k][q];
          a[k][p] = c * akp - s * akq;
          a[k][q] = s * akp + c * akq;
        }
        for (let k = 0; k < n; k++) {
          const apk = a[p][k];
          const aqk = a[q][k];
          a[p][k] = c * apk - s * aqk;
          a[q][k] = s * apk + c * aqk;
        }
        for (let k = 0; k < n; k++) {
          const vkp = v[k][p];
          const vkq = v[k][q];
          v[k][p] = c * vkp - s * vkq;
          v[k][q] = s * vkp + c * vkq;
        }
      }
    }
  }
  const order = a.map((_, i) => i).sort((i, j) => a[j][j] - a[i][i]);
  return { values: order.map((i) => a[i][i]), vectors: v.map((row) => order.map((i) => row[i])) };
}

/**
 * Linear discriminant analysis: the `dims` directions (rows of the result) that maximise
 * between-speaker over within-speaker variance, scaled so the within-speaker covariance becomes
 * the identity. `shrink` adds that share of the mean within-class variance to the diagonal, which
 * keeps directions seen in few speakers from being trusted too much.
 */
export function lda(xs: number[][], labels: string[], dims: number, shrink = 0.05): Mat {
  return ldaWithValues(xs, labels, dims, shrink).projection;
}

/** `lda` and the between-speaker variance along each kept direction (the within-speaker one is 1 there). */
export function ldaWithValues(xs: number[][], labels: string[], dims: number, shrink = 0.05): { projection: Mat; values: number[] } {
  const d = xs[0].length;
  const classes = [...new Set(labels)];
  const mean = new Array<number>(d).fill(0);
  for (const x of xs) for (let i = 0; i < d; i++) mean[i] += x[i] / xs.length;
  const sw = zeros(d, d);
  const sb = zeros(d, d);
  for (const c of classes) {
    const members = xs.filter((_, i) => labels[i] === c);
    const mc = new Array<number>(d).fill(0);
    for (const x of members) for (let i = 0; i < d; i++) mc[i] += x[i] / members.length;
    for (const x of members) for (let i = 0; i < d; i++) for (let j = 0; j < d; j++) sw[i][j] += ((x[i] - mc[i]) * (x[j] - mc[j])) / xs.length;
    // Each speaker weighs the same in the between-class scatter, however much speech it has.
    for (let i = 0; i < d; i++) for (let j = 0; j < d; j++) sb[i][j] += ((mc[i] - mean[i]) * (mc[j] - mean[j])) / classes.length;
  }
  const avg = sw.reduce((a, r, i) => a + r[i], 0) / d;
  for (let i = 0; i < d; i++) sw[i][i] += shrink * avg;
  // Whiten the within-class scatter, then take the principal directions of the whitened between-class scatter.
  const w = symmetricEigen(sw);
  const whiten = transpose(w.vectors).map((row, k) => row.map((x) => x / Math.sqrt(Math.max(w.values[k], 1e-12))));
  const b = matmul(matmul(whiten, sb), transpose(whiten));
  const e = symmetricEigen(b);
  return { projection: matmul(transpose(e.vectors).slice(0, dims), whiten), values: e.values.slice(0, dims) };
}

/**
 * Within-class covariance normalisation: the whitening of the within-speaker scatter (shrunk as in
 * `lda`), keeping every dimension. Unlike LDA it learns only what varies within a speaker
 * (microphone, codec, words), which many renderings of few speakers estimate well, and trusts no
 * between-speaker direction seen in those few speakers.
 */
export function wccn(xs: number[][], labels: string[], shrink = 0.05): Mat {
  const d = xs[0].length;
  const sw = zeros(d, d);
  for (const c of new Set(labels)) {
    const members = xs.filter((_, i) => labels[i] === c);
    const mc = new Array<number>(d).fill(0);
    for (const x of members) for (let i = 0; i < d; i++) mc[i] += x[i] / members.length;
    for (const x of members) for (let i = 0; i < d; i++) for (let j = 0; j < d; j++) sw[i][j] += ((x[i] - mc[i]) * (x[j] - mc[j])) / xs.length;
  }
  const avg = sw.reduce((a, r, i) => a + r[i], 0) / d;
  for (let i = 0; i < d; i++) sw[i][i] += shrink * avg;
  const w = symmetricEigen(sw);
  return transpose(w.vectors).map((row, k) => row.map((x) => x / Math.sqrt(Math.max(w.values[k], 1e-12))));
}

/**
 * Two-covariance PLDA (src/pipeline/voice/plda.ts) fitted by moments: within- and between-speaker
 * covariance of `xs` (every speaker weighs the same in the between one), the within one shrunk as
 * in `lda`, then diagonalised together (whiten the within, rotate to the between's eigenvectors).
 * `dims` keeps the directions with the most between-speaker variance (0: all).
 */
export function fitPlda(xs: number[][], labels: string[], shrink = 0.05, dims = 0): { mean: number[]; transform: Mat; between: number[] } {
  // The moments and the joint diagonalisation are exactly LDA's; PLDA keeps the mean and the
  // between-speaker variances (never negative) to score with.
  const d = xs[0].length;
  const mean = new Array<number>(d).fill(0);
  for (const x of xs) for (let i = 0; i < d; i++) mean[i] += x[i] / xs.length;
  const { projection, values } = ldaWithValues(xs, labels, dims > 0 ? Math.min(dims, d) : d, shrink);
  return { mean, transform: projection, between: values.map((v) => Math.max(v, 0)) };
}

/** Deterministic pseudo-random numbers in [0, 1): the diarizer's mulberry32. */
export const rng = mulberry32;

/**
 * Principal directions of `xs` (rows), `k` of them, by a randomised range finder with two power
 * iterations: the supervectors have too many dimensions for the Jacobi solver, few samples.
 */
export function pca(xs: Float64Array[], k: number, seed = 1): { mean: Float64Array; components: Float64Array[] } {
  const N = xs.length;
  const D = xs[0].length;
  const mean = new Float64Array(D);
  for (const x of xs) for (let i = 0; i < D; i++) mean[i] += x[i] / N;
  const X = xs.map((x) => Float64Array.from(x, (v, i) => v - mean[i]));
  const r = rng(seed);
  const gauss = () => Math.sqrt(-2 * Math.log(r() + 1e-12)) * Math.cos(2 * Math.PI * r());
  const kk = Math.min(k + 10, N, D);
  // Q: D x kk basis as kk vectors of length D.
  let Q = Array.from({ length: kk }, () => Float64Array.from({ length: D }, gauss));
  const orthonormalise = (vs: Float64Array[]) => {
    for (let a = 0; a < vs.length; a++) {
      for (let b = 0; b < a; b++) {
        let dot = 0;
        for (let i = 0; i < vs[a].length; i++) dot += vs[a][i] * vs[b][i];
        for (let i = 0; i < vs[a].length; i++) vs[a][i] -= dot * vs[b][i];
      }
      let nn = 0;
      for (const v of vs[a]) nn += v * v;
      nn = Math.sqrt(nn) || 1;
      for (let i = 0; i < vs[a].length; i++) vs[a][i] /= nn;
    }
    return vs;
  };
  for (let it = 0; it < 3; it++) {
    orthonormalise(Q);
    // Y = X Q (N x kk), then Q = X^T Y (D x kk)
    const Y = X.map((x) => Float64Array.from(Q, (q) => {
      let s = 0;
      for (let i = 0; i < D; i++) s += x[i] * q[i];
      return s;
    }));
    Q = Q.map((_, j) => {
      const out = new Float64Array(D);
      for (let n = 0; n < N; n++) {
        const y = Y[n][j];
        const x = X[n];
        for (let i = 0; i < D; i++) out[i] += y * x[i];
      }
      return out;
    });
  }
  orthonormalise(Q);
  // Covariance within the subspace: B = Q^T X^T X Q / N (kk x kk), its eigenvectors rotate Q.
  const P = X.map((x) => Q.map((q) => {
    let s = 0;
    for (let i = 0; i < D; i++) s += x[i] * q[i];
    return s;
  }));
  const B = zeros(kk, kk);
  for (const p of P) for (let a = 0; a < kk; a++) for (let b = 0; b < kk; b++) B[a][b] += (p[a] * p[b]) / N;
  const e = symmetricEigen(B);
  const components = Array.from({ length: Math.min(k, kk) }, (_, c) => {
    const out = new Float64Array(D);
    for (let j = 0; j < kk; j++) {
      const w = e.vectors[j][c];
      for (let i = 0; i < D; i++) out[i] += w * Q[j][i];
    }
    return out;
  });
  return { mean, components };
}

/**
 * A diagonal-covariance GMM of frames (flat rows of `dim` values) by EM: means started at frames
 * spread over the data, variances at the global one, floored at 1 % of it.
 */
export function trainUbm(frames: Float32Array[], dim: number, components: number, iterations = 12, seed = 1): { dim: number; weights: number[]; means: number[]; variances: number[] } {
  const total = frames.reduce((a, f) => a + f.length / dim, 0);
  const all = new Float32Array(total * dim);
  let at = 0;
  for (const f of frames) {
    all.set(f, at);
    at += f.length;
  }
  const gmean = new Float64Array(dim);
  const gvar = new Float64Array(dim);
  for (let t = 0; t < total; t++) for (let k = 0; k < dim; k++) gmean[k] += all[t * dim + k] / total;
  for (let t = 0; t < total; t++) for (let k = 0; k < dim; k++) gvar[k] += (all[t * dim + k] - gmean[k]) ** 2 / total;
  const r = rng(seed);
  let means: number[] = [];
  for (let c = 0; c < components; c++) {
    const t = Math.floor(r() * total);
    for (let k = 0; k < dim; k++) means.push(all[t * dim + k]);
  }
  let variances: number[] = [];
  for (let c = 0; c < components; c++) for (let k = 0; k < dim; k++) variances.push(gvar[k]);
  let weights = new Array<number>(components).fill(1 / components);
  for (let it = 0; it < iterations; it++) {
    const ubm = { dim, weights, means, variances };
    const lp = new Float64Array(components);
    const n = new Float64Array(components);
    const f = new Float64Array(components * dim);
    const s = new Float64Array(components * dim);
    const konst = new Float64Array(components);
    for (let c = 0; c < components; c++) {
      let q = Math.log(Math.max(weights[c], 1e-12));
      for (let k = 0; k < dim; k++) q -= 0.5 * Math.log(2 * Math.PI * variances[c * dim + k]);
      konst[c] = q;
    }
    const inv = variances.map((v) => 1 / v);
    for (let t = 0; t < total; t++) {
      const base = t * dim;
      let max = -Infinity;
      for (let c = 0; c < components; c++) {
        let q = 0;
        for (let k = 0; k < dim; k++) {
          const d = all[base + k] - ubm.means[c * dim + k];
          q += d * d * inv[c * dim + k];
        }
        lp[c] = konst[c] - 0.5 * q;
        if (lp[c] > max) max = lp[c];
      }
      let sum = 0;
      for (let c = 0; c < components; c++) sum += (lp[c] = Math.exp(lp[c] - max));
      for (let c = 0; c < components; c++) {
        const g = lp[c] / sum;
        if (g < 1e-6) continue;
        n[c] += g;
        for (let k = 0; k < dim; k++) {
          const x = all[base + k];
          f[c * dim + k] += g * x;
          s[c * dim + k] += g * x * x;
        }
      }
    }
    weights = Array.from(n, (v) => Math.max(v, 1e-3) / total);
    means = Array.from(f, (v, i) => (n[Math.floor(i / dim)] > 1e-3 ? v / n[Math.floor(i / dim)] : means[i]));
    variances = Array.from(s, (v, i) => {
      const c = Math.floor(i / dim);
      const k = i % dim;
      const m = means[i];
      return n[c] > 1e-3 ? Math.max(v / n[c] - m * m, 0.01 * gvar[k]) : gvar[k];
    });
  }
  return { dim, weights, means, variances };
}

// Scoring backends and features compared by `bench/fit-voice.ts --backends` (issue 27), none of
// them used by the service: two-covariance PLDA over the fitted embeddings, mean supervectors
// against a small GMM-UBM of cepstral frames (the i-vector recipe's first half), and the
// correlations between cepstral coefficients (the `mcov` statistics). Kept so the comparison can be
// re-run; the figures are in the script's header.

/** Frames as `--backends` keeps them: c1-c20 (mean-normalised per rendering), then their deltas. */
export const FRAME_DIM = 40;

// Two-covariance PLDA: in the model's PLDA space the within-speaker covariance is the identity and
// the between-speaker one diagonal (`between`); a score is the log-likelihood ratio of one speaker
// against two.
export interface PldaModel {
  /** Subtracted from the (length-normalised) embedding before `transform`. */
  mean: readonly number[];
  /** Rows: PLDA dimensions; columns: embedding dimensions. */
  transform: readonly (readonly number[])[];
  /** Between-speaker variance along each PLDA dimension (within-speaker variance is 1 there). */
  between: readonly number[];
}

/** The embedding in PLDA space. */
export function pldaProject(v: ArrayLike<number>, m: PldaModel): Float64Array {
  const out = new Float64Array(m.transform.length);
  for (let r = 0; r < m.transform.length; r++) {
    const row = m.transform[r];
    let s = 0;
    for (let i = 0; i < row.length; i++) s += row[i] * (v[i] - m.mean[i]);
    out[r] = s;
  }
  return out;
}

/**
 * Log-likelihood ratio of two PLDA-space vectors: per dimension with between-speaker variance b,
 * same speaker: covariance [[b+1, b], [b, b+1]]; different speakers: (b+1) I.
 */
export function pldaScore(x: ArrayLike<number>, y: ArrayLike<number>, between: readonly number[]): number {
  let s = 0;
  for (let k = 0; k < between.length; k++) {
    const b = between[k];
    const sq = x[k] * x[k] + y[k] * y[k];
    const same = ((b + 1) * sq - 2 * b * x[k] * y[k]) / (2 * b + 1);
    const diff = sq / (b + 1);
    s += 0.5 * Math.log(((b + 1) * (b + 1)) / (2 * b + 1)) - 0.5 * (same - diff);
  }
  return s;
}

// GMM-UBM: a diagonal-covariance model of everybody's frames; a stretch's MAP-adapted means.
export interface Ubm {
  dim: number;
  weights: readonly number[];
  /** Component c's mean: means[c * dim + k]. */
  means: readonly number[];
  variances: readonly number[];
}

/** Per-component constants of the log density: log w - 0.5 sum log(2 pi var). */
function componentConstants(ubm: Ubm): Float64Array {
  const C = ubm.weights.length;
  const out = new Float64Array(C);
  for (let c = 0; c < C; c++) {
    let s = Math.log(Math.max(ubm.weights[c], 1e-12));
    for (let k = 0; k < ubm.dim; k++) s -= 0.5 * Math.log(2 * Math.PI * ubm.variances[c * ubm.dim + k]);
    out[c] = s;
  }
  return out;
}

/**
 * Zeroth and first order statistics of the frames (flat, `ubm.dim` values a frame): per component
 * the posterior mass N and the posterior-weighted sum of frames F; also the total log-likelihood.
 */
export function ubmStatistics(frames: Float32Array, ubm: Ubm): { n: Float64Array; f: Float64Array; logLikelihood: number } {
  const D = ubm.dim;
  const C = ubm.weights.length;
  const konst = componentConstants(ubm);
  const inv = Float64Array.from(ubm.variances, (v) => 1 / v);
  const n = new Float64Array(C);
  const f = new Float64Array(C * D);
  const lp = new Float64Array(C);
  let ll = 0;
  const count = Math.floor(frames.length / D);
  for (let t = 0; t < count; t++) {
    const at = t * D;
    let max = -Infinity;
    for (let c = 0; c < C; c++) {
      let q = 0;
      const base = c * D;
      for (let k = 0; k < D; k++) {
        const d = frames[at + k] - ubm.means[base + k];
        q += d * d * inv[base + k];
      }
      lp[c] = konst[c] - 0.5 * q;
      if (lp[c] > max) max = lp[c];
    }
    let sum = 0;
    for (let c = 0; c < C; c++) {
      lp[c] = Math.exp(lp[c] - max);
      sum += lp[c];
    }
    ll += max + Math.log(sum);
    for (let c = 0; c < C; c++) {
      const g = lp[c] / sum;
      if (g < 1e-6) continue;
      n[c] += g;
      const base = c * D;
      for (let k = 0; k < D; k++) f[base + k] += g * frames[at + k];
    }
  }
  return { n, f, logLikelihood: ll };
}

/**
 * The MAP-adapted mean supervector (relevance factor `relevance`), each component's shift from the
 * UBM's mean scaled by sqrt(weight) / deviation (the KL-divergence kernel's normalisation).
 */
export function meanSupervector(frames: Float32Array, ubm: Ubm, relevance = 16): Float64Array {
  const { n, f } = ubmStatistics(frames, ubm);
  const D = ubm.dim;
  const C = ubm.weights.length;
  const out = new Float64Array(C * D);
  for (let c = 0; c < C; c++) {
    const w = Math.sqrt(ubm.weights[c]);
    for (let k = 0; k < D; k++) {
      const i = c * D + k;
      out[i] = (w * (f[i] - n[c] * ubm.means[i])) / (n[c] + relevance) / Math.sqrt(ubm.variances[i]);
    }
  }
  return out;
}

/** Upper-triangle correlations of `k` values of each frame from `offset` (0: cepstra c1-, 20: their deltas) over the frames (flat, FRAME_DIM a frame). */
export function correlations(frames: Float32Array, k: number, offset = 0): number[] {
  const n = Math.floor(frames.length / FRAME_DIM);
  const mean = new Float64Array(k);
  for (let t = 0; t < n; t++) for (let i = 0; i < k; i++) mean[i] += frames[t * FRAME_DIM + offset + i] / n;
  const cov = Array.from({ length: k }, () => new Float64Array(k));
  for (let t = 0; t < n; t++) for (let i = 0; i < k; i++) {
    const xi = frames[t * FRAME_DIM + offset + i] - mean[i];
    for (let j = i; j < k; j++) cov[i][j] += (xi * (frames[t * FRAME_DIM + offset + j] - mean[j])) / n;
  }
  const out: number[] = [];
  for (let i = 0; i < k; i++) for (let j = i + 1; j < k; j++) out.push(cov[i][j] / Math.sqrt(cov[i][i] * cov[j][j] || 1));
  return out;
}

/** Skewness of each of the first `k` values of the frames (flat, FRAME_DIM a frame). */
export function skewness(frames: Float32Array, k: number): number[] {
  const n = Math.floor(frames.length / FRAME_DIM);
  return Array.from({ length: k }, (_, i) => {
    let m = 0;
    for (let t = 0; t < n; t++) m += frames[t * FRAME_DIM + i] / n;
    let m2 = 0;
    let m3 = 0;
    for (let t = 0; t < n; t++) {
      const d = frames[t * FRAME_DIM + i] - m;
      m2 += (d * d) / n;
      m3 += (d * d * d) / n;
    }
    return m2 > 0 ? m3 / m2 ** 1.5 : 0;
  });
}

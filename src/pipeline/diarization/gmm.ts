// Small numeric helpers for diarization: k-means and diagonal-covariance Gaussian mixtures trained
// with EM. Sizes are tiny (a few thousand frames of ~20 dimensions), so plain loops suffice.

export type Vec = Float32Array;

/**
 * Rows of `dim` numbers in one flat buffer: row i is data[i * dim, (i + 1) * dim). A long call has
 * hundreds of thousands of speech frames, and a typed-array view per frame would cost about as
 * much again as the numbers themselves, so frame features are kept and read by offset.
 */
export interface FeatureMatrix {
  data: Float32Array;
  dim: number;
  count: number;
}

/** View of row i (for the few places that keep a row, such as k-means centres). */
export function rowOf(m: FeatureMatrix, i: number): Vec {
  return m.data.subarray(i * m.dim, (i + 1) * m.dim);
}

/** Squared distance of row i of m to b. */
function sqDistRow(m: FeatureMatrix, i: number, b: Vec): number {
  const x = m.data;
  const off = i * m.dim;
  let s = 0;
  for (let d = 0; d < m.dim; d++) {
    const z = x[off + d] - b[d];
    s += z * z;
  }
  return s;
}

/** Deterministic PRNG so diarization gives the same answer for the same audio. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function sqDist(a: Vec, b: Vec): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) {
    const d = a[i] - b[i];
    s += d * d;
  }
  return s;
}

/** k-means++ seeded k-means; returns the assignment and centroids of the best of `restarts`. */
export function kmeans(
  data: Vec[],
  k: number,
  opts: { restarts?: number; iterations?: number; seed?: number } = {},
): { labels: Int32Array; centroids: Vec[]; inertia: number } {
  const n = data.length;
  const dim = n ? data[0].length : 0;
  const rand = mulberry32(opts.seed ?? 1);
  let best: { labels: Int32Array; centroids: Vec[]; inertia: number } | undefined;
  for (let r = 0; r < (opts.restarts ?? 5); r++) {
    const centroids: Vec[] = [Float32Array.from(data[Math.floor(rand() * n)])];
    const d2 = new Float64Array(n).fill(Infinity);
    while (centroids.length < k) {
      let total = 0;
      for (let i = 0; i < n; i++) {
        d2[i] = Math.min(d2[i], sqDist(data[i], centroids[centroids.length - 1]));
        total += d2[i];
      }
      let x = rand() * total;
      let pick = n - 1;
      for (let i = 0; i < n; i++) {
        x -= d2[i];
        if (x <= 0) {
          pick = i;
          break;
        }
      }
      centroids.push(Float32Array.from(data[pick]));
    }
    const labels = new Int32Array(n);
    let inertia = 0;
    for (let it = 0; it < (opts.iterations ?? 30); it++) {
      inertia = 0;
      let changed = false;
      for (let i = 0; i < n; i++) {
        let bj = 0;
        let bd = Infinity;
        for (let j = 0; j < k; j++) {
          const d = sqDist(data[i], centroids[j]);
          if (d < bd) {
            bd = d;
            bj = j;
          }
        }
        if (labels[i] !== bj || it === 0) changed = true;
        labels[i] = bj;
        inertia += bd;
      }
      const sums = Array.from({ length: k }, () => new Float64Array(dim));
      const counts = new Int32Array(k);
      for (let i = 0; i < n; i++) {
        counts[labels[i]]++;
        const s = sums[labels[i]];
        for (let d = 0; d < dim; d++) s[d] += data[i][d];
      }
      for (let j = 0; j < k; j++) if (counts[j] > 0) for (let d = 0; d < dim; d++) centroids[j][d] = sums[j][d] / counts[j];
      if (!changed) break;
    }
    if (!best || inertia < best.inertia) best = { labels, centroids, inertia };
  }
  return best!;
}

/** Diagonal-covariance Gaussian mixture. */
export class DiagGmm {
  constructor(
    readonly weights: Float64Array,
    readonly means: Vec[],
    readonly vars: Vec[],
  ) {
    this.logConst = new Float64Array(weights.length);
    this.scratch = new Float64Array(weights.length);
    for (let c = 0; c < weights.length; c++) {
      let ld = 0;
      for (let d = 0; d < vars[c].length; d++) ld += Math.log(vars[c][d]);
      this.logConst[c] = Math.log(weights[c]) - 0.5 * (vars[c].length * Math.log(2 * Math.PI) + ld);
    }
  }
  private readonly logConst: Float64Array;
  /** Component densities of the point being scored (scoring is per frame: no allocation per call). */
  private readonly scratch: Float64Array;

  /** log p(x). */
  /** Weighted log-density of each component at x, written to `out`; returns the largest. */
  private componentLogDensities(x: Float32Array, off: number, dim: number, out: Float64Array): number {
    let max = -Infinity;
    for (let c = 0; c < this.weights.length; c++) {
      let q = 0;
      const m = this.means[c];
      const v = this.vars[c];
      for (let d = 0; d < dim; d++) {
        const z = x[off + d] - m[d];
        q += (z * z) / v[d];
      }
      out[c] = this.logConst[c] - 0.5 * q;
      if (out[c] > max) max = out[c];
    }
    return max;
  }

  logLikelihood(x: Vec): number {
    return this.logLikelihoodAt(x, 0, x.length);
  }

  /** log p(x) of the `dim` numbers of x from offset `off` (a row of a FeatureMatrix). */
  logLikelihoodAt(x: Float32Array, off: number, dim: number): number {
    const comp = this.scratch;
    const max = this.componentLogDensities(x, off, dim, comp);
    let s = 0;
    for (let c = 0; c < comp.length; c++) s += Math.exp(comp[c] - max);
    return max + Math.log(s);
  }

  /** EM training from a k-means start; components shrink to what the data supports. */
  static train(
    matrix: FeatureMatrix,
    rows: ArrayLike<number>,
    components: number,
    opts: { iterations?: number; varianceFloor?: number; seed?: number; maxFrames?: number } = {},
  ): DiagGmm {
    // Neighbouring 10 ms frames are nearly duplicates; past a few minutes of speech, a regular
    // subsample trains the same model in a fraction of the time.
    const maxFrames = opts.maxFrames ?? 12000;
    if (rows.length > maxFrames) {
      const step = rows.length / maxFrames;
      const all = rows;
      rows = Int32Array.from({ length: maxFrames }, (_, i) => all[Math.floor(i * step)]);
    }
    const X = matrix.data;
    const n = rows.length;
    const dim = matrix.dim;
    const k = Math.max(1, Math.min(components, Math.floor(n / (2 * dim))));
    // Variance floor relative to the global variance keeps components from collapsing on a few frames.
    const gMean = new Float64Array(dim);
    const gVar = new Float64Array(dim);
    for (let i = 0; i < n; i++) for (let d = 0, o = rows[i] * dim; d < dim; d++) gMean[d] += X[o + d] / n;
    for (let i = 0; i < n; i++) for (let d = 0, o = rows[i] * dim; d < dim; d++) gVar[d] += (X[o + d] - gMean[d]) ** 2 / n;
    const floor = Float64Array.from(gVar, (v) => Math.max(1e-6, v * (opts.varianceFloor ?? 0.01)));

    // The k-means start only needs rough centres; a subsample of frames gives them.
    const initStep = Math.max(1, Math.floor(n / 3000));
    const initData: Vec[] = [];
    for (let i = 0; i < n; i += initStep) initData.push(rowOf(matrix, rows[i]));
    const initKm = kmeans(initData, k, { restarts: 1, iterations: 10, seed: opts.seed ?? 7 });
    const km = { centroids: initKm.centroids, labels: new Int32Array(n) };
    for (let i = 0; i < n; i++) {
      let best = 0;
      let bd = Infinity;
      for (let c = 0; c < k; c++) {
        const d = sqDistRow(matrix, rows[i], km.centroids[c]);
        if (d < bd) [bd, best] = [d, c];
      }
      km.labels[i] = best;
    }
    let weights = new Float64Array(k);
    let means: Vec[] = km.centroids.map((c) => Float32Array.from(c));
    let vars: Vec[] = Array.from({ length: k }, () => Float32Array.from(gVar, (v) => Math.max(v, 1e-6)));
    {
      const counts = new Float64Array(k);
      const acc = Array.from({ length: k }, () => new Float64Array(dim));
      for (let i = 0; i < n; i++) {
        const c = km.labels[i];
        counts[c]++;
        for (let d = 0, o = rows[i] * dim; d < dim; d++) acc[c][d] += (X[o + d] - means[c][d]) ** 2;
      }
      for (let c = 0; c < k; c++) {
        weights[c] = Math.max(counts[c], 1) / n;
        if (counts[c] > 1) for (let d = 0; d < dim; d++) vars[c][d] = Math.max(floor[d], acc[c][d] / counts[c]);
      }
    }
    let gmm = new DiagGmm(normalise(weights), means, vars);
    const resp = new Float64Array(k);
    for (let it = 0; it < (opts.iterations ?? 8); it++) {
      const nk = new Float64Array(k);
      const s1 = Array.from({ length: k }, () => new Float64Array(dim));
      const s2 = Array.from({ length: k }, () => new Float64Array(dim));
      for (let i = 0; i < n; i++) {
        const o = rows[i] * dim;
        gmm.posteriorsAt(X, o, dim, resp);
        for (let c = 0; c < k; c++) {
          const r = resp[c];
          if (r < 1e-6) continue;
          nk[c] += r;
          const a = s1[c];
          const b = s2[c];
          for (let d = 0; d < dim; d++) {
            a[d] += r * X[o + d];
            b[d] += r * X[o + d] * X[o + d];
          }
        }
      }
      weights = new Float64Array(k);
      means = [];
      vars = [];
      for (let c = 0; c < k; c++) {
        const cnt = Math.max(nk[c], 1e-3);
        weights[c] = Math.max(nk[c] / n, 1e-4);
        const m = new Float32Array(dim);
        const v = new Float32Array(dim);
        for (let d = 0; d < dim; d++) {
          m[d] = s1[c][d] / cnt;
          v[d] = Math.max(floor[d], s2[c][d] / cnt - m[d] * m[d]);
        }
        means.push(m);
        vars.push(v);
      }
      gmm = new DiagGmm(normalise(weights), means, vars);
    }
    return gmm;
  }

  /** Component posteriors of the `dim` numbers of x from offset `off`, written to `out`. */
  posteriorsAt(x: Float32Array, off: number, dim: number, out: Float64Array): void {
    const max = this.componentLogDensities(x, off, dim, out);
    let s = 0;
    for (let c = 0; c < this.weights.length; c++) {
      out[c] = Math.exp(out[c] - max);
      s += out[c];
    }
    for (let c = 0; c < this.weights.length; c++) out[c] /= s;
  }
}

function normalise(w: Float64Array): Float64Array {
  let s = 0;
  for (const x of w) s += x;
  return w.map((x) => x / s);
}

// Small numeric helpers for diarization: k-means and diagonal-covariance Gaussian mixtures trained
// with EM. Sizes are tiny (a few thousand frames of ~20 dimensions), so plain loops suffice.

export type Vec = Float32Array;

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
    for (let c = 0; c < weights.length; c++) {
      let ld = 0;
      for (let d = 0; d < vars[c].length; d++) ld += Math.log(vars[c][d]);
      this.logConst[c] = Math.log(weights[c]) - 0.5 * (vars[c].length * Math.log(2 * Math.PI) + ld);
    }
  }
  private readonly logConst: Float64Array;

  /** log p(x). */
  /** Weighted log-density of each component at x, written to `out`; returns the largest. */
  private componentLogDensities(x: Vec, out: Float64Array): number {
    let max = -Infinity;
    for (let c = 0; c < this.weights.length; c++) {
      let q = 0;
      const m = this.means[c];
      const v = this.vars[c];
      for (let d = 0; d < x.length; d++) {
        const z = x[d] - m[d];
        q += (z * z) / v[d];
      }
      out[c] = this.logConst[c] - 0.5 * q;
      if (out[c] > max) max = out[c];
    }
    return max;
  }

  logLikelihood(x: Vec): number {
    const comp = new Float64Array(this.weights.length);
    const max = this.componentLogDensities(x, comp);
    let s = 0;
    for (let c = 0; c < comp.length; c++) s += Math.exp(comp[c] - max);
    return max + Math.log(s);
  }

  /** EM training from a k-means start; components shrink to what the data supports. */
  static train(data: Vec[], components: number, opts: { iterations?: number; varianceFloor?: number; seed?: number; maxFrames?: number } = {}): DiagGmm {
    // Neighbouring 10 ms frames are nearly duplicates; past a few minutes of speech, a regular
    // subsample trains the same model in a fraction of the time.
    const maxFrames = opts.maxFrames ?? 12000;
    if (data.length > maxFrames) {
      const step = data.length / maxFrames;
      data = Array.from({ length: maxFrames }, (_, i) => data[Math.floor(i * step)]);
    }
    const n = data.length;
    const dim = data[0].length;
    const k = Math.max(1, Math.min(components, Math.floor(n / (2 * dim))));
    // Variance floor relative to the global variance keeps components from collapsing on a few frames.
    const gMean = new Float64Array(dim);
    const gVar = new Float64Array(dim);
    for (const x of data) for (let d = 0; d < dim; d++) gMean[d] += x[d] / n;
    for (const x of data) for (let d = 0; d < dim; d++) gVar[d] += (x[d] - gMean[d]) ** 2 / n;
    const floor = Float64Array.from(gVar, (v) => Math.max(1e-6, v * (opts.varianceFloor ?? 0.01)));

    // The k-means start only needs rough centres; a subsample of frames gives them.
    const initStep = Math.max(1, Math.floor(n / 3000));
    const initData = initStep > 1 ? data.filter((_, i) => i % initStep === 0) : data;
    const initKm = kmeans(initData, k, { restarts: 1, iterations: 10, seed: opts.seed ?? 7 });
    const km = { centroids: initKm.centroids, labels: new Int32Array(n) };
    for (let i = 0; i < n; i++) {
      let best = 0;
      let bd = Infinity;
      for (let c = 0; c < k; c++) {
        const d = sqDist(data[i], km.centroids[c]);
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
        for (let d = 0; d < dim; d++) acc[c][d] += (data[i][d] - means[c][d]) ** 2;
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
      for (const x of data) {
        gmm.posteriors(x, resp);
        for (let c = 0; c < k; c++) {
          const r = resp[c];
          if (r < 1e-6) continue;
          nk[c] += r;
          const a = s1[c];
          const b = s2[c];
          for (let d = 0; d < dim; d++) {
            a[d] += r * x[d];
            b[d] += r * x[d] * x[d];
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

  posteriors(x: Vec, out: Float64Array): void {
    const max = this.componentLogDensities(x, out);
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

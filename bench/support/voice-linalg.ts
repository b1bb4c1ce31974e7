// Small dense linear algebra for fitting the voice projection (bench/fit-voice.ts): a few dozen
// dimensions, so plain arrays and a Jacobi eigensolver are enough; nothing here runs in the service.

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

// Backoff n-gram language models in memory: read and write the ARPA format, estimate a small model
// from text, and mix two models into one static model (linear interpolation, the way SRILM's
// `ngram -mix-lm` writes it). Used to adapt the recogniser's general-English model to the words and
// phrases of phone calls.
//
// Probabilities are log10 as in ARPA files. A model is one map per order from the n-gram's words
// joined by single spaces to its log probability and (below the top order) its log backoff weight.

export interface NgramEntry {
  logProb: number;
  logBackoff: number;
}

export interface BackoffModel {
  /** grams[k] holds the (k+1)-grams. */
  grams: Array<Map<string, NgramEntry>>;
}

export const SENTENCE_START = '<s>';
export const SENTENCE_END = '</s>';
/** log10 of zero probability in ARPA files (the sentence start's unigram). */
const LOG_ZERO = -99;

/** Parses an ARPA file's text. */
export function parseArpa(text: string): BackoffModel {
  const grams: Array<Map<string, NgramEntry>> = [];
  let order = 0;
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const line = text.slice(start, end).trim();
    start = end + 1;
    if (line.length === 0) continue;
    const section = /^\\(\d+)-grams:$/.exec(line);
    if (section) {
      order = Number(section[1]);
      grams[order - 1] = new Map();
      continue;
    }
    if (line === '\\end\\') break;
    if (order === 0) continue; // header: \data\ and counts
    const fields = line.split(/\s+/);
    const words = fields.slice(1, 1 + order);
    if (words.length < order) continue;
    const logBackoff = fields.length > order + 1 ? Number(fields[order + 1]) : 0;
    grams[order - 1].set(words.join(' '), { logProb: Number(fields[0]), logBackoff });
  }
  return { grams };
}

/** The model as an ARPA file's text (unigrams in the order given, others sorted). */
export function writeArpa(model: BackoffModel): string {
  const out: string[] = ['\\data\\'];
  model.grams.forEach((g, k) => out.push(`ngram ${k + 1}=${g.size}`));
  const top = model.grams.length;
  model.grams.forEach((g, k) => {
    out.push('', `\\${k + 1}-grams:`);
    const keys = k === 0 ? [...g.keys()] : [...g.keys()].sort();
    for (const key of keys) {
      const e = g.get(key)!;
      const words = key.split(' ').join('\t');
      out.push(k + 1 < top ? `${e.logProb.toFixed(4)}\t${words}\t${e.logBackoff.toFixed(4)}` : `${e.logProb.toFixed(4)}\t${words}`);
    }
  });
  out.push('', '\\end\\', '');
  return out.join('\n');
}

/** log10 P(word | context) under the backoff model (context: earlier words, oldest first). */
export function logProbability(model: BackoffModel, context: readonly string[], word: string): number {
  const top = model.grams.length;
  let ctx = context.slice(Math.max(0, context.length - (top - 1)));
  let backoff = 0;
  for (;;) {
    const key = ctx.length === 0 ? word : `${ctx.join(' ')} ${word}`;
    const e = model.grams[ctx.length]?.get(key);
    if (e) return backoff + e.logProb;
    if (ctx.length === 0) return LOG_ZERO;
    const h = model.grams[ctx.length - 1]?.get(ctx.join(' '));
    backoff += h ? h.logBackoff : 0;
    ctx = ctx.slice(1);
  }
}

/**
 * A trigram model of `sentences` (each a list of words, without <s> and </s>) with absolute
 * discounting and backoff, whose unigrams are smoothed toward `prior` (log10 unigram probabilities
 * of a general model over the vocabulary the result should cover): with so little text, an unseen
 * word must keep the probability the general model gives it.
 */
export function estimateModel(sentences: ReadonlyArray<readonly string[]>, prior: ReadonlyMap<string, number>, opts: { discount?: number; priorWeight?: number } = {}): BackoffModel {
  // Absolute discounting's usual constant for sparse counts (Ney et al.: D = n1 / (n1 + 2 n2) lands
  // near 0.7 on small texts); not tuned here.
  const discount = opts.discount ?? 0.7;
  // The prior counts as 20 words of text: small next to the phrase list's thousands, so its own
  // frequencies decide, yet every word of the general vocabulary keeps a non-zero probability.
  const priorWeight = opts.priorWeight ?? 20;
  const counts = [new Map<string, number>(), new Map<string, number>(), new Map<string, number>()];
  let tokens = 0;
  for (const s of sentences) {
    const words = [SENTENCE_START, ...s, SENTENCE_END];
    for (let i = 1; i < words.length; i++) {
      counts[0].set(words[i], (counts[0].get(words[i]) ?? 0) + 1);
      tokens++;
      counts[1].set(`${words[i - 1]} ${words[i]}`, (counts[1].get(`${words[i - 1]} ${words[i]}`) ?? 0) + 1);
      if (i >= 2) counts[2].set(`${words[i - 2]} ${words[i - 1]} ${words[i]}`, (counts[2].get(`${words[i - 2]} ${words[i - 1]} ${words[i]}`) ?? 0) + 1);
    }
  }
  // Unigrams: counts with a Dirichlet prior from the general model.
  const unigrams = new Map<string, NgramEntry>();
  for (const [w, lp] of prior) {
    if (w === SENTENCE_START) continue;
    const p = ((counts[0].get(w) ?? 0) + priorWeight * 10 ** lp) / (tokens + priorWeight);
    unigrams.set(w, { logProb: Math.log10(p), logBackoff: 0 });
  }
  unigrams.set(SENTENCE_START, { logProb: LOG_ZERO, logBackoff: 0 });
  const grams: Array<Map<string, NgramEntry>> = [unigrams, new Map(), new Map()];
  const model: BackoffModel = { grams };
  // Higher orders: discounted counts; the mass taken goes to the lower order through the backoff.
  for (const k of [1, 2]) {
    const contextTotals = new Map<string, { total: number; types: number }>();
    for (const [key, c] of counts[k]) {
      const words = key.split(' ');
      if (!words.every((w) => unigrams.has(w))) continue;
      const h = words.slice(0, -1).join(' ');
      const t = contextTotals.get(h) ?? { total: 0, types: 0 };
      t.total += c;
      t.types += 1;
      contextTotals.set(h, t);
    }
    for (const [key, c] of counts[k]) {
      const words = key.split(' ');
      const t = contextTotals.get(words.slice(0, -1).join(' '));
      if (!t) continue;
      grams[k].set(key, { logProb: Math.log10(Math.max(c - discount, 0.01) / t.total), logBackoff: 0 });
    }
  }
  setBackoffWeights(model);
  return model;
}

/**
 * Recomputes every context's backoff weight so that its explicit n-grams and the backed-off rest
 * sum to one: bo(h) = (1 - sum p(w|h)) / (1 - sum p(w|h')) over the words w seen after h.
 */
export function setBackoffWeights(model: BackoffModel): void {
  const top = model.grams.length;
  for (let k = 1; k < top; k++) {
    const sums = new Map<string, { high: number; low: number }>();
    for (const [key, e] of model.grams[k]) {
      const cut = key.indexOf(' ');
      const last = key.lastIndexOf(' ');
      const h = key.slice(0, last);
      const lower = key.slice(cut + 1);
      const lowerWords = lower.split(' ');
      const s = sums.get(h) ?? { high: 0, low: 0 };
      s.high += 10 ** e.logProb;
      s.low += 10 ** logProbability(model, lowerWords.slice(0, -1), lowerWords[lowerWords.length - 1]);
      sums.set(h, s);
    }
    for (const [h, entry] of model.grams[k - 1]) {
      const s = sums.get(h);
      if (!s) {
        entry.logBackoff = 0;
        continue;
      }
      const num = Math.max(1 - s.high, 1e-6);
      const den = Math.max(1 - s.low, 1e-6);
      entry.logBackoff = Math.log10(num / den);
    }
  }
}

/**
 * The static mixture lambda * general + (1 - lambda) * domain over the union of both models'
 * n-grams, with backoff weights recomputed; the vocabulary is the general model's.
 */
export function mixModels(general: BackoffModel, domain: BackoffModel, lambda: number): BackoffModel {
  const top = general.grams.length;
  const grams: Array<Map<string, NgramEntry>> = [];
  for (let k = 0; k < top; k++) {
    const out = new Map<string, NgramEntry>();
    const keys = new Set<string>(general.grams[k].keys());
    for (const key of domain.grams[k]?.keys() ?? []) if (key.split(' ').every((w) => general.grams[0].has(w))) keys.add(key);
    for (const key of keys) {
      const words = key.split(' ');
      const w = words[words.length - 1];
      const ctx = words.slice(0, -1);
      if (k === 0 && w === SENTENCE_START) {
        out.set(key, { logProb: LOG_ZERO, logBackoff: 0 });
        continue;
      }
      const p = lambda * 10 ** logProbability(general, ctx, w) + (1 - lambda) * 10 ** logProbability(domain, ctx, w);
      out.set(key, { logProb: Math.log10(p), logBackoff: 0 });
    }
    grams.push(out);
  }
  const mixed: BackoffModel = { grams };
  setBackoffWeights(mixed);
  return mixed;
}

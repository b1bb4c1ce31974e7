// Reads CMU sphinxbase's binary "trie" language model (the format of pocketsphinx's en-us.lm.bin)
// into a BackoffModel. Debian's sphinx_lm_convert cannot turn this file back into ARPA (an
// assertion fails), so the general-English model is read here to be mixed with a phone-call model.
//
// The layout follows sphinxbase's ngram_model_trie_read_bin / lm_trie_read_bin (little-endian, as
// the file is a memory dump of x86 structures):
//   "Trie Language Model" (19 bytes, no terminator), uint8 order, uint32 counts[order];
//   if order > 1: int32 (unused, formerly the quantisation type), then the quantisation tables as
//     float32: for each middle order 2..order-1 a table of 2^16 probabilities and one of 2^16
//     backoffs, then 2^16 probabilities of the top order;
//   (counts[0] + 1) unigrams of 12 bytes: float32 prob, float32 backoff, uint32 next (the first
//     entry of the unigram's range one level down; the extra unigram closes the last range);
//   if order > 1: the bit-packed levels, one per order 2..order, each sized as lm_trie's
//     base_size ((1 + entries) * bits rounded up to bytes, plus 8 bytes of padding);
//   int32 byte length, then the words, each ended by a NUL, in unigram order.
// The trie is reversed, as in KenLM: a unigram is the n-gram's last word and each level down adds
// the word before, so a path u, w1, w2 is the trigram "w2 w1 u". A middle entry is
// word | backoff code (16 bits) | probability code (16 bits) | next; a top-order entry is
// word | probability code (16 bits). Bit fields are read as a little-endian 32-bit word shifted by
// the offset's bit within its byte (bitarr_read_int25), so no field may exceed 25 bits.
//
// Probabilities are stored in logmath units of base 1.0001 (the recogniser's default -logbase; the
// file does not record it) and returned as log10, the way ngram_model_trie_write_arpa prints them.

import type { BackoffModel, NgramEntry } from './language-model.js';

const HEADER = 'Trie Language Model';
/** log10 of pocketsphinx's default log base, 1.0001: one logmath unit in log10. */
const LOG10_OF_BASE = Math.log10(1.0001);
/** Bits of a quantised probability or backoff (lm_trie_quant: fixed at 16 each). */
const QUANT_BITS = 16;
const QUANT_MASK = (1 << QUANT_BITS) - 1;
const QUANT_TABLE_SIZE = 1 << QUANT_BITS;
/** sphinxbase's NGRAM_MAX_ORDER. */
const MAX_ORDER = 5;
/** bitarr_read_int25 reads one 32-bit word shifted by up to 7 bits. */
const MAX_FIELD_BITS = 25;

/** One bit-packed level of the trie (the n-grams of one order above 1). */
interface Level {
  mem: Uint8Array;
  entries: number;
  totalBits: number;
  wordBits: number;
  wordMask: number;
  /** Bits of the next-level pointer (0 for the top order). */
  nextBits: number;
  nextMask: number;
  /** log10 probability by code. */
  probs: Float64Array;
  /** log10 backoff by code (middle levels only). */
  backoffs: Float64Array | null;
}

/** sphinxbase's bitarr_required_bits: bits to hold values up to maxValue. */
function requiredBits(maxValue: number): number {
  return maxValue === 0 ? 0 : Math.floor(Math.log2(maxValue)) + 1;
}

/** lm_trie's base_size: one extra entry for the last range's end, rounded to bytes, plus padding. */
function levelBytes(entries: number, totalBits: number): number {
  return Math.floor(((1 + entries) * totalBits + 7) / 8) + 8;
}

function readBits(mem: Uint8Array, bitOffset: number, mask: number): number {
  const at = bitOffset >>> 3;
  const word = mem[at] | (mem[at + 1] << 8) | (mem[at + 2] << 16) | (mem[at + 3] << 24);
  return (word >>> (bitOffset & 7)) & mask;
}

class TrieFormatError extends Error {
  constructor(message: string) {
    super(`not a readable sphinxbase trie language model: ${message}`);
    this.name = 'TrieFormatError';
  }
}

/** Parses a sphinxbase binary trie language model (e.g. pocketsphinx's en-us.lm.bin). */
export function readTrieModel(buffer: Buffer): BackoffModel {
  const need = (end: number, what: string): void => {
    if (end > buffer.length) throw new TrieFormatError(`file ends inside ${what} (${buffer.length} bytes, ${end} needed)`);
  };
  need(HEADER.length + 1, 'the header');
  const header = buffer.toString('latin1', 0, HEADER.length);
  if (header !== HEADER) throw new TrieFormatError(`header is ${JSON.stringify(header)}, expected ${JSON.stringify(HEADER)}`);
  let pos = HEADER.length;
  const order = buffer[pos++];
  if (order < 1 || order > MAX_ORDER) throw new TrieFormatError(`order ${order} is outside 1..${MAX_ORDER}`);
  need(pos + 4 * order, 'the n-gram counts');
  const counts: number[] = [];
  for (let i = 0; i < order; i++, pos += 4) counts.push(buffer.readUInt32LE(pos));
  const vocabulary = counts[0];

  // Quantisation tables, converted to log10 once so that decoding is an index.
  const readTable = (what: string): Float64Array => {
    need(pos + 4 * QUANT_TABLE_SIZE, what);
    const table = new Float64Array(QUANT_TABLE_SIZE);
    for (let i = 0; i < QUANT_TABLE_SIZE; i++, pos += 4) table[i] = buffer.readFloatLE(pos) * LOG10_OF_BASE;
    return table;
  };
  const middleTables: Array<{ probs: Float64Array; backoffs: Float64Array }> = [];
  let topProbs: Float64Array | null = null;
  if (order > 1) {
    pos += 4; // the former quantisation type, always 1
    for (let k = 2; k < order; k++) {
      const probs = readTable(`the ${k}-gram probability table`);
      const backoffs = readTable(`the ${k}-gram backoff table`);
      middleTables.push({ probs, backoffs });
    }
    topProbs = readTable(`the ${order}-gram probability table`);
  }

  // Unigrams, with the extra entry whose `next` ends the last unigram's range.
  const unigramsAt = pos;
  need(pos + 12 * (vocabulary + 1), 'the unigrams');
  pos += 12 * (vocabulary + 1);
  const unigramNext = (i: number): number => buffer.readUInt32LE(unigramsAt + 12 * i + 8);

  // Bit-packed levels, laid out as lm_trie_alloc_ngram sizes them from the header's counts.
  const levels: Level[] = [];
  const wordBits = requiredBits(vocabulary);
  if (wordBits > MAX_FIELD_BITS) throw new TrieFormatError(`${vocabulary} words need more than ${MAX_FIELD_BITS} bits`);
  for (let k = 2; k <= order; k++) {
    const entries = counts[k - 1];
    const top = k === order;
    const nextBits = top ? 0 : requiredBits(counts[k]);
    if (nextBits > MAX_FIELD_BITS) throw new TrieFormatError(`${counts[k]} ${k + 1}-grams need more than ${MAX_FIELD_BITS} bits`);
    const totalBits = wordBits + (top ? QUANT_BITS : 2 * QUANT_BITS) + nextBits;
    // Bit offsets are 32-bit in sphinxbase and here.
    if ((entries + 1) * totalBits >= 2 ** 32) throw new TrieFormatError(`too many ${k}-grams (${entries})`);
    const bytes = levelBytes(entries, totalBits);
    need(pos + bytes, `the ${k}-grams`);
    levels.push({
      mem: new Uint8Array(buffer.buffer, buffer.byteOffset + pos, bytes),
      entries,
      totalBits,
      wordBits,
      wordMask: 2 ** wordBits - 1,
      nextBits,
      nextMask: 2 ** nextBits - 1,
      probs: top ? topProbs! : middleTables[k - 2].probs,
      backoffs: top ? null : middleTables[k - 2].backoffs,
    });
    pos += bytes;
  }

  // Words: NUL-terminated, in unigram order.
  need(pos + 4, 'the word list length');
  const wordBytes = buffer.readInt32LE(pos);
  pos += 4;
  need(pos + wordBytes, 'the word list');
  const words = buffer.toString('utf8', pos, pos + wordBytes).split('\0');
  if (words[words.length - 1] === '') words.pop();
  if (words.length !== vocabulary) throw new TrieFormatError(`${words.length} words for ${vocabulary} unigrams`);

  const grams: Array<Map<string, NgramEntry>> = [];
  for (let k = 0; k < order; k++) grams.push(new Map());
  const unigrams = grams[0];
  for (let i = 0; i < vocabulary; i++) {
    const at = unigramsAt + 12 * i;
    unigrams.set(words[i], {
      logProb: buffer.readFloatLE(at) * LOG10_OF_BASE,
      logBackoff: buffer.readFloatLE(at + 4) * LOG10_OF_BASE,
    });
  }

  /**
   * Adds the entries [begin, end) of levels[depth], whose n-grams end with `suffix` (the words
   * already on the path, oldest first), and everything below them: lm_trie_fill_raw_ngram's walk
   * for all orders at once. Only n-grams reachable from a unigram's range are read, as there.
   */
  const walk = (depth: number, begin: number, end: number, suffix: string): void => {
    const level = levels[depth];
    if (end > level.entries || begin > end) throw new TrieFormatError(`range ${begin}..${end} outside the ${depth + 2}-grams (${level.entries})`);
    const { mem, totalBits, wordBits, wordMask, nextMask, probs, backoffs } = level;
    const out = grams[depth + 1];
    for (let ptr = begin; ptr < end; ptr++) {
      const at = ptr * totalBits;
      const word = readBits(mem, at, wordMask);
      if (word >= vocabulary) throw new TrieFormatError(`word id ${word} in the ${depth + 2}-grams exceeds the vocabulary`);
      const key = `${words[word]} ${suffix}`;
      if (backoffs === null) {
        out.set(key, { logProb: probs[readBits(mem, at + wordBits, QUANT_MASK)], logBackoff: 0 });
        continue;
      }
      out.set(key, {
        logProb: probs[readBits(mem, at + wordBits + QUANT_BITS, QUANT_MASK)],
        logBackoff: backoffs[readBits(mem, at + wordBits, QUANT_MASK)],
      });
      const nextAt = at + wordBits + 2 * QUANT_BITS;
      const nextBegin = readBits(mem, nextAt, nextMask);
      const nextEnd = readBits(mem, nextAt + totalBits, nextMask);
      if (nextBegin < nextEnd) walk(depth + 1, nextBegin, nextEnd, key);
    }
  };
  if (order > 1) {
    for (let i = 0; i < vocabulary; i++) {
      const begin = unigramNext(i);
      const end = unigramNext(i + 1);
      if (begin < end) walk(0, begin, end, words[i]);
    }
  }
  return { grams };
}

// Per-call pronunciation dictionary for pocketsphinx: the names of this call (the user's display
// name, the contact name, the organization, the user's contacts) that cmudict does not know, with
// pronunciations from espeak-ng (Debian package espeak-ng) mapped onto the CMU phone set.
//
// Why carriers: pocketsphinx decodes with an n-gram language model, and a word that is in the
// dictionary but not in the model is never hypothesised; the binary model cannot be extended per
// call. So each new name is added as an extra pronunciation of a carrier word the model knows and
// that occurs where names occur ("smith": "this is smith", "from smith logistics"), with an index
// no real pronunciation uses: `smith(40) B EY V Y UW`. pocketsphinx reports the pronunciation it
// chose (`smith(40)`), and `rename` turns that back into the name. A genuine "smith" keeps its
// own pronunciation and stays "smith".
//
// The call's names that cmudict does know get a carrier pronunciation too (their own phones): the
// call model, trained on many calls' names, gives any one name little weight, and a name of THIS
// call then loses to a more probable split. With the session 23 model "hello jamie speaking" came
// out as "hello jay me speaking" (corpus family-logistics): the call was left unnamed. Under the
// carrier the name is as probable as the carrier where names occur, and still reported as itself.
import fs from 'node:fs';
import path from 'node:path';
import { runChild } from '../audio/child.js';
import { SENTENCE_END, SENTENCE_START, setBackoffWeights, writeArpa } from './language-model.js';

export const ESPEAK_BINARY = 'espeak-ng';
const CARRIER = 'smith';
const FIRST_INDEX = 40;
/** More names than this in one call are not added (a user with thousands of contacts). */
const MAX_NEW_WORDS = 300;
/**
 * Words of organisation names that are no name ("Bank of America", "The Home Depot"): the model
 * already expects them everywhere, and a carrier would only let them in where a name is expected.
 */
const NOT_BOOSTED: ReadonlySet<string> = new Set(['the', 'and', 'of', 'for', 'at', 'on', 'in', 'to', 'by', 'my', 'our', 'your', 'an', 'or', 'as', 'is', 'it', 'co', 'inc', 'ltd', 'llc', 'plc']);

export interface CallDictionary {
  /** The dictionary file to pass as `-dict`. */
  path: string;
  /** Words added, with their CMU pronunciations. */
  added: Array<{ word: string; phones: string }>;
  /** Names the base dictionary knows, given a carrier pronunciation as well (their own first one). */
  boosted: Array<{ word: string; phones: string }>;
  /** Maps a token of pocketsphinx's output (e.g. `smith(40)`) to the name it stands for, else null. */
  rename(token: string): string | null;
}

/** The lower-case words of the given names, e.g. "Daniel O'Kafor-Smith" -> daniel, o'kafor, smith. */
export function namesToWords(names: Array<string | null | undefined>): string[] {
  const out = new Set<string>();
  for (const name of names) {
    if (!name) continue;
    for (const m of name.toLowerCase().normalize('NFKD').replace(/[\u0300-\u036f]/g, '').matchAll(/[a-z]+(?:'[a-z]+)?/g)) {
      if (m[0].length >= 2) out.add(m[0]);
    }
  }
  return [...out];
}

/** The words of a dictionary's text (`word(2) PHONES` lines), each with its first pronunciation. */
export function dictionaryWords(text: string): Map<string, string> {
  const words = new Map<string, string>();
  for (const line of text.split('\n')) {
    const sp = line.indexOf(' ');
    const word = sp > 0 ? line.slice(0, sp).replace(/\(\d+\)$/, '') : '';
    if (word && !words.has(word)) words.set(word, line.slice(sp + 1).trim());
  }
  return words;
}

const baseWords = new Map<string, Map<string, string>>();
/** The words of a dictionary file, each with its first pronunciation (read once per process). */
function wordsOfDictionary(dictPath: string): Map<string, string> {
  let words = baseWords.get(dictPath);
  if (!words) {
    words = dictionaryWords(fs.readFileSync(dictPath, 'utf8'));
    baseWords.set(dictPath, words);
  }
  return words;
}

// espeak-ng's English phoneme mnemonics (`espeak-ng -x`) -> CMU phones (stress dropped: the
// acoustic model's dictionary has none). Longest mnemonics are matched first.
const ESPEAK_TO_CMU: Record<string, string> = {
  'aI@': 'AY ER', 'aU@': 'AW ER', 'i@3': 'IH R', 'eI@': 'EY ER',
  'A@': 'AA R', 'O@': 'AO R', 'o@': 'AO R', 'e@': 'EH R', 'i@': 'IH R', 'U@': 'UH R', 'I@': 'IH R',
  'aI': 'AY', 'aU': 'AW', 'eI': 'EY', 'oU': 'OW', 'OI': 'OY', 'A:': 'AA', 'O:': 'AO', 'i:': 'IY',
  'u:': 'UW', '3:': 'ER', 'tS': 'CH', 'dZ': 'JH', '@L': 'AH L', '@2': 'AH', '@5': 'AH', 'a#': 'AH',
  'I2': 'IH', 'I#': 'IH', 'i': 'IY', 'a': 'AE', 'A': 'AA', '0': 'AA', 'O': 'AO', 'e': 'EH', 'E': 'EH',
  '@': 'AH', '3': 'ER', 'I': 'IH', 'U': 'UH', 'u': 'UW', 'V': 'AH', 'o': 'OW',
  'p': 'P', 'b': 'B', 't': 'T', 'd': 'D', 'k': 'K', 'g': 'G', 'f': 'F', 'v': 'V', 'T': 'TH', 'D': 'DH',
  's': 'S', 'z': 'Z', 'S': 'SH', 'Z': 'ZH', 'h': 'HH', 'm': 'M', 'n': 'N', 'N': 'NG', 'l': 'L',
  'r': 'R', 'j': 'Y', 'w': 'W', 'x': 'K', 't#': 'T', 'd#': 'D', 'n-': 'N', 'l-': 'L', 'r-': 'R',
  'm-': 'M', '?': 'T', 'z#': 'Z', 'C': 'HH', 'W': 'W',
};
const MNEMONICS = Object.keys(ESPEAK_TO_CMU).sort((a, b) => b.length - a.length);

/** CMU phones for espeak-ng's phoneme string of one word (`espeak-ng -q -x`), or null if unmapped. */
export function espeakToCmu(espeak: string): string | null {
  const phones: string[] = [];
  // Stress and syllable marks carry no phone; `_` and spaces separate words.
  const s = espeak.replace(/[',%=_:|]+(?=[^:])/g, (m) => m.replace(/:/g, '')).replace(/[',%=_|\s]/g, '');
  let i = 0;
  while (i < s.length) {
    const m = MNEMONICS.find((k) => s.startsWith(k, i));
    if (!m) {
      i++;
      continue;
    }
    phones.push(ESPEAK_TO_CMU[m]);
    i += m.length;
  }
  return phones.length ? phones.join(' ') : null;
}

/** Pronunciations of words from espeak-ng (one child process for all of them, words as sentences). */
export async function pronounce(words: string[], opts: { timeoutMs?: number; binary?: string; signal?: AbortSignal } = {}): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (words.length === 0) return out;
  const run = async (text: string) =>
    (
      await runChild(opts.binary ?? ESPEAK_BINARY, ['-q', '-x', '-v', 'en-us', text], {
        timeoutMs: opts.timeoutMs ?? 10_000,
        maxStdoutBytes: 1024 * 1024,
        maxStderrBytes: 64 * 1024,
        signal: opts.signal,
      })
    ).stdout
      .toString('utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean);
  // Each word its own sentence: espeak-ng prints one phoneme token per word.
  let tokens = await run(words.map((w) => `${w}.`).join(' '));
  if (tokens.length !== words.length) {
    // A word came out as two tokens (e.g. a prefix read as a word): ask word by word.
    tokens = [];
    for (const w of words) tokens.push((await run(w)).join(''));
  }
  words.forEach((w, k) => {
    const phones = espeakToCmu(tokens[k]);
    if (phones) out.set(w, phones);
  });
  return out;
}

/**
 * Writes `<dir>/call.dict`: the base dictionary plus the call's names as carrier pronunciations (see
 * the top of this file): those it lacks, pronounced by espeak-ng, and those it knows, with their own
 * first pronunciation. Null when the call has no name; when espeak-ng is not available, the known
 * names only.
 */
export async function buildCallDictionary(
  baseDictPath: string,
  names: Array<string | null | undefined>,
  dir: string,
  opts: { signal?: AbortSignal; binary?: string } = {},
): Promise<CallDictionary | null> {
  const known = wordsOfDictionary(baseDictPath);
  const words = namesToWords(names).slice(0, MAX_NEW_WORDS);
  const missing = words.filter((w) => !known.has(w));
  const boosted = words.filter((w) => known.has(w) && !NOT_BOOSTED.has(w)).map((word) => ({ word, phones: known.get(word)! }));
  let prons = new Map<string, string>();
  try {
    if (missing.length > 0) prons = await pronounce(missing, opts);
  } catch {
    // without espeak-ng the missing names cannot be pronounced; the known ones still help
  }
  const added = missing.filter((w) => prons.has(w)).map((word) => ({ word, phones: prons.get(word)! }));
  const carried = [...added, ...boosted];
  if (carried.length === 0) return null;
  const byToken = new Map(carried.map((a, k) => [`${CARRIER}(${FIRST_INDEX + k})`, a.word]));
  const file = path.join(dir, 'call.dict');
  await fs.promises.copyFile(baseDictPath, file);
  await fs.promises.appendFile(file, carried.map((a, k) => `${CARRIER}(${FIRST_INDEX + k}) ${a.phones}\n`).join(''));
  return { path: file, added, boosted, rename: (token) => byToken.get(token) ?? null };
}

// ---------------------------------------------------------------------------------------------
// Dictation pass. The general language model rarely lets a dictated address or number through:
// "paula at stone tax dot com" comes out as "pollinate soundtrack that time", because "at stone
// tax dot com" is improbable English. A second decoding of the pieces that may hold a dictation,
// with a small language model of this call only, hears it: the call's own words (the first pass's
// words and the vocabulary's names, as unigrams) plus bigrams of how addresses and numbers are
// dictated (a name, "at", a webmail domain or the words of a name, "dot", a top-level domain;
// digit after digit). Its output is worse English elsewhere ("at ford pm"), so only what it hears
// as a whole address or a digit string is spliced into the first pass's words, by time.

/** Webmail domains people dictate ("at gmail dot com"); all are words of the base model. */
export const MAIL_DOMAINS = ['gmail', 'outlook', 'hotmail', 'yahoo', 'icloud', 'aol'] as const;
const DICTATION_TLDS = ['com', 'org', 'net'] as const;
const DIGIT_WORDS = ['zero', 'oh', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'] as const;
const DIGIT_SET: ReadonlySet<string> = new Set(DIGIT_WORDS);
/** Words that are never the local part of an address ("send it to me at ..."). */
const NOT_LOCAL = new Set(['me', 'you', 'us', 'him', 'her', 'them', 'it', 'the', 'a', 'an', 'to', 'and', 'is', 'at', 'dot', 'or', 'of', 'i']);
/** Name-word pairs with templates of their own (first-and-last joins); the rest get single-word templates. */
const MAX_PAIR_NAMES = 3;
const TEMPLATE_WEIGHT = 3;
/** Words a recogniser writes for a digit ("for", "to"): kept inside a digit string, never at its ends. */
const DIGIT_HOMOPHONES = new Set(['for', 'to', 'too']);

// Which pieces are decoded again. Any one word of a phone call ("call", "number", "text", a digit
// word) cued a piece at first: that sent half the pieces through a second decoding (dev part of
// bench/dialogues, call.m4a: 81 of 160 pieces, 24 of 26 calls). A cue is now a phrase that comes
// with a dictation: 24 pieces in 14 calls, every piece whose words the pass changed among them, the
// transcripts unchanged (phone8k.wav: 78 -> 15 of 223 pieces, the figures unchanged). The cues:
/** Words of an address: "my email is", "at gmail dot com" (the first pass keeps these well). */
const ADDRESS_CUES: ReadonlySet<string> = new Set(['email', 'e-mail', 'mail', 'address', 'dot', ...DICTATION_TLDS, ...MAIL_DOMAINS]);
/** What the first pass writes for the "dot" after a name ("linda got green", "jessica got long"). */
const NAME_DOT = new Set(['dot', 'got']);
/** "call me at", "text us back at", "reach me at": the number follows. */
const REACH_VERBS = new Set(['call', 'text', 'reach']);
const REACH_OBJECTS = new Set(['me', 'us', 'back']);
/**
 * Digit words in a row (homophones "for", "to" inside) that make a dictated number: fewer is a time
 * or a count. Three: the 8 kHz first pass often keeps no more of a number than "five five five".
 */
const DIGIT_RUN = 3;
const DIGIT_RUN_REAL = 3;
/** A cue this close to a piece's end ("what's your email", "my number is") runs into the next piece. */
const CUE_AT_END = 3;
/** Digits of a whole phone number with its area code: a run this long ends the dictation. */
const WHOLE_NUMBER = 10;
const TLD_SET: ReadonlySet<string> = new Set(DICTATION_TLDS);

/**
 * The cues of a dictation in a piece's first-pass words (see above), in order: an address word, a
 * name of the call followed by "dot" (or "got"), "call/text/reach me/us/back at", "number is", and
 * each digit word that completes a run of DIGIT_RUN numeric words holding DIGIT_RUN_REAL digit
 * words. `open`: the dictation may still go on after it (not a top-level domain, not the last
 * digit of a whole number).
 */
export function dictationCues(words: readonly string[], nameWords: ReadonlySet<string> = new Set()): Array<{ at: number; open: boolean }> {
  const cues: Array<{ at: number; open: boolean }> = [];
  let run = 0;
  let real = 0;
  for (let k = 0; k < words.length; k++) {
    const w = words[k];
    if (ADDRESS_CUES.has(w)) cues.push({ at: k, open: !TLD_SET.has(w) });
    else if (nameWords.has(w) && NAME_DOT.has(words[k + 1] ?? '')) cues.push({ at: k + 1, open: true });
    else if (w === 'number' && (words[k + 1] === 'is' || k + 1 === words.length)) cues.push({ at: k, open: true });
    else if (REACH_VERBS.has(w)) {
      let j = k + 1;
      while (j < words.length && j - k <= 2 && REACH_OBJECTS.has(words[j])) j++;
      if (j > k + 1 && words[j] === 'at') cues.push({ at: j, open: true });
    }
    if (DIGIT_SET.has(w) || (run > 0 && DIGIT_HOMOPHONES.has(w))) {
      run++;
      if (DIGIT_SET.has(w)) real++;
      if (run >= DIGIT_RUN && real >= DIGIT_RUN_REAL && DIGIT_SET.has(w)) cues.push({ at: k, open: real < WHOLE_NUMBER });
    } else {
      run = 0;
      real = 0;
    }
  }
  return cues.sort((a, b) => a.at - b.at);
}

/** Whether a piece's first-pass words suggest a dictation worth a second decoding. */
export function mayHoldDictation(words: readonly string[], nameWords: ReadonlySet<string> = new Set()): boolean {
  return dictationCues(words, nameWords).length > 0;
}

/**
 * Which pieces the dictation pass decodes again, given each piece's first-pass words in order: the
 * cued pieces, and the piece after one that ends inside a dictation, i.e. whose last cue is open and
 * among its last CUE_AT_END words ("what's your email" | "linda dot green at gmail dot com").
 */
export function dictationPieces(pieceWords: ReadonlyArray<readonly string[]>, nameWords: ReadonlySet<string> = new Set()): boolean[] {
  const cues = pieceWords.map((ws) => dictationCues(ws, nameWords));
  return cues.map((c, k) => {
    if (c.length) return true;
    const last = k > 0 ? cues[k - 1].at(-1) : undefined;
    return !!last && last.open && last.at >= pieceWords[k - 1].length - CUE_AT_END;
  });
}

/** Bigram and unigram counts of the dictation model (exported for tests). */
export function dictationCounts(callWords: readonly string[], names: ReadonlyArray<string | null | undefined>): { unigrams: Map<string, number>; bigrams: Map<string, number> } {
  const unigrams = new Map<string, number>();
  const bigrams = new Map<string, number>();
  const addUni = (w: string, n = 1) => unigrams.set(w, (unigrams.get(w) ?? 0) + n);
  // A template counts three times a word of the first pass: at one time, "paula at" was still heard
  // as the first pass's "pollinate" (accountant-tax-forms, dev part).
  const sentence = (ws: string[]) => {
    ws.forEach((w) => addUni(w, TEMPLATE_WEIGHT));
    for (let i = 0; i + 1 < ws.length; i++) bigrams.set(`${ws[i]} ${ws[i + 1]}`, (bigrams.get(`${ws[i]} ${ws[i + 1]}`) ?? 0) + TEMPLATE_WEIGHT);
  };
  for (const w of callWords) addUni(w);
  const perName = names.filter((n): n is string => !!n).map((n) => namesToWords([n]));
  const nameWords = [...new Set(perName.flat())];
  // any name word, at a webmail domain
  for (const n of nameWords) for (const d of MAIL_DOMAINS) sentence([n, 'at', d, 'dot', 'com']);
  // first and last name joined ("jessica dot long", "tom baker"), at a webmail domain or at the words of a name
  const pairNames = perName.slice(0, MAX_PAIR_NAMES);
  const pairWords = [...new Set(pairNames.flat())];
  for (const a of pairWords) {
    for (const b of pairWords) {
      if (a === b) continue;
      sentence([a, 'dot', b, 'at', MAIL_DOMAINS[0], 'dot', 'com']);
      sentence([a, b, 'at', b, 'dot', 'com']);
    }
  }
  for (const ws of pairNames) if (ws.length) sentence([ws[0], 'at', ...ws, 'dot', 'com']);
  for (const tld of DICTATION_TLDS) sentence(['at', 'dot', tld]);
  // digit strings: every digit after every digit
  for (const a of DIGIT_WORDS) for (const b of DIGIT_WORDS) sentence([a, b]);
  return { unigrams, bigrams };
}

/**
 * An ARPA bigram model of the counts: add-one unigrams, absolutely discounted bigrams backing off
 * to them (backoff weights from language-model.ts, which makes each context sum to one). `known`
 * filters words the pronunciation dictionary lacks (a model word without a pronunciation is an
 * error in pocketsphinx).
 */
export function dictationArpa(counts: ReturnType<typeof dictationCounts>, known: (w: string) => boolean): string {
  const D = 0.5;
  const uni = new Map([...counts.unigrams].filter(([w]) => known(w)));
  uni.set(SENTENCE_START, 1);
  uni.set(SENTENCE_END, 1);
  const vocab = [...uni.keys()].sort();
  const total = [...uni.values()].reduce((a, b) => a + b, 0) - 1;
  const unigrams = new Map(vocab.map((w) => [w, { logProb: w === SENTENCE_START ? -99 : Math.log10((uni.get(w)! + 1) / (total + vocab.length)), logBackoff: 0 }]));
  const contextCounts = new Map<string, number>();
  for (const [pair, c] of counts.bigrams) {
    const [a, b] = pair.split(' ');
    if (uni.has(a) && uni.has(b)) contextCounts.set(a, (contextCounts.get(a) ?? 0) + c);
  }
  const bigrams = new Map<string, { logProb: number; logBackoff: number }>();
  for (const [pair, c] of counts.bigrams) {
    const a = pair.split(' ')[0];
    const ca = contextCounts.get(a);
    if (ca !== undefined && uni.has(pair.split(' ')[1])) bigrams.set(pair, { logProb: Math.log10((c - D) / ca), logBackoff: 0 });
  }
  const model = { grams: [unigrams, bigrams] };
  setBackoffWeights(model);
  return writeArpa(model);
}

/**
 * Writes the dictation pass's model and dictionary into `dir`: `dictation.arpa`, and
 * `dictation.dict`, the pronunciations of the model's words only (from the base dictionary, and the
 * call dictionary's new names under their own spelling: this model is the call's own, so no
 * carrier is needed). A word outside the model is never hypothesised, so the whole base dictionary
 * changed nothing but the time to load it, most of the pass's 3 s per call: one piece decoded in
 * 5 s with it and 0.3 s without, same hypothesis and scores; the dev part of bench/dialogues'
 * dictation pass (call.m4a, 23 pieces) 50.9 -> 8.4 s, transcripts unchanged.
 */
export async function buildDictationModel(
  baseDictPath: string,
  callWords: readonly string[],
  names: ReadonlyArray<string | null | undefined>,
  dir: string,
  callDict: CallDictionary | null,
): Promise<{ lmPath: string; dictPath: string }> {
  const known = wordsOfDictionary(baseDictPath);
  const added = new Map((callDict?.added ?? []).map((a) => [a.word, a.phones]));
  const counts = dictationCounts(callWords, names);
  const lmPath = path.join(dir, 'dictation.arpa');
  await fs.promises.writeFile(lmPath, dictationArpa(counts, (w) => known.has(w) || added.has(w)));
  const inModel = (w: string) => counts.unigrams.has(w);
  const lines: string[] = [];
  for (const line of (await fs.promises.readFile(baseDictPath, 'utf8')).split('\n')) {
    const sp = line.indexOf(' ');
    if (sp > 0 && inModel(line.slice(0, sp).replace(/\(\d+\)$/, ''))) lines.push(line);
  }
  for (const [w, p] of added) if (inModel(w) && !known.has(w)) lines.push(`${w} ${p}`);
  const dictPath = path.join(dir, 'dictation.dict');
  await fs.promises.writeFile(dictPath, lines.map((l) => `${l}\n`).join(''));
  return { lmPath, dictPath };
}

interface TimedWord {
  word: string;
  start: number;
  end: number;
}

/** Spans [from, to) of `words` that are a whole dictated address or a digit string of seven or more. */
export function dictationSpans(words: readonly TimedWord[], nameWords: ReadonlySet<string>): Array<{ from: number; to: number; kind: 'email' | 'digits' }> {
  const spans: Array<{ from: number; to: number; kind: 'email' | 'digits' }> = [];
  const w = words.map((x) => x.word);
  for (let k = 0; k + 1 < w.length; k++) {
    if (w[k] !== 'dot' || !(DICTATION_TLDS as readonly string[]).includes(w[k + 1])) continue;
    // the domain: one to three words back to "at"
    let a = k - 1;
    while (a >= 0 && k - a <= 3 && w[a] !== 'at' && !NOT_LOCAL.has(w[a])) a--;
    if (a < 1 || w[a] !== 'at' || a === k - 1) continue;
    // the local part: names of the call joined by "dot" or run together, else one plain word
    let s = a;
    let taken = 0;
    while (s - 1 >= 0 && taken < 3) {
      if (nameWords.has(w[s - 1])) {
        s--;
        taken++;
      } else if (taken && w[s - 1] === 'dot' && s - 2 >= 0 && nameWords.has(w[s - 2])) s--;
      else break;
    }
    if (!taken) {
      if (NOT_LOCAL.has(w[a - 1]) || DIGIT_SET.has(w[a - 1]) || w[a - 1].length < 2) continue;
      s = a - 1;
    }
    spans.push({ from: s, to: k + 2, kind: 'email' });
  }
  // digit strings: digit words, with "for"/"to" inside ("five five five two one oh for four seven five")
  for (let i = 0; i < w.length; ) {
    if (!DIGIT_SET.has(w[i])) {
      i++;
      continue;
    }
    let j = i;
    while (j < w.length && (DIGIT_SET.has(w[j]) || DIGIT_HOMOPHONES.has(w[j]))) j++;
    while (j > i && !DIGIT_SET.has(w[j - 1])) j--;
    const real = w.slice(i, j).filter((x) => DIGIT_SET.has(x)).length;
    if (j - i >= 7 && real >= 6) spans.push({ from: i, to: j, kind: 'digits' });
    i = j;
  }
  return spans.sort((x, y) => x.from - y.from);
}

/** Words of a number as the first pass may write it: digits, their homophones, and number words. */
const NUMERIC = new Set([...DIGIT_WORDS, 'for', 'fore', 'to', 'too', 'or', 'won', 'ate', 'o', 'hundred', 'thousand', 'million', 'double', 'triple']);
/** Slack, in seconds, for a second-pass word's middle against the first pass's digit run. */
const RUN_SLACK = 0.15;

/**
 * The first pass's words with the dictation pass's addresses and digit strings spliced in: each
 * span replaces the first-pass words whose middle falls inside it, unless those already say the
 * same. A digit string replaces only a number the first pass heard there (its longest run of
 * digits, homophones and number words): the dictation model's pull towards digits must not turn
 * the words around a number ("text me a", "when") into more digits, and a digit string needs more
 * digits than the first pass heard.
 */
export function spliceDictation<T extends TimedWord>(first: readonly T[], second: readonly T[], names: ReadonlyArray<string | null | undefined>): T[] {
  const nameWords = new Set(namesToWords([...names]));
  const mid = (x: TimedWord) => (x.start + x.end) / 2;
  const digits = (xs: readonly TimedWord[]) => xs.filter((x) => DIGIT_SET.has(x.word)).length;
  let out = [...first];
  for (const span of dictationSpans(second, nameWords)) {
    let words = second.slice(span.from, span.to);
    if (span.kind === 'digits') {
      // the first pass's longest numeric run under the span
      const under = (x: TimedWord) => mid(x) >= words[0].start && mid(x) <= words[words.length - 1].end;
      let best: T[] = [];
      let cur: T[] = [];
      for (const x of out) {
        if (under(x) && NUMERIC.has(x.word)) cur.push(x);
        else cur = [];
        if (cur.length > best.length) best = [...cur];
      }
      if (!best.length) continue;
      const from = best[0].start - RUN_SLACK;
      const to = best[best.length - 1].end + RUN_SLACK;
      words = words.filter((x) => mid(x) >= from && mid(x) <= to);
      while (words.length && !DIGIT_SET.has(words[0].word)) words.shift();
      while (words.length && !DIGIT_SET.has(words[words.length - 1].word)) words.pop();
      if (words.length < 7 || digits(words) <= digits(best)) continue;
    }
    const start = words[0].start;
    const end = words[words.length - 1].end;
    const inside = (x: TimedWord) => mid(x) >= start && mid(x) <= end;
    const replaced = out.filter(inside);
    if (replaced.map((x) => x.word).join(' ') === words.map((x) => x.word).join(' ')) continue;
    out = [...out.filter((x) => !inside(x)), ...words].sort((a, b) => a.start - b.start || a.end - b.end);
  }
  return out;
}

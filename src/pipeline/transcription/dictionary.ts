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
import fs from 'node:fs';
import path from 'node:path';
import { runChild } from '../audio/child.js';

export const ESPEAK_BINARY = 'espeak-ng';
const CARRIER = 'smith';
const FIRST_INDEX = 40;
/** More names than this in one call are not added (a user with thousands of contacts). */
const MAX_NEW_WORDS = 300;

export interface CallDictionary {
  /** The dictionary file to pass as `-dict`. */
  path: string;
  /** Words added, with their CMU pronunciations. */
  added: Array<{ word: string; phones: string }>;
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

const baseWords = new Map<string, Set<string>>();
function wordsOfDictionary(dictPath: string): Set<string> {
  let set = baseWords.get(dictPath);
  if (!set) {
    set = new Set();
    for (const line of fs.readFileSync(dictPath, 'utf8').split('\n')) {
      const sp = line.indexOf(' ');
      if (sp > 0) set.add(line.slice(0, sp).replace(/\(\d+\)$/, ''));
    }
    baseWords.set(dictPath, set);
  }
  return set;
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
 * Writes `<dir>/call.dict`: the base dictionary plus the call's names that it lacks, as carrier
 * pronunciations (see the top of this file). Null when no name is missing or espeak-ng is not
 * available (the call is then recognised with the base dictionary, as before).
 */
export async function buildCallDictionary(
  baseDictPath: string,
  names: Array<string | null | undefined>,
  dir: string,
  opts: { signal?: AbortSignal; binary?: string } = {},
): Promise<CallDictionary | null> {
  const known = wordsOfDictionary(baseDictPath);
  const missing = namesToWords(names).filter((w) => !known.has(w)).slice(0, MAX_NEW_WORDS);
  if (missing.length === 0) return null;
  let prons: Map<string, string>;
  try {
    prons = await pronounce(missing, opts);
  } catch {
    return null;
  }
  const added = missing.filter((w) => prons.has(w)).map((word) => ({ word, phones: prons.get(word)! }));
  if (added.length === 0) return null;
  const byToken = new Map(added.map((a, k) => [`${CARRIER}(${FIRST_INDEX + k})`, a.word]));
  const file = path.join(dir, 'call.dict');
  await fs.promises.copyFile(baseDictPath, file);
  await fs.promises.appendFile(file, added.map((a, k) => `${CARRIER}(${FIRST_INDEX + k}) ${a.phones}\n`).join(''));
  return { path: file, added, rename: (token) => byToken.get(token) ?? null };
}

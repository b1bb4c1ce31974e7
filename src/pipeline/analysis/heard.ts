// How an offline recogniser writes the words of a dictated e-mail address ("linda dot green at
// gmail dot com" -> "linda got green and nail dot com"). Shared by the embedded analyzer, which
// rebuilds an address from them only around the call's own names (spoken.ts), and by the grounding
// check applied to every analyzer, which accepts an address only if the heard words spell it out in
// order (grounding.ts). Only words a recogniser was seen to write for these are listed: a common word
// here ("and", "not") is read as "@"/"." only inside a whole address, never on its own.

import nlp from 'compromise';
import { isPlaceholderName, metaphoneCodes } from '../resolution/names.js';

/** Heard for "dot". */
export const HEARD_DOT = new Set(['dot', 'got', 'dog', 'not', 'dart', 'dut']);
/** Heard for "at". */
export const HEARD_AT = new Set(['at', 'and', 'add', 'had', 'it', 'an']);
/** Heard for the top-level domain after "dot". */
export const HEARD_TLD: Record<string, string> = { com: 'com', calm: 'com', come: 'com', comb: 'com', con: 'com', khan: 'com', net: 'net', org: 'org' };
/**
 * Top-level domains as a recogniser writes them after a "dot" said as such, where the heard word is
 * no domain of its own: "dot khan" (com), "dot easy" (the Irish "i e" run together).
 */
export const HEARD_TLD_AFTER_DOT: Record<string, string> = { calm: 'com', come: 'com', comb: 'com', con: 'com', khan: 'com', easy: 'ie' };
/**
 * The second level of a British domain as heard: the recogniser writes the "co" of "dot co dot uk"
 * as "com" ("g dot telford at northgate b s dot com dot u k"), and there is no ".com.uk" to mean.
 */
export function ukSecondLevel(label: string, next: string | undefined): string {
  return next === 'uk' && HEARD_TLD[label] === 'com' ? 'co' : label;
}
/** Heard for the big webmail domains, one or two words each. */
export const HEARD_DOMAIN: Array<[string[], string]> = [
  // (not "mail" alone: mail.com is a real provider, and its users would get a gmail address nobody said)
  [['gmail'], 'gmail'], [['g', 'mail'], 'gmail'], [['g', 'male'], 'gmail'], [['gee', 'mail'], 'gmail'], [['nail'], 'gmail'], [['male'], 'gmail'], [['female'], 'gmail'],
  [['hotmail'], 'hotmail'], [['hot', 'mail'], 'hotmail'], [['hot', 'male'], 'hotmail'],
  [['yahoo'], 'yahoo'], [['ya', 'who'], 'yahoo'], [['yeah', 'who'], 'yahoo'],
  [['outlook'], 'outlook'], [['out', 'look'], 'outlook'], [['out', 'luck'], 'outlook'],
  [['icloud'], 'icloud'], [['i', 'cloud'], 'icloud'],
  [['fastmail'], 'fastmail'], [['fast', 'mail'], 'fastmail'], [['fast', 'male'], 'fastmail'],
  [['protonmail'], 'protonmail'], [['proton', 'mail'], 'protonmail'], [['proton', 'male'], 'protonmail'],
];

/** The webmail names of HEARD_DOMAIN ("gmail", "outlook"), the label before the top-level domain. */
export const WEBMAIL = new Set(HEARD_DOMAIN.map(([, d]) => d));

/**
 * Local parts of shared mailboxes, said as such: never a name misheard ("team at ..." beside a Tim,
 * "hello at ..." beside a Hallie, "mail at ..." beside a Mel).
 */
const ROLE_ACCOUNTS = new Set([
  'team', 'hello', 'hallo', 'mail', 'care', 'info', 'sales', 'admin', 'help', 'support', 'office', 'contact',
  'jobs', 'billing', 'accounts', 'enquiries', 'inquiries', 'orders', 'booking', 'bookings', 'reception',
  'service', 'news', 'hire', 'rent', 'rentals', 'lettings', 'quotes', 'claims', 'home', 'shop', 'store',
]);

/**
 * The call's name a word of a dictated address was heard for ("fill at mercer cole dot com" in a call
 * with Phil): a word that is no name of the call, nor a first name at all, but sounds exactly like
 * one (the same Double Metaphone codes, about as long), and like one only. Null otherwise.
 */
export function nameHeardAs(word: string, names: Iterable<string>): string | null {
  const w = word.toLowerCase();
  if (w.length < 3 || !/^[a-z]+$/.test(w) || ROLE_ACCOUNTS.has(w)) return null;
  const [heardPrimary, heardAlternate] = metaphoneCodes(w);
  let found: string | null = null;
  for (const n of names) {
    if (n === w) return null;
    if (n.length < 3 || Math.abs(n.length - w.length) > 1 || found === n) continue;
    // (both codes the same: it sounds exactly like the name)
    const [primary, alternate] = metaphoneCodes(n);
    if (primary !== heardPrimary || alternate !== heardAlternate) continue;
    if (found) return null;
    found = n;
  }
  // (a first name of its own is another spelling said as such, "marcus" beside a speaker heard as
  // Marcos: kept as heard)
  if (found && isFirstName(w)) return null;
  return found;
}

/**
 * The words of the speakers' names that a word of an address may have been heard for (nameHeardAs):
 * read the same way by the extractor (embedded/text.ts) and the grounding check (grounding.ts).
 */
export function speakerNameWords(speakers: ReadonlyArray<{ displayName: string }>): Set<string> {
  return new Set(
    speakers
      // a stand-in ('Contact ending 1234') names nobody; accents are folded ('José' is said 'jose')
      .filter((s) => !isPlaceholderName(s.displayName))
      .flatMap((s) => s.displayName.normalize('NFD').replace(/\p{M}+/gu, '').toLowerCase().split(/[^a-z]+/))
      .filter((w) => w.length >= 3),
  );
}

// nameHeardAs runs for every word of every segment in grounding: the first-name look-up (a
// compromise parse) is memoised, in a cache cleared when it grows large (the codes are, in names.ts)
const MEMO_LIMIT = 5000;
const firstNames = new Map<string, boolean>();
function memo<T>(cache: Map<string, T>, key: string, make: (k: string) => T): T {
  let v = cache.get(key);
  if (v === undefined) {
    if (cache.size >= MEMO_LIMIT) cache.clear();
    v = make(key);
    cache.set(key, v);
  }
  return v;
}
const isFirstName = (w: string): boolean => memo(firstNames, w, (x) => nlp(x).has('#FirstName'));

// ---------------------------------------------------------------------------------------------
// Remarks inside a dictation

/** A word of a sentence split on white space: `w` is its lower-case core, `pre`/`post` the punctuation around it. */
export interface DictationToken {
  raw: string;
  w: string;
  pre: string;
  post: string;
}

/** A token that is one letter and nothing else ("V," counts; "V-8" does not). */
export const isLetter = (t: DictationToken | undefined) => !!t && /^[a-z]$/.test(t.w) && t.raw.length === t.pre.length + 1 + t.post.length;
/** Remarks that say how an address is written, not what it is. */
export const WRITING_REMARKS = [['all', 'one', 'word'], ['one', 'word'], ['all', 'lowercase'], ['all', 'lower', 'case'], ['lowercase'], ['no', 'spaces'], ['no', 'space'], ['all', 'together']];
const SPELL_LEAD = new Set(["that's", 'thats', 'spelled', 'spelt', 'so']);

/**
 * Tokens of a dictation that are remarks about the address, not part of it: the spelling of the
 * word just said ("v mensah, that's V, M E N S A H, at ..."; "mel, M E L, dot carter"), the "as in"
 * of a phonetic spelling ("d as in David"), and "all one word" / "all lowercase" / "no spaces".
 * A letter run is a remark only when it spells the word(s) said just before it, so "A P at
 * northwind foods" keeps its letters.
 */
export function dictationAsides(toks: DictationToken[]): boolean[] {
  const aside = toks.map(() => false);
  for (let i = 0; i < toks.length; i++) {
    // "d as in David": the letter stays, the example word goes
    if (isLetter(toks[i]) && toks[i + 1]?.w === 'as' && toks[i + 2]?.w === 'in' && toks[i + 3] && toks[i + 3].w.startsWith(toks[i].w) && toks[i + 3].w.length > 1) {
      aside[i + 1] = aside[i + 2] = aside[i + 3] = true;
      continue;
    }
    const remark = WRITING_REMARKS.find((r) => r.every((w, j) => toks[i + j]?.w === w));
    if (remark && !toks.slice(i, i + remark.length - 1).some((t) => t.post && t.post !== ',')) {
      for (let j = 0; j < remark.length; j++) aside[i + j] = true;
      i += remark.length - 1;
      continue;
    }
    // a spelling: "that's"? then letters (and "double x"), spelling the word(s) before it
    let a = i;
    if (SPELL_LEAD.has(toks[a].w) && a > 0) a++;
    let b = a;
    let spelled = '';
    while (b < toks.length) {
      if (toks[b].w === 'double' && isLetter(toks[b + 1])) {
        spelled += toks[b + 1].w.repeat(2);
        b += 2;
      } else if (isLetter(toks[b])) {
        spelled += toks[b].w;
        b++;
      } else break;
      if (toks[b - 1].post && toks[b - 1].post !== ',') break;
    }
    if (spelled.length < 2 || i === 0) continue;
    let said = '';
    for (let p = i - 1; p >= 0 && p >= i - 4 && said.length < spelled.length; p--) {
      if (aside[p]) break;
      said = toks[p].w + said;
    }
    // ("priya dot nair, that's p r i y a, at ...": after "that's", the spelling of a word said a
    // little before, with the address's separators between)
    const earlier = a > i && toks.slice(Math.max(0, i - 4), i).some((t, j, all) => t.w === spelled && !all.slice(j).some((x) => /[.?!]/.test(x.post)));
    if (said === spelled || earlier) {
      for (let j = i; j < b; j++) aside[j] = true;
      i = b - 1;
    }
  }
  return aside;
}


/**
 * The text without the remarks of a dictation (see dictationAsides), the punctuation that set them
 * off dropped too: "v mensah, that's V, M E N S A H, at harbour mail dot net" -> "v mensah at
 * harbour mail dot net". The grounding check reads an address in it as it would in a plain one.
 */
export function withoutDictationAsides(text: string): string {
  const toks: DictationToken[] = (text.match(/\S+/g) ?? []).map((raw) => {
    const m = raw.match(/^([^\p{L}\p{N}]*)(.*?)([^\p{L}\p{N}]*)$/u)!;
    return { raw, w: m[2].toLowerCase(), pre: m[1], post: m[3] };
  });
  const aside = dictationAsides(toks);
  // "o double d": the letter twice
  const doubled = toks.map((t, i) => t.w === 'double' && isLetter(toks[i + 1]) && i > 0 && isLetter(toks[i - 1]));
  if (!aside.some(Boolean) && !doubled.some(Boolean)) return text;
  const out: string[] = [];
  toks.forEach((t, i) => {
    if (aside[i]) return;
    if (doubled[i]) {
      out.push(toks[i + 1].w);
      return;
    }
    out.push(aside[i + 1] && t.post === ',' ? t.raw.slice(0, t.raw.length - t.post.length) : t.raw);
  });
  return out.join(' ');
}

// Tolerant matching of spoken words against the supplied user and contact names.
//
// Speech recognition lower-cases everything, drops punctuation and misspells names ("Maria" ->
// "mariah", "Priya" -> "pria"), so an exact comparison misses most real evidence; a loose one turns
// ordinary words into names ("more" sounds like "Moore", "baker" like "Becker"). The rules here:
//
//  - exact (case-insensitive) always matches;
//  - otherwise the heard word must not be an ordinary English word (compromise's lexicon knows
//    about 24k words and tags first and last names separately, so "mariah" is a name and "more"
//    is not), must share a Double Metaphone code with the name and be within a small Levenshtein
//    distance: 1 for free mentions, 2 inside greeting/introduction patterns, where the sentence
//    structure already says "a name goes here";
//  - inside patterns a nickname prefix also counts ("chris" for "Christopher");
//  - names shorter than four letters only match exactly (their phonetic codes are too coarse).
import nlp from 'compromise';
import { doubleMetaphone } from 'double-metaphone';
import { distance } from 'fastest-levenshtein';

export type NameOwner = 'user' | 'contact';

/** A supplied name, split into the forms that can be heard. */
export interface NameSpec {
  who: NameOwner;
  /** Lower-case tokens of the whole supplied name. */
  tokens: string[];
  /**
   * A person's name rather than an organisation's ("Daniel Okafor" vs "Lumen Net Support"). Only a
   * person's first name or honorific + surname count on their own, and only a person's name mentioned
   * in passing points at the other speaker (people say their own company's name all the time).
   */
  personLike: boolean;
  /** The first token may be matched on its own (person first name, or a distinctive organisation word). */
  firstUsableAlone: boolean;
  /** The first token is distinctive enough to count in a free mention (not an ordinary word). */
  firstDistinctive: boolean;
  /** Every word is an ordinary word ("Home", "Work Phone"): "I'm home" must not read as an introduction. */
  commonWords: boolean;
}

const NAME_TAGS = new Set(['FirstName', 'MaleName', 'FemaleName', 'LastName', 'Person', 'ProperNoun']);
const FIRST_NAME_TAGS = new Set(['FirstName', 'MaleName', 'FemaleName']);

// Words of business names that never identify a company on their own.
const ORG_WORDS = new Set([
  'inc', 'ltd', 'llc', 'co', 'corp', 'company', 'group', 'support', 'services', 'service', 'team', 'office',
  'practice', 'clinic', 'bank', 'accounts', 'account', 'sales', 'solutions', 'systems', 'software', 'foods',
  'auto', 'motors', 'logistics', 'dental', 'medical', 'family', 'school', 'university', 'hospital',
  'department', 'dept', 'insurance', 'agency', 'store', 'shop', 'and', 'the', 'of', 'net', 'tech', 'studio',
  // Trades, places and services the lexicon does not know as ordinary words: without them "Elm Street
  // Pharmacy" (three words the lexicon lacks) passes for a person's name.
  'pharmacy', 'street', 'avenue', 'road', 'plaza', 'therapy', 'physio', 'physiotherapy', 'health', 'healthcare',
  'salon', 'spa', 'garage', 'plumbing', 'electric', 'electrical', 'hvac', 'realty', 'properties', 'property',
  'bakery', 'cafe', 'restaurant', 'hotel', 'veterinary', 'animal', 'grocery', 'pizza', 'fitness', 'gym',
  'library', 'county', 'council', 'union', 'federal', 'mortgage', 'lab', 'labs', 'studios', 'industries',
  'international', 'national', 'delivery', 'movers', 'storage', 'airlines', 'telecom', 'wireless', 'cable',
  'utilities', 'dentistry', 'orthodontics', 'optometry', 'chiropractic', 'pediatrics', 'surgery',
  'apartments', 'management', 'construction', 'contractors', 'landscaping', 'automotive', 'recruiting',
  // Schools: a school is usually named after a person ("Lincoln Elementary", "Kennedy Academy"), so
  // the kind of school is the only word that tells it from a person's name.
  'elementary', 'academy', 'college', 'kindergarten', 'preschool', 'daycare', 'institute',
]);

// Frequent conversational words the lexicon lookup could miss (inflections, contractions, fillers).
const EXTRA_COMMON = new Set([
  'okay', 'ok', 'yeah', 'yes', 'no', 'hello', 'hi', 'hey', 'bye', 'thanks', 'thank', 'please', 'sorry',
  'sure', 'right', 'well', 'great', 'good', 'fine', 'perfect', 'morning', 'afternoon', 'evening', 'night',
  'today', 'tomorrow', 'tonight', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday',
  'january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october',
  'november', 'december', 'dot', 'com', 'at', 'um', 'uh', 'er', 'ah', 'oh', 'hmm', 'mm',
]);

const CONTRACTION = /^[a-z]+(?:'(?:ll|m|re|ve|d)|n't)$/;

type Lexicon = Record<string, string | string[] | undefined>;
const lexicon: Lexicon = ((nlp.model() as { one?: { lexicon?: Lexicon } }).one?.lexicon) ?? {};

function lexTags(word: string): string[] {
  const t = lexicon[word];
  return t === undefined ? [] : Array.isArray(t) ? t : [t];
}

/** An ordinary English word (not only a name): unsafe as a fuzzy name match or a free mention. */
export function isCommonWord(word: string): boolean {
  const w = word.toLowerCase();
  if (EXTRA_COMMON.has(w) || ORG_WORDS.has(w)) return true;
  // A contraction ("i'll", "we're", "don't") is never a name, however it sounds: "ten, it is, I'll send"
  // matched "Jill" loosely and read as the speaker introducing herself as the user.
  if (CONTRACTION.test(w)) return true;
  const tags = lexTags(w);
  return tags.length > 0 && tags.some((t) => !NAME_TAGS.has(t));
}

/** A word the lexicon knows only as a first name ("janet", "kevin"); "will" or "mark" do not qualify. */
export function isKnownFirstName(word: string): boolean {
  const w = word.toLowerCase();
  if (w.length < 3 || EXTRA_COMMON.has(w)) return false;
  const tags = lexTags(w);
  return tags.some((t) => FIRST_NAME_TAGS.has(t)) && tags.every((t) => NAME_TAGS.has(t));
}

function isSurnameOnly(word: string): boolean {
  const tags = lexTags(word.toLowerCase());
  return tags.length > 0 && tags.every((t) => t === 'LastName');
}

/**
 * Lower-case word tokens of a name or an utterance: accents folded ("José" = "jose", as recognisers
 * often drop them), apostrophes kept so "maria's" stays one token.
 */
export function wordsOf(text: string): string[] {
  return (
    text
      .normalize('NFD')
      .replace(/\p{M}/gu, '')
      .toLowerCase()
      .replace(/[\u2018\u2019`]/g, "'")
      .match(/[\p{L}\p{N}]+(?:'\p{L}+)*/gu) ?? []
  );
}

export function nameSpecOf(name: string | null | undefined, who: NameOwner): NameSpec | null {
  // A stray period ("Dr. Jane Smith") or an honorific should not become a name token.
  const all = wordsOf(name ?? '');
  const tokens = all.filter((t) => !HONORIFICS.has(t));
  if (tokens.length === 0) return null;
  const first = tokens[0];
  // A name with a business or office word is an organisation's even when it starts with a first name
  // ("Madison County Clerk", "Franklin Elementary"): taken for a person, the office saying its own
  // name in passing reads as a name said to the listener.
  const orgWord = tokens.some((t) => ORG_WORDS.has(t));
  const personLike =
    who === 'user' ||
    tokens.length < all.length ||
    (isKnownFirstName(first) && !orgWord) ||
    // How people file family and partners in their phone book ("Mom", "Grandma", "Aunt Rosa"): a
    // person, though the words are ordinary ones. Taken for an organisation, "Hi Mom" opening a turn
    // would read as a business answering with its own name.
    // A first name the lexicon knows only as an ordinary word ("Frank Miller", "Will Turner") before a
    // word it knows only as a surname.
    (!orgWord && tokens.length === 2 && isSurnameOnly(tokens[1])) ||
    (!orgWord && tokens.length <= 2 && isKinship(first) && tokens.every((t) => isKinship(t) || isKnownFirstName(t) || !isCommonWord(t))) ||
    (tokens.length >= 2 && tokens.length <= 3 && tokens.every((t) => !isCommonWord(t) && !ORG_WORDS.has(t)));
  const firstDistinctive = !isCommonWord(first) && first.length >= 3;
  const firstUsableAlone = personLike ? first.length >= 2 : tokens.length > 1 && firstDistinctive && first.length >= 4;
  const commonWords = tokens.every((t) => isCommonWord(t)) && !isKnownFirstName(first);
  return { who, tokens, personLike, firstUsableAlone, firstDistinctive, commonWords };
}

// Family and partner words as contacts are filed under them. (The lexicon's people nouns also take in
// trades, "plumber", "clerk", which name a business as often as a person: hence a list.)
const KINSHIP = new Set([
  'mom', 'mum', 'mommy', 'mummy', 'mama', 'momma', 'ma', 'mother', 'dad', 'daddy', 'papa', 'pa', 'father',
  'grandma', 'grandpa', 'granny', 'grandad', 'granddad', 'grandmother', 'grandfather', 'nana', 'nan', 'gran',
  'aunt', 'auntie', 'aunty', 'uncle', 'sis', 'sister', 'bro', 'brother', 'son', 'daughter', 'cousin', 'niece',
  'nephew', 'wife', 'husband', 'hubby', 'babe', 'baby', 'honey', 'sweetheart', 'grandson', 'granddaughter',
]);

function isKinship(word: string): boolean {
  return KINSHIP.has(word.toLowerCase());
}

export const HONORIFICS = new Set(['mr', 'mrs', 'ms', 'miss', 'mister', 'missus', 'dr', 'doctor', 'mx', 'sir', 'madam']);

export type MatchGrade = 'exact' | 'close' | 'loose';

/**
 * How well a heard token matches a name token: `exact`; `close` (one edit and the same sound, good
 * enough for a free mention); `loose` (two edits or a nickname prefix, only inside a pattern); or null.
 */
export function matchToken(heard: string, name: string): MatchGrade | null {
  const h = heard.toLowerCase();
  const n = name.toLowerCase();
  if (h === n) return 'exact';
  if (n.length < 4 || h.length < 3 || isCommonWord(h)) return null;
  const d = distance(h, n);
  if (d <= 2 && soundsAlike(h, n)) return d <= 1 ? 'close' : 'loose';
  // A short form of the name ("chris" for "christopher") or the name's long form ("christopher" for "chris").
  if ((n.startsWith(h) && h.length >= 3) || (h.startsWith(n) && h.length - n.length <= 7)) return 'loose';
  return null;
}

/**
 * A heard name that could be the supplied one misrecognised: their Double Metaphone codes are one
 * edit apart ("shelly" XL for "Julie" JL, "jan" for "Dan"). Too far for a match, too close to say
 * the speaker is somebody else.
 */
export function mayBeMisheard(heard: string, name: string): boolean {
  const codes = (w: string) => metaphoneCodes(w.toLowerCase()).filter((c) => c.length >= 2);
  const nc = codes(name);
  return codes(heard).some((h) => nc.some((n) => distance(h, n) <= 1));
}

function soundsAlike(a: string, b: string): boolean {
  const codes = (w: string) => metaphoneCodes(w).filter((c) => c.length > 0);
  // Scripts Double Metaphone cannot encode give no codes, and then only an exact match counts.
  const bc = codes(b);
  return codes(a).some((c) => bc.includes(c));
}

// The codes are asked for again and again (nameHeardAs, heard.ts, for every word of every segment the
// grounding check reads): memoised, in a cache cleared when it grows large.
const METAPHONE_MEMO_LIMIT = 5000;
const metaphoneMemo = new Map<string, readonly [string, string]>();

/**
 * The Double Metaphone codes of a word as written, [primary, alternate] ("phil" -> ['FL', 'FL']): one
 * computation for the matching here (soundsAlike, mayBeMisheard) and for nameHeardAs (heard.ts),
 * each of which compares them its own way.
 */
export function metaphoneCodes(word: string): readonly [string, string] {
  let codes = metaphoneMemo.get(word);
  if (codes === undefined) {
    if (metaphoneMemo.size >= METAPHONE_MEMO_LIMIT) metaphoneMemo.clear();
    codes = Object.freeze(doubleMetaphone(word));
    metaphoneMemo.set(word, codes);
  }
  return codes;
}

/**
 * The stand-ins the speech stage names a speaker by when no name was given or heard (resolve.ts:
 * 'You', 'Contact', 'Contact ending 1234', 'Speaker 2'): no person's name.
 */
export function isPlaceholderName(name: string | null | undefined): boolean {
  return !name || /^(?:You|Contact|Contact ending \d+|Speaker \d+)$/.test(name);
}

/** `Contact ending <last 4 digits>` from a phone number, or null when it has no digits. */
export function phoneFallbackLabel(phoneNumber: string | null | undefined): string | null {
  const digits = (phoneNumber ?? '').replace(/\D/g, '');
  if (digits.length === 0) return null;
  return `Contact ending ${digits.slice(-4)}`;
}

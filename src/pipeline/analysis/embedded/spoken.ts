// Spoken-form normalisation. Recognisers (and the corpus scripts) write numbers, phone numbers and
// e-mail addresses the way people say them: "five five five, three eight two", "ten thirty",
// "priya dot shah at gmail dot com". Date parsing, amount extraction and the launchers need the
// written form, so each sentence is rewritten here and the entities found are reported with the
// exact spoken span they came from (the evidence that keeps the analysis grounded).
//
// compromise's number parser reads "eight hundred, five five five" as one cardinal and "ten thirty"
// as 0, so the digit-by-digit and clock readings are decided here from the shape of the run.

import ianaTlds from 'tlds';
import { TAKING_BACK, writeClockTimes } from './dates.js';
import { dictationAsides, HEARD_AT, HEARD_DOMAIN, HEARD_DOT, HEARD_TLD, HEARD_TLD_AFTER_DOT, isLetter, nameHeardAs, ukSecondLevel, WEBMAIL, WRITING_REMARKS } from '../heard.js';

export interface SpokenPhone {
  kind: 'phone';
  /** The digits as said, without country code unless one was spoken. */
  digits: string;
  /** True when the speaker said "plus" before the digits. */
  international: boolean;
  spoken: string;
}
export interface SpokenEmail {
  kind: 'email';
  address: string;
  spoken: string;
}
export interface SpokenNumber {
  kind: 'number';
  value: number;
  /** Word that followed the number: "dollars", "minutes", "days", ... (lower case). */
  unit: string | null;
  currency: string | null;
  spoken: string;
}
export interface SpokenIdentifier {
  kind: 'identifier';
  digits: string;
  /** The noun before the digits ("invoice", "order", "apartment"), when there is one. */
  label: string | null;
  spoken: string;
}
export type SpokenEntity = SpokenPhone | SpokenEmail | SpokenNumber | SpokenIdentifier;

export interface Normalized {
  /** The sentence with spoken numbers, times, ordinals, phones and e-mails in written form. */
  text: string;
  entities: SpokenEntity[];
}

const UNITS: Record<string, number> = {
  zero: 0, oh: 0, o: 0, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9,
};
const TEENS: Record<string, number> = {
  ten: 10, eleven: 11, twelve: 12, thirteen: 13, fourteen: 14, fifteen: 15, sixteen: 16, seventeen: 17, eighteen: 18, nineteen: 19,
};
const TENS: Record<string, number> = { twenty: 20, thirty: 30, forty: 40, fourty: 40, fifty: 50, sixty: 60, seventy: 70, eighty: 80, ninety: 90 };
const SCALES: Record<string, number> = { hundred: 100, thousand: 1000, million: 1_000_000, billion: 1_000_000_000 };
const ORDINALS: Record<string, number> = {
  first: 1, second: 2, third: 3, fourth: 4, fifth: 5, sixth: 6, seventh: 7, eighth: 8, ninth: 9, tenth: 10,
  eleventh: 11, twelfth: 12, thirteenth: 13, fourteenth: 14, fifteenth: 15, sixteenth: 16, seventeenth: 17,
  eighteenth: 18, nineteenth: 19, twentieth: 20, thirtieth: 30,
};
const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december', 'jan', 'feb', 'mar', 'apr', 'jun', 'jul', 'aug', 'sep', 'sept', 'oct', 'nov', 'dec'];
// What books a day ("meet the twenty first", "a meeting the third").
const MEETING_VERBS = new Set(['meet', 'meeting', 'call', 'appointment', 'session', 'visit', 'come', 'see', 'book', 'do', 'make']);
const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
const CURRENCIES: Record<string, string> = {
  dollar: 'USD', dollars: 'USD', bucks: 'USD', usd: 'USD', euro: 'EUR', euros: 'EUR', pound: 'GBP', pounds: 'GBP', quid: 'GBP',
  cent: 'USD', cents: 'USD', rupees: 'INR', rupee: 'INR', yen: 'JPY', francs: 'CHF', pesos: 'MXN',
};
/**
 * Top-level domains accepted when reassembling a spoken address; keeps "at the station dot" out.
 * Every country's (the two-letter ones of the IANA list, package tlds: "dot com dot n g", "dot p h"),
 * and of the generic ones only those small businesses, freelancers and public bodies use: the whole
 * list holds everyday words ("dot you", "dot now") that end no address.
 */
const TLDS = new Set([
  ...ianaTlds.filter((t) => /^[a-z]{2}$/.test(t)),
  'com', 'net', 'org', 'edu', 'gov', 'info', 'biz', 'app', 'dev',
  'design', 'studio', 'shop', 'store', 'online', 'site', 'tech', 'xyz', 'email', 'cloud', 'agency', 'law', 'health', 'blog', 'art',
  'media', 'life', 'page', 'club', 'team', 'works', 'group', 'photography', 'photo', 'dental', 'clinic', 'realty', 'homes', 'coffee',
  // places' own: a Scottish health board's "dot scot", a Welsh council's "dot cymru"
  'scot', 'wales', 'cymru', 'london', 'nyc', 'asia', 'africa',
]);
/** Words that cannot be the local part of an address ("send it to me at ..."). */
/** Words that are never part of an address, even before "dash" or "underscore". */
const NOT_LOCAL_ALWAYS = new Set(['at', 'dot', 'the', 'a', 'an', 'to', 'and', 'or', 'is', 'was', 'be', 'of', 'for', 'from', 'with']);
const NOT_LOCAL = new Set(['dot', 'at', 'me', 'us', 'you', 'him', 'her', 'them', 'it', 'is', 'was', 'be', 'the', 'a', 'an', 'to', 'and', 'or', 'back', 'home', 'work', 'that', 'this', 'there', 'here', 'look', 'arrive', 'arrives', 'meet']);
/** Nouns that make a number a quantity worth reporting with its unit. */
const UNIT_WORDS = new RegExp(
  `^(${[...Object.keys(CURRENCIES), 'percent', 'minutes?', 'hours?', 'days?', 'nights?', 'weeks?', 'months?', 'years?', 'business', 'working', 'times', 'people', 'items?', 'units?', 'miles?', 'kilometers?', 'km', 'kilos?', 'kg', 'gigs?', 'gb', 'mbps', 'seconds?'].join('|')})$`,
);
/** Words after which a lone small number is a clock time or quantity, not the pronoun "one". */
const NUMBER_CONTEXT = new Set(['at', 'after', 'before', 'around', 'about', 'by', 'until', 'till', 'from', 'to', 'between', 'number', 'apartment', 'room', 'suite', 'unit', 'page', 'line', 'option', 'extension', 'gate', 'platform']);

/** Words before a clock time ("at ten thirty") and after one ("ten thirty works"). */
const TIME_PREV = new Set(['at', 'by', 'around', 'about', 'from', 'until', 'till', 'before', 'after', 'between', 'say', 'to', 'and', 'or', 'maybe', 'like', 'than', 'past', 'earliest', 'latest']);
const TIME_NEXT = new Set(['am', 'pm', 'a.m.', 'p.m.', 'a.m', 'p.m', "o'clock", 'tomorrow', 'today', 'tonight', 'this', 'on', 'in', 'works', 'work', 'sounds', 'would', 'then', 'is', 'suits', 'sharp']);
/** Nouns before digits that make them an identifier, never a time ("invoice twelve fifteen"). */
const ID_NOUNS = new Set(['number', 'account', 'invoice', 'order', 'reference', 'policy', 'claim', 'case', 'ticket', 'code', 'room', 'apartment', 'suite', 'unit', 'flight', 'extension', 'pin', 'id', 'member', 'routing', 'card', 'confirmation', 'tracking', 'booking', 'permit', 'file', 'badge', 'seat', 'gate', 'platform', 'bus', 'route', 'lot', 'box', 'street', 'avenue']);

interface Tok {
  /** Original characters of the token, including attached punctuation. */
  raw: string;
  /** Lower-case word without surrounding punctuation. */
  w: string;
  /** Punctuation that preceded / followed the word inside the token. */
  pre: string;
  post: string;
}

function tokenize(text: string): Tok[] {
  return (text.match(/\S+/g) ?? []).map((raw) => {
    const m = raw.match(/^([^\p{L}\p{N}]*)(.*?)([^\p{L}\p{N}]*)$/u)!;
    // "a.m." keeps its dots; trailing sentence punctuation after it is still split off below.
    let core = m[2];
    let post = m[3];
    if (/^[ap]\.m$/i.test(core) && post.startsWith('.')) {
      core += '.';
      post = post.slice(1);
    }
    // "p-r-i-y-a": a word spelled out letter by letter is the word
    const w = /^(?:\p{L}-){2,}\p{L}$/u.test(core) ? core.replace(/-/g, '') : core;
    return { raw, w: w.toLowerCase(), pre: m[1], post };
  });
}

const isUnit = (w: string) => w in UNITS && w !== 'o';
const isDigitWord = (w: string) => w in UNITS;
const isNumWord = (w: string) => w in UNITS || w in TEENS || w in TENS || w in SCALES;
const splitHyphen = (w: string) => (/^[a-z]+-[a-z]+$/.test(w) ? w.split('-') : [w]);

/** Cardinal value of number words ("six hundred and twelve" -> 612); null when not a cardinal. */
const MARK_DOWN_VERBS = new Set(['put', 'putting', 'mark', 'marking', 'marked', 'circle', 'circling', 'circled', 'save', 'saving', 'block', 'blocking', 'pencil', 'penciling', 'pencilling', 'note', 'noting', 'write', 'writing', 'jot', 'jotting']);

export function cardinalValue(words: string[]): number | null {
  let total = 0;
  let current = 0;
  let seen = false;
  let last: 'unit' | 'teen' | 'tens' | 'scale' | null = null;
  for (const raw of words) {
    for (const w of splitHyphen(raw)) {
      if (w === 'and') continue;
      if (w === 'a' && !seen) {
        current = 1;
        seen = true;
        last = 'unit';
        continue;
      }
      if (w in UNITS && w !== 'o' && w !== 'oh') {
        if (last === 'unit' || last === 'teen') return null; // "five five" is a digit string, not a cardinal
        current += UNITS[w];
        last = 'unit';
      } else if (w in TEENS) {
        if (last === 'unit' || last === 'teen' || last === 'tens') return null;
        current += TEENS[w];
        last = 'teen';
      } else if (w in TENS) {
        if (last === 'unit' || last === 'teen' || last === 'tens') return null;
        current += TENS[w];
        last = 'tens';
      } else if (w in SCALES) {
        const s = SCALES[w];
        if (s === 100) current = (current || 1) * 100;
        else {
          total += (current || 1) * s;
          current = 0;
        }
        last = 'scale';
      } else return null;
      seen = true;
    }
  }
  return seen ? total + current : null;
}

function ordinalValue(words: string[]): number | null {
  const lastWord = words[words.length - 1];
  const parts = splitHyphen(lastWord);
  const tail = parts[parts.length - 1];
  if (!(tail in ORDINALS)) return null;
  const head = [...words.slice(0, -1), ...parts.slice(0, -1)];
  const base = head.length ? cardinalValue(head) : 0;
  if (base === null) return null;
  return base + ORDINALS[tail];
}

/** Digit string of a digit-by-digit reading ("eight hundred, five five five" -> "800555"). */
function digitString(words: string[]): string | null {
  let out = '';
  let repeat = 1;
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    if (w === 'double') { repeat = 2; continue; }
    if (w === 'triple') { repeat = 3; continue; }
    if (isDigitWord(w)) {
      const next = words[i + 1];
      if (next === 'hundred') {
        out += String(UNITS[w]).repeat(repeat) + '00';
        i++;
      } else if (next === 'thousand') {
        out += String(UNITS[w]).repeat(repeat) + '000';
        i++;
      } else out += String(UNITS[w]).repeat(repeat);
    } else if (w in TEENS) out += String(TEENS[w]).repeat(repeat);
    else if (w in TENS) {
      const next = words[i + 1];
      if (next && isUnit(next) && next !== 'oh' && next !== 'zero') {
        out += String(TENS[w] + UNITS[next]);
        i++;
      } else out += String(TENS[w]);
    } else return null;
    repeat = 1;
  }
  return out;
}

interface Run {
  start: number; // token index
  end: number; // exclusive
  words: string[];
  /** Token indexes (relative) after which a comma or other pause was written. */
  breaks: number[];
}

/** Maximal runs of number words; commas inside a run mark digit groups ("five five five, three ..."). */
function numberRuns(toks: Tok[]): Run[] {
  const runs: Run[] = [];
  let i = 0;
  while (i < toks.length) {
    const w = toks[i].w;
    const starts = isNumWord(w) || w === 'double' || w === 'triple' || splitHyphen(w).every(isNumWord) || (w in ORDINALS) || splitHyphen(w).some((p) => p in ORDINALS);
    if (!starts) {
      i++;
      continue;
    }
    const run: Run = { start: i, end: i, words: [], breaks: [] };
    let j = i;
    while (j < toks.length) {
      const t = toks[j];
      const tw = t.w;
      const parts = splitHyphen(tw);
      const ok =
        parts.every(isNumWord) ||
        tw === 'double' || tw === 'triple' ||
        (tw === 'and' && run.words.length > 0 && run.words[run.words.length - 1] === 'hundred' && j + 1 < toks.length && splitHyphen(toks[j + 1].w).every((p) => isNumWord(p) || p in ORDINALS)) ||
        (parts.some((p) => p in ORDINALS) && parts.slice(0, -1).every(isNumWord) && parts[parts.length - 1] in ORDINALS);
      if (!ok) break;
      if (j > i && toks[j].pre) break;
      run.words.push(tw);
      run.end = j + 1;
      if (parts[parts.length - 1] in ORDINALS) break; // an ordinal ends a run
      if (t.post) {
        // a comma inside a digit run is a pause between groups; anything else ends the run
        if (t.post === ',' && j + 1 < toks.length && (isDigitWord(toks[j + 1].w) || toks[j + 1].w in TENS || toks[j + 1].w in TEENS || toks[j + 1].w === 'double' || toks[j + 1].w === 'triple')) {
          run.breaks.push(run.words.length);
        } else break;
      }
      j++;
    }
    if (run.words.length === 0) {
      i++;
      continue;
    }
    runs.push(run);
    i = run.end;
  }
  return runs;
}

function isTimeMinutes(words: string[]): number | null {
  if (words.length === 1) {
    if (words[0] in TEENS && TEENS[words[0]] >= 10) return TEENS[words[0]];
    if (words[0] in TENS && TENS[words[0]] <= 50) return TENS[words[0]];
    if (/^[a-z]+-[a-z]+$/.test(words[0])) return isTimeMinutes(words[0].split('-'));
    return null;
  }
  if (words.length === 2) {
    if ((words[0] === 'oh' || words[0] === 'o') && isUnit(words[1]) && words[1] !== 'oh') return UNITS[words[1]];
    if (words[0] in TENS && TENS[words[0]] <= 50 && isUnit(words[1]) && UNITS[words[1]] > 0) return TENS[words[0]] + UNITS[words[1]];
  }
  return null;
}

function hourValue(w: string): number | null {
  if (isUnit(w) && UNITS[w] >= 1) return UNITS[w];
  if (w in TEENS && TEENS[w] <= 12) return TEENS[w];
  return null;
}

interface Replacement {
  start: number;
  end: number;
  text: string;
  entity?: SpokenEntity;
}

function spokenOf(toks: Tok[], start: number, end: number): string {
  const raw = toks.slice(start, end).map((t) => t.raw).join(' ');
  return raw.replace(/^[^\p{L}\p{N}]+/u, '').replace(/[^\p{L}\p{N}.]+$/u, '').replace(/\.$/, (m) => (/\b[ap]\.m\.$/i.test(raw) ? m : ''));
}

/** Interprets one run of number words; returns the written text and any entity. */
function interpretRun(toks: Tok[], whole: Run): Replacement | null {
  let run = whole;
  const { words } = run;
  // Context words are only read inside the same sentence.
  const prevTok = run.start > 0 ? toks[run.start - 1] : null;
  const prev = prevTok && !/[.?!;]/.test(prevTok.post) ? prevTok.w : '';
  const prev2Tok = run.start > 1 ? toks[run.start - 2] : null;
  const prev2 = prev && prev2Tok && !prevTok!.post && !/[.?!;]/.test(prev2Tok.post) ? prev2Tok.w : '';
  const next = run.end < toks.length ? toks[run.end].w : '';
  const next2 = run.end + 1 < toks.length ? toks[run.end + 1].w : '';
  const spoken = spokenOf(toks, run.start, run.end);

  // Ordinals become digits only where they are a day of the month, so "the first opening" and
  // "the third time" stay words.
  const lastParts = splitHyphen(words[words.length - 1]);
  if (lastParts[lastParts.length - 1] in ORDINALS) {
    const v = ordinalValue(words);
    if (v === null || v < 1 || v > 31) return null;
    // "the first phase" is not a date; "on the 24th", "Tuesday the 18th at 10" are.
    const endsPhrase = run.end >= toks.length || toks[run.end - 1].post !== '' || /^(of|at|in|and|or|is|works|would|will|then|next|please|because|so|around|from|to)$/.test(next);
    const dateContext =
      MONTHS.includes(prev) ||
      // "on April the ninth": the month, "the", then the day
      (prev === 'the' && MONTHS.includes(prev2)) ||
      // "Wednesday the eleventh between one and five": after a weekday it is a date whatever follows
      (prev === 'the' && WEEKDAYS.includes(prev2)) ||
      // ("a note on the fridge for the sixteenth": the day a note is for)
      (prev === 'the' && endsPhrase && ['on', 'by', 'until', 'till', 'before', 'after', 'from', 'for'].includes(prev2)) ||
      // "I'm putting the twentieth in my calendar", "circle the ninth": a day marked down is a date
      (prev === 'the' && MARK_DOWN_VERBS.has(prev2) && (['in', 'on', 'into', 'down'].includes(next) || endsPhrase)) ||
      // "can we meet the twenty first at noon", "yes, the twenty first at half two works": a day
      // booked without its "on" (it was read as no date, and the clock time went to the call's day)
      (prev === 'the' && endsPhrase && (MEETING_VERBS.has(prev2) || next === 'works' || (next === 'at' && (isNumWord(next2) || /^(noon|midday|half|quarter|\d)/.test(next2))))) ||
      (next === 'of' && MONTHS.includes(next2));
    if (!dateContext) return null;
    const suffix = v % 10 === 1 && v !== 11 ? 'st' : v % 10 === 2 && v !== 12 ? 'nd' : v % 10 === 3 && v !== 13 ? 'rd' : 'th';
    return { start: run.start, end: run.end, text: `${v}${suffix}` };
  }

  // "ten thirty", "eleven fifteen", "twelve oh five": an hour followed by minutes, only where the
  // words around say a time ("at ten thirty", "Thursday ten thirty", "ten thirty works", or said
  // on its own); "invoice twelve fifteen" or "the balance is ten fifty" is not a time of day.
  // (at the start of a sentence only when the clock time is all its clause says: "Ten thirty?",
  // "Ten thirty, see you then"; "Two fifty by the fourteenth" says back an amount)
  const saidAlone = prev === '' && (run.end >= toks.length || /[,.?!;:]/.test(toks[run.end - 1].post));
  const timeCue =
    // ("ten fifteen tomorrow's fine": the word after, with its "'s", says a time as "tomorrow is" does)
    !ID_NOUNS.has(prev) && (saidAlone || TIME_PREV.has(prev) || WEEKDAYS.includes(prev) || /^(today|tomorrow|tonight|morning|afternoon|evening|noon)$/.test(prev) || TIME_NEXT.has(next) || (/^(?:today|tomorrow|tonight)'s$/.test(next)));
  if (timeCue && run.breaks.length === 0 && words.length >= 2 && words.length <= 3) {
    const h = hourValue(words[0]);
    const m = isTimeMinutes(words.slice(1));
    if (h !== null && m !== null && !(next in CURRENCIES) && !['percent', 'people', 'years', 'dollars'].includes(next)) {
      return { start: run.start, end: run.end, text: `${h}:${String(m).padStart(2, '0')}` };
    }
    // "at fourteen thirty", "Thursday seventeen fifteen": a 24-hour clock time, only after a word
    // that leads to a time (a price or a count reads the same: "it's fourteen fifty")
    const h24 = words[0] in TEENS && TEENS[words[0]] >= 13 ? TEENS[words[0]] : null;
    if (h24 !== null && m !== null && (TIME_PREV.has(prev) || WEEKDAYS.includes(prev)) && !['to', 'and', 'or', 'than', 'like', 'between'].includes(prev) && !(next in CURRENCIES) && !UNIT_WORDS.test(next)) {
      return { start: run.start, end: run.end, text: `${h24}:${String(m).padStart(2, '0')}` };
    }
  }

  // "Thursday at fourteen hundred", "at twelve hundred hours": a 24-hour clock time in hundreds, after
  // a word that leads to a time (not "about fifteen hundred", a count)
  if (run.breaks.length === 0 && words.length >= 2 && words.length <= 3 && words[words.length - 1] === 'hundred') {
    const hh = cardinalValue(words.slice(0, -1));
    const leads = ['at', 'by', 'from', 'until', 'till', 'before', 'after'].includes(prev) || WEEKDAYS.includes(prev);
    if (hh !== null && hh >= 0 && hh <= 23 && (hh >= 10 || words[0] === 'oh' || words[0] === 'zero') && leads && !(next in CURRENCIES) && (next === 'hours' || !UNIT_WORDS.test(next)) && !['and', 'people', 'of'].includes(next)) {
      return { start: run.start, end: run.end, text: `${hh}:00` };
    }
  }

  // A digit-by-digit reading: phone numbers, invoice numbers, codes.
  const singles = words.filter((w) => isDigitWord(w)).length;
  const card = cardinalValue(words);
  if (card === null || (run.breaks.length > 0 && singles >= 2)) {
    let digits = digitString(words);
    // a misheard last word ("... one nine million") does not spoil the dictated digits before it
    if (digits === null && singles >= 7) {
      let k = words.length;
      while (k > 0 && digitString(words.slice(0, k)) === null) k--;
      const prefix = k > 0 ? digitString(words.slice(0, k)) : null;
      if (prefix && prefix.length >= 7) {
        digits = prefix;
        run = { ...run, end: run.start + k, words: words.slice(0, k), breaks: run.breaks.filter((b) => b < k) };
      }
    }
    if (digits === null || digits.length < 2) return null;
    const international = prev === 'plus';
    const account = international ? null : accountNounBefore(toks, run.start);
    if (digits.length >= 7 && !account) {
      const groups: string[] = [];
      let from = 0;
      for (const b of [...run.breaks, run.words.length]) {
        const g = digitString(run.words.slice(from, b));
        if (g) groups.push(g);
        from = b;
      }
      const text = (international ? '+' : '') + groups.join('-');
      const start = international ? run.start - 1 : run.start;
      return {
        start,
        end: run.end,
        text,
        entity: { kind: 'phone', digits, international, spoken: spokenOf(toks, start, run.end) },
      };
    }
    const label = account ?? (/^[a-z]+$/.test(prev) && !['is', 'it', 'the', 'a', 'at', 'and', 'on', 'to', 'its'].includes(prev) ? prev : null);
    return { start: run.start, end: run.end, text: digits, entity: { kind: 'identifier', digits, label, spoken } };
  }

  // A cardinal. A lone "one" is usually the pronoun ("the old one"), so it stays a word unless a
  // unit or a preposition of time shows it is a number.
  if (words.length === 1 && words[0] === 'one' && !(next in CURRENCIES) && !NUMBER_CONTEXT.has(prev) && !/^(minute|hour|day|week|month|year|o'clock)s?$/.test(next)) return null;
  if (words.length === 1 && (words[0] === 'oh' || words[0] === 'o')) return null;
  if (words.length === 1 && words[0] in SCALES) return null;
  const unitWord = toks[run.end - 1].post === '' && UNIT_WORDS.test(next) ? next : null;
  const currency = unitWord && unitWord in CURRENCIES ? CURRENCIES[unitWord] : null;
  const value = currency && /^cents?$/.test(unitWord!) ? card / 100 : card;
  return {
    start: run.start,
    end: run.end,
    text: String(card),
    entity: { kind: 'number', value, unit: unitWord, currency, spoken: unitWord ? `${spoken} ${toks[run.end].raw.replace(/[^\p{L}]+$/u, '')}` : spoken },
  };
}

// Digits read out after "account number is", "my reference number", "the policy number's" are that
// identifier, not a phone number however many there are (an eight-digit account number was a
// phone to call back). A word of phoning in between ("the claims line number is") keeps a phone.
const ACCOUNT_NOUNS = new Set(['account', 'invoice', 'order', 'reference', 'policy', 'claim', 'case', 'ticket', 'confirmation', 'tracking', 'booking', 'membership', 'member', 'routing', 'card', 'serial', 'customer', 'sort', 'pin', 'id', 'passport', 'licence', 'license', 'registration', 'payroll', 'employee', 'student', 'patient', 'nhs', 'tax', 'vat']);
const PHONING = new Set(['phone', 'mobile', 'cell', 'line', 'landline', 'telephone', 'fax', 'whatsapp', 'reach', 'call', 'ring', 'text', 'dial', 'contact', 'direct', 'office', 'home', 'work']);
// (letters spelled before the digits are the identifier's own prefix, "claim number is C L three
// eight six ...", and do not count towards the four words looked back)
function accountNounBefore(toks: Tok[], start: number): string | null {
  let letters = 0;
  for (let k = start - 1; k >= 0 && k >= start - 4 - letters; k--) {
    if (/[.?!;]/.test(toks[k].post)) return null;
    const w = toks[k].w;
    if (letters < 4 && /^[a-z]$/.test(w) && isLetter(toks[k])) {
      letters++;
      continue;
    }
    if (PHONING.has(w)) return null;
    if (ACCOUNT_NOUNS.has(w)) return w;
  }
  return null;
}

// Words a recogniser writes for a digit it heard: "for" for four, "to"/"too" for two, "won" for
// one, "ate" for eight. They are read as digits only inside dictation, never in running speech:
// - between two digits of a run of at least five digit words ("five five five two oh for eight");
// - at the start of a run of at least six digits when a word that introduces a number comes just
//   before ("my number is for one five ...");
// - at the end of a run of at least six digits when the sentence or phrase ends there
//   ("... six seven for.");
// - before "hundred"/"thousand", where neither "for" nor "to" is English ("for hundred dollars").
// "or" for "oh" is read only inside dictation, with at least two digits on each side ("five five
// five six or seven one two"), never "five or six".
const HOMOPHONE_DIGITS: Record<string, string> = { for: 'four', fore: 'four', to: 'two', too: 'two', won: 'one', ate: 'eight', or: 'oh' };
const INTERIOR_ONLY = new Set(['or']);
const DICTATION_CUE = new Set(['is', 'on', 'at', 'number', 'cell', 'mobile', 'phone', 'line', 'extension', 'ext', 'code', 'direct', 'dial', 'reach', 'was', 'number\'s', 'it\'s', 'its']);

function readHomophoneDigits(toks: Tok[]): Tok[] {
  const homophone = (t: Tok | undefined) => !!t && t.w in HOMOPHONE_DIGITS;
  const digitish = (t: Tok | undefined) => !!t && (isDigitWord(t.w) || homophone(t));
  const endsSentence = (t: Tok) => /[.?!;]/.test(t.post);
  const out = toks.map((t) => ({ ...t }));
  for (let k = 0; k < out.length - 1; k++) {
    if (homophone(out[k]) && !INTERIOR_ONLY.has(out[k].w) && (out[k + 1].w === 'hundred' || out[k + 1].w === 'thousand') && !out[k].post && !isDigitWord(out[k - 1]?.w ?? '')) out[k].w = HOMOPHONE_DIGITS[out[k].w];
  }
  let i = 0;
  while (i < out.length) {
    if (!digitish(out[i])) {
      i++;
      continue;
    }
    let j = i;
    while (j + 1 < out.length && digitish(out[j + 1]) && !endsSentence(out[j])) j++;
    // the run i..j of digit words and homophones; its first and last real digits
    let a = i;
    while (a <= j && homophone(out[a]) && !INTERIOR_ONLY.has(out[a].w)) a++;
    let b = j;
    while (b >= a && homophone(out[b]) && !INTERIOR_ONLY.has(out[b].w)) b--;
    const real = out.slice(i, j + 1).filter((t) => isDigitWord(t.w)).length;
    if (a <= b && real >= 4 && j - i + 1 >= 5) {
      const realDigits = (from: number, to: number) => out.slice(from, to + 1).filter((t) => isDigitWord(t.w)).length;
      for (let k = a + 1; k < b; k++) {
        if (!homophone(out[k])) continue;
        if (INTERIOR_ONLY.has(out[k].w) && (realDigits(i, k - 1) < 2 || realDigits(k + 1, j) < 2)) continue;
        out[k].w = HOMOPHONE_DIGITS[out[k].w];
      }
      const prev = out[i - 1];
      if (a > i && real >= 6 && a - i <= 2 && prev && !endsSentence(prev) && DICTATION_CUE.has(prev.w)) {
        for (let k = i; k < a; k++) out[k].w = HOMOPHONE_DIGITS[out[k].w];
      }
      const after = out[j + 1];
      if (b < j && real >= 6 && j - b <= 2 && (!after || out[j].post !== '')) {
        for (let k = b + 1; k <= j; k++) out[k].w = HOMOPHONE_DIGITS[out[k].w];
      }
    }
    i = j + 1;
  }
  return out;
}

const LOCAL_SEPARATORS: Record<string, string> = { dot: '.', underscore: '_', dash: '-', hyphen: '-' };
/** "eighty-four": a tens word and a unit written with a hyphen. */
const numberWithHyphen = (w: string) => /^[a-z]+-[a-z]+$/.test(w) && w.split('-')[0] in TENS && isUnit(w.split('-')[1]);
// Words that lead in to a dictated address and are never part of it ("email sarah at ...",
// "yeah, um, tom ward at ..."): verbs of sending and fillers.
const ADDRESS_LEAD = new Set([
  'email', 'emails', 'emailed', 'mail', 'send', 'sent', 'write', 'contact', 'reply', 'cc', 'copy', 'forward', 'address', 'try', 'use', 'reach', 'message', 'ping', 'via', 'using', 'on',
  'um', 'uh', 'er', 'erm', 'so', 'yeah', 'yes', 'yep', 'okay', 'ok', 'sure', 'just', 'please', 'well', 'oh', 'right', 'actually', 'sorry', 'also', 'now', 'then', 'like', 'its',
  'mean', 'meant', 'wait', 'no', 'rather', 'correction', 'hi', 'hello', 'thanks', 'cheers',
]);

/**
 * The local part of a dictated address, read backwards from its "at" (index k): segments joined by
 * "dot"/"underscore"/"dash", each made of spelled letters or initials, a word, and digits said as
 * numbers ("h jenkins fifty four", "emma dot novak seven oh", "a w whitaker"). Remarks about the
 * spelling are skipped. More than one plain word makes one segment only where the speaker said so
 * ("fraser family, all one word"), where the words are names of people in the call ("tom baker"),
 * or where they read back an address dictated earlier in the call.
 */
function localPartBefore(
  toks: Tok[],
  k: number,
  asides: boolean[],
  names: ReadonlySet<string>,
  dictated: ReadonlySet<string>,
  domain: string,
  spokenNames: ReadonlySet<string>,
  remarkAfter = false,
): { start: number; local: string } | null {
  // the tokens that can belong to the address, nearest first
  const seq: number[] = [];
  let right = k;
  // ("it's a dot desai, at brookside ...": a comma said just before the "at" of a local part whose
  // own separators say where it starts; kept only when the local part has one, below)
  let commaBeforeAt = false;
  for (let i = k - 1; i >= 0 && seq.length < 12; i--) {
    if (asides[i]) continue;
    const t = toks[i];
    // punctuation right after a word ends the address, unless a remark about it came in between
    if (t.post === ',' && i === k - 1 && !toks[k].pre) commaBeforeAt = true;
    // ("j as in juliet, e s s, dot park": letters spelled in a group set off by commas)
    else if (t.post === ',' && isLetter(t) && right === i + 1 && right < k && (toks[right].w in LOCAL_SEPARATORS || isLetter(toks[right]))) {
      /* the spelling goes on */
    } else if (t.post && right === i + 1) break;
    // ("clarke eighty-four": a number written with its hyphen)
    if (!/^[a-z0-9]+$/.test(t.w) && !numberWithHyphen(t.w)) break;
    seq.push(i);
    // a word opening a quote or bracket is as far back as the address can go
    if (t.pre) break;
    right = i;
  }
  if (!seq.length) return null;
  // "all one word", "no spaces", "all together": the words said are one part
  const oneWord = remarkAfter || asides.some((x, i) => x && /^(?:one|spaces?|together)$/.test(toks[i].w) && WRITING_REMARKS.some((r) => r.includes(toks[i].w)));
  const segs: string[] = [];
  let start = -1;
  let p = 0;
  while (p < seq.length) {
    const i0 = seq[p];
    const w0 = toks[i0].w;
    if (segs.length && w0 in LOCAL_SEPARATORS) {
      // a separator needs a segment before it
      if (p + 1 >= seq.length) break;
      segs.unshift(LOCAL_SEPARATORS[w0]);
      p++;
      const seg = readSegment(p, w0 === 'dot');
      if (!seg) {
        segs.shift();
        break;
      }
      segs.unshift(seg.text);
      start = seq[seg.next - 1];
      p = seg.next;
      continue;
    }
    if (segs.length) break;
    const seg = readSegment(p, true, true);
    if (!seg) return null;
    segs.unshift(seg.text);
    start = seq[seg.next - 1];
    p = seg.next;
  }
  if (!segs.length || start < 0) return null;
  if (commaBeforeAt && segs.length < 3) return null;
  return { start, local: segs.join('') };

  /** One segment read backwards from seq[from]: digits, then a word, then letters; more words when licensed. */
  function readSegment(from: number, strict: boolean, first = false): { text: string; next: number } | null {
    const w = (n: number) => toks[seq[n]].w;
    const numWord = (n: number) => isNumWord(w(n)) || numberWithHyphen(w(n));
    const plainWord = (n: number) => n < seq.length && !isLetter(toks[seq[n]]) && !(w(n) in LOCAL_SEPARATORS) && !numWord(n) && !NOT_LOCAL_ALWAYS.has(w(n));
    let q = from;
    let digits = '';
    while (q < seq.length && numWord(q) && !(w(q) in SCALES) && q - from < 4) q++;
    // an "o" said alone is the letter ("k dot o dot brien", "bill o"), not a zero: a dictated
    // zero comes with other digits ("agent o seven")
    // ("k dot oh dot brien": an "oh" that is a whole part of the address between separators too)
    const lonePart = from + 1 >= seq.length || w(from + 1) in LOCAL_SEPARATORS;
    if (q === from + 1 && ((w(from) === 'o' && isLetter(toks[seq[from]])) || (w(from) === 'oh' && lonePart))) digits = 'o';
    else if (q > from) {
      const ds = digitString(seq.slice(from, q).map((n) => toks[n].w).reverse().flatMap(splitHyphen));
      if (ds === null) q = from;
      else digits = ds;
    }
    let word = '';
    let joinedBy: 'licence' | null = null;
    // ("l kim underscore home at ...": a word that is never an address alone is its part after a
    // separator said before it)
    const afterSeparator = q + 1 < seq.length && w(q + 1) in LOCAL_SEPARATORS && q + 2 < seq.length;
    if (plainWord(q) && !(strict && NOT_LOCAL.has(w(q)) && !afterSeparator)) {
      // (a word that sounds like a name of the call and is said where an address's name goes: the name)
      word = nameHeardAs(w(q), spokenNames) ?? w(q);
      q++;
      // a second (or third) plain word joins the segment only where licensed
      for (const n of [2, 1]) {
        const extra = seq.slice(q, q + n).map((x) => toks[x].w);
        if (extra.length < n || extra.some((x, j) => !plainWord(q + j) || NOT_LOCAL.has(x))) continue;
        const joined = [...extra].reverse().join('') + word;
        const allNames = n === 1 && names.has(word) && names.has(extra[0]);
        // (the domain may have been misheard in one of the two: "elm street rentals at camille dot com")
        const readBack = [...dictated].some((a) => a.split('@')[0].split(/[._-]/).includes(joined + digits) && (a.endsWith(`@${domain}`) || joined.length >= 8));
        // ("it's elm street rentals at gmail dot com, all one word": three words, where nothing that
        // could be part of the address comes before them; "contact frank lee at ..." keeps two)
        const opens = q + n >= seq.length || NOT_LOCAL.has(w(q + n));
        // ("ruth dot adeyemi tutoring at ...": two words after a separator have one spelling, run together)
        const afterSep = n === 1 && q + 2 < seq.length && w(q + 1) in LOCAL_SEPARATORS && !(w(q + 1) === 'dot' && NOT_LOCAL.has(w(q + 2)));
        if ((oneWord && (n === 1 || opens)) || allNames || readBack || afterSep) {
          word = joined;
          q += n;
          joinedBy = 'licence';
          break;
        }
      }
      // Otherwise another plain word before the one next to "at" ("it is tom ward at yahoo dot
      // com") leaves where the address starts unsaid: ward@ would mail a stranger, tomward@ and
      // tom.ward@ are guesses. No address, unless a verb of sending or a filler comes between
      // ("email sarah at ...", "um, tom at ..."). Only for the part next to "at": after a separator
      // the address's own shape says where it starts ("the form, derek dot lane at ...").
      if (first && !joinedBy && plainWord(q) && !ADDRESS_LEAD.has(w(q)) && !NOT_LOCAL.has(w(q))) return null;
    }
    // spelled letters or initials before the word ("d reyes", "a w whitaker", "c l a i m s")
    let letters = '';
    let r = q;
    while (r < seq.length && isLetter(toks[seq[r]])) {
      letters = w(r) + letters;
      r++;
      // "o double d": the letter said after "double" twice
      if (r < seq.length && (w(r) === 'double' || w(r) === 'triple')) {
        letters = w(r - 1).repeat(w(r) === 'double' ? 1 : 2) + letters;
        r++;
      }
    }
    // a lone "a" or "i" before a word is the article or the pronoun
    if (letters && !(letters.length === 1 && /^[ai]$/.test(letters) && (word || digits))) q = r;
    else letters = '';
    // "treasurer dot hollins c c at ...": letters said after a word, the two one part where a
    // separator before the word says the part starts there; "it's hannah k seventy two at ...":
    // a name, an initial and digits, where nothing before the name can be part of the address
    const sepBefore = q + 1 < seq.length && w(q + 1) in LOCAL_SEPARATORS;
    const opensAddress = first && digits !== '' && (q + 1 >= seq.length || ADDRESS_LEAD.has(w(q + 1)) || NOT_LOCAL.has(w(q + 1)));
    if (letters && !word && plainWord(q) && !NOT_LOCAL.has(w(q)) && ((letters.length >= 2 && sepBefore) || opensAddress)) {
      letters = w(q) + letters;
      q++;
    }
    const text = letters + word + digits;
    if (!text) return null;
    return { text, next: q };
  }
}

/** E-mail addresses spoken as "<local> at <domain> dot <tld>". */
function emailReplacements(toks: Tok[], taken: Set<number>, names: ReadonlySet<string>, dictated: ReadonlySet<string>, spokenNames: ReadonlySet<string>, oneWordAfter = false): Replacement[] {
  const out: Replacement[] = [];
  const asides = dictationAsides(toks);
  for (let k = 1; k < toks.length - 2; k++) {
    if (toks[k].w !== 'at' || taken.has(k)) continue;
    // domain: label words, "dot", label words, ..., ending on a known top-level domain
    const labels: string[][] = [[]];
    let j = k + 1;
    let end = -1;
    while (j < toks.length && j <= k + 12) {
      const t = toks[j];
      if (t.w === 'dot') {
        if (labels[labels.length - 1].length === 0) break;
        labels.push([]);
        j++;
        continue;
      }
      // a second "at" means the domain starts after it ("dot at a cage at yahoo dot com")
      if (!/^[a-z0-9-]+$/.test(t.w) || t.w === 'at') break;
      const cur = labels[labels.length - 1];
      // "at kestrel arch dot khan", "at harbour design dot easy": the top-level domain as a
      // recogniser writes it, right after a "dot" and ending the address
      if (labels.length >= 2 && cur.length === 0 && t.w in HEARD_TLD_AFTER_DOT && labels[labels.length - 2].length && (j + 1 >= toks.length || toks[j + 1].w !== 'dot')) {
        cur.push(HEARD_TLD_AFTER_DOT[t.w]);
        end = j + 1;
        break;
      }
      // "northfield dash group": a hyphen inside a label; "oak hollow h o a": letters spelled out
      if ((t.w === 'dash' || t.w === 'hyphen') && cur.length && j + 1 < toks.length && /^[a-z0-9]+$/.test(toks[j + 1].w)) {
        cur.push('-');
        j++;
        continue;
      }
      if (cur.filter((x) => x !== '-' && x.length > 1).length >= 3 || cur.length >= 8) break;
      cur.push(t.w);
      const last = j + 1 >= toks.length || toks[j + 1].w !== 'dot';
      if (labels.length >= 2 && cur.length === 1 && TLDS.has(t.w) && last) {
        end = j + 1;
        break;
      }
      // a top-level domain spelled as a recogniser writes letters ("dot u k")
      if (labels.length >= 2 && cur.length === 2 && cur.every((x) => x.length === 1) && TLDS.has(cur.join('')) && last && (j + 1 >= toks.length || toks[j + 1].w.length > 1)) {
        end = j + 1;
        break;
      }
      if (t.post && t.post !== '') break;
      j++;
    }
    if (end < 0 || labels.length < 2 || labels.slice(0, -1).some((l) => l.length === 0)) continue;
    // "fast male", "proton male": the "mail" of a webmail name as a recogniser hears it (only the
    // webmail names heard.ts knows, so that grounding reads it back the same way)
    const label = (l: string[]) => {
      const plain = l.map((x) => (x === '-' ? x : numberWordToDigit(x))).join('');
      const mailed = plain.replace(/male$/, 'mail');
      return l.length > 1 && mailed !== plain && WEBMAIL.has(mailed) ? mailed : plain;
    };
    const domain = labels.map(label).map((l, n, all) => ukSecondLevel(l, all[n + 1])).join('.');
    // (a remark said as the next sentence is about the last address of this one)
    const lastAt = !toks.slice(end).some((t) => t.w === 'at');
    const found = localPartBefore(toks, k, asides, names, dictated, domain, spokenNames, oneWordAfter && lastAt);
    if (!found) continue;
    const s = found.start;
    const address = `${found.local}@${domain}`;
    if (!/^[a-z0-9._-]+@[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(address)) continue;
    out.push({ start: s, end, text: address, entity: { kind: 'email', address, spoken: spokenOf(toks, s, end) } });
    for (let x = s; x < end; x++) taken.add(x);
  }
  return out;
}

/**
 * An address as an offline recogniser writes it ("linda got green and nail dot com"): rebuilt only
 * when the local part is made of the call's own names (the per-call dictionary: user, contact,
 * speakers), the domain is a webmail domain as heard (heard.ts) and a heard "dot com" ends it.
 */
const HEARD_DOMAIN_LONGEST_FIRST = [...HEARD_DOMAIN].sort((a, b) => b[0].length - a[0].length);

function heardEmailReplacements(toks: Tok[], taken: Set<number>, names: ReadonlySet<string>, spokenNames: ReadonlySet<string>): Replacement[] {
  const out: Replacement[] = [];
  if (!names.size) return out;
  for (let k = 4; k < toks.length; k++) {
    if (!(toks[k].w in HEARD_TLD) || !HEARD_DOT.has(toks[k - 1].w) || taken.has(k)) continue;
    // the domain, one or two words, ending just before the "dot"
    let domain: string | null = null;
    let d = -1;
    for (const [words, label] of HEARD_DOMAIN_LONGEST_FIRST) {
      const from = k - 1 - words.length;
      if (from >= 0 && words.every((w, j) => toks[from + j].w === w)) {
        domain = label;
        d = from;
        break;
      }
    }
    if (!domain || d < 2 || !HEARD_AT.has(toks[d - 1].w)) continue;
    // the local part: names of the call, joined by a heard "dot" or run together
    let s = d - 1;
    const parts: string[] = [];
    while (s - 1 >= 0 && parts.length < 3) {
      const w = toks[s - 1].w;
      const name = names.has(w) ? w : nameHeardAs(w, spokenNames);
      if (name && !toks[s - 1].post) {
        parts.unshift(name);
        s--;
        continue;
      }
      if (parts.length && HEARD_DOT.has(w) && s - 2 >= 0 && names.has(toks[s - 2].w)) {
        parts.unshift('.');
        s--;
        continue;
      }
      break;
    }
    if (!parts.length || parts[0] === '.') continue;
    // another plain word said right before the names ("make that sam grant at ..." with Grant a name
    // of the call): where the address starts is not said (localPartBefore)
    const before = toks[s - 1];
    if (before && !before.post && /^[a-z]+$/.test(before.w) && !ADDRESS_LEAD.has(before.w) && !NOT_LOCAL.has(before.w) && !NOT_LOCAL_ALWAYS.has(before.w)) continue;
    if ([...Array(k + 1 - s).keys()].some((x) => taken.has(s + x))) continue;
    const address = `${parts.join('')}@${domain}.${HEARD_TLD[toks[k].w]}`;
    if (!/^[a-z0-9._-]+@[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(address)) continue;
    out.push({ start: s, end: k + 1, text: address, entity: { kind: 'email', address, spoken: spokenOf(toks, s, k + 1) } });
    for (let x = s; x <= k; x++) taken.add(x);
  }
  return out;
}

function numberWordToDigit(w: string): string {
  return w in UNITS && w !== 'o' ? String(UNITS[w]) : w;
}

// "... double seven six eight, no sorry, two three six five": the speaker takes back the last
// group(s) of a phone number and says them again. The digits said again replace as many of the
// number's last groups as they have digits (the number read was the taken-back one); the grounding
// check reads the same correction on its own (grounding.ts).
// Words around the cue (dates.ts's TAKING_BACK) that say nothing more: "no sorry, the last bit is ...".
const TAKING_BACK_FILLER = new Set(['i', 'it', 'is', "it's", 'its', 'that', 'make', 'the', 'last', 'end', 'ends', 'in', 'with', 'bit', 'part', 'should', 'be', 'oh']);
/** Words between two numbers that only take the first back: at least one cue, the rest filler. */
function onlyTakingBack(words: readonly string[]): boolean {
  const text = words.join(' ');
  if (!TAKING_BACK.test(text)) return false;
  return text.replace(new RegExp(TAKING_BACK.source, 'gi'), ' ').split(/\s+/).every((w) => !w || TAKING_BACK_FILLER.has(w));
}
function correctPhoneTails(toks: Tok[], reps: Replacement[]): void {
  for (let k = 0; k + 1 < reps.length; k++) {
    const r = reps[k];
    const r2 = reps[k + 1];
    if (r.entity?.kind !== 'phone' || !(r2.entity?.kind === 'identifier' || r2.entity?.kind === 'phone')) continue;
    const between = toks.slice(r.end, r2.start);
    if (!onlyTakingBack(between.map((t) => t.w))) continue;
    if (/[.?!;]/.test(toks[r.end - 1].post) || between.slice(0, -1).some((t) => /[.?!]/.test(t.post))) continue;
    const said = r2.entity.digits;
    let groups = r.text.replace(/^\+/, '').split('-');
    // read without pauses (a recogniser's words), the number is one group: the digits said again
    // replace as many last digits
    if (groups.length === 1 && groups[0].length >= said.length + 3) groups = [groups[0].slice(0, -said.length), groups[0].slice(-said.length)];
    let tail = 0;
    let n = 0;
    while (n < groups.length - 1 && tail < said.length) tail += groups[groups.length - 1 - n++].length;
    if (tail !== said.length || n === 0) continue;
    const kept = groups.slice(0, groups.length - n);
    const digits = kept.join('') + said;
    r.text = (r.text.startsWith('+') ? '+' : '') + [...kept, said].join('-');
    r.entity = { ...r.entity, digits, spoken: spokenOf(toks, r.start, r2.end) };
    r.end = r2.end;
    reps.splice(k + 1, 1);
  }
}

// "fifty five pounds twenty five", "twelve dollars fifty": the number after the currency word is
// its pence or cents (the amount was read as the whole pounds alone). Only 1 to 99, nothing
// counted after it ("ten pounds five people"), and the sentence or phrase going on or ending there.
const MAJOR_UNITS = new Set(['pounds', 'pound', 'dollars', 'dollar', 'euros', 'euro', 'quid', 'bucks']);
function addMinorUnits(toks: Tok[], reps: Replacement[]): void {
  for (let k = 0; k + 1 < reps.length; k++) {
    const [r, r2] = [reps[k], reps[k + 1]];
    if (r.entity?.kind !== 'number' || !r.entity.currency || r2.entity?.kind !== 'number' || r2.entity.unit) continue;
    const unit = toks[r.end];
    if (!unit || !MAJOR_UNITS.has(unit.w) || r2.start !== r.end + 1 || unit.post || toks[r.end - 1].post) continue;
    const cents = r2.entity.value;
    if (!Number.isInteger(cents) || cents < 1 || cents > 99 || !Number.isInteger(r.entity.value)) continue;
    const next = toks[r2.end];
    if (next && !toks[r2.end - 1].post && !/^(and|or|but|so|please|then|total|in|for|a|each|per|plus|including|inc|with|to|if|is|that|which|because)$/.test(next.w)) continue;
    const value = r.entity.value + cents / 100;
    r.text = `${value.toFixed(2)} ${unit.w}`;
    r.entity = { ...r.entity, value, spoken: spokenOf(toks, r.start, r2.end) };
    r.end = r2.end;
    reps.splice(k + 1, 1);
  }
}

const WRITTEN_EMAIL = /\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b/g;
// ("(555) 123-4567": the area code in brackets, as American numbers are written)
const WRITTEN_PHONE = /(?:\+\d[\d\s().-]{6,}\d|\(\d{3}\)\s?\d{3}[\s.-]\d{4}\b|\b\d{3}[\s.-]\d{3}[\s.-]\d{4}\b|\b\d{3}[\s.-]\d{4}\b)/g;

/**
 * Rewrites one sentence from spoken to written form and lists the entities in it. Text that is
 * already written (digits, `x@y.com`) passes through and is reported too.
 */
export function normalizeSpoken(
  text: string,
  names: ReadonlySet<string> = new Set(),
  dictated: ReadonlySet<string> = new Set(),
  spokenNames: ReadonlySet<string> = new Set(),
  /** The next sentence is only a remark on how the address is written ("All one word."). */
  oneWordAfter = false,
): Normalized {
  const toks = readHomophoneDigits(tokenize(text));
  const taken = new Set<number>();
  const reps: Replacement[] = [...emailReplacements(toks, taken, names, dictated, spokenNames, oneWordAfter), ...heardEmailReplacements(toks, taken, names, spokenNames)];
  for (const run of numberRuns(toks)) {
    if (run.start < toks.length && [...Array(run.end - run.start).keys()].some((i) => taken.has(run.start + i))) continue;
    const r = interpretRun(toks, run);
    if (r) reps.push(r);
  }
  reps.sort((a, b) => a.start - b.start);
  correctPhoneTails(toks, reps);
  addMinorUnits(toks, reps);
  const entities: SpokenEntity[] = [];
  const out: string[] = [];
  let i = 0;
  for (const r of reps) {
    if (r.start < i) continue;
    while (i < r.start) out.push(toks[i++].raw);
    out.push(toks[r.start].pre + r.text + toks[r.end - 1].post);
    if (r.entity) entities.push(r.entity);
    i = r.end;
  }
  while (i < toks.length) out.push(toks[i++].raw);
  let written = out.join(' ');
  // "half past ten", "ten past four", "half nine": read where every clock time is read (dates.ts)
  written = writeClockTimes(written);

  for (const m of text.matchAll(WRITTEN_EMAIL)) entities.push({ kind: 'email', address: m[0].toLowerCase(), spoken: m[0] });
  for (const m of text.matchAll(WRITTEN_PHONE)) {
    const digits = m[0].replace(/\D/g, '');
    if (digits.length >= 7) entities.push({ kind: 'phone', digits, international: m[0].trim().startsWith('+'), spoken: m[0].trim() });
  }
  return { text: written, entities };
}

// Country calling codes, longest first when matching the call's own number. Only the prefix is
// needed: a spoken national number takes the country of the call it was said in.
const COUNTRY_CODES = [
  '1', '7', '20', '27', '30', '31', '32', '33', '34', '36', '39', '40', '41', '43', '44', '45', '46', '47', '48', '49', '51', '52',
  '53', '54', '55', '56', '57', '58', '60', '61', '62', '63', '64', '65', '66', '81', '82', '84', '86', '90', '91', '92', '93',
  '94', '95', '98', '351', '352', '353', '354', '355', '356', '357', '358', '359', '370', '371', '372', '380', '381', '385',
  '386', '420', '421', '852', '886', '971', '972', '966', '234', '254', '233', '212', '213', '216',
];

/** Country calling code of an E.164-like number ("+1 555 600 0134" -> "1"), or null. */
export function countryCodeOf(phone: string | null | undefined): string | null {
  if (!phone) return null;
  const trimmed = phone.trim();
  if (!trimmed.startsWith('+')) return null;
  const digits = trimmed.replace(/\D/g, '');
  const found = COUNTRY_CODES.filter((c) => digits.startsWith(c)).sort((a, b) => b.length - a.length)[0];
  return found ?? null;
}

/**
 * E.164 form of spoken digits, using the call's country when the speaker gave a national number.
 * Returns null when the digits cannot be a full number (a seven-digit local number has no area
 * code, and inventing one would not be grounded).
 */
export function toE164(phone: SpokenPhone, callPhoneNumber: string | null | undefined): string | null {
  const d = phone.digits;
  if (phone.international) return d.length >= 8 && d.length <= 15 ? `+${d}` : null;
  const cc = countryCodeOf(callPhoneNumber);
  if (cc === '1' || (!cc && d.length === 10)) {
    // North American numbering: ten digits, or eleven with the leading 1.
    if (d.length === 10) return `+1${d}`;
    if (d.length === 11 && d.startsWith('1')) return `+${d}`;
    // "... six six one four one you're on your way": eleven digits without the leading 1, the last
    // a "one" heard for the next word ("when"); a national number is ten digits, so it is dropped
    if (d.length === 11 && /\bone$/i.test(phone.spoken.trim().replace(/[.?!,]+$/, ''))) return `+1${d.slice(0, 10)}`;
    return null;
  }
  if (!cc) return null;
  if (d.startsWith('00') && d.length > 9) return `+${d.slice(2)}`;
  if (d.startsWith(cc) && d.length >= 10) return `+${d}`;
  const national = d.startsWith('0') ? d.slice(1) : d;
  if (national.length < 8 || national.length + cc.length > 15) return null;
  return `+${cc}${national}`;
}

/** Digits of a phone number in any format, for comparing against the call's own number. */
export function phoneDigits(s: string | null | undefined): string {
  return (s ?? '').replace(/\D/g, '');
}

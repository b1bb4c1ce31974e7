// Grounding: the spec forbids emails, phone numbers and times in intentMetadata that the
// transcript does not contain. Models invent plausible ones (a guessed company address, a default
// 09:00), so every such value is checked against the transcript and dropped when unsupported.
//
// Transcripts carry spoken forms ("priya dot shah at gmail dot com", "five five five, three eight
// two, six zero one zero", "next Tuesday at eleven a.m.") as well as written ones, so the
// transcript is normalised before comparison:
//
// - Emails: the transcript becomes a token stream in which "at" is "@", "dot"/"period"/"point" is
//   ".", "underscore" is "_", "dash"/"hyphen" is "-", and (in a second pass) number words are
//   digits. An email is grounded when the concatenation of some run of consecutive tokens equals
//   it, case-insensitively; so "A P at northwind foods dot com" grounds "ap@northwindfoods.com",
//   and token boundaries keep a substring such as "s@foods.com" from matching. Remarks inside a
//   dictation (a spelling of the word just said, "all one word"; heard.ts) are read past, and so is
//   a domain taken back ("at yahoo dot com, no wait, at gmail dot com").
// - Phone numbers: number words and written digits become digit groups ("eight hundred" -> 800,
//   "double five" -> 55, "oh" after a number -> 0); separators (spaces, commas, hyphens, brackets,
//   plus) keep a run going. A number is grounded when some run of consecutive groups spells its
//   digits, or its digits without a 1-3 digit country code (at least 7 digits must remain).
// - Date/times (proposedAt, remindAt): the wall-clock fields written in the ISO string are
//   compared (its offset is ignored: calls state no time zone, and the model writes the time the
//   speakers said). Day evidence is every date chrono-node finds in the number-normalised
//   transcript relative to recordedAt, read both forward (plans) and nearest (days already past);
//   for a weekday-only mention such as "next Tuesday" the previous, coming and following such
//   weekday count, since usage differs; "N business days" counts weekdays from the call; "the
//   eleventh" (with or without its weekday) is that day of this month or a month around it; a
//   time-only mention counts for the day chrono resolves it to and for the day of the call.
//   Time evidence is every explicit clock time ("at eleven", "four thirty p.m.", "noon", the start of
//   "between eight and noon"; an hour without a.m./p.m. matches both halves of the day) and part-of-day words (morning 05-12,
//   afternoon 12-18, evening 17-22, tonight/night 18-24). A value is grounded when its date has day evidence and, unless it is
//   date-only or midnight, its time has time evidence anywhere in the transcript, or is a clock time
//   said alone ("two forty five", "half past three") beside a mention of that day (looseClockTimes).
// - sourceSegmentIds that are not ids of the transcript's segments are removed.
//
// The returned violations carry the dropped value (benchmarks score them); callers must log only
// path and kind.
//
// The spoken-number reading here is deliberately separate from the embedded analyzer's extractor
// (embedded/spoken.ts): this module is the check applied to every analyzer's output, and a check
// that shared the extractor's parser would also share its mistakes.
import * as chrono from 'chrono-node';
import type { Analysis } from '../../domain/analysis.js';
import { HEARD_AT, HEARD_DOMAIN, HEARD_DOT, HEARD_TLD, HEARD_TLD_AFTER_DOT, nameHeardAs, speakerNameWords, ukSecondLevel, withoutDictationAsides } from './heard.js';
import type { Transcript } from '../../domain/transcript.js';
import { filterSegmentIds } from './finalize.js';

export type GroundingViolationKind = 'email' | 'phone' | 'datetime' | 'segment';
export interface GroundingViolation {
  path: string;
  kind: GroundingViolationKind;
  value: string;
}
export interface GroundingResult {
  analysis: Analysis;
  violations: GroundingViolation[];
}

// ---------------------------------------------------------------------------------------------
// Spoken numbers

const UNITS: Record<string, number> = { zero: 0, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9 };
const TEENS: Record<string, number> = {
  ten: 10, eleven: 11, twelve: 12, thirteen: 13, fourteen: 14, fifteen: 15, sixteen: 16, seventeen: 17, eighteen: 18, nineteen: 19,
};
const TENS: Record<string, number> = { twenty: 20, thirty: 30, forty: 40, fourty: 40, fifty: 50, sixty: 60, seventy: 70, eighty: 80, ninety: 90 };
const ORDINALS: Record<string, number> = {
  first: 1, second: 2, third: 3, fourth: 4, fifth: 5, sixth: 6, seventh: 7, eighth: 8, ninth: 9, tenth: 10, eleventh: 11,
  twelfth: 12, thirteenth: 13, fourteenth: 14, fifteenth: 15, sixteenth: 16, seventeenth: 17, eighteenth: 18, nineteenth: 19,
  twentieth: 20, thirtieth: 30,
};
const REPEAT: Record<string, number> = { double: 2, triple: 3 };
const HOMOPHONE_DIGITS: Record<string, string> = { for: '4', fore: '4', to: '2', too: '2', won: '1', ate: '8' };

interface Tok {
  text: string;
  lower: string;
  start: number;
  end: number;
  kind: 'word' | 'digits' | 'punct';
}

function tokenize(s: string): Tok[] {
  const out: Tok[] = [];
  for (const m of s.matchAll(/[A-Za-z]+|\d+|[^\sA-Za-z\d]/g)) {
    const text = m[0];
    const kind = /^\d/.test(text) ? 'digits' : /^[A-Za-z]/.test(text) ? 'word' : 'punct';
    out.push({ text, lower: text.toLowerCase(), start: m.index!, end: m.index! + text.length, kind });
  }
  return out;
}

/** A number read from the transcript: its digits, the token span it covers, and whether it was an ordinal. */
interface NumGroup {
  digits: string;
  from: number; // first token index
  to: number; // last token index
  ordinal: boolean;
}

/** Punctuation that may sit inside a spoken or written number sequence without ending it. */
const NUMBER_JOINERS = new Set([',', '-', '(', ')', '+', '/', '.']);

/**
 * Reads number words and digit tokens into groups, and groups into runs (consecutive numbers
 * separated only by joiners). Compounds follow ordinary English ("twenty three", "eight hundred",
 * "three hundred and eighty", "two thousand twenty five"); digit-by-digit dictation stays one
 * group per word so that any grouping a speaker used can be matched.
 */
function readNumbers(toks: Tok[]): NumGroup[][] {
  const runs: NumGroup[][] = [];
  let run: NumGroup[] = [];
  const flush = () => {
    if (run.length) runs.push(run);
    run = [];
  };
  let i = 0;
  while (i < toks.length) {
    const t = toks[i];
    const g = readGroup(toks, i, run.length > 0);
    if (g) {
      for (const x of g) run.push(x);
      i = g[g.length - 1].to + 1;
      continue;
    }
    if (!(t.kind === 'punct' && NUMBER_JOINERS.has(t.text))) flush();
    i++;
  }
  flush();
  return runs;
}

function readGroup(toks: Tok[], i: number, inRun: boolean): NumGroup[] | null {
  const t = toks[i];
  if (t.kind === 'digits') {
    // "12th" is tokenised as 12 + th.
    const next = toks[i + 1];
    const ordinal = next !== undefined && next.start === t.end && /^(st|nd|rd|th)$/.test(next.lower);
    return [{ digits: t.text, from: i, to: ordinal ? i + 1 : i, ordinal }];
  }
  if (t.kind !== 'word') return null;
  const w = t.lower;
  // "o" of "o'clock" is not a zero.
  const apostrophe = toks[i + 1]?.text === "'" || toks[i + 1]?.text === '\u2019';
  if ((w === 'oh' || (w === 'o' && !apostrophe)) && inRun) return [{ digits: '0', from: i, to: i, ordinal: false }];
  // A recogniser's homophone of a digit inside dictation ("two oh for eight", "is for one five
  // ...", "... seven for."): read as the digit when a digit word (or another homophone before one)
  // follows, or at the end of a run of digits. The embedded analyzer's reading (spoken.ts) is
  // stricter; this check only has to find the digits somewhere in what was said.
  const next = toks[i + 1];
  const nextIsDigit = (k: number) => toks[k]?.kind === 'word' && (toks[k].lower in UNITS || toks[k].lower === 'oh');
  // outside a run, only before dictation ("for one five oh ..."), never before one number ("for two days")
  const digitish = (k: number) => nextIsDigit(k) || (toks[k]?.kind === 'word' && toks[k].lower in HOMOPHONE_DIGITS);
  const dictationAhead = nextIsDigit(i + 1) && digitish(i + 2) && digitish(i + 3) && digitish(i + 4);
  const homophoneThenDigit = next?.kind === 'word' && next.lower in HOMOPHONE_DIGITS && nextIsDigit(i + 2);
  // "or" for "oh" only between two digits on each side ("five six or seven one"), never "five or six"
  if (w === 'or' && inRun && nextIsDigit(i + 1) && nextIsDigit(i + 2) && i >= 2 && toks[i - 2]?.kind === 'word' && toks[i - 2].lower in UNITS) {
    return [{ digits: '0', from: i, to: i, ordinal: false }];
  }
  if (w in HOMOPHONE_DIGITS && (inRun ? nextIsDigit(i + 1) || homophoneThenDigit || next?.kind !== 'word' : dictationAhead)) {
    return [{ digits: HOMOPHONE_DIGITS[w], from: i, to: i, ordinal: false }];
  }
  if (w in REPEAT) {
    const n = nextWord(toks, i);
    // "double oh" as well as "double zero": the UK way of saying 00
    const digit = n === null ? undefined : toks[n].lower === 'oh' || toks[n].lower === 'o' ? 0 : UNITS[toks[n].lower];
    if (n !== null && digit !== undefined) {
      return [{ digits: String(digit).repeat(REPEAT[w]), from: i, to: n, ordinal: false }];
    }
    return null;
  }
  if (w in ORDINALS) return [{ digits: String(ORDINALS[w]), from: i, to: i, ordinal: true }];
  if (!(w in UNITS || w in TEENS || w in TENS)) return null;

  // Compound reading: [thousands] [hundreds] [tens] [unit], each optional, "and" after hundred.
  let total = 0;
  let current = 0;
  let last = i;
  let state: 'start' | 'unit' | 'teen' | 'tens' | 'hundred' | 'thousand' = 'start';
  let j = i;
  let ordinal = false;
  while (j < toks.length) {
    const tk = toks[j];
    if (j > i && !(tk.kind === 'word' || (tk.kind === 'punct' && tk.text === '-' && j === last + 1))) break;
    const x = tk.lower;
    if (tk.text === '-') {
      j++;
      continue;
    }
    if (x === 'and' && state === 'hundred') {
      const n = j + 1 < toks.length ? toks[j + 1].lower : '';
      if (n in UNITS || n in TEENS || n in TENS || n in ORDINALS) {
        j++;
        continue;
      }
      break;
    }
    // A trailing ordinal ends the number: "twenty first", "one hundred and twelfth".
    const ordinalFits = state === 'tens' ? ORDINALS[x] < 10 : state === 'hundred' || state === 'thousand';
    if (j > i && x in ORDINALS && ordinalFits) {
      current += ORDINALS[x];
      last = j;
      ordinal = true;
      j++;
      break;
    }
    if (x in UNITS && UNITS[x] > 0 && (state === 'start' || state === 'tens' || state === 'hundred' || state === 'thousand')) {
      if (state === 'hundred' && toks[j - 1]?.lower !== 'and' && current % 100 === 0 && j > i) {
        // "eight hundred five five five" is dictation: 800 then digits.
        break;
      }
      current += UNITS[x];
      state = 'unit';
    } else if (x === 'zero' && state === 'start') {
      current = 0;
      state = 'unit';
      last = j;
      j++;
      break;
    } else if (x in TEENS && (state === 'start' || state === 'hundred' || state === 'thousand')) {
      current += TEENS[x];
      state = 'teen';
    } else if (x in TENS && (state === 'start' || state === 'hundred' || state === 'thousand')) {
      current += TENS[x];
      state = 'tens';
    } else if (x === 'hundred' && (state === 'unit' || state === 'teen') && current > 0) {
      current *= 100;
      state = 'hundred';
    } else if (x === 'thousand' && state !== 'start' && state !== 'thousand' && current > 0) {
      total += current * 1000;
      current = 0;
      state = 'thousand';
    } else {
      break;
    }
    last = j;
    j++;
  }
  return [{ digits: String(total + current), from: i, to: last, ordinal }];
}

function nextWord(toks: Tok[], i: number): number | null {
  return i + 1 < toks.length && toks[i + 1].kind === 'word' ? i + 1 : null;
}

function ordinalSuffix(n: number): string {
  if (n % 100 >= 11 && n % 100 <= 13) return 'th';
  return ['th', 'st', 'nd', 'rd'][n % 10] ?? 'th';
}

/**
 * The text with every spoken number replaced by digits ("eleven a.m." -> "11 a.m.", "twelfth" ->
 * "12th", "four thirty" after a time cue -> "4:30"), for chrono-node, which reads digits only.
 */
export function digitizeSpokenNumbers(s: string): string {
  const toks = tokenize(s);
  const runs = readNumbers(toks);
  let out = '';
  let pos = 0;
  for (const run of runs) {
    for (const g of run) {
      const a = toks[g.from].start;
      const b = toks[g.to].end;
      out += s.slice(pos, a) + g.digits + (g.ordinal && toks[g.to].kind === 'word' ? ordinalSuffix(Number(g.digits)) : '');
      pos = b;
    }
  }
  out += s.slice(pos);
  // "at 4 30 pm" -> "at 4:30 pm"; "eleven oh five" -> "11:05". Minutes must be two digits (or
  // "oh" + one) so that dictated digits ("at 5 5 5") are not read as a time.
  const toClock = (m: string, h: string, mm: string | undefined, m1: string | undefined, maxHour: number) => {
    const hour = Number(h);
    const minute = Number(mm ?? m1);
    return hour > maxHour || minute > 59 ? null : `${hour}:${String(minute).padStart(2, '0')}`;
  };
  return out
    .replace(/\b(at|by|after|before|around|until|till|from|about|say)\s+(\d{1,2})\s+(?:(\d{2})|0\s+(\d))\b/gi, (m, cue: string, h: string, mm?: string, m1?: string) => {
      const c = toClock(m, h, mm, m1, 23);
      return c ? `${cue} ${c}` : m;
    })
    .replace(/\b(\d{1,2})\s+(?:(\d{2})|0\s+(\d))(?=\s*(?:a\.?\s?m\b|p\.?\s?m\b|o'?\s?clock))/gi, (m, h: string, mm?: string, m1?: string) => toClock(m, h, mm, m1, 12) ?? m);
}

// ---------------------------------------------------------------------------------------------
// Emails

const EMAIL_WORDS: Record<string, string> = {
  at: '@',
  dot: '.',
  period: '.',
  point: '.',
  underscore: '_',
  dash: '-',
  hyphen: '-',
};
/** Written characters that may occur inside an address. */
const EMAIL_PUNCT = new Set(['@', '.', '_', '-', '+']);

/** Words of a correction cue between an address's domain and the domain said instead ("no wait", "sorry", "I mean"). */
const DOMAIN_TAKEN_BACK = new Set(['wait', 'sorry', 'mean', 'actually', 'rather', 'mistake', 'correction']);

/** Token streams of a transcript text in which an email is looked for (see the header). */
const HEARD_DOMAIN_LONGEST_FIRST = [...HEARD_DOMAIN].sort((a, b) => b[0].length - a[0].length);

function emailStreams(text: string, names: ReadonlySet<string> = new Set()): string[][] {
  const toks = tokenize(text);
  const plain = toks.map((t) => (t.kind === 'word' ? EMAIL_WORDS[t.lower] ?? t.lower : t.kind === 'digits' ? t.text : EMAIL_PUNCT.has(t.text) ? t.text : '\u0000'));
  // Second pass: spoken digits become digits ("agent two at ..." -> "agent2@..."); and again with
  // ordinal words kept as words, which in an address they are ("first dot last at studio nine")
  const withDigits = [...plain];
  const cardinalDigits = [...plain];
  for (const run of readNumbers(toks)) {
    for (const g of run) {
      if (toks[g.from].kind !== 'word') continue;
      withDigits[g.from] = g.digits;
      for (let k = g.from + 1; k <= g.to; k++) withDigits[k] = '';
      if (g.ordinal) continue;
      cardinalDigits[g.from] = g.digits;
      for (let k = g.from + 1; k <= g.to; k++) cardinalDigits[k] = '';
    }
  }
  // Third: the words a recogniser writes for "dot", "at", the domain and "com" (heard.ts), so an
  // address rebuilt from "linda got green and nail dot com" is found spelled out in order
  // ("dot easy": a top-level domain heard as a word, right after a "dot" said as such, heard.ts)
  const afterDot = (k: number) => toks[k - 1]?.kind === 'word' && toks[k - 1].lower === 'dot' && HEARD_TLD_AFTER_DOT[toks[k].lower];
  const heard = toks.map((t, k) => (t.kind === 'word' ? (HEARD_DOT.has(t.lower) ? '.' : HEARD_AT.has(t.lower) ? '@' : afterDot(k) || (HEARD_TLD[t.lower] ?? t.lower)) : plain[k]));
  // ("... dot com dot u k": the "co" of a British domain, heard.ts)
  for (let k = 0; k + 2 < toks.length; k++) {
    if (heard[k + 1] !== '.' || toks[k].kind !== 'word') continue;
    const uk = toks[k + 2].lower === 'uk' || (toks[k + 2].lower === 'u' && toks[k + 3]?.lower === 'k');
    if (uk) heard[k] = ukSecondLevel(heard[k], 'uk');
  }
  for (let k = 0; k < toks.length; k++) {
    const found = HEARD_DOMAIN_LONGEST_FIRST.find(([words]) => words.every((w, j) => toks[k + j]?.kind === 'word' && toks[k + j].lower === w));
    if (!found) continue;
    heard[k] = found[1];
    for (let j = 1; j < found[0].length; j++) heard[k + j] = '';
    k += found[0].length - 1;
  }
  // (and with its spoken digits as digits: "facilities four at kestrel arch dot khan")
  const heardDigits = [...heard];
  for (const run of readNumbers(toks)) {
    for (const g of run) {
      if (toks[g.from].kind !== 'word' || g.ordinal || heard[g.from] !== toks[g.from].lower) continue;
      heardDigits[g.from] = g.digits;
      for (let k = g.from + 1; k <= g.to; k++) heardDigits[k] = '';
    }
  }
  // Fourth: a word spelled out with hyphens ("p-r-i-y-a dot shah ...") is the word
  const single = (k: number) => toks[k]?.kind === 'word' && toks[k].text.length === 1;
  // (and an "oh" that is a whole part of an address between separators is the letter: "k dot oh dot brien")
  const sep = (x: string | undefined) => x === '.' || x === '_' || x === '-' || x === '@';
  const spelled = plain
    .map((x, k) => (x === 'oh' && sep(plain[k - 1]) && sep(plain[k + 1]) ? 'o' : x))
    .filter((_x, k) => !(toks[k].text === '-' && single(k - 1) && single(k + 1)));
  const streams = [plain, withDigits.filter((x, k) => x !== '' || plain[k] === ''), heard.filter((x) => x !== ''), spelled];
  if (cardinalDigits.some((x, k) => x !== withDigits[k])) streams.push(cardinalDigits.filter((x, k) => x !== '' || plain[k] === ''));
  if (heardDigits.some((x, k) => x !== heard[k])) streams.push(heardDigits.filter((x) => x !== ''));
  // Sixth: a domain taken back and said again ("tom dot wells at yahoo dot com, no wait, at gmail
  // dot com"): the local part with the domain settled on, the withdrawn domain and the cue read past
  const spliced = [...plain];
  for (let k = 0; k < spliced.length; k++) {
    if (spliced[k] !== '@') continue;
    const again = spliced.findIndex((x, j) => j > k && x === '@');
    if (again < 0 || again - k > 12 || !spliced.slice(k + 1, again).some((x) => DOMAIN_TAKEN_BACK.has(x))) continue;
    for (let j = k; j < again; j++) spliced[j] = '';
    k = again;
  }
  if (spliced.some((x, k) => x !== plain[k])) streams.push(spliced.filter((x) => x !== ''));
  // Seventh: a comma said just before the "at" of a local part with a separator in it ("a dot desai,
  // at brookside primary dot org dot uk"; the extractor reads it only so, spoken.ts): "no wait, at
  // gmail dot com" spells no "wait@gmail.com"
  const commaBeforeAt = (k: number) => toks[k].text === ',' && plain[k + 1] === '@' && ['.', '_', '-'].includes(plain[k - 2] ?? '');
  if (toks.some((_t, k) => commaBeforeAt(k))) streams.push(plain.filter((_x, k) => !commaBeforeAt(k)));
  // Fifth: a word that sounds like a speaker's name is that name ("fill at mercer cole" with Phil),
  // marked so that it spells only the local part of an address (streamSpells): "at prize dot com"
  // with a Price in the call is no "@price.com"
  if (names.size) {
    const named = heard.map((x, k) => {
      if (toks[k]?.kind !== 'word' || x !== toks[k].lower) return x;
      const name = nameHeardAs(x, names);
      return name ? NAME_HEARD + name : x;
    });
    if (named.some((x, k) => x !== heard[k])) {
      streams.push(named.filter((x) => x !== ''));
      // and with its spoken digits as digits, as the extractor reads them ("fill seventy one at ...")
      const namedDigits = [...named];
      for (const run of readNumbers(toks)) {
        for (const g of run) {
          if (toks[g.from].kind !== 'word' || g.ordinal) continue;
          namedDigits[g.from] = g.digits;
          for (let k = g.from + 1; k <= g.to; k++) namedDigits[k] = '';
        }
      }
      if (namedDigits.some((x, k) => x !== named[k])) streams.push(namedDigits.filter((x, k) => x !== '' || named[k] === ''));
    }
  }
  return streams;
}

/** Marks a word of a stream read as the speaker's name it sounds like (emailStreams). */
const NAME_HEARD = '\u0001';

function streamSpells(stream: string[], target: string): boolean {
  for (let i = 0; i < stream.length; i++) {
    if (stream[i] === '' || !target.startsWith(stream[i].replace(NAME_HEARD, ''))) continue;
    let acc = '';
    for (let j = i; j < stream.length; j++) {
      const named = stream[j].startsWith(NAME_HEARD);
      // a name heard in another word stands only before the "@"
      if (named && acc.includes('@')) break;
      acc += named ? stream[j].slice(NAME_HEARD.length) : stream[j];
      if (acc === target) return true;
      if (!target.startsWith(acc)) break;
    }
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// Phone numbers

function phoneCandidates(value: string): string[] {
  const v = value.trim();
  let digits = v.replace(/\D/g, '');
  const international = v.startsWith('+') || v.startsWith('00');
  if (v.startsWith('00')) digits = digits.slice(2);
  const out = [digits];
  // With a country code the speaker may have said only the national number.
  if (international) for (let cc = 1; cc <= 3; cc++) out.push(digits.slice(cc));
  else if (digits.length === 11 && digits.startsWith('1')) out.push(digits.slice(1));
  return [...new Set(out.filter((d) => d.length >= 7))];
}

/** Words that take back what was just said ("no sorry", "no wait", "I mean"), and the words around them. */
const TAKING_BACK = new Set(['no', 'sorry', 'wait', 'hang', 'mean', 'actually', 'rather', 'mistake', 'correction']);
const TAKING_BACK_FILLER = new Set(['i', 'it', 's', 'is', 'its', 'that', 'make', 'on', 'my', 'the', 'last', 'end', 'ends', 'in', 'with', 'bit', 'part', 'should', 'be', 'oh']);

/**
 * A number whose last groups are taken back and said again ("... double seven six eight, no sorry,
 * two three six five"): the run with as many of its last groups replaced as the groups said again
 * have digits. Only a taking-back word (and the words around one) may stand between the two.
 */
function correctedRuns(toks: Tok[], runs: NumGroup[][]): string[][] {
  const out: string[][] = [];
  for (let k = 0; k + 1 < runs.length; k++) {
    const [a, b] = [runs[k], runs[k + 1]];
    const between = toks.slice(a[a.length - 1].to + 1, b[0].from);
    const words = between.filter((t) => t.kind === 'word');
    if (!words.some((t) => TAKING_BACK.has(t.lower)) || !words.every((t) => TAKING_BACK.has(t.lower) || TAKING_BACK_FILLER.has(t.lower))) continue;
    if (between.some((t) => t.kind === 'digits' || (t.kind === 'punct' && /[.?!;]/.test(t.text)))) continue;
    const said = b.map((g) => g.digits).join('');
    let tail = 0;
    let n = 0;
    while (n < a.length - 1 && tail < said.length) tail += a[a.length - 1 - n++].digits.length;
    if (tail === said.length) out.push([...a.slice(0, a.length - n).map((g) => g.digits), ...b.map((g) => g.digits)]);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Date/times

interface DayTimeEvidence {
  days: Set<string>; // YYYY-MM-DD
  /** Minutes after midnight of explicit clock times. */
  times: Set<number>;
  /** Inclusive-exclusive minute ranges of part-of-day words. */
  ranges: Array<[number, number]>;
  /** Per segment (in order): the days it names and the clock times it says alone (looseClockTimes), each at its offset. */
  bySegment: SegmentMentions[];
  /** The call's day and the next: the day of a clock time said with no day near it (chrono's reading of "at 4:30"). */
  callDays: string[];
}

/** A mention at its offset in a segment's number-normalised text. */
interface At<T> {
  index: number;
  value: T;
}
interface SegmentMentions {
  /** Days named (several for "next Tuesday"); a time said alone names none. */
  days: Array<At<Set<string>>>;
  /** Minutes after midnight of a clock time said alone (both halves of the day), and the day said right after it ("half past nine on Monday"), if any. */
  loose: Array<At<number[]> & { end: number; dayAfter?: number; sentenceEnd?: number; clockWords?: boolean; ledTo?: boolean }>;
}

/**
 * How many segments apart a day and a clock time said alone may be and still be one appointment
 * read across turns ("Next Tuesday, what time?" - "Next Tuesday at, let me see, two forty five." -
 * "Two forty five. Yep.").
 */
const REGION_SEGMENTS = 3;

/** Words that make the clock time after them one ("at half four", "say half nine"), even with no day near it. */
const CLOCK_LEAD_WORDS = 'at|by|around|about|say|from|after|before|until|till';

/** Words after a bare pair of numbers that make it an amount, not a clock time ("two forty five dollars"). */
const NOT_A_CLOCK_AFTER = /^\s*(?:dollars?|bucks|cents?|pounds?|quid|euros?|pence|p\b|percent|per\s?cent|%|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?|miles?|kilometers?|km|feet|foot|inches|pounds?|lbs?|kilos?|kg|people|of\b|x\b|by\b|square|sq|gallons?|liters?|litres?|degrees?|thousand|hundred|million|k\b)/i;

/**
 * Clock times said alone, without "at" or a.m./p.m., in number-normalised text: "2 45" ("two forty
 * five"), "9 30", "9 0 5" ("nine oh five"), "quarter to 10", "half past 3", "half 3", "20 past 4". Such words
 * are a clock time only beside a day (an amount, a score and a part of a dictation read the same),
 * so they ground a date/time only in the region of a mention of its day. An hour without
 * a.m./p.m. stands for both halves of the day.
 */
function looseClockTimes(text: string): SegmentMentions['loose'] {
  const out: SegmentMentions['loose'] = [];
  let at = 0;
  let end = 0;
  // clockWords: said in words only a clock time uses ("half past 3", "quarter to 10", "half 9")
  const both = (h: number, m: number, clockWords = false) => {
    if (h < 1 || h > 12 || m < 0 || m > 59) return;
    out.push({ index: at, end, value: [(h % 12) * 60 + m, ((h % 12) + 12) * 60 + m], ...(clockWords ? { clockWords } : {}) });
  };
  // a pair of numbers standing alone: no number just before or after it (dictated digits, a phone
  // number, "five fifty five, two one ..."), no unit or amount word after it
  for (const m of text.matchAll(/(?<![\d][\s,.:\-\/]*|[$£€]\s*)\b(\d{1,2})\s+(?:(\d{2})|0\s+(\d))\b(?![\s,.\-\/]*\d|:\d|[.,]\d)/g)) {
    if (NOT_A_CLOCK_AFTER.test(text.slice(m.index! + m[0].length))) continue;
    const minute = Number(m[2] ?? m[3]);
    if (m[2] !== undefined && minute < 10) continue;
    at = m.index!;
    end = at + m[0].length;
    both(Number(m[1]), minute);
  }
  for (const m of text.matchAll(/\b(quarter|half|\d{1,2})\s+(past|after|to)\s+(\d{1,2})\b(?![\s,.\-\/]*\d)/gi)) {
    const part = m[1].toLowerCase();
    const minutes = part === 'quarter' ? 15 : part === 'half' ? 30 : Number(part);
    // ("half to" is no English clock time; "ten to twelve" may be a count, but beside a day it is a time)
    if (part === 'half' && m[2].toLowerCase() === 'to') continue;
    if (part !== 'quarter' && part !== 'half' && (minutes % 5 !== 0 || minutes < 5 || minutes > 25)) continue;
    const h = Number(m[3]);
    at = m.index!;
    end = at + m[0].length;
    if (m[2].toLowerCase() === 'to') both(h === 1 ? 12 : h - 1, 60 - minutes, true);
    else both(h, minutes, true);
  }
  // "at twenty to six": the digits' reading took its "to" for a dictated 2 ("20 2 6"); after a word
  // leading to a time it is the clock time, and so is "twenty (five) to six" anywhere no other digit
  // stands beside it (no range starts at 20 or 25)
  for (const m of text.matchAll(new RegExp(String.raw`(?:\b(?:${CLOCK_LEAD_WORDS})\s+(5|10|20|25)|(?<![\d][\s,.:\-\/]*)\b(20|25))\s+2\s+(\d{1,2})\b(?![\s,.\-\/]*\d|:\d)`, 'gi'))) {
    const h = Number(m[3]);
    at = m.index!;
    end = at + m[0].length;
    both(h === 1 ? 12 : h - 1, 60 - Number(m[1] ?? m[2]), true);
  }
  // the American "a quarter of 5", "quarter till 5": a quarter to that hour, after a word leading to a
  // time ("a quarter of 5 people" is a share)
  for (const m of text.matchAll(/\b(?:at|by|around|about|until|till|before|after|from|say|is|it's)\s+(?:a\s+)?quarter\s+(?:of|till)\s+(\d{1,2})\b(?![\s,.\-\/]*\d|:\d)/gi)) {
    if (NOT_A_CLOCK_AFTER.test(text.slice(m.index! + m[0].length))) continue;
    const h = Number(m[1]);
    at = m.index!;
    end = at + m[0].length;
    both(h === 1 ? 12 : h - 1, 45, true);
  }
  // an hour offered back or taken with no "at": "could we do 11 instead?", "how about 3?", "11 works"
  for (const m of text.matchAll(/\b(?:(?:do|make it|how about|what about|say|try)\s+(\d{1,2})(?=\s*(?:instead|then|rather|[?.!,]|$))|(\d{1,2})(?=\s+(?:works|is fine|is good|suits|is perfect|is better|sounds good)\b))/gi)) {
    const h = Number(m[1] ?? m[2]);
    at = m.index!;
    end = at + m[0].length;
    both(h, 0);
  }
  // a 24-hour time in hundreds after a word leading to a time: "at 1400" ("fourteen hundred"), "by 1700 hours"
  for (const m of text.matchAll(/\b(?:at|by|from|until|till|before|after)\s+([01]?\d|2[0-3])00\b(?!\s*(?:dollars?|pounds?|euros?|people|of)\b)/gi)) {
    at = m.index!;
    end = at + m[0].length;
    out.push({ index: at, end, value: [Number(m[1]) * 60, Number(m[1]) * 60] });
  }
  // the British "half 9" ("half nine"): half past that hour
  for (const m of text.matchAll(/\bhalf\s+(\d{1,2})\b(?![\s,.\-\/]*\d|:\d|\s+(?:past|after|to)\b)/gi)) {
    if (NOT_A_CLOCK_AFTER.test(text.slice(m.index! + m[0].length)) || /^\s*(?:an?|the)\b/i.test(text.slice(m.index! + m[0].length))) continue;
    at = m.index!;
    end = at + m[0].length;
    both(Number(m[1]), 30, true);
  }
  return out;
}

/** "Saturday the eleventh", "the 12th": a day of the month said without its month. */
function dayOfMonthMentions(text: string, ref: Date): Array<At<string>> {
  const out: Array<At<string>> = [];
  const WD = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
  // "March the 3rd": that day of that month, this year or next (chrono reads the month alone)
  for (const m of text.matchAll(/\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+the\s+(\d{1,2})(?:st|nd|rd|th)\b/gi)) {
    const month = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'].indexOf(m[1].toLowerCase());
    const n = Number(m[2]);
    for (const year of [ref.getUTCFullYear(), ref.getUTCFullYear() + 1]) {
      const d = new Date(Date.UTC(year, month, n));
      if (d.getUTCDate() === n) out.push({ index: m.index!, value: ymd(d) });
    }
  }
  for (const m of text.matchAll(/\b(?<!\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+)(?:(sunday|monday|tuesday|wednesday|thursday|friday|saturday)\s+)?the\s+(\d{1,2})(?:st|nd|rd|th)\b(?!\s+(?:of\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec))/gi)) {
    const n = Number(m[2]);
    if (n < 1 || n > 31) continue;
    const weekday = m[1] ? WD.indexOf(m[1].toLowerCase()) : -1;
    // that day of this month, the month before and the next two (the nearest plan or the one just past);
    // a weekday that no such day ahead falls on is a slip of one of the two, and the date said still
    // stands ("Monday the 7th" said on Friday the 18th, when the Monday the 7th is past)
    const days: string[] = [];
    const any: string[] = [];
    for (let k = -1; k <= 2; k++) {
      const d = new Date(Date.UTC(ref.getUTCFullYear(), ref.getUTCMonth() + k, n));
      if (d.getUTCDate() !== n) continue; // no 31st in that month
      any.push(ymd(d));
      if (weekday < 0 || d.getUTCDay() === weekday) days.push(ymd(d));
    }
    const ahead = days.some((d) => d >= ymd(ref));
    for (const value of ahead ? days : [...new Set([...days, ...any])]) out.push({ index: m.index!, value });
  }
  return out;
}

const PART_OF_DAY: Array<[RegExp, [number, number]]> = [
  [/\bmorning\b/i, [5 * 60, 12 * 60]],
  [/\bafternoon\b/i, [12 * 60, 18 * 60]],
  [/\bevening\b/i, [17 * 60, 22 * 60]],
  [/\b(tonight|night)\b/i, [18 * 60, 24 * 60]],
  [/\b(lunch|lunchtime)\b/i, [11 * 60, 14 * 60 + 1]],
];

// such a word ending the text before a mention, or starting the mention itself ("at a quarter of 5")
const LEADS_TO_CLOCK_TIME = new RegExp(`\\b(?:${CLOCK_LEAD_WORDS})\\s+$`, 'i');
const CLOCK_TIME_LEAD = new RegExp(`^(?:${CLOCK_LEAD_WORDS})\\b`, 'i');
// (with "yes", "okay", "so" ...: a run-on turn as a recogniser writes it has no comma after them)
const CLAUSE_LEADS_TO_CLOCK_WORDS = /(?:^|[,.;:!?]\s*|\b(?:for|is|it's|do|make it|or|and|yes|yeah|yep|okay|ok|sure|fine|so|then|maybe|perhaps|how about|what about)\s+)$/i;

const ymd = (d: Date) => d.toISOString().slice(0, 10);
const addDays = (d: Date, n: number) => new Date(d.getTime() + n * 86_400_000);

function dayTimeEvidence(texts: string[], recordedAt: string | undefined): DayTimeEvidence {
  const ref = recordedAt && !Number.isNaN(Date.parse(recordedAt)) ? new Date(recordedAt) : new Date();
  const ev: DayTimeEvidence = { days: new Set(), times: new Set(), ranges: [], bySegment: [], callDays: [ymd(ref), ymd(addDays(ref, 1))] };
  const addTime = (h: number, m: number, meridiemKnown: boolean) => {
    ev.times.add(h * 60 + m);
    if (!meridiemKnown && h < 12) ev.times.add((h + 12) * 60 + m);
    if (!meridiemKnown && h === 12) ev.times.add(m);
  };
  for (const raw of texts) {
    const text = digitizeSpokenNumbers(raw);
    const seg: SegmentMentions = { days: [], loose: looseClockTimes(text) };
    ev.bySegment.push(seg);
    const addDay = (d: string, index: number) => {
      ev.days.add(d);
      const at = seg.days.find((x) => x.index === index);
      if (at) at.value.add(d);
      else seg.days.push({ index, value: new Set([d]) });
    };
    // Timezone 0: the wall clock of recordedAt (UTC) is the reference day, matching how the ISO
    // values are compared; the corpus's calls are all the same calendar day in every zone.
    // Both readings: forward ("on Monday" = the coming Monday, for plans) and nearest (for days
    // already past, "since Sunday", "the invoice from May fifteenth").
    const results = [
      ...chrono.parse(text, { instant: ref, timezone: 0 }, { forwardDate: true }),
      ...chrono.parse(text, { instant: ref, timezone: 0 }),
    ];
    for (const r of results) {
      const c = r.start;
      // ("a quarter to four", "half past nine": chrono reads "a quarter" alone as three months on,
      // a day said that is no day, which then took the clock time said after it)
      if (/^(?:a\s+)?(?:quarter|half)$/i.test(r.text.trim()) && /^\s*(?:to|past|after|of|till)\s+\d/i.test(text.slice(r.index + r.text.length))) continue;
      // Every result resolves to a day: its own date, or for a time-only mention the day chrono
      // assumes (today, or tomorrow once the time has passed).
      const date = c.date();
      // (a time said alone names no day, nor does a span of minutes or hours, "forty five minutes":
      // chrono's today or tomorrow is day evidence, not a mention of a day)
      const span = /^(?:(?:in|within|for)\s+)?(?:\d+|an?|a few|a couple of)\s+(?:minutes?|mins?|hours?|hrs?|seconds?|secs?)\b/i.test(r.text);
      const named = !span && (c.isCertain('day') || c.isCertain('weekday') || !c.isCertain('hour'));
      if (named) addDay(ymd(date), r.index);
      else ev.days.add(ymd(date));
      if (c.isCertain('weekday') && !c.isCertain('day')) {
        // "next Tuesday" is used for both the coming and the following Tuesday.
        addDay(ymd(addDays(date, 7)), r.index);
        addDay(ymd(addDays(date, -7)), r.index);
      }
      if (c.isCertain('hour')) {
        addTime(c.get('hour') ?? 0, c.get('minute') ?? 0, c.isCertain('meridiem'));
        ev.days.add(ymd(ref));
      }
      if (r.end?.isCertain('hour')) addTime(r.end.get('hour') ?? 0, r.end.get('minute') ?? 0, r.end.isCertain('meridiem'));
    }
    // chrono has no business days: "within 5 business days" counts weekdays from the call.
    for (const m of text.matchAll(/\b(\d{1,2})\s+(?:business|working)\s+days?\b/gi)) {
      let d = ref;
      for (let left = Number(m[1]); left > 0; ) {
        d = addDays(d, 1);
        if (d.getUTCDay() !== 0 && d.getUTCDay() !== 6) left--;
      }
      addDay(ymd(d), m.index!);
    }
    for (const d of dayOfMonthMentions(text, ref)) addDay(d.value, d.index);
    seg.days.sort((a, b) => a.index - b.index);
    // a day said right after a clock time said alone ("half past nine on Monday", "four fifteen
    // on Tuesday") is that time's day: nothing but "on" between them (chrono's mention may take the
    // minutes in, "15 on Tuesday")
    for (const t of seg.loose) {
      const stop = /[.?!](?:\s|$)/.exec(text.slice(t.end));
      t.sentenceEnd = stop ? t.end + stop.index : text.length;
      const gap = /^\s*(?:on\s+)?(?=[a-z])/i.exec(text.slice(t.end));
      if (!gap) continue;
      const k = seg.days.findIndex((d) => d.index > t.index && d.index <= t.end + gap[0].length);
      if (k >= 0) t.dayAfter = k;
    }
    /** An hour, its minutes and a.m./p.m. or o'clock as matched; without a.m./p.m. an hour up to 12 is both halves of the day. */
    const addClockTime = (hour: string, minutes: string | undefined, meridiem: string | undefined) => {
      const h = Number(hour);
      const mi = minutes ? Number(minutes) : 0;
      if (h > 23 || mi > 59) return;
      const mer = meridiem?.toLowerCase().replace(/[^ap]/g, '');
      if (mer === 'p' && h < 12) addTime(h + 12, mi, true);
      else if (mer === 'a') addTime(h === 12 ? 0 : h, mi, true);
      else addTime(h, mi, h > 12);
    };
    // Clock times chrono skips when they follow words such as "after" ("tomorrow after 4").
    for (const m of text.matchAll(/\b(?:at|by|after|before|around|until|till|from|about|say|since)\s+(\d{1,2})(?::(\d{2}))?(?:\s*(a\.?\s?m\.?|p\.?\s?m\.?|o'?\s?clock))?(?![\d:])/gi)) {
      addClockTime(m[1], m[2], m[3]);
    }
    // a clock time taken back and said again in the same breath ("at 8:15, no, 8", "at 9, sorry, 10"):
    // the one said again is a time said, though no "at" stands before it
    for (const m of text.matchAll(/\b(?:at|by|around|about|for|from)\s+\d{1,2}(?::\d{2})?(?:\s*[ap]\.?\s?m\.?)?,?\s+(?:no|sorry|wait|hang on|my mistake|i mean|actually)(?:[,\s]+(?:no|sorry|wait|hang on|my mistake|i mean|make it|make that))*[,.]?\s+(?:at\s+)?(\d{1,2})(?::(\d{2}))?(?:\s*(a\.?\s?m\.?|p\.?\s?m\.?|o'?\s?clock))?(?![\d:])(?!\s*(?:%|percent|dollars?|pounds?|euros?|quid|minutes?|hours?|days?|weeks?|months?|years?|people|of)\b)/gi)) {
      addClockTime(m[1], m[2], m[3]);
    }
    // a window's start ("between 8 and noon", "between 9 a.m. and 11"): the time an appointment is from
    for (const m of text.matchAll(/\bbetween\s+(\d{1,2})(?::(\d{2}))?\s*(a\.?\s?m\.?|p\.?\s?m\.?)?\s+and\s+(?:\d{1,2}(?::\d{2})?|noon|midday)\b(?!\s*(?:dollars?|percent|%|days?|weeks?|months?|years?|minutes?|hours?|people|times?)\b)/gi)) {
      addClockTime(m[1], m[2], m[3]);
    }
    if (/\bnoon\b|\bmidday\b/i.test(text)) ev.times.add(12 * 60);
    if (/\bmidnight\b/i.test(text)) ev.times.add(0);
    for (const [re, range] of PART_OF_DAY) if (re.test(text)) ev.ranges.push(range);
    // a clock time said alone but led to by "at", "by", "around" ... ("at half past four", "say half
    // nine", "at a quarter of five") is a clock time even with no day near it, as chrono's "at 4:30"
    // is; so are words only a clock time uses at a clause's start or after "for", "is", "do" ...
    // ("half four works for me", "yes, quarter past nine")
    for (const t of seg.loose) {
      const before = text.slice(0, t.index);
      if (LEADS_TO_CLOCK_TIME.test(before) || CLOCK_TIME_LEAD.test(text.slice(t.index)) || (t.clockWords && CLAUSE_LEADS_TO_CLOCK_WORDS.test(before))) t.ledTo = true;
    }
  }
  return ev;
}

/** Parses the wall-clock fields of an ISO 8601 string; null when it is not one. */
function wallClock(value: string): { day: string; minutes: number | null } | null {
  const m = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}):(\d{2})(?::\d{2}(?:\.\d+)?)?)?(?:Z|[+-]\d{2}:?\d{2})?$/.exec(value.trim());
  if (!m) return null;
  if (m[2] === undefined) return { day: m[1], minutes: null };
  const minutes = Number(m[2]) * 60 + Number(m[3]);
  return { day: m[1], minutes: minutes === 0 ? null : minutes };
}

function datetimeGrounded(value: string, ev: DayTimeEvidence): boolean {
  const wc = wallClock(value);
  if (!wc) return false;
  if (ev.days.has(wc.day)) {
    if (wc.minutes === null) return true;
    if (ev.times.has(wc.minutes)) return true;
    if (ev.ranges.some(([a, b]) => wc.minutes! >= a && wc.minutes! < b)) return true;
  }
  if (wc.minutes === null) return false;
  // the day said in one mention and its clock time alone in another near it ("Next Tuesday at, let
  // me see, two forty five." - "Two forty five. Yep."): a time said alone completes the day named
  // last before it (in its segment, or else in the segments just before), or with none before, the
  // day named first after it, within a few segments; so "Thursday at ten fifteen, or next Tuesday?"
  // - "Tuesday at two forty five" grounds Tuesday at 14:45, not Thursday at 14:45
  // A time led to as one ("at half past four") with no day anywhere near it is on the call's day, or
  // the next once that time has passed, as chrono reads "at 4:30".
  return ev.bySegment.some((seg, i) =>
    seg.loose.some((t) => {
      if (!t.value.includes(wc.minutes!)) return false;
      const days = dayCompletedBy(ev.bySegment, i, t.index, t.dayAfter, t.sentenceEnd);
      return days.has(wc.day) || (!!t.ledTo && days.size === 0 && ev.callDays.includes(wc.day));
    }),
  );
}

function dayCompletedBy(segs: SegmentMentions[], i: number, index: number, dayAfter?: number, sentenceEnd = Infinity): Set<string> {
  if (dayAfter !== undefined) return segs[i].days[dayAfter].value;
  const before = segs[i].days.filter((d) => d.index < index);
  if (before.length) return before[before.length - 1].value;
  // With no day before it in its own sentence, a day named later in that sentence may be the time's
  // as well as the one named in the turns before ("Thursday after school, half four?" - "Wednesdays
  // I can do half four, starting next week, the first"; "Wednesdays" names no single day).
  const later = segs[i].days.filter((d) => d.index > index && d.index < sentenceEnd).flatMap((d) => [...d.value]);
  for (let k = i - 1; k >= Math.max(0, i - REGION_SEGMENTS); k--) if (segs[k].days.length) return new Set([...segs[k].days[segs[k].days.length - 1].value, ...later]);
  const after = segs[i].days.find((d) => d.index > index);
  if (after) return after.value;
  for (let k = i + 1; k <= Math.min(segs.length - 1, i + REGION_SEGMENTS); k++) if (segs[k].days.length) return segs[k].days[0].value;
  return new Set();
}

// ---------------------------------------------------------------------------------------------

/** Normalised views of one transcript, built once per analysis. */
class TranscriptEvidence {
  private readonly emailStreamsCache: string[][];
  private readonly phoneRuns: string[][];
  private evidence: DayTimeEvidence | null = null;

  constructor(
    private readonly texts: string[],
    private readonly recordedAt: string | undefined,
    names: ReadonlySet<string> = new Set(),
  ) {
    // a dictation is read with and without its remarks ("mel, M E L, dot carter", "all one word")
    this.emailStreamsCache = texts.flatMap((t) => {
      const bare = withoutDictationAsides(t);
      return bare === t ? emailStreams(t, names) : [...emailStreams(t, names), ...emailStreams(bare, names)];
    });
    this.phoneRuns = texts.flatMap((t) => {
      const toks = tokenize(t);
      const runs = readNumbers(toks);
      return [...runs.map((run) => run.map((g) => g.digits)), ...correctedRuns(toks, runs)];
    });
  }

  hasEmail(value: string): boolean {
    const target = value.trim().toLowerCase();
    if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(target)) return false;
    return this.emailStreamsCache.some((s) => streamSpells(s, target));
  }

  hasPhone(value: string): boolean {
    const candidates = phoneCandidates(value);
    return candidates.some((c) => this.phoneRuns.some((run) => streamSpells(run, c)));
  }

  hasDatetime(value: string): boolean {
    this.evidence ??= dayTimeEvidence(this.texts, this.recordedAt);
    return datetimeGrounded(value, this.evidence);
  }
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Drops emails, phone numbers and date/times of action-item intentMetadata that the transcript
 * does not support, and sourceSegmentIds that are not segments of the transcript. Does not mutate
 * its input. `recordedAt` (ISO) anchors relative dates; without it the current time is used.
 */
export function groundAnalysis(a: Analysis, transcript: Transcript, recordedAt?: string): GroundingResult {
  const analysis = structuredClone(a);
  const violations: GroundingViolation[] = [];

  filterSegmentIds(analysis, new Set(transcript.segments.map((s) => s.id)), (path, value) => violations.push({ path, kind: 'segment', value }));

  const ev = new TranscriptEvidence(
    transcript.segments.map((s) => s.text),
    recordedAt,
    // the speakers' names, for an address's word heard for one of them
    speakerNameWords(transcript.speakers),
  );

  (analysis.actionItems ?? []).forEach((item, i) => {
    const md = item.intentMetadata as Obj | null | undefined;
    if (!isObj(md)) return;
    const base = `/actionItems/${i}/intentMetadata`;
    const check = (key: string, kind: GroundingViolationKind, ok: (v: string) => boolean) => {
      const v = md[key];
      if (typeof v !== 'string') return;
      if (v.trim() === '' || !ok(v)) {
        md[key] = null;
        if (v.trim() !== '') violations.push({ path: `${base}/${key}`, kind, value: v });
      }
    };
    check('toEmail', 'email', (v) => ev.hasEmail(v));
    check('phoneNumber', 'phone', (v) => ev.hasPhone(v));
    check('proposedAt', 'datetime', (v) => ev.hasDatetime(v));
    check('remindAt', 'datetime', (v) => ev.hasDatetime(v));
    if (Array.isArray(md.attendees)) {
      const kept: unknown[] = [];
      md.attendees.forEach((att, k) => {
        if (!isObj(att)) return;
        const email = att.email;
        if (typeof email === 'string' && email.trim() !== '' && !ev.hasEmail(email)) {
          violations.push({ path: `${base}/attendees/${k}/email`, kind: 'email', value: email });
          att.email = null;
        }
        // An attendee whose only identification was an invented address identifies nobody.
        const hasName = typeof att.name === 'string' && att.name.trim() !== '';
        if (hasName || (typeof att.email === 'string' && att.email.trim() !== '')) kept.push(att);
      });
      md.attendees = kept;
    }
  });

  return { analysis, violations };
}

/**
 * The spec: intentMetadata.phoneNumber is set "only when different from the current call's
 * number". Removes it (in place) when it is the call's own number; returns how many were removed.
 */
export function dropCurrentCallNumber(a: Analysis, callPhoneNumber: string | null | undefined): number {
  if (!callPhoneNumber) return 0;
  const own = new Set(phoneCandidates(callPhoneNumber));
  if (own.size === 0) return 0;
  let n = 0;
  for (const item of a.actionItems ?? []) {
    const md = item.intentMetadata;
    if (!md || typeof md.phoneNumber !== 'string') continue;
    if (phoneCandidates(md.phoneNumber).some((c) => own.has(c))) {
      md.phoneNumber = null;
      n++;
    }
  }
  return n;
}

// Fuzz of dictated details (session 24). Builds short two-party calls from templates in which one
// speaker dictates an e-mail address, a phone number, an amount, a day or a clock time (spelled
// letters, "dot", "underscore", "double five", "half two", corrections "no sorry, it's ..."), mixed
// with distractors (account and reference numbers, postcodes, ages, counts, years), runs the embedded
// analyzer on each call in the exact-text form and in the recogniser's form (lower case, no
// punctuation, "$40" as "40 dollars", as bench/analysis-heldout.ts's `words` tier), and reports
//   - every grounding violation (a cited detail nobody said), and
//   - every detail rebuilt WRONG against the template's truth (an address, number, amount, day or
//     time that differs from the one dictated; a distractor taken for a phone number or an amount).
// Misses (a detail not extracted at all) are counted apart: they are recall, not correctness.
// No dialogue of bench/dialogues is read. Fixed seed: the same run every time.
//
//   npx tsx bench/fuzz-grounding.ts                 # (300 + 300) calls x 2 forms, summary by class
//   npx tsx bench/fuzz-grounding.ts --suite s25 --n 600 --seed25 7 --out DIR --verbose
import fs from 'node:fs';
import path from 'node:path';
import type { Analysis, AnalysisContext } from '../src/domain/analysis.js';
import { cleanTextOf, type Transcript } from '../src/domain/transcript.js';
import { buildAnalysis, groundingViolations } from '../src/pipeline/analysis/embedded/index.js';
import { finalizeAnalysis } from '../src/pipeline/analysis/finalize.js';
import { formatSegmentText } from '../src/pipeline/normalize.js';

const arg = (name: string, def: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : def;
};
const N = Number(arg('--n', '300'));
let seed = Number(arg('--seed', '24'));
const OUT = arg('--out', '/work/main/.cache/dbg/s24-grounding');
const VERBOSE = process.argv.includes('--verbose');

function rnd(): number {
  // mulberry32
  seed = (seed + 0x6d2b79f5) | 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
const chance = (p: number) => rnd() < p;

const RECORDED_AT = '2025-06-11T16:05:00Z'; // a Wednesday
const NAMES: Array<[string, string]> = [
  ['Dana Pike', 'Tom Reyes'], ['Priya Shah', 'Marcus Hill'], ['Helen Ward', 'Sam Osei'], ['Omar Haddad', 'Lucy Grant'], ['Kate Moss', 'Raj Patel'],
];

// ------------------------------------------------------------------------------------ spoken forms
const UNIT_W = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];
const TEEN_W = ['ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen'];
const TENS_W = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];
function words(n: number): string {
  if (n < 10) return UNIT_W[n];
  if (n < 20) return TEEN_W[n - 10];
  if (n < 100) return TENS_W[Math.floor(n / 10)] + (n % 10 ? ` ${UNIT_W[n % 10]}` : '');
  if (n < 1000) return `${UNIT_W[Math.floor(n / 100)]} hundred${n % 100 ? ` and ${words(n % 100)}` : ''}`;
  return `${words(Math.floor(n / 1000))} thousand${n % 1000 ? ` ${n % 1000 < 100 ? 'and ' : ''}${words(n % 1000)}` : ''}`;
}
const ORD = ['', 'first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth', 'ninth', 'tenth', 'eleventh', 'twelfth', 'thirteenth', 'fourteenth', 'fifteenth', 'sixteenth', 'seventeenth', 'eighteenth', 'nineteenth', 'twentieth'];
const ordinal = (n: number) => (n <= 20 ? ORD[n] : n === 30 ? 'thirtieth' : `${TENS_W[Math.floor(n / 10)]} ${ORD[n % 10]}`);

/** Digits read one by one, "oh" or "zero" for 0, "double"/"triple" for runs (sometimes). */
function sayDigits(d: string, style: { oh: boolean; repeats: boolean }): string {
  const out: string[] = [];
  for (let i = 0; i < d.length; ) {
    let run = 1;
    while (i + run < d.length && d[i + run] === d[i]) run++;
    const w = d[i] === '0' ? (style.oh ? 'oh' : 'zero') : UNIT_W[Number(d[i])];
    if (style.repeats && run >= 3) (out.push(`triple ${w}`), (i += 3));
    else if (style.repeats && run === 2) (out.push(`double ${w}`), (i += 2));
    else (out.push(w), i++);
  }
  return out.join(' ');
}
const digitsOf = (n: number, len: number) => Array.from({ length: len }, () => String(Math.floor(rnd() * 10))).join('').replace(/^./, String(n));

// ------------------------------------------------------------------------------------ details
interface Truth {
  email?: string; phone?: string; amount?: number; currency?: string; days?: string[]; times?: string[]; distractors: string[];
  /** No address need be given (with `email`: only that one may be); a miss is not counted. */
  noEmail?: boolean;
  /** A day said that the analyzer cannot place ("Thanksgiving"): no day may be given for it. */
  noDay?: boolean;
}
interface Spoken { text: string; truth: Partial<Truth>; cls?: string }

const FIRST = ['tom', 'priya', 'sam', 'lucy', 'marcus', 'anna', 'joe', 'kim', 'ben', 'zoe'];
const LAST = ['reyes', 'shah', 'hill', 'grant', 'osei', 'patel', 'ward', 'lee', 'fox', 'king'];
const DOMAIN: Array<[string, string]> = [
  ['gmail dot com', 'gmail.com'], ['hotmail dot co dot uk', 'hotmail.co.uk'], ['outlook dot com', 'outlook.com'], ['acme dot co dot uk', 'acme.co.uk'],
  ['mail dot brightwater dot com', 'mail.brightwater.com'], ['north dash star dot org', 'north-star.org'], ['yahoo dot com', 'yahoo.com'], ['harbour lettings dot co dot uk', 'harbourlettings.co.uk'],
];
function emailLocal(names: ReadonlySet<string>): [string, string] {
  const f = pick(FIRST), l = pick(LAST);
  switch (Math.floor(rnd() * 7)) {
    case 0: return [`${f} dot ${l}`, `${f}.${l}`];
    case 1: return [`${f} underscore ${l}`, `${f}_${l}`];
    case 2: return [`${f} dash ${l}`, `${f}-${l}`];
    case 3: return [`${f} ${l}`, names.has(f) && names.has(l) ? `${f}${l}` : ''];  // '': no address (see the session 25 note)
    case 4: { const n = 10 + Math.floor(rnd() * 89); return [`${f} ${words(n)}`, `${f}${n}`]; }
    case 5: return [`${f.split('').join(' ')}`, f];
    default: return [`${f[0]} ${l}`, `${f[0]}${l}`];
  }
}
function email(names: ReadonlySet<string>): Spoken {
  const [ls, lw] = emailLocal(names);
  const [ds, dw] = pick(DOMAIN);
  let text = `${ls} at ${ds}`;
  let truth = lw ? `${lw}@${dw}` : '';
  if (chance(0.25)) {
    const [ls2, lw2] = emailLocal(names);
    const [ds2, dw2] = pick(DOMAIN);
    const cue = pick(['no sorry, it is', 'no wait, it is', 'actually, make that', 'sorry, I mean']);
    text = `${text}, ${cue} ${ls2} at ${ds2}`;
    truth = lw2 ? `${lw2}@${dw2}` : '';
  }
  return { text, truth: truth ? { email: truth } : { noEmail: true } };
}
function phone(): Spoken {
  const style = { oh: chance(0.6), repeats: chance(0.5) };
  const kind = Math.floor(rnd() * 4);
  let groups: string[];
  if (kind === 0) groups = ['07' + digitsOf(7, 3), digitsOf(1 + Math.floor(rnd() * 9), 3), digitsOf(1 + Math.floor(rnd() * 9), 3)]; // UK mobile 07xxx xxx xxx
  else if (kind === 1) groups = ['0' + pick(['161', '113', '121', '117']), digitsOf(2 + Math.floor(rnd() * 7), 3), digitsOf(1 + Math.floor(rnd() * 9), 4)];
  else if (kind === 2) groups = [pick(['415', '212', '617', '303']), digitsOf(2 + Math.floor(rnd() * 7), 3), digitsOf(Math.floor(rnd() * 10), 4)];
  else groups = ['020', digitsOf(7, 4), digitsOf(Math.floor(rnd() * 10), 4)];
  let text = groups.map((g) => sayDigits(g, style)).join(', ');
  let truth = groups.join('');
  if (chance(0.2)) {
    // the last group corrected
    const last = digitsOf(1 + Math.floor(rnd() * 9), groups.at(-1)!.length);
    text = `${text}, ${pick(['no sorry,', 'sorry, no,', 'no wait,'])} ${sayDigits(last, style)}`;
    truth = groups.slice(0, -1).join('') + last;
  }
  if (chance(0.2)) text = `${text}, extension ${words(10 + Math.floor(rnd() * 80))}`;
  return { text, truth: { phone: truth } };
}
function amount(): Spoken {
  const k = Math.floor(rnd() * 9);
  const n = 2 + Math.floor(rnd() * 8);
  switch (k) {
    case 0: return { text: `${words(n)} fifty pounds`, truth: { amount: n * 100 + 50 } };
    case 1: return { text: `a hundred and ${words(10 + n * 5)} quid`, truth: { amount: 110 + n * 5 } };
    case 2: return { text: `$${n},${n}00`, truth: { amount: n * 1000 + n * 100 } };
    case 3: return { text: `one point five k`, truth: { amount: 1500 } };
    case 4: return { text: `${words(10 + n)} hundred dollars`, truth: { amount: (10 + n) * 100 } };
    case 5: return { text: `${words(n)} grand`, truth: { amount: n * 1000 } };
    case 6: return { text: `£${n * 45}`, truth: { amount: n * 45 } };
    case 7: return { text: `${words(n * 11)} pounds ${words(n * 5)}`, truth: { amount: n * 11 + (n * 5) / 100 } };
    default: return { text: `${words(n * 100 + 25)} dollars`, truth: { amount: n * 100 + 25 } };
  }
}
// Days relative to Wednesday 11 June 2025.
function day(): Spoken {
  switch (Math.floor(rnd() * 9)) {
    case 0: return { text: 'the twenty first', truth: { days: ['2025-06-21'] } };
    case 1: return { text: 'next Tuesday', truth: { days: ['2025-06-17', '2025-06-24'] } };
    case 2: return { text: 'Tuesday week', truth: { days: ['2025-06-24'] } };
    case 3: return { text: 'the end of the month', truth: { days: ['2025-06-30'] } };
    case 4: return { text: 'Friday the thirteenth', truth: { days: ['2025-06-13'] } };
    case 5: return { text: 'the third of July', truth: { days: ['2025-07-03'] } };
    case 6: return { text: 'tomorrow', truth: { days: ['2025-06-12'] } };
    case 7: return { text: 'Monday the sixteenth', truth: { days: ['2025-06-16'] } };
    default: return { text: 'this Friday', truth: { days: ['2025-06-13'] } };
  }
}
function time(): Spoken {
  switch (Math.floor(rnd() * 10)) {
    case 0: return { text: 'half two', truth: { times: ['14:30'] } };
    case 1: return { text: 'quarter to nine', truth: { times: ['08:45', '20:45'] } };
    case 2: return { text: 'noon', truth: { times: ['12:00'] } };
    case 3: return { text: 'eight fifteen, no, eight', truth: { times: ['08:00', '20:00'] } };
    case 4: return { text: 'ten thirty', truth: { times: ['10:30', '22:30'] } };
    case 5: return { text: 'three p.m.', truth: { times: ['15:00'] } };
    case 6: return { text: 'half past four', truth: { times: ['16:30', '04:30'] } };
    case 7: return { text: 'quarter past eleven', truth: { times: ['11:15', '23:15'] } };
    case 8: return { text: 'nine, sorry, ten', truth: { times: ['10:00', '22:00'] } };
    default: return { text: 'two forty five', truth: { times: ['14:45', '02:45'] } };
  }
}
function distractor(): Spoken {
  const n = 3 + Math.floor(rnd() * 6);
  switch (Math.floor(rnd() * 8)) {
    case 0: { const d = digitsOf(n, 8); return { text: `My account number is ${sayDigits(d, { oh: false, repeats: false })}.`, truth: { distractors: [d] } }; }
    case 1: return { text: `The postcode is S W one A, two A A.`, truth: { distractors: [] } };
    case 2: { const d = digitsOf(n, 6); return { text: `The reference number is A B ${d}.`, truth: { distractors: [d] } }; }
    case 3: return { text: `I am ${words(30 + n)} years old, if that matters.`, truth: { distractors: [String(30 + n)] } };
    case 4: return { text: `We have got ${words(n)} kids and ${words(n + 2)} dogs.`, truth: { distractors: [String(n), String(n + 2)] } };
    case 5: return { text: `We have been with you since ${pick(['2019', 'twenty nineteen', 'two thousand and eighteen'])}.`, truth: { distractors: ['2019', '2018'] } };
    case 6: { const d = digitsOf(n, 5); return { text: `The order number is ${d}.`, truth: { distractors: [d] } }; }
    default: return { text: `It is flat ${words(n + 10)}, ${words(n * 7)} Mill Road.`, truth: { distractors: [String(n + 10), String(n * 7)] } };
  }
}

// ------------------------------------------------------------------------------------ session 25 classes
// American, British, Australian and Irish forms the session 24 templates did not have, e-mail local
// parts of two words, with digits or hyphens, corrections over two turns, and distractors with
// letters and digits. Each template names its class, and findings are counted by class as well.
//
// Two plain words before "at" ("it is tom ward at yahoo dot com"): the speaker did not say where the
// address starts. ward@ mails a stranger, tomward@ and tom.ward@ are guesses; a user expects no
// address rather than a wrong one (noEmail: any address given is WRONG, none is no miss). Where
// the speaker says it is one word ("all one word") or both words are names of people in the call
// ("tom reyes" on a call with Tom Reyes), the words run together are the truth. A correction over
// two turns that says only the local part again ("Sorry, no, j dot smith") may give the corrected
// address or none, never the one taken back.
function us_phone(): Spoken {
  const area = pick(['555', '212', '415', '617', '303', '786']);
  const mid = digitsOf(2 + Math.floor(rnd() * 7), 3);
  const last = digitsOf(Math.floor(rnd() * 10), 4);
  const style = { oh: chance(0.5), repeats: false };
  switch (Math.floor(rnd() * 4)) {
    case 0: return { cls: 'us-phone-area-code', text: `area code ${sayDigits(area, style)}, ${sayDigits(mid, style)}, ${sayDigits(last, style)}`, truth: { phone: area + mid + last } };
    case 1: return { cls: 'us-phone-written', text: `(${area}) ${mid}-${last}`, truth: { phone: area + mid + last } };
    case 2: return { cls: 'us-phone-extension', text: `${sayDigits(area, style)}, ${sayDigits(mid, style)}, ${sayDigits(last, style)}, extension ${sayDigits(digitsOf(2, 3), style)}`, truth: { phone: area + mid + last } };
    default: { const tf = pick(['800', '888', '877']); return { cls: 'us-phone-toll-free', text: `one ${tf === '800' ? 'eight hundred' : sayDigits(tf, style)}, ${sayDigits(mid, style)}, ${sayDigits(last, style)}`, truth: { phone: tf + mid + last } }; }
  }
}
function intl_phone(): Spoken {
  const style = { oh: true, repeats: chance(0.4) };
  if (chance(0.5)) { const g = ['04' + digitsOf(1 + Math.floor(rnd() * 9), 2), digitsOf(1 + Math.floor(rnd() * 9), 3), digitsOf(1 + Math.floor(rnd() * 9), 3)]; return { cls: 'au-mobile', text: g.map((x) => sayDigits(x, style)).join(' '), truth: { phone: g.join('') } }; }
  const g = ['08' + pick(['3', '5', '6', '7']), digitsOf(1 + Math.floor(rnd() * 9), 3), digitsOf(1 + Math.floor(rnd() * 9), 4)];
  return { cls: 'ie-mobile', text: g.map((x) => sayDigits(x, style)).join(', '), truth: { phone: g.join('') } };
}
function amount25(): Spoken {
  const n = 2 + Math.floor(rnd() * 8);
  switch (Math.floor(rnd() * 8)) {
    case 0: return { cls: 'usd-written-thousands', text: `$1,${n}00`, truth: { amount: 1000 + n * 100, currency: 'USD' } };
    case 1: return { cls: 'usd-twelve-hundred', text: `${words(10 + n)} hundred dollars`, truth: { amount: (10 + n) * 100, currency: 'USD' } };
    case 2: return { cls: 'usd-a-buck-fifty', text: pick(['a buck fifty', 'a buck and a half']), truth: { amount: 1.5, currency: 'USD' } };
    case 3: return { cls: 'usd-hundred-bucks', text: `${words(10 + n)} hundred bucks`, truth: { amount: (10 + n) * 100, currency: 'USD' } };
    case 4: return { cls: 'gbp-point-five-k', text: `${words(n)} point five k`, truth: { amount: n * 1000 + 500 } };
    case 5: return { cls: 'gbp-grand', text: `${words(n)} grand`, truth: { amount: n * 1000 } };
    case 6: return { cls: 'eur-euro', text: `${words(n * 10)} euro`, truth: { amount: n * 10, currency: 'EUR' } };
    default: return { cls: 'usd-written-cents', text: `$${n}.${n}0`, truth: { amount: n + n / 10, currency: 'USD' } };
  }
}
// Days relative to Wednesday 11 June 2025.
function day25(): Spoken {
  switch (Math.floor(rnd() * 6)) {
    case 0: return { cls: 'us-date-slash', text: '11/14', truth: { days: ['2025-11-14'] } };
    case 1: return { cls: 'us-date-month-ordinal', text: 'November fourteenth', truth: { days: ['2025-11-14'] } };
    case 2: return { cls: 'date-the-ordinal', text: 'the fourteenth', truth: { days: ['2025-06-14'] } };
    case 3: return { cls: 'date-named-holiday', text: pick(['Thanksgiving', 'Labor Day', 'Boxing Day', 'Easter Monday', 'Black Friday']), truth: { noDay: true } };
    case 4: return { cls: 'uk-weekday-week', text: 'Thursday week', truth: { days: ['2025-06-19'] } }; // said on a Wednesday: the Thursday after tomorrow's
    default: return { cls: 'us-date-month-day', text: 'July 3rd', truth: { days: ['2025-07-03'] } };
  }
}
function time25(): Spoken {
  switch (Math.floor(rnd() * 6)) {
    case 0: return { cls: 'time-five-fifty', text: 'five fifty', truth: { times: ['17:50', '05:50'] } };
    case 1: return { cls: 'us-time-quarter-of', text: 'a quarter of five', truth: { times: ['16:45', '04:45'] } };
    case 2: return { cls: 'time-noon', text: pick(['noon', '12 noon', 'midday']), truth: { times: ['12:00'] } };
    case 3: return { cls: 'us-time-a-m-spelled', text: 'eleven thirty a m', truth: { times: ['11:30'] } };
    case 4: return { cls: 'uk-time-half-two', text: 'half two', truth: { times: ['14:30'] } };
    default: return { cls: 'us-time-written', text: '4:15 p.m.', truth: { times: ['16:15'] } };
  }
}
function email25(names: ReadonlySet<string>): { first: string; second?: string; truth: Partial<Truth>; cls: string } {
  const f = pick(FIRST), l = pick(LAST);
  const [ds, dw] = pick(DOMAIN);
  switch (Math.floor(rnd() * 6)) {
    case 0: return { cls: 'email-two-words', first: `${f} ${l} at ${ds}`, truth: names.has(f) && names.has(l) ? { email: `${f}${l}@${dw}` } : { noEmail: true } };
    case 1: return { cls: 'email-two-words-one-word', first: `${f} ${l}, all one word, at ${ds}`, truth: { email: `${f}${l}@${dw}` } };
    case 2: { const n = 10 + Math.floor(rnd() * 89); return { cls: 'email-digits', first: `${f[0]}${l} ${words(n)} at ${ds}`, truth: { email: `${f[0]}${l}${n}@${dw}` } }; }
    case 3: return { cls: 'email-dash', first: `${f} dash ${l} at ${ds}`, truth: { email: `${f}-${l}@${dw}` } };
    case 4: return { cls: 'email-correction-two-turns', first: `${f[0]} ${l} at ${ds}`, second: `Sorry, ${f[0]} dot ${l}. ${f[0]} dot ${l} at ${ds}.`, truth: { email: `${f[0]}.${l}@${dw}` } };
    default: return { cls: 'email-correction-local-only', first: `${f[0]} ${l} at ${ds}`, second: `Sorry, no, ${f[0]} dot ${l}.`, truth: { email: `${f[0]}.${l}@${dw}`, noEmail: true } };
  }
}
function distractor25(): Spoken {
  const n = 3 + Math.floor(rnd() * 6);
  switch (Math.floor(rnd() * 8)) {
    case 0: { const d = digitsOf(n, 7); return { cls: 'dis-claim-letters', text: `My claim number is C L ${sayDigits(d, { oh: false, repeats: false })}.`, truth: { distractors: [d] } }; }
    case 1: { const d = digitsOf(n, 8); return { cls: 'dis-policy-written', text: `The policy number is PX${d}.`, truth: { distractors: [d] } }; }
    case 2: { const d = digitsOf(n, 6); return { cls: 'dis-confirmation', text: `Your confirmation number is ${d.slice(0, 3)} ${d.slice(3)} K Q.`, truth: { distractors: [d] } }; }
    case 3: return { cls: 'dis-flight', text: `I am on flight ${pick(['B A', 'U A', 'E I'])} ${words(200 + n * 37)}.`, truth: { distractors: [String(200 + n * 37)] } };
    case 4: return { cls: 'dis-percent', text: `There is a ${words(n * 5)} percent discount, or ${n}.5% on the plan.`, truth: { distractors: [String(n * 5), `${n}.5`] } };
    case 5: return { cls: 'dis-zip', text: `My zip code is ${sayDigits(`9${digitsOf(n, 4)}`, { oh: true, repeats: false })}.`, truth: { distractors: [] } };
    case 6: return { cls: 'dis-quantity-age-year', text: `My son is ${words(n + 4)}, we bought ${words(n * 12)} boxes in ${pick(['1998', 'nineteen ninety eight'])}.`, truth: { distractors: [String(n + 4), String(n * 12), '1998'] } };
    default: { const d = digitsOf(n, 10); return { cls: 'dis-long-account', text: `The account number is ${sayDigits(d, { oh: true, repeats: false })}.`, truth: { distractors: [d] } }; }
  }
}

// ------------------------------------------------------------------------------------ calls
type Turn = [0 | 1, string];
interface Case { id: string; kind: string; turns: Turn[]; truth: Truth; names: [string, string]; classes: string[] }

function makeCase(i: number): Case {
  const names = pick(NAMES);
  const [u, c] = [names[0].split(' ')[0], names[1].split(' ')[0]];
  const kind = pick(['email', 'phone', 'amount', 'meeting', 'callback', 'mixed']);
  const truth: Truth = { distractors: [] };
  const turns: Turn[] = [[0, `Hi ${c}, it is ${u} from ${pick(['the garage', 'Brightwater Lettings', 'the clinic', 'the surgery'])}.`], [1, `Hi ${u}, thanks for calling back.`]];
  const addDistractor = () => {
    if (!chance(0.6)) return;
    const d = distractor();
    truth.distractors.push(...(d.truth.distractors ?? []));
    turns.push([1, d.text]);
    turns.push([0, pick(['Got it.', 'Okay, noted.', 'Thanks.'])]);
  };
  addDistractor();
  const merge = (s: Spoken) => Object.assign(truth, s.truth);
  if (kind === 'email' || kind === 'mixed') {
    const e = email(new Set(names.flatMap((n) => n.toLowerCase().split(' '))));
    merge(e);
    turns.push([0, `Can I email you the ${pick(['quote', 'invoice', 'form', 'details'])}? What is the best address?`]);
    turns.push([1, `${pick(['Yes please, it is', 'Sure, send it to', 'It is'])} ${e.text}.`]);
    turns.push([0, `Great, I will email it over ${pick(['today', 'this afternoon', 'later'])}.`]);
  }
  if (kind === 'phone' || kind === 'mixed' || kind === 'callback') {
    const p = phone();
    merge(p);
    turns.push([1, `Can you call me back? ${pick(['My number is', 'You can reach me on', 'The best number is'])} ${p.text}.`]);
    turns.push([0, `Okay, I will call you back ${pick(['later today', 'this afternoon', 'in an hour'])}.`]);
  }
  if (kind === 'amount' || kind === 'mixed') {
    const a = amount();
    merge(a);
    turns.push([0, `${pick(['The total comes to', 'The quote is', 'It will cost'])} ${a.text}.`]);
    turns.push([1, `Okay, ${pick(['that is fine', 'go ahead', 'I will pay that'])}. Please send me the invoice.`]);
    turns.push([0, 'I will send the invoice today.']);
  }
  if (kind === 'meeting' || kind === 'callback' || kind === 'mixed') {
    const d = day();
    const t = time();
    const withTime = chance(0.8);
    merge(d);
    if (withTime) merge(t);
    turns.push([0, `Can we ${pick(['meet', 'book a meeting', 'have a call'])} ${d.text}${withTime ? ` at ${t.text}` : ''}?`]);
    turns.push([1, `Yes, ${d.text}${withTime ? ` at ${t.text}` : ''} works. Please send me an invite.`]);
    turns.push([0, 'I will send the invite now.']);
  }
  addDistractor();
  turns.push([1, 'Thanks, bye.']);
  return { id: `f${String(i).padStart(4, '0')}`, kind, turns, truth, names, classes: [`s24-${kind}`] };
}

/** A call of the session 25 classes: one dictated detail or two, and distractors. */
function makeCase25(i: number): Case {
  const names = pick(NAMES);
  const [u, c] = [names[0].split(' ')[0], names[1].split(' ')[0]];
  const nameWords = new Set(names.flatMap((n) => n.toLowerCase().split(' ')));
  const kind = pick(['email', 'phone', 'amount', 'meeting', 'callback', 'mixed']);
  const truth: Truth = { distractors: [] };
  const classes: string[] = [];
  const turns: Turn[] = [[0, `Hi ${c}, it is ${u} from ${pick(['the garage', 'Brightwater Lettings', 'the clinic', 'the surgery'])}.`], [1, `Hi ${u}, thanks for calling back.`]];
  const addDistractor = () => {
    if (!chance(0.7)) return;
    const d = distractor25();
    classes.push(d.cls!);
    truth.distractors.push(...(d.truth.distractors ?? []));
    turns.push([1, d.text]);
    turns.push([0, pick(['Got it.', 'Okay, noted.', 'Thanks.'])]);
  };
  const merge = (s: Spoken) => (classes.push(s.cls!), Object.assign(truth, s.truth));
  addDistractor();
  if (kind === 'email' || kind === 'mixed') {
    const e = email25(nameWords);
    classes.push(e.cls);
    Object.assign(truth, e.truth);
    turns.push([0, `Can I email you the ${pick(['quote', 'invoice', 'form', 'details'])}? What is the best address?`]);
    turns.push([1, `${pick(['Yes please, it is', 'Sure, send it to', 'It is'])} ${e.first}.`]);
    if (e.second) {
      turns.push([0, 'Okay.']);
      turns.push([1, e.second]);
    }
    turns.push([0, `Great, I will email it over ${pick(['today', 'this afternoon', 'later'])}.`]);
  }
  if (kind === 'phone' || kind === 'mixed' || kind === 'callback') {
    const p = chance(0.6) ? us_phone() : intl_phone();
    merge(p);
    turns.push([1, `Can you call me back? ${pick(['My number is', 'You can reach me on', 'The best number is'])} ${p.text}.`]);
    turns.push([0, `Okay, I will call you back ${pick(['later today', 'this afternoon', 'in an hour'])}.`]);
  }
  if (kind === 'amount' || kind === 'mixed') {
    const a = amount25();
    merge(a);
    turns.push([0, `${pick(['The total comes to', 'The quote is', 'It will cost'])} ${a.text}.`]);
    turns.push([1, `Okay, ${pick(['that is fine', 'go ahead', 'I will pay that'])}. Please send me the invoice.`]);
    turns.push([0, 'I will send the invoice today.']);
  }
  if (kind === 'meeting' || kind === 'callback' || kind === 'mixed') {
    const d = day25();
    const t = time25();
    const withTime = chance(0.8);
    merge(d);
    if (withTime) merge(t);
    turns.push([0, `Can we ${pick(['meet', 'book a meeting', 'have a call'])} ${d.text === '11/14' ? 'on ' : ''}${d.text}${withTime ? ` at ${t.text}` : ''}?`]);
    turns.push([1, `Yes, ${d.text}${withTime ? ` at ${t.text}` : ''} works. Please send me an invite.`]);
    turns.push([0, 'I will send the invite now.']);
  }
  addDistractor();
  turns.push([1, 'Thanks, bye.']);
  return { id: `g${String(i).padStart(4, '0')}`, kind, turns, truth, names, classes };
}

function transcriptOf(turns: Turn[], names: [string, string], form: 'text' | 'words'): Transcript {
  let t = 0.3;
  const segments = turns.map(([sp, raw], i) => {
    const text = form === 'text' ? raw : formatSegmentText(recognisedForm(raw));
    const dur = text.split(/\s+/).length / 2.6;
    const seg = {
      id: `seg_${String(i + 1).padStart(4, '0')}`, speaker: `spk_${sp + 1}`, speakerLabel: names[sp], speakerDisplayName: names[sp], speakerId: `spk_${sp + 1}`,
      sourceSpeakerId: `S${sp}`, role: sp === 0 ? ('USER' as const) : ('CONTACT' as const), startSeconds: t, endSeconds: t + dur, text, alignmentConfidence: 'HIGH' as const,
    };
    t += dur + 0.5;
    return seg;
  });
  return {
    schemaVersion: 2, callId: '6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f', language: 'en', durationSeconds: Math.round(t), cleanText: cleanTextOf(segments),
    speakers: names.map((n, i) => ({ speakerId: `spk_${i + 1}`, sourceSpeakerId: `S${i}`, label: n, displayName: n, role: i === 0 ? ('USER' as const) : ('CONTACT' as const), confidence: 'HIGH' as const, labelSource: 'MANUAL' as const, voiceMatchScore: null, voiceProfileMatched: null })),
    segments,
    speakerResolution: { strategyVersion: 2, usedUserDisplayName: true, usedContactName: true, usedDirection: true, usedPhoneFallback: false, voiceEmbeddingEnabled: false, voiceProfileUsed: false, voiceMatchStatus: 'DISABLED', totalSpeakerCount: 2, resolvedSpeakerCount: 2, warnings: [] },
    pipeline: { transcriptionProvider: 'fuzz', transcriptionModel: 'fuzz', diarizationProvider: 'fuzz', diarizationModel: 'fuzz', alignmentVersion: '1', normalizationVersion: 3, status: 'COMPLETED' },
    createdAt: RECORDED_AT,
  };
}
/** As bench/analysis-heldout.ts's words tier. */
function recognisedForm(text: string): string[] {
  return text.toLowerCase().replace(/([$£€])(\d[\d,.]*)/g, (_, sign: string, n: string) => `${n} ${sign === '£' ? 'pounds' : sign === '€' ? 'euros' : 'dollars'}`).replace(/[^a-z0-9']+/g, ' ').split(' ').filter(Boolean);
}

// ------------------------------------------------------------------------------------ checks
interface Finding { cls: string; detail: string }
const digits = (s: string) => s.replace(/\D/g, '');
function phoneMatches(got: string, truth: string): boolean {
  const g = digits(got), t = digits(truth).replace(/^0/, '');
  return g.endsWith(t) && g.length - t.length <= 3;
}

function check(c: Case, a: Analysis, violations: ReturnType<typeof groundingViolations>): { findings: Finding[]; misses: string[] } {
  const findings: Finding[] = [];
  const misses: string[] = [];
  for (const v of violations) findings.push({ cls: `violation:${v.kind}`, detail: `${v.path} = ${v.value}` });
  const items = a.actionItems ?? [];
  const emails = items.flatMap((it) => [it.intentMetadata?.toEmail, ...(it.intentMetadata?.attendees ?? []).map((x) => x.email)]).filter((x): x is string => !!x);
  for (const e of emails) if (!c.truth.email || e.toLowerCase() !== c.truth.email) findings.push({ cls: 'wrong:email', detail: `${e} (said ${c.truth.email ?? (c.truth.noEmail ? 'no one address' : 'none')})` });
  if (c.truth.email && !c.truth.noEmail && !emails.length) misses.push('email');
  const phones = [
    ...items.map((it) => it.intentMetadata?.phoneNumber).filter((x): x is string => !!x),
    ...((a.numbersAndAmounts ?? []) as Array<Record<string, unknown>>).filter((x) => x.kind === 'phone').map((x) => String(x.value)),
  ];
  for (const p of new Set(phones)) {
    if (c.truth.phone && phoneMatches(p, c.truth.phone)) continue;
    if (digits(p) === '442079460000' || digits(p) === '15552040000') continue; // the call's own number
    const fromDistractor = c.truth.distractors.some((d) => d.length >= 5 && digits(p).includes(d.slice(1)));
    findings.push({ cls: fromDistractor ? 'wrong:phone-from-distractor' : 'wrong:phone', detail: `${p} (said ${c.truth.phone ?? 'none'})` });
  }
  if (c.truth.phone && !phones.length) misses.push('phone');
  const amounts = ((a.numbersAndAmounts ?? []) as Array<Record<string, unknown>>).filter((x) => x.kind === 'amount');
  for (const x of amounts) {
    if (c.truth.amount !== undefined && Math.abs(Number(x.value) - c.truth.amount) < 0.001) continue;
    findings.push({ cls: c.truth.distractors.includes(String(x.value)) ? 'wrong:amount-from-distractor' : 'wrong:amount', detail: `${x.value} ${x.currency} "${x.text}" (said ${c.truth.amount ?? 'none'})` });
  }
  if (c.truth.currency) for (const x of amounts) if (x.currency && x.currency !== c.truth.currency) findings.push({ cls: 'wrong:currency', detail: `${x.value} ${x.currency} (said ${c.truth.currency})` });
  if (c.truth.amount !== undefined && !amounts.length) misses.push('amount');
  for (const [i, it] of items.entries()) {
    const md = it.intentMetadata ?? {};
    for (const key of ['proposedAt', 'remindAt'] as const) {
      const v = md[key];
      if (!v) continue;
      const dayPart = v.slice(0, 10);
      const timePart = v.length > 10 ? v.slice(11, 16) : null;
      if (c.truth.noDay && dayPart !== RECORDED_AT.slice(0, 10) && it.intent === 'meeting') findings.push({ cls: 'wrong:day-unplaceable', detail: `${key}[${i}] ${v} (said a day the analyzer cannot place)` });
      if (c.truth.days && !c.truth.days.includes(dayPart) && it.intent === 'meeting') findings.push({ cls: 'wrong:day', detail: `${key}[${i}] ${v} (said ${c.truth.days.join('|')})` });
      if (c.truth.times && timePart && !c.truth.times.includes(timePart) && it.intent === 'meeting') findings.push({ cls: 'wrong:time', detail: `${key}[${i}] ${v} (said ${c.truth.times.join('|')})` });
      if (!c.truth.times && timePart && timePart !== '00:00' && it.intent === 'meeting') findings.push({ cls: 'wrong:time-unsaid', detail: `${key}[${i}] ${v}` });
    }
    if (it.intent === 'meeting' && it.dueDate && c.truth.days && !c.truth.days.includes(it.dueDate)) findings.push({ cls: 'wrong:due', detail: `dueDate[${i}] ${it.dueDate} (said ${c.truth.days.join('|')})` });
  }
  if (c.truth.days && !items.some((it) => it.intent === 'meeting' && (it.intentMetadata?.proposedAt || it.dueDate))) misses.push('meeting-day');
  if (c.truth.times && !items.some((it) => it.intent === 'meeting' && (it.intentMetadata?.proposedAt ?? '').length > 10)) misses.push('meeting-time');
  for (const it of items) {
    const who = [it.intentMetadata?.toName, it.intentMetadata?.contactName].filter((x): x is string => !!x);
    for (const w of who) if (!c.names.some((n) => n === w || n.split(' ')[0] === w)) findings.push({ cls: 'wrong:name', detail: `${w}` });
  }
  return { findings, misses };
}

// ------------------------------------------------------------------------------------ run
fs.mkdirSync(OUT, { recursive: true });
const byClass = new Map<string, number>();
const missBy = new Map<string, number>();
const lines: string[] = [];
const byTemplate = new Map<string, [number, number]>(); // class -> [runs, runs with a finding]
let callsWithFinding = 0;
let runs = 0;
// --suite s24: the session 24 templates (seed 24); s25: the session 25 classes (seed 25); all: both
const SUITE = arg('--suite', 'all');
const cases: Case[] = [];
if (SUITE !== 's25') for (let i = 0; i < N; i++) cases.push(makeCase(i));
if (SUITE !== 's24') {
  seed = Number(arg('--seed25', '25'));
  for (let i = 0; i < N; i++) cases.push(makeCase25(i));
}
for (const c of cases) {
  for (const form of ['text', 'words'] as const) {
    runs++;
    const transcript = transcriptOf(c.turns, c.names, form);
    const ctx: AnalysisContext = { userDisplayName: c.names[0], contactName: c.names[1], phoneNumber: '+44 20 7946 0000', direction: 'OUTGOING', recordedAt: RECORDED_AT, title: null };
    let a: Analysis;
    try {
      a = finalizeAnalysis(buildAnalysis(transcript, ctx), transcript);
    } catch (err) {
      byClass.set('crash', (byClass.get('crash') ?? 0) + 1);
      lines.push(`## ${c.id} ${form} crash: ${(err as Error).message}`);
      continue;
    }
    const { findings, misses } = check(c, a, groundingViolations(a, transcript, ctx));
    for (const m of misses) missBy.set(`${form}:${m}`, (missBy.get(`${form}:${m}`) ?? 0) + 1);
    for (const cl of new Set(c.classes)) {
      const r = byTemplate.get(`${form}:${cl}`) ?? [0, 0];
      byTemplate.set(`${form}:${cl}`, [r[0] + 1, r[1] + (findings.length ? 1 : 0)]);
    }
    if (!findings.length && !VERBOSE) continue;
    if (findings.length) callsWithFinding++;
    for (const f of new Set(findings.map((f) => f.cls))) byClass.set(`${form}:${f}`, (byClass.get(`${form}:${f}`) ?? 0) + 1);
    lines.push(`## ${c.id} ${form} (${c.kind}; ${c.classes.join(', ')}) truth ${JSON.stringify(c.truth)}`);
    for (const f of findings) lines.push(`  ${f.cls}: ${f.detail}`);
    for (const s of transcript.segments) lines.push(`  | ${s.role}: ${s.text}`);
  }
}
const summary = [
  `# fuzz-grounding: ${cases.length} calls x 2 forms (suite ${SUITE}, seeds ${arg('--seed', '24')}/${arg('--seed25', '25')}), ${callsWithFinding} runs with a finding`,
  '', '## findings (runs per class)', ...[...byClass].sort().map(([k, v]) => `- ${k}: ${v}`),
  '', '## misses (runs)', ...[...missBy].sort().map(([k, v]) => `- ${k}: ${v}`),
  '', '## template classes with a finding (runs with a finding / runs)', ...[...byTemplate].filter(([, v]) => v[1]).sort().map(([k, v]) => `- ${k}: ${v[1]}/${v[0]}`),
].join('\n');
fs.writeFileSync(path.join(OUT, 'fuzz-findings.md'), `${summary}\n\n${lines.join('\n')}\n`);
console.log(summary);

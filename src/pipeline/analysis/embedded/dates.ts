// Date and time expressions resolved against the call's recording time with chrono-node.
//
// No call states a time zone, so times are wall-clock times on the calendar day of `recordedAt`
// (UTC), and datetimes are written without an offset. chrono is extended with the forms a phone
// call uses that it does not know ("Thursday the 24th", "within five business days", "within the
// hour", "after 4"), and bare weekdays are pointed into the past or the future by the tense of
// the sentence they were said in.
import * as chrono from 'chrono-node';

export interface DateMention {
  /** The expression as it appears in the normalised sentence. */
  text: string;
  /** Character offset of `text` in the normalised sentence. */
  index: number;
  /** `YYYY-MM-DD`, or null when only the month is known. */
  date: string | null;
  /** `YYYY-MM`. */
  month: string;
  /** `HH:MM` when a clock time (or part of day) was said. */
  time: string | null;
  /** True when the time came from an explicit clock time, not a part of day ("evening"). */
  explicitTime: boolean;
  /** `YYYY-MM-DDTHH:MM:SS` when both a day and a time are known. */
  datetime: string | null;
  /** True for an expression that names only a time ("at 11"): its day comes from context. */
  timeOnly: boolean;
  granularity: 'month' | 'day' | 'time';
  /**
   * Days after the day talked about just before, for an expression that names no day of its own:
   * 0 for "that morning" / "that day", -1 for "the day before", 1 for "the day after". Its `date`
   * is the call's day until the call text places it (text.ts).
   */
  anchorOffset?: number;
  /** A day of the month said without its month ("by the 13th"): the month may come from context. */
  dayOfMonthOnly?: boolean;
  /**
   * The event a day is counted from ("inspection" in "the day before the inspection", "move" in
   * "the morning of the move"): `anchorOffset` days from the day that event was said to be on.
   */
  anchorEvent?: string;
  /** An hour said with no "at" ("could we do 11 instead?", "11 works"): a time only after one was offered (text.ts). */
  bareHour?: boolean;
}

const WEEKDAY_INDEX: Record<string, number> = { sunday: 0, monday: 1, tuesday: 2, wednesday: 3, thursday: 4, friday: 5, saturday: 6 };
const pad = (n: number) => String(n).padStart(2, '0');
const ymd = (d: Date) => `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
const addDays = (d: Date, n: number) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + n));

function addBusinessDays(d: Date, n: number): Date {
  let cur = d;
  let left = n;
  while (left > 0) {
    cur = addDays(cur, 1);
    const wd = cur.getUTCDay();
    if (wd !== 0 && wd !== 6) left--;
  }
  return cur;
}

/** Month names, full then short, in calendar order each (index % 12 is the month). */
const MONTH_NAMES = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december', 'jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sept', 'oct', 'nov', 'dec'];

const WORD_NUM: Record<string, number> = { a: 1, an: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10 };

function buildChrono(): chrono.Chrono {
  const c = chrono.casual.clone();
  // "Thursday the 24th", "on the 18th": a day of the month without the month.
  c.parsers.push({
    pattern: () => /\b(?:(monday|tuesday|wednesday|thursday|friday|saturday|sunday),?\s+)?the\s+(\d{1,2})(?:st|nd|rd|th)\b(?!\s+of\b)/i,
    extract: (context, match) => {
      const day = Number(match[2]);
      if (day < 1 || day > 31) return null;
      const ref = context.refDate;
      const wd = match[1] ? WEEKDAY_INDEX[match[1].toLowerCase()] : null;
      // The nearest month in which that day is still ahead (and falls on the weekday said), this month
      // or the next two: "Wednesday the 23rd" said in March when no 23rd until September is a
      // Wednesday is a slip of the weekday or the date, not a plan half a year ahead (the weekday
      // alone is read instead)
      for (let k = 0; k < 3; k++) {
        const d = new Date(Date.UTC(ref.getUTCFullYear(), ref.getUTCMonth() + k, day));
        if (d.getUTCDate() !== day) continue;
        if (k === 0 && day < ref.getUTCDate()) continue;
        if (wd !== null && d.getUTCDay() !== wd) continue;
        const comps: Record<string, number> = { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day };
        if (wd !== null) comps.weekday = wd;
        return comps;
      }
      return null;
    },
  });
  // "March the 3rd" (chrono reads the month alone, and the "the 3rd" above as this month's): that
  // day of that month, the next one from the call
  c.parsers.push({
    pattern: () => new RegExp(`\\b(${MONTH_NAMES.join('|')})\\.?\\s+the\\s+(\\d{1,2})(?:st|nd|rd|th)\\b`, 'i'),
    extract: (context, match) => {
      const month = MONTH_NAMES.indexOf(match[1].toLowerCase()) % 12;
      const day = Number(match[2]);
      const ref = context.refDate;
      for (const year of [ref.getUTCFullYear(), ref.getUTCFullYear() + 1]) {
        const d = new Date(Date.UTC(year, month, day));
        if (d.getUTCDate() !== day) return null;
        if (d.getTime() >= Date.UTC(ref.getUTCFullYear(), ref.getUTCMonth(), ref.getUTCDate()) - 31 * 86_400_000) return { year, month: month + 1, day };
      }
      return null;
    },
  });
  // "within five business days", "within 3 days", "within a week".
  c.parsers.push({
    pattern: () => /\b(?:within|in|takes?|taking)\s+(?:about\s+|around\s+|up to\s+)?(\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten)\s+(business|working)?\s*(days?|weeks?)\b/i,
    extract: (context, match) => {
      const n = /^\d+$/.test(match[1]) ? Number(match[1]) : WORD_NUM[match[1].toLowerCase()];
      const ref = new Date(Date.UTC(context.refDate.getUTCFullYear(), context.refDate.getUTCMonth(), context.refDate.getUTCDate()));
      const weeks = /^week/i.test(match[3]);
      const d = match[2] && !weeks ? addBusinessDays(ref, n) : addDays(ref, weeks ? 7 * n : n);
      return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
    },
  });
  // "within the hour", "in an hour", "right away": later the same day.
  c.parsers.push({
    pattern: () => /\b(within the hour|in (?:an|the next) hour|right away|straight away|asap|as soon as possible|shortly|right now|(?:right |straight )?after (?:this|the) call|(?:right|straight) after this|(?:right |straight )?after we hang up|as soon as we hang up|(?:by |before )?(?:the )?end of (?:the |to)?day(?!,? (?:on |this )?(?:tomorrow|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b)|(?:right |straight )?after this(?=\s*(?:[,.;!?]|$|(?:so|and|then|okay|if|because)\b))|(?:by |before )?(?:the )?(?:close|end) of (?:business|play)(?! (?:on|tomorrow|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b)|(?:by )?(?:eod|cob|eob))\b/i,
    extract: (context) => {
      const r = context.refDate;
      return { year: r.getUTCFullYear(), month: r.getUTCMonth() + 1, day: r.getUTCDate() };
    },
  });
  // "after 4" / "before 10": a clock time.
  c.parsers.push({
    pattern: () => /\b(?:after|before|around|about|from)\s+(\d{1,2})(?::(\d{2}))?(?!\s*(?:%|percent|dollars?|euros?|pounds?|minutes?|hours?|days?|weeks?|months?|years?|nights?|business|working|more|people|times|items|of|or|to|\d|:))\b/i,
    extract: (_context, match) => {
      const hour = Number(match[1]);
      if (hour < 1 || hour > 12) return null;
      return { hour, minute: match[2] ? Number(match[2]) : 0 };
    },
  });
  // "a week from Tuesday", "a week on Tuesday", "Tuesday week": that weekday's next occurrence plus seven days.
  c.parsers.push({
    pattern: () => /\b(?:a week (?:from|on) (monday|tuesday|wednesday|thursday|friday|saturday|sunday)|(monday|tuesday|wednesday|thursday|friday|saturday|sunday) week)\b/i,
    extract: (context, match) => {
      const wd = WEEKDAY_INDEX[(match[1] ?? match[2]).toLowerCase()];
      const ref = new Date(Date.UTC(context.refDate.getUTCFullYear(), context.refDate.getUTCMonth(), context.refDate.getUTCDate()));
      let d = addDays(ref, 1);
      while (d.getUTCDay() !== wd) d = addDays(d, 1);
      d = addDays(d, 7);
      return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(), weekday: wd };
    },
  });
  // "by the end of the week": the Friday of the call's week (the next one when said at the weekend);
  // "the end of next week" is the Friday after that one (chrono read it as the Saturday)
  c.parsers.push({
    pattern: () => /\b(?:the )?end of (the|this|next) week\b/i,
    extract: (context, match) => {
      let d = new Date(Date.UTC(context.refDate.getUTCFullYear(), context.refDate.getUTCMonth(), context.refDate.getUTCDate()));
      while (d.getUTCDay() !== 5) d = addDays(d, 1);
      if (match[1].toLowerCase() === 'next') d = addDays(d, 7);
      return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
    },
  });
  // "in a fortnight", "a fortnight today", "two weeks from today": fourteen days from the call
  c.parsers.push({
    pattern: () => /\b(?:in (?:a|one) fortnight|(?:a|one) fortnight (?:from )?(?:today|now)|(?:a|one) fortnight(?= (?:is|works|suits)\b)|(?:in )?two weeks (?:from )?(?:today|now))\b/i,
    extract: (context) => {
      const d = addDays(new Date(Date.UTC(context.refDate.getUTCFullYear(), context.refDate.getUTCMonth(), context.refDate.getUTCDate())), 14);
      return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
    },
  });
  // "first thing" with no day after it: the next morning.
  c.parsers.push({
    pattern: () => /\bfirst thing(?: in the morning)?\b(?!,?\s+(?:on\s+)?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|today|this|next))/i,
    extract: (context) => {
      const d = addDays(new Date(Date.UTC(context.refDate.getUTCFullYear(), context.refDate.getUTCMonth(), context.refDate.getUTCDate())), 1);
      return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
    },
  });
  // "the day before the inspection", "the morning of the move", "two days after the party": a day
  // counted from an event, placed on the day that event was said to be on (text.ts)
  c.parsers.push({
    pattern: () => EVENT_ANCHOR,
    extract: (context, match) => {
      if (EVENT_NOT.test(match[6])) return null;
      const r = context.refDate;
      return { year: r.getUTCFullYear(), month: r.getUTCMonth() + 1, day: r.getUTCDate() };
    },
  });
  // "that morning", "that day", "the day before", "the day after": placed against the day talked about (text.ts).
  c.parsers.push({
    pattern: () => /\b(?:that (?:same )?(?:day|morning|afternoon|evening|night)|the (?:day|night|morning) (?:before|after)(?! (?:yesterday|tomorrow|that|the|this|my|your|our|his|her|their|we|you|i|he|she|they)\b))\b/i,
    extract: (context) => {
      const r = context.refDate;
      return { year: r.getUTCFullYear(), month: r.getUTCMonth() + 1, day: r.getUTCDate() };
    },
  });
  return c;
}

// "the day before the inspection", "the night before my exam", "the morning of the move", "2 days after
// the party", "a week before the wedding"
const EVENT_ANCHOR = /\b(?:(?:the\s+)?(day|morning|afternoon|evening|night)\s+(before|after|of)|(\d+|a|one|two|three|four|five|six|seven|eight|nine|ten)\s+(days?|weeks?)\s+(before|after))\s+(?:the|my|your|our|his|her|their)\s+([a-z]+)\b/i;
// what is no event ("the day of the week", "the day after the call" is said of the call's own day)
const EVENT_NOT = /^(?:week|weekend|month|year|day|days|time|call|rest|end|start|beginning|same|first|last|next|other|following|previous|one|way|month's|week's)$/i;

/** Days from the event's day an event anchor says ("the day before the inspection": -1); null for another text. */
function eventAnchorOf(text: string): { offset: number; event: string } | null {
  const m = new RegExp(`^${EVENT_ANCHOR.source.replace(/^\\b/, '')}$`, 'i').exec(text);
  if (!m || EVENT_NOT.test(m[6])) return null;
  if (m[1]) return { offset: m[2].toLowerCase() === 'before' ? -1 : m[2].toLowerCase() === 'after' ? 1 : 0, event: m[6].toLowerCase() };
  const n = /^\d+$/.test(m[3]) ? Number(m[3]) : WORD_NUM[m[3].toLowerCase()];
  const days = /^week/i.test(m[4]) ? 7 * n : n;
  return { offset: m[5].toLowerCase() === 'before' ? -days : days, event: m[6].toLowerCase() };
}

/** Words before a bare weekday that make it a deadline, so ahead of the call whatever the tense. */
const DEADLINE_BEFORE = /\b(?:by|until|till|before|no later than|(?:end|close) of (?:business|day|play)(?:,? on)?|eod|cob|eob)\s*$/i;

let engine: chrono.Chrono | null = null;
const PART_OF_DAY = /\b(morning|afternoon|evening|tonight|night|noon|midday|lunchtime|lunch)\b/i;

// How a speaker takes back a detail and says it again: one list for every kind of detail (days here,
// clock times, a phone number's last digits in spoken.ts, addresses in text.ts). The grounding check
// keeps its own copy on purpose (grounding.ts): it must not agree with the extractor by construction.
// Cues that are a correction wherever they stand ("no, wait", "I mean", "make that") ...
const CORRECTION_CUES = ['no,? wait', 'wait,? no', 'no,? hang on', 'hang on,? no', 'sorry,? no', 'no,? sorry', 'actually,? no', 'no,? actually', 'i mean', 'make (?:it|that)', 'scratch that', 'or rather'];
// ... and bare words that only are one when the detail said again follows at once ("at 9, sorry, 10").
const BARE_CUES = ['no', 'sorry', 'wait', 'hang on', 'actually', 'my mistake', 'correction'];
const cues = (list: readonly string[]) => `(?:${list.join('|')})`;

// "Could we do Friday? No, hang on, Friday's full. Monday." - "Tuesday, no wait, Wednesday the 17th":
// any day said later in the turn could follow, so only an unambiguous cue counts.
export const CORRECTION = new RegExp(`\\b${cues(CORRECTION_CUES)}\\b`, 'i');
/** A correction cue, unambiguous or bare: for a detail whose replacement must follow at once. */
export const TAKING_BACK = new RegExp(`\\b${cues([...CORRECTION_CUES, ...BARE_CUES])}\\b`, 'i');

// "at 8:15, no, 8", "at 9, sorry, 10": a clock time taken back and said again in the same breath is
// the one said again (chrono read the first and dropped the rest). The taken-back time and the cue
// are blanked out with spaces, so every offset into the sentence stays the same.
const TAKEN_BACK_TIME = new RegExp(
  String.raw`\b((?:at|by|around|about|for|from)\s+)(\d{1,2}(?::\d{2})?(?:\s*[ap]\.?m\.?)?)` +
    String.raw`(,?(?:\s+${cues([...CORRECTION_CUES, ...BARE_CUES])}[,.]?){1,3}\s+(?:at\s+)?)` +
    String.raw`(\d{1,2}(?::\d{2})?(?:\s*[ap]\.?m\.?)?)(?![\d:])(?!\s*(?:%|percent|dollars?|pounds?|euros?|quid|minutes?|hours?|days?|weeks?|months?|years?|people|of)\b)`,
  'gi',
);
function withoutTakenBackTimes(sentence: string): string {
  return sentence.replace(TAKEN_BACK_TIME, (_m, at: string, first: string, cue: string, again: string) => `${at}${again}${' '.repeat(first.length + cue.length)}`);
}

// ("good", "super" left out: "sounds good friday at three" is a recogniser's "sounds good, Friday at three")
const HOLIDAY_BEFORE = /\b(?:thanksgiving|labou?r day|boxing day|christmas(?: eve| day)?|new year's(?: eve| day)?|easter(?: sunday| monday)?|black friday|cyber monday|good friday|halloween|memorial day|independence day|bank holiday(?: monday)?|(?:st\.? )?patrick's day|valentine's day|mother's day|father's day)(?: morning| afternoon| evening)?,?\s+$/i;
const HOLIDAY_WEEKDAY = /\b(?:easter|whit|black|cyber|ash|shrove|maundy|plough|giving|palm)\s+$/i;

// "at 4 15 p m": a clock time as a recogniser writes it when it drops the colon, hour and minutes
// apart and the letters of "p.m." spelled; read as "4:15 p.m" (chrono took "at 4" and dropped the
// minutes). Same length, so every offset into the sentence stays the same.
const SPACED_CLOCK = /\b(\d{1,2}) ([0-5]\d) ([ap])( ?)m\b/gi;
function withSpacedClocksJoined(sentence: string): string {
  return sentence.replace(SPACED_CLOCK, (m, h: string, mm: string, ap: string, gap: string) => (Number(h) >= 1 && Number(h) <= 12 ? `${h}:${mm} ${ap}${gap ? '.' : ''}m` : m));
}

// a sentence about the early morning, where a bare hour from 1 to 7 is a.m. (otherwise it is read as
// afternoon, as in office hours): "I'll set an alarm for a quarter to 7", "first thing, 7 or so"
const MORNING = /\b(?:morning|first thing|alarm|wake|waking|breakfast)\b/i;
// a sentence about an evening, where a bare hour from 8 to 11 is p.m.
const EVENING = /\b(?:tonight|this evening|evening|dinner|supper)\b/i;

/**
 * The hour of the day an hour said without a.m./p.m. means, from its sentence: 1-7 is afternoon, as in
 * office hours, unless the sentence is about the early morning; 8-11 is the evening's in a sentence
 * about an evening (not "I am": only a written "a.m." says morning). The one place this is decided for
 * a sentence; text.ts applies the evening reading across neighbouring sentences with it.
 */
export function hourOfDay(hour: number, sentence: string): number {
  if (hour >= 1 && hour <= 7 && !MORNING.test(sentence)) return hour + 12;
  if (hour >= 8 && hour <= 11 && EVENING.test(sentence) && !/\b(?:morning|breakfast)\b|\ba\.m\b/i.test(sentence)) return hour + 12;
  return hour;
}

// "now" that dates a request or promise: ending its clause ("can you check it now?", "I'll send it
// now"), in a sentence asking or promising something, not "for now", "by now", "it's closed now"
const NOW_ASKED = /\b(?:(?:could|can|would|will) you|i'll|i will|i'm going to|i am going to|i can|let me|we'll|we will|please)\b/i;
function doneNow(sentence: string, index: number): boolean {
  const before = sentence.slice(0, index);
  const after = sentence.slice(index + 3);
  if (!/^\s*(?:[,.?!;]|$|please\b|if\b|so\b|and\b|then\b|before\b|while\b)/i.test(after)) return false;
  if (/\b(?:for|by|from|until|till|to|of|as|just|and|but|or|right|even|only|is|are|was|were|am|be|been|than|it's|that's|i'm|you're|we're|they're)\s+$/i.test(before) || /^\s*$/.test(before)) return false;
  return NOW_ASKED.test(before);
}

// Words that lead to a clock time: after them "ten to six" and "a quarter of five" are times, not a
// range or a share
const LEADS_TO_TIME = /\b(?:at|by|around|about|until|till|before|after|from|say|is|it's|make it|do)\s+$/i;
const NOT_A_TIME_AFTER = String.raw`%|percent|people|dollars?|pounds?|euros?|minutes?|hours?|days?|weeks?|months?|years?`;

/**
 * Clock times said in words around the hour, in a sentence whose numbers are already digits
 * (spoken.ts): "half past 10" 10:30, "a quarter to 3" 2:45, "a quarter of 5" (American) 4:45, "10
 * past 4" 4:10, "25 to 6" 5:35, "half 9" (British) 9:30. The one reader of these forms: spoken.ts
 * writes a sentence with it before chrono reads the clock time it leaves.
 */
export function writeClockTimes(written: string): string {
  const clock = (hour: number, min: number, to: boolean) => (to ? `${hour === 1 ? 12 : hour - 1}:${60 - min}` : `${hour}:${String(min).padStart(2, '0')}`);
  // "half past ten", "a quarter to three", "quarter after nine"; "a quarter of / till five" (American)
  // only after a word that leads to a time ("a quarter of 5 people" is a share)
  written = written.replace(/\b(?:(a) )?(half|quarter) (past|after|to|of|till) (\d{1,2})\b(?![:\d])/gi, (m, a: string | undefined, part: string, rel: string, h: string, at: number, all: string) => {
    const hour = Number(h);
    const half = part.toLowerCase() === 'half';
    const r = rel.toLowerCase();
    if ((half && a) || ((r === 'of' || r === 'till') && (half || !LEADS_TO_TIME.test(all.slice(0, at)) || new RegExp(`^\\s*(?:${NOT_A_TIME_AFTER})\\b`, 'i').test(all.slice(at + m.length))))) return m;
    if ((r === 'of' || r === 'till') && (hour < 1 || hour > 12)) return m;
    return clock(hour, half ? 30 : 15, r === 'to' || r === 'of' || r === 'till');
  });
  // "ten past four", "twenty five to six": minutes past or to the hour (a clock time; "twenty to
  // thirty people" has no hour after it, and the minutes are only those a clock is read in)
  // "to" also joins a range ("the ten to six" shift): read it as a clock only after a word that leads
  // to a time
  written = written.replace(new RegExp(String.raw`\b(5|10|20|25) (past|after|to) (\d{1,2})\b(?![:\d]|\s*(?:${NOT_A_TIME_AFTER})\b)`, 'gi'), (m, mins: string, rel: string, h: string, at: number, all: string) => {
    const hour = Number(h);
    if (hour < 1 || hour > 12) return m;
    // ("twenty to six", "twenty five to six" need no lead: no range starts at 20 or 25, and chrono read
    // "20 to 6" as 20:00)
    if (rel.toLowerCase() === 'to' && Number(mins) < 20 && !/\b(?:at|by|around|about|until|till|before|after|from|say|is|it's)\s+$/i.test(all.slice(0, at))) return m;
    return clock(hour, Number(mins), rel.toLowerCase() === 'to');
  });
  // "half seven", "say half nine": the British half past the hour, after a word that leads to a time
  // (not "half 3 hours", "half 2 of them")
  written = written.replace(/(^|\b(?:at|say|by|around|about|from|until|till|before|after|or|and|for|do|make it|is)\s+|[,.;:]\s*)(half)\s+(\d{1,2})\b(?![:\d]|\s*(?:%|percent|people|dollars?|pounds?|euros?|minutes?|hours?|days?|weeks?|months?|years?|of|an?|the|dozen|price)\b)/gi, (m, lead: string, _half: string, h: string) => {
    const hour = Number(h);
    if (hour < 1 || hour > 12) return m;
    return `${lead}${hour}:30`;
  });
  return written;
}

/**
 * Date and time expressions of one sentence (already in written form, see spoken.ts).
 * `past` says the sentence talks about the past, so a bare weekday means the last one.
 */
export function resolveDates(sentence: string, recordedAt: string, past: boolean): DateMention[] {
  engine ??= buildChrono();
  const ref = new Date(recordedAt);
  if (Number.isNaN(ref.getTime())) return [];
  const refDay = new Date(Date.UTC(ref.getUTCFullYear(), ref.getUTCMonth(), ref.getUTCDate()));
  const results = engine.parse(withoutTakenBackTimes(withSpacedClocksJoined(sentence)), { instant: ref, timezone: 0 }, { forwardDate: false });
  const out: DateMention[] = [];
  for (const r of results) {
    const text = r.text.replace(/[,.]+$/, '');
    const lower = text.toLowerCase();
    // chrono reads "now" and "the week" as dates; neither names a day in a conversation, except
    // "now" ending a request or promise ("could you check it now?"): due today, no time said
    if (lower === 'now' && doneNow(sentence, r.index)) {
      const today = ymd(refDay);
      out.push({ text, index: r.index, date: today, month: today.slice(0, 7), time: null, explicitTime: false, datetime: null, timeOnly: false, granularity: 'day' });
      continue;
    }
    if (/^(now|the week|today's|a week|week)$/.test(lower)) continue;
    if (/^\d+ (weeks?|days?|months?|minutes?|hours?)$/.test(lower)) continue;
    // nor a bare number from 13 up after "at": people say "at four", and "at sixteen" is a house, a
    // gate or a counter ("no answer at sixteen either"), not 16:00
    if (/^at (?:1[3-9]|2[0-4])$/.test(lower)) continue;
    // nor a moment seconds away: chrono reads "the second out" (a recogniser's "the second outage")
    // as one second from now, with every field known, so it looked like a clock time said
    if (r.start.isCertain('second') && r.start.get('second') !== 0) continue;
    // Parts of day inside greetings and habits ("good morning", "have a lovely evening", "every
    // night") are not dates.
    const before = sentence.slice(0, r.index).toLowerCase();
    if (/^(morning|afternoon|evening|night|day)$/.test(lower) && /\b(good|every|nice|lovely|great|wonderful|a|each|all)\s+$/.test(before)) continue;
    const s = r.start;
    let year = s.get('year')!;
    let month = s.get('month')!;
    let day = s.get('day')!;
    let date = new Date(Date.UTC(year, month - 1, day));
    const weekdayOnly = s.isCertain('weekday') && !s.isCertain('day') && !s.isCertain('month');
    // "Easter Monday", "Good Friday", "Black Friday": a weekday named by a holiday is that holiday,
    // a day this reader cannot place, not the coming Monday or Friday
    if (weekdayOnly && HOLIDAY_WEEKDAY.test(before) && /^\w+day\b/i.test(text)) continue;
    // "Thanksgiving at a quarter of five": a clock time on a holiday's day is on a day this reader
    // cannot place, not on the call's day
    if (s.isCertain('hour') && !s.isCertain('day') && !s.isCertain('weekday') && !s.isCertain('month') && HOLIDAY_BEFORE.test(before)) continue;
    // "on Friday the 6th of February": chrono reads the weekday and the date apart; the date says it all
    const nextResult = results[results.indexOf(r) + 1];
    if (s.isCertain('weekday') && !s.isCertain('day') && nextResult && nextResult.start.isCertain('day') && /^[\s,]*(?:the\s*)?$/i.test(sentence.slice(r.index + r.text.length, nextResult.index))) continue;
    const deadline = DEADLINE_BEFORE.test(before) || DEADLINE_BEFORE.test(`${before}${text.replace(/\s*\w+day\b.*$/i, '')}`);
    if (weekdayOnly) {
      const wd = s.get('weekday')!;
      if (/\bnext\s+\w+day\b/i.test(text) && (!past || deadline)) {
        // "next Tuesday" is the first Tuesday after the call.
        let d = addDays(refDay, 1);
        while (d.getUTCDay() !== wd) d = addDays(d, 1);
        date = d;
      } else if (/\blast\s+\w+day\b/i.test(text) || (past && !deadline)) {
        let d = addDays(refDay, -1);
        while (d.getUTCDay() !== wd) d = addDays(d, -1);
        date = d;
      } else {
        let d = addDays(refDay, 1);
        while (d.getUTCDay() !== wd) d = addDays(d, 1);
        date = d;
      }
    } else if (!s.isCertain('year') && s.isCertain('month') && !past && refDay.getTime() - date.getTime() > 183 * 86_400_000 && !/\b(ago|last|yesterday)\b/i.test(text)) {
      // "May 12th" said in December is next May; a date a few weeks back is still this year's
      // ("due on May 15th" said in June).
      date = new Date(Date.UTC(year + 1, month - 1, day));
    }
    year = date.getUTCFullYear();
    month = date.getUTCMonth() + 1;
    day = date.getUTCDate();

    const monthOnly = s.isCertain('month') && !s.isCertain('day') && !weekdayOnly;
    const hourCertain = s.isCertain('hour');
    const event = eventAnchorOf(text);
    // ("the morning of the move" names the move's day; its part of day is no time to keep)
    const partOfDay = PART_OF_DAY.test(text) && !event;
    const timeOnly = hourCertain && !s.isCertain('day') && !s.isCertain('weekday') && !s.isCertain('month') && !/\b(today|tonight|tomorrow|yesterday)\b/i.test(text);
    let time: string | null = null;
    if ((hourCertain || partOfDay) && !/\blast night\b/i.test(text)) {
      let hour = s.get('hour')!;
      const minute = s.get('minute') ?? 0;
      // People say "at four" for 16:00; a clock time without a.m./p.m. between 1 and 7 is read as
      // afternoon, as in office hours.
      if (hourCertain && !s.isCertain('meridiem')) hour = hourOfDay(hour, sentence);
      time = `${pad(hour)}:${pad(minute)}`;
    }
    // chrono keeps "tonight"/"last night" near midnight on the reference day; the calendar day said
    // is the one that matters here.
    if (/\blast night\b/i.test(text)) {
      const d = addDays(refDay, -1);
      year = d.getUTCFullYear();
      month = d.getUTCMonth() + 1;
      day = d.getUTCDate();
    }
    // "I'll send it in the morning" said in the afternoon is the next morning
    if (!past && /^(?:morning|the morning)$/i.test(text) && /\bin (?:the )?$/i.test(before) && !/\b(?:this|tomorrow|today)\b[^.?!]*$/i.test(before)) {
      const d = addDays(refDay, 1);
      year = d.getUTCFullYear();
      month = d.getUTCMonth() + 1;
      day = d.getUTCDate();
    }
    const anchor = lower.match(/^(?:that (?:same )?\w+|the (?:day|night|morning) (before|after))$/);
    const dateStr = monthOnly ? null : `${year}-${pad(month)}-${pad(day)}`;
    out.push({
      ...(anchor ? { anchorOffset: anchor[1] === 'before' ? -1 : anchor[1] === 'after' ? 1 : 0 } : {}),
      ...(event ? { anchorOffset: event.offset, anchorEvent: event.event } : {}),
      ...(/^(?:on |by )?the \d{1,2}(?:st|nd|rd|th)$/i.test(text) ? { dayOfMonthOnly: true } : {}),
      text,
      index: r.index,
      date: dateStr,
      month: `${year}-${pad(month)}`,
      time,
      explicitTime: hourCertain,
      datetime: dateStr && time ? `${dateStr}T${time}:00` : null,
      timeOnly,
      granularity: monthOnly ? 'month' : time ? 'time' : 'day',
    });
  }
  // "could we do 11 instead?", "how about 3?", "11 works": an hour offered back or taken with no "at"
  // (chrono reads no clock time there), on the day talked about (text.ts)
  for (const m of sentence.matchAll(BARE_HOUR)) {
    const hourText = m[1] ?? m[3];
    const minText = m[2] ?? m[4];
    const index = m.index! + m[0].indexOf(hourText);
    if (out.some((o) => index >= o.index && index < o.index + o.text.length) || HOLIDAY_BEFORE.test(sentence.slice(0, m.index!))) continue;
    let hour = Number(hourText);
    const minute = minText ? Number(minText) : 0;
    if (hour < 1 || hour > (minText ? 23 : 12) || minute > 59) continue;
    const meridiem = m[5];
    if (meridiem) hour += /^p/i.test(meridiem) && hour < 12 ? 12 : 0;
    else hour = hourOfDay(hour, sentence);
    const text = `${hourText}${minText ? `:${minText}` : ''}${meridiem ? ` ${meridiem}` : ''}`;
    const time = `${pad(hour)}:${pad(minute)}`;
    const today = ymd(refDay);
    out.push({ text, index, date: today, month: today.slice(0, 7), time, explicitTime: true, datetime: `${today}T${time}:00`, timeOnly: true, granularity: 'time', bareHour: true });
  }
  out.sort((a, b) => a.index - b.index);
  return out;
}

// an hour said back in a counter-offer or taken in an answer: "do 11 instead", "how about 3?",
// "make it 4", "11 works", "3 is fine" (not "do 2 boxes", "2 works out")
const BARE_HOUR = /\b(?:(?:do|make it|how about|what about|say|try)\s+(\d{1,2})(?::(\d{2}))?(?=\s*(?:instead|then|rather|[?.!,]|$))|(?:^|[,.;!?]\s*|\b(?:yes|yeah|yep|okay|ok|sure|great|perfect|fine|right|then)[,!]?\s+)(\d{1,2})(?::(\d{2}))?(?=\s+(?:works|is fine|is good|suits|is perfect|is better|sounds good|it is)\b(?!\s+out\b)))(?:\s*([ap]\.?m\.?))?/gi;

/** A time-only mention ("at 11") placed on the day of an earlier mention. */
export function onDay(m: DateMention, date: string): DateMention {
  return { ...m, date, month: date.slice(0, 7), datetime: m.time ? `${date}T${m.time}:00` : null, timeOnly: false };
}


/**
 * Days a speaker took back within the same turn: after a correction ("no, wait", "sorry, no", "I
 * mean") that goes on to name another day, the days named before it (and repeated as the reason:
 * "I've got the dentist on Thursday") are dropped from every sentence of that turn.
 */
export function dropCorrectedDates(units: Array<{ turn: number; norm: string; dates: DateMention[] }>): void {
  const turns = new Map<number, typeof units>();
  for (const u of units) turns.set(u.turn, [...(turns.get(u.turn) ?? []), u]);
  for (const turn of turns.values()) {
    const cueAt = turn.findIndex((u) => CORRECTION.test(u.norm));
    if (cueAt < 0) continue;
    const cueIndex = turn[cueAt].norm.search(CORRECTION);
    const isBefore = (k: number, m: DateMention) => k < cueAt || (k === cueAt && m.index < cueIndex);
    // only days said as days: a clock time alone or "that morning" takes its day later
    const aDay = (m: DateMention) => !!m.date && !m.timeOnly && m.anchorOffset === undefined;
    const taken = new Set(turn.flatMap((u, k) => u.dates.filter((m) => aDay(m) && isBefore(k, m)).map((m) => m.date!)));
    const instead = turn.some((u, k) => u.dates.some((m) => aDay(m) && !isBefore(k, m) && !taken.has(m.date!)));
    if (!taken.size || !instead) continue;
    for (const u of turn) u.dates = u.dates.filter((m) => !m.date || !taken.has(m.date));
  }
}

/** `YYYY-MM-DD` moved by n days. */
export function shiftDay(date: string, n: number): string {
  const [y, m, d] = date.split('-').map(Number);
  return ymd(addDays(new Date(Date.UTC(y, m - 1, d)), n));
}

export function callDay(recordedAt: string): string {
  const d = new Date(recordedAt);
  return Number.isNaN(d.getTime()) ? '' : ymd(d);
}

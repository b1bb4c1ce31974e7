// Text evidence about who is speaking, read from one speaker's utterances.
//
// Every claim is relative to the speaker who said the words: `self` (a self-introduction names the
// speaker: "it's Maria", "this is Nadia Rahman", "Jamie speaking", "calling from Bayview Logistics")
// or `other` (addressing names the listener: "Hi Daniel", "Am I speaking with Laura Chen?",
// "Jamie, it's Chris", and, weaker, a name used in passing: "thanks, Priya", "Mr. Moore").
// The resolver turns these into roles; see resolve.ts for how claims are weighed.
import { HONORIFICS, isCommonWord, isKnownFirstName, matchToken, mayBeMisheard, wordsOf, type MatchGrade, type NameOwner, type NameSpec } from './names.js';

/**
 * `strict`: the whole supplied name, exactly, in an introduction or greeting (USER_PROFILE /
 * CONTACT_METADATA); `greeting`: part of a supplied name or a misheard one in such a pattern
 * (GREETING_MATCH); `mention`: a supplied person's name used elsewhere (NAME_MENTION); `unknownName`:
 * someone introduces themselves, or greets the listener, with a first name that is not the user's,
 * which says that person is not the user (GREETING_MATCH, MEDIUM).
 */
export type ClaimKind = 'strict' | 'greeting' | 'mention' | 'unknownName';

export interface TextClaim {
  kind: ClaimKind;
  about: 'self' | 'other';
  role: 'USER' | 'CONTACT';
  /** The supplied name the claim rests on; absent for `unknownName`. */
  who?: NameOwner;
  /** Index of the utterance (within this speaker's) that carried it. */
  utterance: number;
}

export interface NameSpecs {
  user: NameSpec | null;
  contact: NameSpec | null;
}

interface NameHit {
  who: NameOwner;
  start: number;
  end: number; // exclusive
  grade: MatchGrade;
  /** The whole supplied name, every token exact. */
  full: boolean;
  possessive: boolean;
  honorific: boolean;
  /** Only the first token of a multi-word name matched. */
  partial: boolean;
}

// Words that may stand before a name at the start of a turn ("Hello, Jamie speaking", "Oh hi Daniel").
const OPENERS = new Set([
  'hello', 'hi', 'hey', 'hiya', 'oh', 'yes', 'yeah', 'yep', 'um', 'uh', 'er', 'ah', 'well', 'ok', 'okay', 'so',
  'good', 'morning', 'afternoon', 'evening', 'right',
]);
const GREETINGS = new Set(['hi', 'hello', 'hey', 'hiya', 'howdy', 'morning', 'afternoon', 'evening', 'dear']);
// Words that follow a vocative at the start of a turn: "Jamie, it's Chris", "Daniel, how are you".
const VOCATIVE_FOLLOWERS = new Set([
  "it's", 'its', 'it', 'this', "i'm", 'im', 'i', 'how', 'good', 'hi', 'hello', 'hey', 'are', 'got', 'can',
  'could', 'do', 'did', 'you', 'thanks', 'thank', "how's", "what's", 'hope', 'sorry', 'just',
]);
// (and after a conjunction it is one of several people named, "me and Leah", or a word the recogniser
// made of an introduction: "I'm Leah" heard as "and leah")
const ABOUT_SOMEONE = new Set(['for', 'under', 'to', 'about', 'with', 'from', 'of', 'by', 'on', 'behalf', 'and', 'or']);
const DETERMINERS = new Set(['the', 'a', 'an', 'my', 'your', 'our', 'their', 'his', 'her', 'its', 'this', 'that', 'some', 'any']);
const SELF_INTRO_ONE = new Set(["it's", 'its', "i'm", 'im', "name's", 'names']);
const SELF_INTRO_TWO = new Set(['this is', 'it is', 'i am', 'name is', 'here is']);
const ADDRESS_QUESTION_TWO = new Set(['is this', 'is that', 'are you']);
const NOT_BEFORE_SELF_NAME = new Set(['from', 'of', 'about', 'with', 'to', 'at', 'by', 'that', 'was', 'were', 'saw', 'heard', 'had', 'got', 'missed', 'see', 'hear']);

function baseOf(token: string): { base: string; possessive: boolean } {
  if (token.endsWith("'s")) return { base: token.slice(0, -2), possessive: true };
  return { base: token, possessive: false };
}

const GRADE_ORDER: Record<MatchGrade, number> = { exact: 0, close: 1, loose: 2 };
function worse(a: MatchGrade, b: MatchGrade): MatchGrade {
  return GRADE_ORDER[a] >= GRADE_ORDER[b] ? a : b;
}

/**
 * One name token heard at `tokens[j]`, or split by the recogniser over two tokens ("jay me" for
 * "Jamie"), which only ever counts as a loose match.
 */
function matchOne(tokens: string[], j: number, nameToken: string): { grade: MatchGrade; next: number; possessive: boolean } | null {
  const { base, possessive } = baseOf(tokens[j]);
  const g = matchToken(base, nameToken);
  if (g) return { grade: g, next: j + 1, possessive };
  if (j + 1 < tokens.length && !possessive && base.length <= 5) {
    const second = baseOf(tokens[j + 1]);
    if (second.base.length <= 5 && matchToken(base + second.base, nameToken)) return { grade: 'loose', next: j + 2, possessive: second.possessive };
  }
  return null;
}

/** Longest match of `spec` starting at token `i` (after an optional honorific). */
function matchAt(tokens: string[], i: number, spec: NameSpec): NameHit | null {
  let j = i;
  const honorific = HONORIFICS.has(tokens[i]);
  if (honorific) j++;
  if (j >= tokens.length) return null;

  // The whole name.
  let grade: MatchGrade | null = 'exact';
  let cursor = j;
  let possessive = false;
  for (let k = 0; k < spec.tokens.length && grade; k++) {
    // Only the last word of the name can carry "'s".
    const m: ReturnType<typeof matchOne> = cursor < tokens.length && !possessive ? matchOne(tokens, cursor, spec.tokens[k]) : null;
    if (!m) { grade = null; break; }
    grade = worse(grade, m.grade);
    possessive = m.possessive;
    cursor = m.next;
  }
  if (grade) {
    return { who: spec.who, start: i, end: cursor, grade, full: grade === 'exact', possessive, honorific, partial: false };
  }
  if (spec.tokens.length === 1) return null;

  // Honorific + surname ("Mr. Moore", "Miss Alvarez").
  if (honorific && spec.personLike) {
    const m = matchOne(tokens, j, spec.tokens[spec.tokens.length - 1]);
    if (m) return { who: spec.who, start: i, end: m.next, grade: m.grade, full: false, possessive: m.possessive, honorific, partial: true };
  }
  // First name alone ("Hi Daniel"), or an organisation's distinctive first word ("calling from Bayview").
  if (spec.firstUsableAlone) {
    const m = matchOne(tokens, j, spec.tokens[0]);
    if (m) return { who: spec.who, start: i, end: m.next, grade: m.grade, full: false, possessive: m.possessive, honorific, partial: true };
  }
  return null;
}

function findNameHits(tokens: string[], specs: NameSpecs): NameHit[] {
  const hits: NameHit[] = [];
  for (let i = 0; i < tokens.length; ) {
    const cands = [specs.user, specs.contact]
      .filter((s): s is NameSpec => s !== null)
      .map((s) => matchAt(tokens, i, s))
      .filter((h): h is NameHit => h !== null);
    if (cands.length === 0) { i++; continue; }
    cands.sort((a, b) => b.end - a.end || GRADE_ORDER[a.grade] - GRADE_ORDER[b.grade]);
    const best = cands[0];
    const rival = cands[1];
    // Both names fit equally well (a shared surname, the same first name): it says nothing.
    if (rival && rival.end === best.end && rival.grade === best.grade) { i = best.end; continue; }
    hits.push(best);
    i = best.end;
  }
  return hits;
}

type Context = 'self' | 'address' | 'mention' | 'skip';

function atTurnStart(tokens: string[], start: number): boolean {
  for (let k = 0; k < start; k++) if (!OPENERS.has(tokens[k])) return false;
  return true;
}

function hasIntroCueBefore(tokens: string[], start: number, window: number): boolean {
  for (let k = Math.max(0, start - window); k < start; k++) {
    const t = tokens[k];
    if (SELF_INTRO_ONE.has(t) || t === 'calling') return true;
    if (k + 1 < start && SELF_INTRO_TWO.has(`${t} ${tokens[k + 1]}`)) return true;
  }
  return false;
}

/** Where a name at [start, end) stands: introducing the speaker, addressing the listener, or in passing. */
// Words between an introduction and "at <organisation>" that make the organisation something else's
// place ("I'm calling about my appointment at ...", "this is a reminder for your visit at ...").
const NOT_WORKPLACE = new Set(['about', 'regarding', 'for', 'to', 'with', 'on', 'in', 'of', 'reminder', 'appointment', 'visit', 'order', 'account']);

/** "this is <who> at" / "it's the front office at": an introduction up to the "at" at `at`. */
function introducesWorkplace(tokens: string[], at: number): boolean {
  for (let k = at - 1; k >= Math.max(0, at - 8); k--) {
    const t = tokens[k];
    if (NOT_WORKPLACE.has(t)) return false;
    if (SELF_INTRO_ONE.has(t) && t !== "name's" && t !== 'names') return k < at - 1;
    if (k + 1 < at && SELF_INTRO_TWO.has(`${t} ${tokens[k + 1]}`) && t !== 'name') return k + 1 < at - 1;
  }
  return false;
}

/** Whether at least `min` single letters follow from `at`: a word being spelled out. */
function spelledAfter(tokens: string[], at: number, min: number): boolean {
  let n = 0;
  while (at + n < tokens.length && /^[a-z]$/.test(tokens[at + n])) n++;
  return n >= min;
}

function contextOf(tokens: string[], start: number, end: number, opts: { orgName: boolean; wholeOrgName?: boolean; firstTurn: boolean; vocative: boolean }): Context {
  const p1 = tokens[start - 1] ?? '';
  const p2 = tokens[start - 2] ?? '';
  const n1 = tokens[end] ?? '';
  // Part of an e-mail address or a web address ("maria dot lopez at ..."), or a name being spelled
  // ("kwame is k w a m e", "that's novak n o v a k"): whose ever it is, it is not said to anyone.
  if (p1 === 'dot' || n1 === 'dot') return 'skip';
  if (n1 === 'is' ? spelledAfter(tokens, end + 1, 2) : spelledAfter(tokens, end, 3)) return 'skip';

  const two = `${p2} ${p1}`;
  if (SELF_INTRO_ONE.has(p1) || SELF_INTRO_TWO.has(two)) return 'self';
  if (p1 === 'is' && p2 === 'name') return 'self';
  const startOfTurn = atTurnStart(tokens, start);
  if (startOfTurn && (n1 === 'speaking' || n1 === 'here' || n1 === 'calling')) return 'self';
  if (opts.orgName) {
    // "it's Kevin from Lumen Net Support", "I'm calling from Bayview Logistics".
    if (p1 === 'from' && hasIntroCueBefore(tokens, start - 1, 6)) return 'self';
    // An answering line with the company's own name: "Thank you for calling Acme Dental".
    if (opts.firstTurn && p1 === 'calling' && p2 === 'for') return 'self';
    // A business placing a call names itself before "calling" ("Elm Street Pharmacy calling for
    // Carol", "this is Acme Dental calling to confirm"): in the speaker's first turn that is an
    // introduction wherever it stands, since the recogniser often garbles the "Hi, this is" before it;
    // not after a verb or preposition that makes the name someone else's ("a message from X calling
    // about", "was that X calling?")
    if (opts.firstTurn && n1 === 'calling' && !NOT_BEFORE_SELF_NAME.has(p1)) return 'self';
    // "Passport Agency, how can I help?": a business opening its own line offers help; the comma
    // that would tell it from a vocative is never in a recogniser's text
    if (startOfTurn && /^how (can|may) (i|we) (help|assist)\b/.test(tokens.slice(end, end + 4).join(' '))) return 'self';
    // "City Tax Office, hi, may I help you?", "Good morning, Hamilton Elementary.": an organisation's
    // whole name (of several words) opening the call's first turn is the organisation answering its
    // line. A caller who checks they reached the office speaks after the answerer ("Hi, Acme Dental?
    // I need ...") and goes on to say why they call; a single word may be a nickname ("Hi Nana").
    if (startOfTurn && opts.wholeOrgName && !CALLER_MARKERS.test(tokens.join(' '))) return 'self';
    // "this is Paul Gomez at Kennedy Elementary", "it's the front office at Franklin Elementary": the
    // speaker's place of work after their introduction; not "I'm calling about my appointment at X".
    if (p1 === 'at' && introducesWorkplace(tokens, start - 1)) return 'self';
  }

  // A name in a dictated address ("email them to paula at stone tax dot com") is not said to or of
  // anyone else; "it's tom baker at hotmail dot com" stays an introduction (above).
  if ((n1 === 'at' && tokens.slice(end + 1, end + 5).includes('dot')) || (p1 === 'at' && tokens.slice(end, end + 4).includes('dot'))) return 'skip';
  if (GREETINGS.has(p1)) return 'address';
  if (ADDRESS_QUESTION_TWO.has(two)) return 'address';
  if (p1 === 'is' && n1 === 'there') return 'address';
  if (/\b(am|can|could|may) i (speaking|speak|talking|talk) (with|to)$/.test(tokens.slice(Math.max(0, start - 4), start).join(' '))) return 'address';
  // A vocative opening the turn: "Daniel?", "Jamie, it's Chris". Later in the call the same form is
  // only a mention; in the first turn it is how people greet on the phone.
  if (opts.vocative && startOfTurn && (end === tokens.length || VOCATIVE_FOLLOWERS.has(n1))) return opts.firstTurn ? 'address' : 'mention';
  return 'mention';
}

const roleOf = (who: NameOwner): 'USER' | 'CONTACT' => (who === 'user' ? 'USER' : 'CONTACT');

/**
 * "Hello, Frank Harris.": picking up the phone with one's own full name. A greeting followed by a
 * person's whole name (first and last) and nothing else, in the turns that open the call, is how
 * the answerer introduces themselves; a caller greets with a first name or an honorific ("Hi Mr
 * Harris") and goes on talking. Without this, the caller's "Hi Mr Harris" and the answerer's own
 * name contradict each other and the call stays unresolved.
 */
function answersWithOwnName(tokens: string[], hit: NameHit, spec: NameSpec): boolean {
  if (!spec.personLike || spec.tokens.length < 2 || hit.honorific || hit.possessive) return false;
  if (hit.start === 0 || !atTurnStart(tokens, hit.start)) return false;
  const rest = tokens.slice(hit.end);
  const signOff = (t: string | undefined) => t === 'speaking' || t === 'here';
  if (!hit.partial) return rest.length === 0 || (rest.length === 1 && signOff(rest[0]));
  // "Hello, Daniel Reed speaking." heard as "hello daniel reach speaking": only the first name
  // matched, and the greeting before it would make it an address to the user. One word that sounds
  // one step from the surname and then "speaking"/"here", closing the turn, is the surname misheard
  // in the answerer's own introduction (wire-transfer-arrived phone8k, dev); a caller who greets and
  // names themselves ("Hi Daniel, Steve here") gives a first name there, not the listener's surname.
  if (hit.start + 1 !== hit.end || spec.tokens.length !== 2 || rest.length !== 2 || !signOff(rest[1])) return false;
  const surname = spec.tokens[1];
  return !isKnownFirstName(rest[0]) && mayBeMisheard(rest[0], surname);
}

// Words that, between a first name opening a turn and "here"/"speaking", make the rest a sentence
// of its own ("Irene, over here", "Omar, it's me here", "Dana, you there? Tom speaking").
const NOT_IN_SURNAME = new Set([
  'is', 'are', 'was', 'were', 'be', "it's", 'its', 'it', 'i', "i'm", 'im', 'you', 'your', 'we', 'he', 'she', 'they', 'me',
  'over', 'right', 'out', 'in', 'up', 'down', 'come', 'get', 'look', 'from', 'at', 'with', 'and', 'this', 'that', 'who',
]);

/**
 * "Irene Novak here" heard as "irene l back here", "Omar Haddad speaking" as "omar have the
 * speaking": a supplied person's first name opening a turn in the call's opening exchange, then one
 * or two words and "here"/"speaking", is the speaker giving their own whole name with the surname
 * misheard. Read as a name in passing it would point at the listener and swap the roles. Not when a
 * word in between is a first name or an honorific ("Irene, Tom here", "Irene, Dr Shah here": the
 * caller greets and names themselves) or makes a sentence of its own ("Irene, over here").
 */
function ownNameBeforeSignOff(tokens: string[], hit: NameHit, spec: NameSpec): boolean {
  if (!spec.personLike || spec.tokens.length < 2 || !hit.partial || hit.honorific || hit.possessive) return false;
  if (!atTurnStart(tokens, hit.start)) return false;
  for (const gap of [1, 2]) {
    const signOff = tokens[hit.end + gap];
    if (signOff !== 'here' && signOff !== 'speaking') continue;
    const between = tokens.slice(hit.end, hit.end + gap);
    return between.every((t) => !isKnownFirstName(t) && !HONORIFICS.has(t) && !NOT_IN_SURNAME.has(t));
  }
  return false;
}

/**
 * A greeting ("hi", "hello") that does not open the turn: people greet as they start to speak, so
 * a "hi karen" the recogniser makes of words deep inside a turn greets no one.
 */
function greetedMidTurn(tokens: string[], nameAt: number): boolean {
  return GREETINGS.has(tokens[nameAt - 1] ?? '') && !atTurnStart(tokens, nameAt - 1);
}

/**
 * Claims made by one speaker's utterances (in time order), and which supplied names the speaker
 * said in which of its utterances (`referencedIn`, utterance indices per name).
 * `opening`: indices of this speaker's utterances among the first turns of the call; `callOpener`:
 * the index of the utterance that opens the call, when it is this speaker's.
 */
export function claimsOfSpeaker(
  utterances: string[],
  specs: NameSpecs,
  opening: ReadonlySet<number> = new Set(),
  callOpener: number | null = null,
): { claims: TextClaim[]; referencedIn: Map<NameOwner, number[]> } {
  const claims: TextClaim[] = [];
  const referencedIn = new Map<NameOwner, number[]>();
  utterances.forEach((text, u) => {
    const tokens = wordsOf(text);
    const hits = findNameHits(tokens, specs);
    const covered = new Set<number>();
    for (const hit of hits) {
      for (let k = hit.start; k < hit.end; k++) covered.add(k);
      const spec = hit.who === 'user' ? specs.user : specs.contact;
      if (!spec) continue;
      let ctx = opening.has(u) && answersWithOwnName(tokens, hit, spec) ? 'self' : contextOf(tokens, hit.start, hit.end, { orgName: !spec.personLike, wholeOrgName: !hit.partial && spec.tokens.length >= 2 && u === callOpener, firstTurn: u === 0, vocative: true });
      if (ctx === 'mention' && opening.has(u) && ownNameBeforeSignOff(tokens, hit, spec)) ctx = 'self';
      // "Northbeam Analytics customer success, good morning, how can I help you today?": a whole
      // supplied name opening the call's first turn, when that turn answers the line, is the
      // answerer's own, even when the name looks like a person's to the lexicon (two rare words).
      // The greeting before it may be garbled into a few words ("G'day, Coastline Campervans, how can I
      // help?" heard as "je da why coastline campervans I can I help").
      if (ctx === 'mention' && u === callOpener && !hit.partial && spec.tokens.length >= 2 && hit.start <= 3 && isAnsweringPhrase(text, specs)) ctx = 'self';
      // "Laura Mitchell." as the whole of the call's first turn: the answerer giving her own name (a
      // caller speaks after the answerer, and asks: "Laura Mitchell?").
      if (ctx === 'address' && u === callOpener && spec.personLike && !hit.partial && spec.tokens.length >= 2 && hit.start === 0 && hit.end === tokens.length && !/\?\s*$/.test(text)) ctx = 'self';
      if (ctx === 'skip') continue;
      if (spec.commonWords && ctx === 'self' && (tokens[hit.start - 1] === "i'm" || tokens[hit.start - 1] === 'im')) continue;
      referencedIn.set(hit.who, [...(referencedIn.get(hit.who) ?? []), u]);
      if (hit.possessive) continue; // "Maria's car": about her, not to or from her
      if (ctx === 'self' || ctx === 'address') {
        claims.push({ kind: hit.full ? 'strict' : 'greeting', about: ctx === 'self' ? 'self' : 'other', role: roleOf(hit.who), who: hit.who, utterance: u });
        continue;
      }
      // A name in passing: only a person's name, heard clearly, not used as a common noun.
      if (!spec.personLike || hit.grade === 'loose') continue;
      if (DETERMINERS.has(tokens[hit.start - 1] ?? '')) continue;
      // After a preposition the name is what the sentence is about, not whom it is said to: "a refill
      // for Nora Bell" is the caller giving their own name, "send it to Priya" names a third party.
      if (ABOUT_SOMEONE.has(tokens[hit.start - 1] ?? '')) continue;
      if (hit.partial && !hit.honorific && !spec.firstDistinctive) continue;
      claims.push({ kind: 'mention', about: 'other', role: roleOf(hit.who), who: hit.who, utterance: u });
    }

    // Someone else's first name in an introduction or greeting: that person is not the user.
    const user = specs.user;
    if (!user) return;
    // In an answering phrase ("Hello, Acme Dental, how can I help?") the words after the greeting
    // name the answering business, not the listener, even when recognition turns them into a name.
    const answering = isAnsweringPhrase(text, specs);
    tokens.forEach((tok, i) => {
      if (covered.has(i) || tok.endsWith("'s") || !isKnownFirstName(tok)) return;
      // "Hello, shelly speaking" for "Julie speaking": a name that sounds one step from the user's
      // is as likely the user's name misheard as a stranger's, and says nothing either way
      if (user.tokens.some((t) => mayBeMisheard(tok, t))) return;
      // No vocative reading here: an unknown name opening a turn is as often a third party ("Leo is ...").
      const ctx = contextOf(tokens, i, i + 1, { orgName: false, firstTurn: u === 0, vocative: false });
      if (ctx === 'self') claims.push({ kind: 'unknownName', about: 'self', role: 'CONTACT', utterance: u });
      else if (ctx === 'address' && !answering && !greetedMidTurn(tokens, i)) claims.push({ kind: 'unknownName', about: 'other', role: 'CONTACT', utterance: u });
    });
  });
  return { claims, referencedIn };
}

/** A first name (and the surname after it, when one follows) that a speaker introduced themselves with or greeted the listener by. */
export interface HeardName {
  about: 'self' | 'other';
  /** As displayed: capitalised words ("Linda Moreau", "Dana"). */
  name: string;
  utterance: number;
}

// Words after a first name that are no surname however the lexicon tags them.
const NOT_SURNAME = new Set(['speaking', 'here', 'calling', 'from', 'at', 'with', 'over', 'and', 'the', 'your', 'you', 'this', 'it', 'hi', 'hello', 'i', 'im', 'id', 'ill', 'ive', 'me', 'we', 'he', 'she']);
const surnameShaped = (w: string | undefined): w is string => w !== undefined && /^[a-z]{2,}$/.test(w) && !NOT_SURNAME.has(w) && !isCommonWord(w);

const capitalised = (w: string) => w.charAt(0).toUpperCase() + w.slice(1);

/**
 * Names the speaker's utterances give that are neither the user's nor the contact's as supplied: a
 * known first name in an introduction ("this is Dana", "it's Linda", "Priya Shah, Harbor Mutual
 * claims") or a greeting ("Hi Grace", and a vocative opening the call: "Dana, hi"). Only names the
 * lexicon knows as first names count, so what is shown is spelt as the lexicon spells it, not as a
 * recogniser guessed a rare word; the word after it is kept as a surname when it is no ordinary
 * word. Used to name a contact whose supplied name is missing or an organisation's (resolve.ts).
 */
export function heardNamesOf(utterances: string[], specs: NameSpecs, callOpener: number | null = null): HeardName[] {
  const out: HeardName[] = [];
  utterances.forEach((text, u) => {
    const tokens = wordsOf(text);
    const covered = new Set<number>();
    for (const hit of findNameHits(tokens, specs)) for (let k = hit.start; k < hit.end; k++) covered.add(k);
    const answering = isAnsweringPhrase(text, specs);
    tokens.forEach((tok, i) => {
      if (covered.has(i) || tok.endsWith("'s") || !isKnownFirstName(tok)) return;
      // The user's first name misheard ("shelly" for "Julie") is no one else's name; the surname is
      // not compared here (Grace sounds one step from Reyes).
      if (specs.user && mayBeMisheard(tok, specs.user.tokens[0])) return;
      let ctx = contextOf(tokens, i, i + 1, { orgName: false, firstTurn: u === 0, vocative: false });
      if (ctx === 'address' && greetedMidTurn(tokens, i)) return;
      // "Dana, hi, I saw the office number": greeting the caller by name on picking up.
      if (ctx === 'mention' && u === callOpener && atTurnStart(tokens, i) && (i + 1 === tokens.length || VOCATIVE_FOLLOWERS.has(tokens[i + 1]))) ctx = 'address';
      const next = tokens[i + 1];
      // (the name said twice, "it's andre andre", is a repeat, not a surname)
      const fullName = surnameShaped(next) && next !== tok && !covered.has(i + 1);
      // A whole name in apposition to the speaker: "that's me, Pete Larsen", "ask for me, Linda Ortega".
      if (ctx === 'mention' && fullName && tokens[i - 1] === 'me') ctx = 'self';
      // A whole name opening the speaker's first turn, after a greeting of the user: "Hi Omar, Jess
      // Morgan, recruiting at Brightline" (a caller greets by first name; a whole name is their own).
      if (ctx === 'mention' && fullName && u === 0 && tokens.slice(0, i).every((t, k) => OPENERS.has(t) || covered.has(k))) ctx = 'self';
      if (ctx !== 'self' && (ctx !== 'address' || answering)) return;
      // A first name after a greeted one is the speaker's own ("Hi Grace, Tom here"), not a surname.
      const surname = fullName && (ctx === 'self' || !isKnownFirstName(next));
      out.push({ about: ctx === 'self' ? 'self' : 'other', name: surname ? `${capitalised(tok)} ${capitalised(next)}` : capitalised(tok), utterance: u });
    });
  });
  return out;
}

// Things only a caller says; they veto the looser answering forms ("Hello, this is the fraud team
// at Harbor Bank. Am I speaking with Laura Chen?" is a caller introducing themselves).
const CALLER_MARKERS = /\b(calling|call you|ringing|am i speaking|is this|is that|can i speak|may i speak|could i speak|i'd like|i would like|i wanted|i want to|following up|follow up|returning your|got your message)\b/;
const HELP_OFFER = /\b(how (can|may) (i|we) (help|assist)|what can (i|we) do for you|how can i direct)\b/;
// The same offer with its "how" misheard ("can can I help"); trusted only without caller markers.
const LOOSE_HELP_OFFER = /\b(can|may) (i|we) (help|assist)( you)?$/;
const THANKS_FOR_CALLING = /^((hello|hi|hey|good|morning|afternoon|evening)\s+)*(thank you|thanks)( so much| very much)? for calling\b/;
const NOT_BEFORE_SPEAKING = new Set(["i'm", 'im', 'am', 'is', 'are', 'was', 'be', 'been', 'who', "who's", 'yes', 'yeah', 'hello', 'hi', "it's", 'its', 'this', 'publicly', 'generally', 'roughly', 'honestly', 'frankly']);

/**
 * Whether the call's opening turn is an answering phrase ("Dr Smith's office, how can I help",
 * "Thank you for calling X", "Acme Dental speaking", "Hello, this is Acme Dental"): the speaker is
 * the one who picked up. Personal names are left to the name rules.
 */
export function isAnsweringPhrase(text: string, specs: NameSpecs): boolean {
  const tokens = wordsOf(text);
  if (tokens.length === 0) return false;
  const joined = tokens.join(' ');
  if (HELP_OFFER.test(joined) || THANKS_FOR_CALLING.test(joined)) return true;
  const head = tokens.slice(0, 7);
  if (/\b[a-z]+'s (office|desk|line|residence|surgery|practice)\b/.test(head.join(' '))) return true;
  if (CALLER_MARKERS.test(joined)) return false;
  if (LOOSE_HELP_OFFER.test(joined)) return true;

  const personal = (tok: string) => {
    const { base } = baseOf(tok);
    if (isKnownFirstName(base)) return true;
    return [specs.user, specs.contact].some((s) => s?.personLike && s.tokens.some((t) => matchToken(base, t) !== null));
  };
  const k = head.indexOf('speaking');
  if (k >= 1 && !NOT_BEFORE_SPEAKING.has(tokens[k - 1]) && !personal(tokens[k - 1])) return true;

  let s = 0;
  while (s < tokens.length && OPENERS.has(tokens[s])) s++;
  if (tokens[s] === 'this' && tokens[s + 1] === 'is' && s + 2 < tokens.length) {
    const next = tokens[s + 2];
    return next === 'the' || (!personal(next) && !isCommonWord(next.replace(/'s$/, '')));
  }
  return false;
}

// Call-opening cues: what the party who placed this call says ("returning your call", "I'm calling
// about", "you called about ...", "got your message"), and what the party who took it says
// ("thanks for calling", "thanks for getting back to me"). Unlike the answering phrase they need
// not open the call: a caller often speaks first on a recording that starts after the pickup.
// Asking for someone by name ("am I speaking with ...", "may I speak to ...") is the caller checking
// who picked up; it stays a cue when the name after it is misheard. "Who am I speaking with?" is the
// answerer's question.
const CALLER_CUE = /\b((?<!who )am i (speaking|talking) (with|to)|(may|can|could) i (please )?speak (with|to)|returning (your|the) (call|message)|return(ing)? your (call|message)|calling you back|call(ing)? back about|you called (about|me|us|earlier|yesterday|this morning|this afternoon|regarding|for)|you (had )?called about|(i'm|im|i am|we're|we are) calling (about|to|from|regarding|because|on behalf|back|with|for)|got your (message|voicemail|email)|(i|we) missed your call)\b/;
const ANSWERER_CUE = /\b(thank you|thanks)( so much| very much)? for (calling|ringing|getting back to (me|us)|returning my call|calling (me|us) back)\b/;

// "Hi, it's me": only the party who placed the call expects to be known by voice alone.
const ITS_ME = /^((hi|hey|hello|oh|yeah|um|uh|so)\s+)*(it's|its|it is) me\b/;

/** Whether a turn says its speaker placed the call ('caller') or took it ('answerer'). */
export function callOpeningCue(text: string): 'caller' | 'answerer' | null {
  const joined = wordsOf(text).join(' ');
  const caller = CALLER_CUE.test(joined) || ITS_ME.test(joined);
  const answerer = ANSWERER_CUE.test(joined);
  if (caller === answerer) return null;
  return caller ? 'caller' : 'answerer';
}

// Weaker signs of who placed the call, read only to check the positional guess (resolve.ts): the
// party stating why they call without an "I'm" ("calling about the bathroom job", "Hi, calling from
// the kennel", "just a quick heads up") placed it; the one who invites the other to talk ("go ahead,
// I'm listening") or asks who is calling took it. On their own they do not label anyone: "it's the
// garage calling about your car" is as often said after the answerer's "Hello?" as before it.
const WEAK_CALLER = /\b((?<!(for|you're|youre|you are|who's|whos|who is|why are you|were you|is) )calling (about|from|regarding|to (confirm|let|remind|check|say|ask|tell)|on behalf|back)|just (a )?(quick )?(heads up|check in|reminder)|quick (check in|heads up|reminder))\b/;
const WEAK_ANSWERER = /(^|\b(hello|hi|yes|yeah|yep|okay|ok|sure|um|uh|so|desk|line|office|counter|speaking) )go ahead\b(?! and\b)|\bi'm listening\b|\bwho's (this|calling)\b|\bwho is (this|calling)\b|\bmay i ask who's calling\b/;

/** A weaker sign that a turn's speaker placed the call ('caller') or took it ('answerer'); see WEAK_CALLER. */
export function callFlowCue(text: string): 'caller' | 'answerer' | null {
  const joined = wordsOf(text).join(' ');
  const caller = WEAK_CALLER.test(joined);
  const answerer = WEAK_ANSWERER.test(joined);
  if (caller === answerer) return null;
  return caller ? 'caller' : 'answerer';
}

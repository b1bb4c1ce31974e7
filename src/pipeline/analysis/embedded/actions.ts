// Action items and next steps from the speech acts of the call.
//
// A request ("can you email me a written quote?") makes the other party the owner; a commitment
// ("I'll send the quote tomorrow morning") makes the speaker the owner; a request and the owner's
// answering commitment a few turns later are one item. Items whose intent has a launcher
// (meeting, email, call, message, reminder) and tasks someone was asked to do become action items;
// the rest of the "I'll do X" plans and dated plans of a party become next steps. Every piece of
// launcher metadata (addresses, numbers, times, providers) is taken from what was said.
import type { AnalysisActionItem, Intent, IntentMetadata } from '../../../domain/analysis.js';
import { baseOfGerund, CHANGE_OF_PLAN, clausesOf, expand, verbOf, type Clause } from './clauses.js';
import { modelActFor, modelIntentFor, modelVerbPhrase, modelVetoes } from './speech-acts.js';
import type { DateMention } from './dates.js';
import { callDay } from './dates.js';
import { phoneDigits, toE164, type SpokenEmail, type SpokenNumber, type SpokenPhone } from './spoken.js';
import { addresseeOf, basePredicate, capitalize, contentStems, overlap, type CallText, type Speaker, type Unit } from './text.js';
import { isBelowConfidenceFloor } from './report.js';
import { anyOf, KIN, KIN_EITHER, KIN_FEMALE, KIN_MALE } from './words.js';
import { speakerNameWords, WEBMAIL } from '../heard.js';

export interface Candidate {
  unit: Unit;
  clause: Clause;
  owner: Speaker;
  /** The other party: who asked, or who is addressed. */
  other: Speaker | null;
  intent: Intent;
  channel: 'whatsapp' | 'sms' | 'telegram' | null;
  provider: 'zoom' | 'teams' | 'meet' | 'phone' | null;
  dates: DateMention[];
  /** The noun phrase a pronoun object stands for ("it" -> "the Zoom invite"). */
  antecedent: Antecedent | null;
  stems: string[];
  /** The person "him" / "her" stands for ("my husband"), said by the same speaker just before. */
  person?: string;
  /** Made of a dictated address nobody's clause used (unclaimedAddressCandidates), not of words that ask or promise. */
  unclaimed?: boolean;
}

interface Antecedent {
  phrase: string;
  unit: Unit;
}

export interface NextStepOut {
  text: string;
  ownerSpeaker: string | null;
  when: string | null;
  sourceSegmentIds: string[];
  ownerSpeakerId: string | null;
  ownerRole: Speaker['role'];
  dueDate: string | null;
}

export interface ActionResult {
  actionItems: AnalysisActionItem[];
  nextSteps: NextStepOut[];
  commitments: Array<{ text: string; ownerSpeaker: string; sourceSegmentIds: string[] }>;
  decisions: Array<{ text: string; agreedBy: string | null; sourceSegmentIds: string[] }>;
  /** Candidates that became action items, for summaries. */
  actionUnits: Set<number>;
}

const MEETING_NOUN = /\b(meeting|demo|demonstration|interview|video call|conference call|zoom call|teams call|webinar|consultation|session|catch-up|catch up|sync|walkthrough|walk-through|presentation|call with|screening)\b/i;
// ("you'll get an invitation letter" is post, no calendar invite)
const INVITE = /\b(invite(?!\s+letter)|invitation(?!\s+(?:letter|card|pack)s?\b)|calendar (?:invite|invitation|hold|event)|meeting link|zoom link|teams link|meet link|video link)\b/i;
// (plurals too: "the receipts", "the invoices", "the pay stubs"; and a tax form said by its number, "the 1099", "the W-2")
const DOCUMENTISH = /\b(quotes?|quotations?|estimates?|invoices?|receipts?|document|documents|file|files|reports?|form|forms|contracts?|proposals?|details|info|information|link|slides|deck|agenda|resume|cv|photo|photos|pictures?|summary|notes|statements?|cop(?:y|ies)|pdfs?|spreadsheets?|sheets?|brochures?|offer|letters?|paperwork|confirmation|itinerary|times|schedule|address|list|drawings?|plans|designs?|sketch(?:es)?|measurements|references?|transcripts?|records|results|stubs?|payslips?|1099s?|w-?2s?|slips?|diary|diaries|logs?|certificates?)\b/i;
const URGENT = /\b(urgent|urgently|asap|as soon as possible|right away|immediately|straight away|today|tonight|this (?:morning|afternoon|evening)|within the hour)\b/i;
// ("I'll sort that tonight", "I'll deal with it tomorrow", "I'll see to it": the same promise in other words)
const GENERIC_VP = /^(do (that|it|this|so)|will do|handle (that|it)|take care of (that|it)|get (on|onto) (that|it)|sort (that|it|this)(?: out)?|deal with (that|it|this)|see to (that|it|this)|get (that|it|this) (?:sorted|done))\b/i;

// A notice asked for or promised without its means ("give me a heads up", "let me know"), and the
// means said after it as a fragment ("Like a text when ...", "Maybe a quick call").
const NOTICE_VP = /^(?:give|send|drop)\s+(?:me|us|him|her|them|you)\s+(?:a\s+)?(?:quick\s+)?(?:heads[- ]?up|shout|warning|notice)\b|^let\s+(?:me|us|him|her|them|you)\s+know\b/i;
const MEANS_AFTER = /^(?:like|say|maybe|perhaps|just|ideally|even|or|by|via)\s+(?:a|an)\s+(?:quick\s+|short\s+)?(text message|text|message|whatsapp|call|ring|phone call|buzz|e-?mail)\b/i;

const IN_THE_EMAIL = /\b(?:in|from|inside|within|under|at the (?:bottom|top|end) of)\s+(?:the|that|this|my|your|our|their|an?)\s+(?:\w+\s+)?e-?mails?\b/gi;

const VIDEO_CALL_VP = /^(?:video[- ]?call|video chat|face ?time|skype)\s+(?:you|me|us|him|her|them|[A-Z][a-z]+)\b/i;

/** Provider named in a text, only when it was explicit. */
export function providerOf(text: string): Candidate['provider'] {
  if (/\bzoom\b/i.test(text)) return 'zoom';
  if (/\bmicrosoft teams\b|\bTeams\b|\bteams (call|meeting|invite|link|chat)\b/.test(text)) return 'teams';
  // "google me", "google meat": how an offline recogniser writes Google Meet
  if (/\bgoogle (?:meet|meets|me|meat|mate|mean|weak|week)\b/i.test(text) || /\bMeet (link|invite|call)\b/.test(text)) return 'meet';
  if (/\b(phone call|by phone|over the phone|conference call|phone meeting)\b/i.test(text)) return 'phone';
  return null;
}

/**
 * "I'll send you the Google Meet in life today" (for "invite"), "send you the Zoom thing": what is
 * sent named by a video platform is the meeting's invite or link, whatever the noun after the
 * platform was heard as. The platform must be the object's own word ("the Zoom ...", "the Teams
 * ..."), not a channel it goes by ("send the slides on Teams").
 */
export function sendsPlatformInvite(verb: string, vp: string): boolean {
  if (!/^(send|resend|forward|share)$/.test(verb)) return false;
  const p = providerOf(vp);
  if (!p || p === 'phone') return false;
  return /^\w+\s+(?:(?:you|me|us|him|her|them|[A-Z][a-z]+)\s+)?(?:the|a|an|our|my|your)\s+(?:zoom|teams|microsoft teams|google (?:meet|meets|me|meat|mate|mean|weak|week)|meet)\b/i.test(vp);
}

/** Chat channel named in a text ("text me" is SMS). */
export function channelOf(text: string, verb: string): Candidate['channel'] {
  if (/\bwhats ?app\b/i.test(text) || verb === 'whatsapp') return 'whatsapp';
  if (/\btelegram\b/i.test(text)) return 'telegram';
  if (/\b(sms|text message|texts?|texting)\b/i.test(text) || verb === 'text') return 'sms';
  return null;
}

// ("give that number a call": a demonstrative before a noun is its determiner, no pronoun)
const PRONOUN_OBJECT = /^(\w+(?:\s+(?:back|over|up|out|on|off))?)\s+(it|them|(?:that|this|those|these)(?!\s+(?!(?:to|for|in|on|at|by|with|from|over|back|up|out|off|down|across|along|round|around|tonight|today|tomorrow|now|later|again|please|first|as|and|or|but|when|if|before|after|once|this|next|on|straight|right|too|then|so|asap)\b)[a-z]))\b/i;
/** Verbs whose pronoun object is a thing handed over, worth naming in a title ("send it"). */
const TRANSFER_VERB = /^(send|resend|forward|email|mail|share|bring|return|ship|drop|give|sign|pay|post|upload|print|fax|text|whatsapp|message|deliver|submit|pick|check|review|fix|look|get|grab|collect|fetch)$/i;
const NOT_ANTECEDENT = /^(i|you|we|they|he|she|it|me|us|them|him|her|that|this|what|email|e-mail|mail|something|anything|everything|nothing|someone|anyone|everyone|minute|second|moment|problem|way|time|day|morning|afternoon|evening|night|week|month|year|lot|bit|thing|things|sure|okay|address|number|same|other|end|relief|pleasure|news|call|phone|line)$/i;
// An amount or a span of time is not a thing handed over ("the price is twelve dollars, please
// pick it up": "it" is the refill, not "the price 12 dollars").
const MEASURE_HEAD = /^(dollars?|bucks|pounds?|euros?|cents?|percent|minutes?|hours?|days?|weeks?|months?|years?|price|prices|cost|total|amount)$/i;
const CHUNK_STOP = 'on|in|at|by|to|for|from|with|and|or|but|when|if|together|tonight|today|tomorrow|this|next|after|before|until|again|back|is|are|was|were|will|would|should|can|could|up|out|over|that|which|who|as|so|right|too|first|of|about|into|onto|off|now|then|here|there|please|instead|anymore|yet|already|every|each|has|have|had|does|do|did|works|work';
const CHUNK = new RegExp(`\\b(?:the|a|an|your|my|our|their|his|her)\\s+((?:[A-Za-z0-9'-]+\\s+){0,3}?[A-Za-z0-9'-]+)(?=\\s+(?:${CHUNK_STOP})\\b|\\s*[,.?!;:]|\\s*$)`, 'gi');

const POSSESSED = new RegExp(`\\b(?!(?:it|that|what|there|here|he|she|who|where|let|how|when|why|one|everything|nothing|someone|somebody|everyone|today|tomorrow|tonight|yesterday|week|month|year)'s\\b)([A-Za-z]+)'s\\s+((?:[A-Za-z0-9'-]+\\s+){0,3}?[A-Za-z0-9'-]+)(?=\\s+(?:${CHUNK_STOP})\\b|\\s*[,.?!;:]|\\s*$)`, 'gi');

const MEETING_CALL = /\b(?:video|zoom|teams|conference|group|face ?time|skype)\s+call$/i;

/** Determiner-led noun chunks ("the train times", "a written quote", "invoice 2041"). */
export function nounChunks(text: string): string[] {
  const out: Array<{ i: number; p: string }> = [];
  for (const m of text.matchAll(CHUNK)) {
    const head = m[1].split(/\s+/).pop() ?? '';
    const firstWord = m[1].split(/\s+/)[0] ?? '';
    // ("a WhatsApp video call", "a conference call": a call named as a meeting is a thing to set up,
    // unlike "give me a call")
    if ((NOT_ANTECEDENT.test(head) && !MEETING_CALL.test(m[1])) || NOT_ANTECEDENT.test(firstWord) || MEASURE_HEAD.test(head) || /^\d+$/.test(head)) continue;
    // (nor is a day: "the twelfth", "the 12th")
    if (/\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b/i.test(m[0]) || /^\d+(?:st|nd|rd|th)$/i.test(head)) continue;
    out.push({ i: m.index!, p: m[0].trim() });
  }
  // ("Amara's permission slip", "Dad's old car": a possessive name is a determiner too)
  for (const m of text.matchAll(POSSESSED)) {
    const head = m[2].split(/\s+/).pop() ?? '';
    if (NOT_ANTECEDENT.test(head) || MEASURE_HEAD.test(head) || /^\d+$/.test(head) || out.some((o) => o.i > m.index! && o.i < m.index! + m[0].length)) continue;
    out.push({ i: m.index!, p: m[0].trim() });
  }
  for (const m of text.matchAll(/\b(invoice|order|ticket|case|reference|account|policy|claim)\s+(?:number\s+)?(\d{3,})\b/gi)) out.push({ i: m.index!, p: m[0] });
  return out.sort((a, b) => a.i - b.i).map((x) => x.p);
}

const THERE_IS = /^(?:(?:so|and|also|oh|okay|now)[,]?\s+)*(?:there is|there's|there are|there're|we have|we've got|I have|I've got)\s+(?:also\s+|just\s+|one more thing,?\s+)?(?:a|an|the|one|two|some)\b/i;
const SENT_OBJECT = /\b(?:send|resend|forward|email|e-mail|mail|share)\s+(?:(?:you|me|him|her|us|them)\s+)?((?:the|a|an|your|my|our|their|his|her)\s+[^.,;?!]+)/gi;

/** The noun phrase a pronoun object refers to: a sendable thing said shortly before, or the latest one. */
function findAntecedent(ct: CallText, unit: Unit, clause: Clause): Antecedent | null {
  const m = clause.vp.match(PRONOUN_OBJECT);
  // (a promise read as the other party's words keeps their pronoun: it points into their sentence)
  if (!m || clause.tookOn) return null;
  let fallback: Antecedent | null = null;
  // "them", "those", "these" stand for a plural or for two things said together ("a short bio and a
  // headshot" - "I'll send them tomorrow"), not for the invite mentioned before them
  const plural = /^(?:them|those|these)$/i.test(m[2]);
  // "I'll put a quote together tonight and get it over to you": the thing an earlier clause of the
  // same sentence acts on is what the pronoun stands for
  // (the clause just before, and not a note to self: "I'll set myself a reminder to call and book it")
  const prior = clausesOf(unit).filter((c) => c.offset < clause.offset).pop();
  const earlier = prior && prior.kind !== 'other' ? (plural ? withPairs(prior.vp, nounChunks(prior.vp)).filter(isPlural) : nounChunks(prior.vp)).filter((p) => !/\b(?:reminder|alarm|note|calendar|diary)$/i.test(p)) : [];
  if (earlier.length) return { phrase: earlier[earlier.length - 1], unit };
  // "There's also a short take-home exercise. Could you finish it ...?": a thing the speaker has just
  // brought up, in the sentence before, is what the pronoun stands for
  const before = ct.units[unit.idx - 1];
  if (before && before.turn === unit.turn && THERE_IS.test(before.norm)) {
    const p = (plural ? withPairs(before.norm, nounChunks(before.norm)).filter(isPlural) : nounChunks(before.norm))[0];
    if (p) return { phrase: p, unit: before };
  }
  // "I'll send you the Teams invite tomorrow. Are you on the owners list?" - "Yes, send it to the
  // address you have": what is sent is the thing just said to be sent, not a document named after it
  if (/^(?:send|resend|forward|email|mail|share)$/i.test(clause.verb)) {
    // (not what the asker said they would send themselves: "I'll send you the Meet link" ... "could
    // you email it to me the day before?" asks for something coming the other way)
    const toAsker = clause.kind === 'request' && /\b(?:me|us)\b/i.test(clause.vp);
    for (let k = unit.idx - 1; k >= 0 && ct.units[k].turn >= unit.turn - 2; k--) {
      const u = ct.units[k];
      if (toAsker && u.speaker.speakerId === unit.speaker.speakerId) continue;
      const sent = [...u.norm.matchAll(SENT_OBJECT)].map((x) => { const c = nounChunks(x[1]); return c[1] && x[1].includes(`${c[0]} and ${c[1]}`) ? `${c[0]} and ${c[1]}` : c[0]; }).filter((p): p is string => !!p && (!plural || isPlural(p)));
      const p = sent.pop();
      if (p) return { phrase: p, unit: u };
    }
  }
  for (let k = unit.idx - 1; k >= 0 && k >= unit.idx - 10; k--) {
    const u = ct.units[k];
    const phrases = (plural ? withPairs(u.norm, nounChunks(u.norm)).filter(isPlural) : nounChunks(u.norm)).reverse();
    for (const p of phrases) {
      if (DOCUMENTISH.test(p) || INVITE.test(p) || MEETING_NOUN.test(p)) return { phrase: p, unit: u };
      // a place named after a preposition ("is it at the office now?") is where the thing is, not it
      const place = new RegExp(`\\b(?:at|in|on|to|from|into|inside|near|avoid)\\s+${p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'i').test(u.norm);
      if (unit.idx - k <= 6 && !place && !(u.speaker.speakerId === unit.speaker.speakerId && u.isQuestion)) fallback ??= { phrase: p, unit: u };
    }
  }
  return fallback;
}

// whom "him" / "her" can stand for: the family beyond the close kin, and anyone the speaker calls "my ..."
const MALE_KIN = anyOf(KIN_MALE, ['fianc[eé]', 'grandad', 'grandpa', 'uncle', 'nephew']);
const FEMALE_KIN = anyOf(KIN_FEMALE, ['fianc[eé]e', 'grandma', 'gran', 'nan', 'aunt', 'niece']);
const ANY_KIN = anyOf(KIN_EITHER, ['boss', 'manager', 'landlord', 'landlady', 'neighbou?r', 'friend', 'colleague', 'flatmate', 'roommate', 'housemate', 'accountant', 'lawyer', 'solicitor', 'doctor', 'builder', 'cleaner', 'nanny', 'babysitter']);

/** "I can't decide without my husband. I'll message him now": the person "him" / "her" stands for, named by the speaker just before. */
function personOf(ct: CallText, unit: Unit, clause: Clause): string | undefined {
  const m = clause.vp.match(/^\w+(?:\s+(?:back|up))?\s+(him|her)\b(?!\s+(?:own|name|number|details|address|email|e-mail|phone|mobile|car|the|a|an)\b)/i);
  if (!m) return undefined;
  // ("I'll call her sister": "her" before a noun is its determiner, nobody to name)
  if (m[1].toLowerCase() === 'her' && !new RegExp(`^\\s*(?:$|[,.?!;:]|(?:${CHUNK_STOP}|later|soon)\\b)`, 'i').test(clause.vp.slice(m[0].length))) return undefined;
  const kin = m[1].toLowerCase() === 'him' ? `${MALE_KIN}|${ANY_KIN}` : `${FEMALE_KIN}|${ANY_KIN}`;
  // (no \b after the kin word: "fiancé" ends in a letter \b counts as a non-word character)
  const re = new RegExp(`\\b(?:my|our)\\s+(?:\\w+\\s+)?(?:${kin})(?![\\wé])`, 'gi');
  for (let k = unit.idx; k >= 0 && k >= unit.idx - 3; k--) {
    const u = ct.units[k];
    if (u.speaker.speakerId !== unit.speaker.speakerId || u.turn < unit.turn - 2) continue;
    const text = k === unit.idx ? u.norm.slice(0, Math.max(0, u.norm.toLowerCase().indexOf(clause.vp.toLowerCase()))) : u.norm;
    const found = [...text.matchAll(re)].pop();
    if (found) return found[0];
  }
  return undefined;
}

/** The chunks, and each two chunks said together ("a short bio and a headshot") as one phrase. */
function withPairs(text: string, chunks: string[]): string[] {
  const out = [...chunks];
  for (let i = 0; i + 1 < chunks.length; i++) {
    const pair = `${chunks[i]} and ${chunks[i + 1]}`;
    if (text.includes(pair)) out.splice(out.indexOf(chunks[i + 1]) + 1, 0, pair);
  }
  return out;
}

/** A phrase that "them" can stand for: two things, or a plural head ("the receipts", "the kids"). */
function isPlural(phrase: string): boolean {
  if (/\sand\s/i.test(phrase)) return true;
  const head = phrase.split(/\s+/).pop()!.toLowerCase();
  return /(?:[^su]s|ies|people|children|men|women|kids|folks|staff)$/.test(head);
}

// The verbs of setting a meeting up or sending its invite, whose speaker owns the meeting (the
// committer of meetingItem), and with them the other verbs a meeting is the object of (classifyIntent).
const MEETING_SETUP_VERBS = ['schedule', 'book', 'set', 'arrange', 'organi[sz]e', 'send', 'resend', 'forward', 'share', 'email', 'host'];
const MEETING_SETUP_VERB = new RegExp(`^(?:${anyOf(MEETING_SETUP_VERBS)})$`);
const MEETING_VERB = new RegExp(`^(?:${anyOf(MEETING_SETUP_VERBS, ['plan', 'put', 'mail', 'join', 'meet', 'hold', 'have', 'do', 'reschedule', 'move', 'confirm'])})$`);

function classifyIntent(ct: CallText, unit: Unit, clause: Clause, ante: Antecedent | null): { intent: Intent; channel: Candidate['channel']; provider: Candidate['provider'] } {
  const vp = clause.vp;
  const verb = clause.verb;
  const withAnte = ante ? `${vp} ${ante.phrase}` : vp;
  const provider = providerOf(clause.text) ?? (ante ? providerOf(ante.phrase) : null);
  // "Can you send me a photo of where it's coming from? On WhatsApp.": the channel said right after,
  // in a fragment of the same turn, is the request's
  const tail = ct.units[unit.idx + 1];
  const afterthought = tail && tail.turn === unit.turn && tail.words <= 4 && /^(?:on|by|via|over|through|in)\s/i.test(tail.plain) ? tail.norm : '';
  const channel = channelOf(vp, verb) ?? (afterthought ? channelOf(afterthought, '') : null);
  const hasEmail = unit.entities.some((e) => e.kind === 'email' && vp.includes((e as SpokenEmail).address));
  // "Would you mind giving me a heads up before you come? Like a text when you're half an hour out.":
  // the means said in the next sentence of the turn is the notice's
  const means = tail && tail.turn === unit.turn && NOTICE_VP.test(vp) ? tail.plain.match(MEANS_AFTER) : null;
  if (means) {
    const how = means[1].toLowerCase();
    if (/^(?:call|ring|phone call|buzz)$/.test(how)) return { intent: 'call', channel: null, provider: null };
    if (/^e-?mail$/.test(how)) return { intent: 'email', channel: null, provider: null };
    return { intent: 'message', channel: channelOf(tail.norm, '') ?? (how === 'message' ? null : 'sms'), provider: null };
  }
  // "I'll send her a message on Slack": a message sent is a message, on whatever chat it goes
  const chatSent = /^(send|drop|shoot|fire|flick|write|post)$/.test(verb) && /\b(?:a|an)\s+(?:quick\s+|short\s+)?(?:message|dm|direct message|chat message)\b|\bon (?:slack|teams chat|messenger|signal|imessage)\b/i.test(vp);
  // "I'll video call you on WhatsApp", "FaceTime me on Sunday": a video call is a meeting, whatever
  // app carries it
  if (VIDEO_CALL_VP.test(vp)) return { intent: 'meeting', channel: null, provider };
  if (['whatsapp', 'text', 'message', 'sms', 'telegram', 'ping', 'dm', 'slack'].includes(verb) || chatSent || (channel && /^(send|resend|forward|share|drop|reply|write|shoot|fire|flick|get)$/.test(verb)) || (channel && /^(?:do|sort|handle)\s+(?:the|a|an)\s+(?:quick\s+)?(?:whats ?app|text|message|sms|telegram)\b(?!\s+(?:video|voice|call)\b)/i.test(vp)) || /\b(?:group chat|chat group|whats ?app group|the chat)\b/i.test(vp) || POSTED_IN_CHAT.test(vp)) {
    return { intent: 'message', channel, provider: null };
  }
  // "We'll send you a text message and you can reply yes" - "I'll reply to the next": a reply to
  // the message the other party just announced goes back on its channel, whatever its object was heard as
  const announced = repliedTo(ct, unit, clause);
  if (announced) return { intent: 'message', channel: channelOf(announced.norm, ''), provider: null };
  if (clause.kind !== 'request' && CALENDAR_NOTE.test(vp)) return { intent: 'reminder', channel: null, provider: null };
  // (e-mailing the invite or the link sends it as much as "send" does: "I'll email the link tomorrow
  // morning" after a Zoom meeting was named)
  const meetingVerb = MEETING_VERB.test(verb);
  if (sendsPlatformInvite(verb, vp)) return { intent: 'meeting', channel: null, provider: providerOf(vp) };
  // "Can we do it on Google Meet?" ... "I'll send you the link": a link sent after a video
  // platform was named is the meeting's
  // (e-mailed, the link is the meeting's only when nothing else it could be of is said with it: "Also
  // the shared folder, I'll email you the link after this")
  const platformNamed = /\blink\b/i.test(withAnte) && (!/^(?:email|mail)$/.test(verb) || nounChunks(unit.norm).every((p) => /^(?:the|a|an|that|this|your|my|our)\s+(?:(?:zoom|teams|meet|meeting|video|call|invite|joining)\s+)?link$/i.test(p))) && ct.units.some((u) => u.idx <= unit.idx && u.turn >= unit.turn - 6 && !!providerOf(u.norm) && providerOf(u.norm) !== 'phone');
  if (meetingVerb && (INVITE.test(withAnte) || platformNamed || (!/^(send|resend|forward|share|email|mail)$/.test(verb) && (MEETING_NOUN.test(withAnte) || (ante && MEETING_NOUN.test(ante.unit.norm)) || (provider && provider !== 'phone'))))) {
    if (!(verb === 'meet' && !provider && !MEETING_NOUN.test(withAnte))) return { intent: 'meeting', channel: null, provider };
  }
  // (an e-mail the thing is found in is no channel: "pay online with the link in the email")
  if (verb === 'email' || verb === 'mail' && hasEmail || /\be-?mail(?:ed)?\b/i.test(vp.replace(IN_THE_EMAIL, '')) || hasEmail) return { intent: 'email', channel: null, provider: null };
  // "I'll write up an estimate and email it to you" heard as "... on the mail it to you", and the
  // address dictated in the next turn or just before: the thing made is e-mailed
  if (/\bmail (?:it|them|this|that|these|those)\b/i.test(vp) && ct.units.some((u) => Math.abs(u.turn - unit.turn) <= 2 && u.entities.some((e) => e.kind === 'email'))) return { intent: 'email', channel: null, provider: null };
  // ("give her a bell this afternoon", "give the office a ring"; and a call the owner has someone else
  // make, "I'll get him to ring you first", "get your dad to give them a call")
  if (/^(call|ring|phone|dial)$/.test(verb) || GIVE_A_CALL.test(vp) || THIRD_PARTY_CALL.test(vp)) {
    if (provider && provider !== 'phone') return { intent: 'meeting', channel: null, provider };
    return { intent: 'call', channel: null, provider: null };
  }
  // A reminder is the owner's own (spec: reminder); one sent to the other party ("can you send me
  // a reminder the day before?") is a message to them.
  if (/^(send|resend|give|drop)$/.test(verb) && /\breminder\b/i.test(vp) && /^\w+\s+(me|us|you|him|her|them|[A-Z][a-z]+)\b/.test(vp)) return { intent: 'message', channel, provider: null };
  // ("remind the other parents", "remind him to bring the ball": a word to someone else, no memory aid)
  if (verb === 'remind' && REMIND_OTHERS.test(vp)) return { intent: 'message', channel, provider: null };
  // "I need to remember to renew my passport": the speaker's own memory aid, like "remind me"
  if (verb === 'remind' || /\b(reminder|alarm)\b/i.test(vp) || /\bmake a note\b/i.test(vp) || (clause.kind !== 'request' && /^(?:remember|not forget) to\b/i.test(vp))) return { intent: 'reminder', channel: null, provider: null };
  // "What's your email?" - "tom baker at hotmail dot com" - "I'll send them this afternoon": sending
  // "it/them" right after an address was dictated is an e-mail, whatever the pronoun stands for
  if (/^(send|resend|forward|share|mail)$/.test(verb) && !/\bback\b/i.test(vp) && PRONOUN_OBJECT.test(vp)) {
    if (ct.units.some((u) => u.turn >= unit.turn - 2 && u.turn <= unit.turn && u.idx <= unit.idx && u.entities.some((e) => e.kind === 'email'))) return { intent: 'email', channel: null, provider: null };
    // ... or right after the other party asked for it by e-mail ("please email them to ..." - "I'll
    // send them tomorrow"), even when the address itself was not recognised
    if (ct.units.some((u) => u.turn === unit.turn - 1 && u.speaker.speakerId !== unit.speaker.speakerId && /\be-?mail (?:it|them|that|this|those|these|me|us)\b/i.test(u.norm))) return { intent: 'email', channel: null, provider: null };
  }
  if (/^(send|resend|forward|share|mail)$/.test(verb) && !/\bback\b/i.test(vp) && DOCUMENTISH.test(withAnte)) {
    // A document goes by e-mail when an address was given around this point of the call.
    const near = ct.units.filter((u) => Math.abs(u.turn - unit.turn) <= 4);
    if (near.some((u) => u.entities.some((e) => e.kind === 'email')) || near.some((u) => /\be-?mail\b/i.test(u.norm))) {
      return { intent: 'email', channel: null, provider: null };
    }
  }
  return { intent: 'task', channel, provider: null };
}

const GIVE_A_CALL = /\bgive\s+(?:me|you|us|him|her|them|(?:the|my|your|our|his|their)\s+[a-z-]+|[A-Z][a-z]+)\s+a\s+(?:quick\s+)?(?:call|ring|buzz|bell|tinkle)\b/i;
const THIRD_PARTY_CALL = /^(?:get|have|ask)\s+(?:him|her|them|(?:my|our|your|his|her|their|the)\s+[a-z-]+)\s+(?:to\s+)?(?:call|ring|phone|give\s+(?:me|you|us|him|her|them|[A-Z][a-z]+)\s+a\s+(?:call|ring|bell|buzz))\b/i;
const REMIND_OTHERS = /^[Rr]emind\s+(?:him|her|them|(?:the|your|his|her|their|our)\s+(?:other\s+)?[a-z-]+|[A-Z][a-z]+)\b/;

// "I'll put a message in the family WhatsApp", "post it in the class group": a message to a chat
// ("post something in the parents' WhatsApp": a possessive names the chat too)
const POSTED_IN_CHAT = /^(?:put|post|drop|stick|pop|leave)\s+(?:\w+\s+){0,3}?(?:in|on|into)\s+(?:the|our|my|your|their)\s+(?:[\w'-]+\s+){0,2}(?:whats ?app|group|chat|channel)\b/i;

// "Someone needs to call the council about the bins." - "I'll take care of that tomorrow": what a
// generic promise takes on is the need the other party just stated, in its own words
// ("twelve fifty, you can pay it through the school app" - "Done, I'll do it tonight": what the
// listener can do is what "it" takes on)
const NEED_SAID = /\b(?:needs? to|has to|have to|must|should|got to|ought to|you can|you could)\s+(?!be\b|have\b|know\b)([a-z]+\b.*?)[.!?]*$/i;
// (the need must be something to do, not a state: "someone needs to call the council", not "it
// needs to dry")
const NEED_VERB = /^(?:call|ring|phone|text|message|email|e-mail|mail|send|forward|book|schedule|cancel|pick|drop|collect|pay|sign|fill|submit|return|order|buy|fix|check|sort|chase|contact|tell|ask|bring|take|get|renew|register|confirm|arrange|organi[sz]e|clean|clear|move|pack|print|post|upload|update|write)\b/i;

// What needs doing, said of the thing rather than of a person: "the skip firm needs ringing to swap it",
// "my prescription needs picking up by Friday", "your portfolio link was broken, worth fixing before
// Thursday": the errand, the thing as its object ("ring the skip firm to swap it")
const THING_NEEDS = /(?:^|[,;]\s*|\b(?:so|and|but|also|now)\s+)((?:the|your|my|our|his|her|their|this|that)\s+(?:[a-z'-]+\s+){0,3}?[a-z'-]+)\s+(?:needs|need|wants)\s+([a-z]+ing)\b(.*?)[.!?]*$/i;
const WORTH_DOING = /^(?:(?:and|so|also|oh|now|but)[,]?\s+)*((?:the|your|my|our|his|her|their)\s+(?:[a-z'-]+\s+){0,2}?[a-z'-]+)\s+(?:is|was|are|were|has|had|looks|seems|keeps|got|went|ran|broke|fell|came|[a-z]+ed)\b[^.?!]*?[,;]?\s+(?:it is\s+|that is\s+|probably\s+|definitely\s+|might be\s+|would be\s+)?worth\s+([a-z]+ing)\b(.*?)[.!?]*$/i;
function thingNeeds(text: string): [string, string] | null {
  const m = text.match(THING_NEEDS) ?? text.match(WORTH_DOING);
  if (!m) return null;
  const thing = m[1].replace(/^(?:your|my|our)\s+/i, 'the ');
  return [m[0], `${baseOfGerund(m[2].toLowerCase())} ${thing}${m[3]}`.replace(/\s+/g, ' ').trim()];
}

// the speaker's own obligation ("I'll need to", "I just have to", "I've got to")
const OBLIGATION = /^(?:(?:will|just|still|also|will just)\s+)?(?:need to|have to)$|^have (?:just )?got to$/i;

const OFFERED = /^(?:(?:so|and|oh|well)[,]?\s+)*(?:do you want|would you like|want|shall I|should I)\s+(?:me\s+to\s+)?([a-z]+\b.*?)(?:\s+for you)?\s*\?$/i;

// "I'll put a reminder in for that", "I'll set an alarm for it": a memory aid of what the other party just said
const REMINDER_FOR_THAT = /^(?:set|put|pop|stick|add|make)\s+(?:myself\s+|me\s+)?(?:a\s+)?(?:reminder|note|alarm)\s+(?:in\s+)?(?:for|about)\s+(?:that|it|this)\b/i;

// A memory aid that says nothing of what it is for ("I'm setting a reminder right now", "I'll have to
// set a reminder", "I'll put a note in my phone"): it is for what was just said
const BARE_REMINDER = /^(?:(?:have|need|got) to\s+|better\s+)?(?:set|put|pop|stick|add|make)\s+(?:myself\s+|me\s+)?(?:a\s+)?(?:reminder|note|alarm)(?:\s+in)?(?:\s+(?:in|on)\s+(?:my|the)\s+(?:phone|calendar|diary))?(?:\s+(?:for|about)\s+(?:that|it|this))?(?:\s+(?:right\s+)?(?:now|away|tonight|today))?\s*$/i;

function takesOnNeed(ct: CallText, unit: Unit, clause: Clause): Clause {
  if (clause.kind === 'commit' && (REMINDER_FOR_THAT.test(clause.vp) || BARE_REMINDER.test(clause.vp))) {
    // ("And your MOT's due next month as well ... Just give us a shout when you want to book it in" -
    // "I'll put a reminder in for that": what is due, in the other party's words, the listener's own)
    const day = callDay(ct.context.recordedAt);
    const prev = ct.units.filter((u) => u.turn === unit.turn - 1 && u.speaker.speakerId !== unit.speaker.speakerId);
    // (what the speaker repeated just before it, in the other party's sentence it repeats: "No food
    // after ten at night, the night before." - "No food after ten the night before. I'll have to set a
    // reminder")
    const echo = ct.units.filter((u) => u.turn === unit.turn && u.idx < unit.idx && u.speaker.speakerId === unit.speaker.speakerId && !clausesOf(u).some((c) => c.kind !== 'other'));
    const said = new Set(contentStems(echo.map((e) => e.norm).join(' ')));
    const echoed = said.size ? prev.map((u) => ({ u, n: new Set(contentStems(u.norm).filter((w) => said.has(w))).size })).filter((x) => x.n >= 2).sort((a, b) => b.n - a.n)[0]?.u : undefined;
    const dated = echoed ?? [...prev].reverse().find((u) => u.dates.some((d) => (d.date !== null && d.date > day) || (!!d.month && d.month > day.slice(0, 7))));
    if (dated) {
      const what = expand(dated.norm).replace(/^(?:(?:and|so|also|oh|now|just)[,]?\s+)+/i, '').replace(/,.*$/, '').replace(/[.!?]+$/, '').replace(/\byour\b/gi, 'my').replace(/\s+as well$/i, '');
      // ("you are due a check-up" is "I am due", "the clinic will call you" is "call me")
      const mine = what.replace(/\byou are\b/gi, 'I am').replace(/\byou were\b/gi, 'I was').replace(/^you\b|(?<=\b(?:and|but|so|if|when|that|because|,)\s*)you\b|\byou\b(?=\s+(?:will|would|can|could|should|must|may|might|have|had|need|needs|do|did|still|also|just|really|get|got)\b)/gi, 'I').replace(/\byou\b/gi, 'me');
      const vp = `${BARE_REMINDER.test(clause.vp) ? 'set a reminder' : clause.vp.replace(REMINDER_FOR_THAT, 'set a reminder')} that ${mine}`;
      return { ...clause, vp, verb: 'set', tookOn: true };
    }
  }
  if (clause.kind !== 'commit' || !GENERIC_VP.test(clause.vp)) return clause;
  // (or the errand the other party offered to do: "Do you want me to call the landlord for you?" -
  // "No, it's fine, I'll do it myself tomorrow")
  // (a fault said in the past still needs its fix: "your link was broken, worth fixing before Thursday")
  const prev = ct.units.filter((u) => u.turn === unit.turn - 1 && u.speaker.speakerId !== unit.speaker.speakerId && (!u.past || !!thingNeeds(u.norm)));
  for (const u of prev.reverse()) {
    const m = (u.isQuestion && /\?\s*$/.test(u.text) ? null : u.norm.match(NEED_SAID) ?? thingNeeds(u.norm)) ?? u.norm.match(OFFERED);
    if (!m || !NEED_VERB.test(m[1])) continue;
    const rest = clause.vp.replace(GENERIC_VP, '').trim();
    // (the need up to its own clause: "you could post it in the class group, that'd be great")
    const need = m[1].replace(/\s+for (?:me|us)\b/i, '').replace(/,\s+(?:that|it|this|which|I|we|you|they|he|she|but|or|because|though)\b.*$/i, '');
    const vp = `${need}${rest ? ` ${rest}` : ''}`;
    return { ...clause, vp, verb: verbOf(vp), tookOn: true, tookOnFrom: u.idx };
  }
  return clause;
}

/**
 * The other party's latest turn before the unit's: the context the speech-act model was trained to
 * read a clause in. A recogniser cuts one speaker's turn into several segments, so the segment just
 * before may be the same speaker's.
 */
// a question that asks what to do if something happens ("if it does go back, how do I get it?"), not
// a courtesy ("if you could ...", "if that's okay")
const HYPOTHETICAL_Q = /\b(?:if|in case)\s+(?!you\s+(?:could|can|would|do not mind|like|want|prefer)\b)(?!(?:that|it|this)\s+is\s+(?:ok|okay|fine|alright|all right|good)\b)[a-z]/;

/** The first sentence of a turn that answers the other party's question about what to do if something happens. */
function answersHypothetical(ct: CallText, unit: Unit): boolean {
  if (ct.units.find((u) => u.turn === unit.turn) !== unit) return false;
  const asked = ct.units.filter((u) => u.turn === unit.turn - 1 && u.speaker.speakerId !== unit.speaker.speakerId);
  const q = asked[asked.length - 1];
  return !!q && q.isQuestion && HYPOTHETICAL_Q.test(q.plain) && !/^(?:(?:and|so|oh|um|well)[,]?\s+)*(?:can|could|would|will)\s+you\b/.test(q.plain);
}

/** An instruction said back in the very words the other party just used. */
function saidBack(ct: CallText, unit: Unit, clause: Clause): boolean {
  const flat = (s: string) => s.toLowerCase().replace(/[^a-z0-9' ]+/g, ' ').replace(/\s+/g, ' ').trim();
  const vp = flat(clause.vp);
  if (vp.split(' ').length < 2) return false;
  const said = ct.units.filter((u) => u.turn === unit.turn - 1 && u.speaker.speakerId !== unit.speaker.speakerId).map((u) => ` ${flat(u.plain)} `);
  return said.some((t) => t.includes(` ${vp} `));
}

function previousTurnText(ct: CallText, unit: Unit): string | null {
  for (let k = unit.turn - 1; k >= 0; k--) {
    const seg = ct.segments[k];
    if (seg && seg.speakerId !== unit.speaker.speakerId) return seg.text;
  }
  return null;
}

/**
 * The speech-act model beside the rules (speech-acts.ts; why: the rules match the phrasings they were
 * written for, and a request or promise said in other words reads as nothing actionable). A clause
 * the rules read as `other` for want of a phrasing they know (not one they ruled out on purpose:
 * Clause.ruledOut) becomes the request or commitment the model is sure of, with its verb
 * phrase from the verb on, so the rules' intent, slot and grouping steps fill the rest; a request or
 * commitment the model is sure is only info or social talk is dropped (off unless its threshold is set).
 */
function withSpeechActModel(ct: CallText, unit: Unit, clause: Clause): Clause {
  if (clause.negated || clause.conditional) return clause;
  const prev = previousTurnText(ct, unit);
  if (clause.kind === 'other' && !clause.ruledOut && clause.text.split(/\s+/).length >= 3) {
    const kind = modelActFor(clause.text, prev);
    if (!kind) return clause;
    const vp = modelVerbPhrase(clause.text, kind);
    return { ...clause, kind, vp, verb: verbOf(vp) };
  }
  if ((clause.kind === 'request' || clause.kind === 'commit') && modelVetoes(clause.text, prev)) return { ...clause, kind: 'other' };
  return clause;
}

/** The other party's sentence, in the last two turns, that announced a message this clause replies to. */
function repliedTo(ct: CallText, unit: Unit, clause: Clause): Unit | null {
  if (!/^(reply|respond|answer|text back|write back)$/.test(clause.verb) || channelOf(clause.vp, clause.verb)) return null;
  const near = ct.units.filter((u) => u.idx < unit.idx && u.turn >= unit.turn - 2 && u.speaker.speakerId !== unit.speaker.speakerId);
  return near.reverse().find((u) => channelOf(u.norm, '') !== null) ?? null;
}

/** Dates said inside the clause. */
function clauseDates(unit: Unit, clause: Clause): DateMention[] {
  const t = clause.text.toLowerCase();
  return unit.dates.filter((d) => t.includes(d.text.toLowerCase()));
}

const SPECIFICITY: Record<Intent, number> = { meeting: 6, email: 5, message: 4, call: 3, reminder: 2, task: 1, none: 0 };

interface Group {
  cands: Candidate[];
  owner: Speaker;
  intent: Intent;
  meeting: boolean;
  /** Units that joined without a clause of their own (acceptances, proposals, addresses). */
  extraUnits: Unit[];
  accepts: Unit[];
  /** A date set by a later change ("actually, make that Monday"). */
  changedDue?: Due;
  /** The other party's sentence of need this group's commitment answers ("it has to be paid by ..."). */
  answers?: Unit;
}

// What the other party says when something is up to the listener without asking in so many words:
// "it has to be paid by June 30th", "we need a doctor's note", "you can grab it at three".
// ("the skip firm needs ringing", "worth fixing before Thursday": what needs doing, said of the thing)
const REQUIREMENT = /\b(?:needs? [a-z]+ing|worth [a-z]+ing|it would (?:really )?help|need|needs|needed|has to|have to|must|should|required|requires|you can|you could|you may want|want you|would like you|it would help|it would be (?:great|good|helpful))\b/i;
const BARE_POINTER = /^\w+(?:\s+(?:up|back|over|in|off|out))?(?:\s+(?:it|them|that|this|one|those|these))?\s*[.!?]*$/i;
const POINTS_BACK = /^\w+(?:\s+(?:up|back|over|in|off|out))?\s+(?:it|them|that|this|one|those|these)\b/i;

// The user's being somewhere, or available, at a time: "I'll be there at 8:30", "could you come
// Friday instead?", "make sure someone is home", "I can swing by that morning", "bring it in a week
// from Tuesday", "have the old keys ready". With a day or time it is an appointment, which the user is
// reminded of (\`reminder\`); something to get done ("book the cabin", "pick up the pills", "move the
// car by Sunday") stays a \`task\`. Said by or to the user only: a reminder is the user's own.
const PRESENCE =
  /^(?:be|get)\s+(?:there|here|home|back|on site|onsite|around|available|free|ready)\b|^be\s+(?:at|in)\s+(?:the|my|your|our|his|her)\b|^(?:come|swing|stop|drop|pop|head)\s+(?:in|by|over|down|round|around|back|to)\b|^come\b(?!\s+(?:up with|across|out)\b)|^(?:go|get)\s+(?:to|down to|over to)\s+(?:the|my|your|our|his|her)\b|^(?:arrive|show up|turn up|work from home)\b|^bring\s+(?:it|them|him|her|\w+|(?:the|your|my|our)\s+[\w-]+)\s+(?:in|by|over|down)\b|^have\s+.{1,40}?\bready\b|^(?:someone|somebody|you|I|we)\s+(?:is|are|am|will be)\s+(?:home|there|around|in|available)\b/i;
const ERRAND = /^(?:pick\b|drop\s+(?!by\b|in\b)|buy|get\s+(?!there|here|home|back\b|to\b)|grab|collect|fetch|pay|return|mail|send|sign|fill|book|order|deliver|print|fax|upload|submit|call|email|text)\b/i;
// How an answer turns a request down, and how the one who asked takes it back.
const REFUSAL = /^(?:(?:oh|ah|aw|um|uh|er|well|sorry|hmm|look)[,.]?\s+)*(?:no\b(?![,.]?\s+(?:problem|worries))|nope\b|nah\b|(?:i|we) (?:can not|cannot|will not|would rather not|am not able to|are not able to|do not think (?:i|we) can)\b|unfortunately (?:i|we) (?:can not|cannot)\b|i am afraid (?:i|we) (?:can not|cannot)\b|not (?:this|that|today|tomorrow|tonight)\b|not possible\b|(?:that|it) (?:is|will) not (?:be )?possible\b|i wish\b(?=[,.!]|$|,? (?:i|we) could\b))/;
// said in a reply to a request, a deferral to some later occasion or a hedge that takes nothing on ("Maybe
// next time, if you add the insulin"; "Ha, I'll see what I can do, no promise"): no yes, whatever else
// the reply says (not "no promises it'll be pretty": that promises the thing, not its quality)
const DEFERRED_OR_HEDGED = /\b(?:maybe|perhaps) next (?:time|year|month|week)\b|\bno promises?(?:\s+[a-z]{1,2})?\s*(?:[.,!?]|$)|\b(?:can not|cannot|could not) promise (?:anything|that|it)\b/;
const REDIRECT = /\bsorry\b.*\b(?:maybe|perhaps|you could|you might|why not)\s+(?:try|ask)\b|\b(?:maybe|perhaps|you could|you might)\s+(?:try|ask)\b.*\bsorry\b/;
const WITHDRAWN = /^(?:(?:oh|actually|wait|um|uh|sorry|no|hmm|you know what)[,.]?\s+)*(?:never ?mind|forget (?:it|that|about it)|scratch that|do not worry about (?:it|that)|no need\b|it is (?:fine|okay|ok),? (?:i|we) will (?:do|handle|sort) it)/;
const TAKEN_BACK = /\b(?:forget (?:about )?|never ?mind (?:about )?|scratch )((?:the |that |my |your )?\w+(?:ing)?(?: \w+){0,2})/;
// "Putting it on my calendar", "I'll add that to my diary": the owner's own memory aid, like "remind me"
const CALENDAR_NOTE = /^(?:put|putting|add|adding|write|writing|mark|marking|pop|popping|stick|note|noting|block|blocking|pencil|penciling)\b.*\b(?:on|in|to|into|off)\s+(?:my|the|our|your)\s+(?:calendar|diary|planner|agenda)\b/i;

// (and deliberating, "I'll talk it over with my husband", is no deliverable either)
const OWN_MOVES = /^(work|stop|come|go|be|stay|swing|head|pop|have|get|leave|move|start|do|try|see|meet|wait|arrive|look|think|check|let|talk|discuss|consider|decide|sleep|mull|figure|ask)$/i;

// "I'll have him move it tonight", "I'll get them together this weekend", "I'll get the car washed":
// having someone do it, or getting a thing done, is no coming or going of the speaker's
const HAS_DONE = /^(?:have|get)\s+(?:him|her|them|someone|somebody|(?:my|our)\s+[a-z-]+)\s+(?!be\b|there\b|here\b|home\b|back\b|to\b|in\b|out\b|off\b|up\b|over\b|round\b|around\b|through\b|on\b|at\b)[a-z]+|^get\s+(?:it|them|the\s+[a-z-]+)\s+(?:done|fixed|sorted|together|signed|printed|framed|ready|finished|cleaned|repaired)\b/i;

/** The other party's sentence of need, in the turn before, that a commitment of the group takes on. */
// "So no cars on the drive that morning", "no coffee after eight": a thing ruled out for a time or a
// place is a requirement as much as "you need to ..." is
const PROHIBITION = /^(?:(?:so|and|just|oh|also|but)[,]?\s+)*no\s+(?!problem|worries|rush|need|idea|way|one|thanks|thank|bother|kidding|promises|wait|fee|charge|cost|worry|doubt)[a-z]+\b.*?\b(?:in|on|at|after|before|until|till|that|this|the night|the day)\b/i;

function answeredNeed(ct: CallText, g: Group): Unit | null {
  const c = g.cands.find((x) => x.clause.kind === 'commit' || x.clause.kind === 'joint');
  if (!c) return null;
  const prev = ct.units.filter((u) => u.idx < c.unit.idx && u.turn >= c.unit.turn - 2 && u.speaker.speakerId !== c.unit.speaker.speakerId);
  if (!prev.length) return null;
  const lastTurnOf = prev[prev.length - 1].turn;
  for (const u of prev.filter((x) => x.turn === lastTurnOf).reverse()) {
    // (or the answer to the speaker's own question of what is needed: "Do I need to bring anything?" -
    // "Just her vaccination records" - "Okay, I'll dig those records out")
    const askedNeed = ct.units.some((x) => x.turn === u.turn - 1 && x.speaker.speakerId === c.unit.speaker.speakerId && x.isQuestion && REQUIREMENT.test(x.norm));
    if (!(REQUIREMENT.test(u.norm) || PROHIBITION.test(u.norm) || askedNeed) || (u.isQuestion && /\?\s*$/.test(u.text))) continue;
    const common = overlap(contentStems(u.norm), c.stems) > 0;
    // (an answer is taken on by naming what it said, not by any "that")
    if (common || (POINTS_BACK.test(c.clause.vp) && (REQUIREMENT.test(u.norm) || PROHIBITION.test(u.norm)))) return u;
  }
  // "So just to confirm: ..., I'll have the drawings on site, and I'll pay the fee by Monday": a recap
  // takes on what the other party required earlier in the call, in its words
  const lead = ct.units[c.unit.idx - 1];
  if (RECAP.test(c.unit.plain) || (lead && lead.turn === c.unit.turn && lead.words <= 5 && RECAP.test(lead.plain))) {
    const earlier = ct.units.filter((u) => u.idx < c.unit.idx && u.turn >= c.unit.turn - 6 && u.speaker.speakerId !== c.unit.speaker.speakerId && REQUIREMENT.test(u.norm) && !u.isQuestion);
    const need = earlier.reverse().find((u) => c.stems.filter((st) => u.stems.includes(st)).length >= 1 && overlap(contentStems(u.norm), c.stems) >= 0.1);
    if (need) return need;
  }
  return null;
}


function firstName(name: string): string {
  return name.split(/\s+/)[0] ?? name;
}

/** A verb phrase rewritten for the owner to read: pronouns replaced by the people they point to. */
function titleOf(c: Candidate): string {
  let vp = c.clause.vp;
  const speaker = c.unit.speaker;
  const speakerName = speaker.displayName || speaker.label;
  const otherName = c.other ? c.other.displayName || c.other.label : null;
  if (c.antecedent && (TRANSFER_VERB.test(c.clause.verb) || /^(set|arrange|book|schedule|organi[sz]e)$/.test(c.clause.verb))) {
    const phrase = c.antecedent.phrase.replace(/^(your|my|our)\s+/i, 'the ').replace(/^(The|A|An|Their|His|Her)\b/, (d) => d.toLowerCase());
    vp = vp.replace(PRONOUN_OBJECT, (_m, v: string, _p: string) => {
      const [verb, ...particle] = v.split(/\s+/);
      return particle.length ? `${verb} ${phrase} ${particle.join(' ')}` : `${verb} ${phrase}`;
    });
  }
  // ("I'll message him now" after "I'll check with my husband first": "Message my husband now")
  if (c.person) vp = vp.replace(/\b(him|her)\b/i, c.person);
  if (c.clause.kind === 'request') {
    // said by the requester to the owner: "me" is the requester, "your" the owner's own
    vp = vp
      .replace(/\b(me|us)\b/g, speakerName)
      .replace(/\b(my|our)\b/g, `${speakerName}'s`)
      .replace(/\byourself\b/g, 'yourself')
      .replace(/\byour\b/g, 'the');
  } else if (otherName) {
    // said by the owner: "you" is the other party; "my" stays for the app user's own items
    vp = vp
      .replace(/\byou\b/g, otherName)
      .replace(/\byour\b/g, `${otherName}'s`)
      .replace(/\b(myself|ourselves)\b/g, '')
      .replace(/\b(my|our)\b/g, c.owner.role === 'USER' ? '$1' : 'their');
  }
  // (a restart repeats a word, "send me the the quote": said once in a title)
  vp = vp.replace(/\s+/g, ' ').replace(/\s+([,.])/g, '$1').replace(/\b(the|a|an|to|my|your|I|you|and|of|for|on|in|at|it)(?:,?\s+\1)+\b/gi, '$1').trim();
  // a title is an instruction: its verb in the base form, whatever form the recogniser heard
  // ("please arrived ten minutes early" -> "Arrive ten minutes early")
  if (c.clause.kind === 'request' || c.clause.kind === 'commit') vp = basePredicate(vp) ?? vp;
  // A recogniser's run-on turn goes on after the item ("email you the offer letter today is sam
  // not the ..."): a title ends at the time it names when more words follow it.
  const timed = vp.match(TITLE_TIME_END);
  if (timed && vp.split(/\s+/).length > 8) vp = timed[1];
  // a run-on cut mid-phrase leaves a dangling function word ("text me when you land and")
  vp = vp.replace(/(?:\s+(?:and|or|but|so|then|to|the|a|an|of|with|at|for|in|on|by|from|that|your|my))+[,;:]*$/i, '');
  return capitalize(vp.replace(/[,;:]+$/, ''));
}

const TITLE_TIME_END = /^(.*?\b(?:today|tonight|tomorrow(?: morning| afternoon| evening| night)?|this (?:morning|afternoon|evening|week)|(?:on|by|before|next) (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|the \d+(?:st|nd|rd|th))(?: (?:morning|afternoon|evening))?)\b)(?:\s+\S+){2,}$/i;

function sentenceOf(u: Unit): string {
  return u.text.trim();
}

function uniq<T>(xs: T[]): T[] {
  return [...new Set(xs)];
}

function segIds(units: Unit[]): string[] {
  return uniq(units.sort((a, b) => a.idx - b.idx).map((u) => u.segmentId));
}

/** How far (turns) a written-to address reaches: the request before it, the answer after it. */
const ADDRESS_REACH_BEFORE = 3;
const ADDRESS_REACH_AFTER = 1;

/**
 * A dictated e-mail address that no e-mail or meeting item will use is still something somebody
 * will write to: the party who heard it (a person dictates an address for the other party to use,
 * whether their own or a third party's, e.g. "you can email them to claims dot desk at northgate
 * mutual dot com"). The recogniser often garbles the words around an address ("you can avail
 * that") while the address itself, said slowly, survives: the rules then read no request. One
 * candidate per address, from where it was first said (a read-back by the listener is not a
 * dictation); not where the talk is of a meeting (the address is an invitee's, the meeting rules
 * take it).
 */
function unclaimedAddressCandidates(ct: CallText, cands: readonly Candidate[]): Candidate[] {
  const out: Candidate[] = [];
  const seen = new Set<string>();
  const said: Array<{ unit: Unit; domain: string }> = [];
  for (const unit of ct.units) {
    for (const e of unit.entities) {
      if (e.kind !== 'email') continue;
      const address = (e as SpokenEmail).address;
      if (seen.has(address)) continue;
      seen.add(address);
      // (a read-back whose local part the recogniser heard otherwise, "silly thing at oakline
      // properties dot com" - "way send at oakline properties dot com": the same domain from the
      // other party a turn or two later is the same address; not at a webmail domain, which the
      // other party's own address shares as often: "mine is ... at gmail dot com")
      const domain = address.split('@')[1];
      const readBack = !WEBMAIL.has(domain.split('.')[0]) && said.some((x) => x.domain === domain && x.unit.speaker.speakerId !== unit.speaker.speakerId && unit.turn - x.unit.turn >= 1 && unit.turn - x.unit.turn <= 2);
      said.push({ unit, domain });
      if (readBack) continue;
      // ("For security, can you confirm the email address on the account?", "What's the email address
      // on the application?": an address said to prove who one is or to find a record, nobody's to write to)
      if (ct.units.some((u) => u.turn === unit.turn - 1 && u.speaker.speakerId !== unit.speaker.speakerId && /\bfor security\b|\b(?:confirm|verify)\b[^.?!]*\b(?:e-?mail|address)\b[^.?!]*\b(?:on|for)\s+(?:the|your)\s+(?:account|file|policy|record)\b|\bwhat is the (?:e-?mail|address)\b[^.?!]*\b(?:on|for|under)\s+(?:the|your)\s+(?:account|file|policy|record|application|booking|order|reservation)\b/.test(u.plain))) continue;
      const near = (t: number) => t >= unit.turn - ADDRESS_REACH_BEFORE && t <= unit.turn + ADDRESS_REACH_AFTER;
      if (cands.some((c) => near(c.unit.turn) && (c.intent === 'email' || c.intent === 'meeting'))) continue;
      if (ct.units.some((u) => near(u.turn) && (MEETING_NOUN.test(u.plain) || providerOf(u.plain)))) continue;
      const listener = addresseeOf(ct, unit);
      if (!listener) continue;
      // An address that names the listener and not the speaker is the listener's own, read back to
      // them ("irene dot novak at yahoo dot com" said to Irene): the speaker is the one who writes.
      const local = address.split('@')[0];
      // (a stand-in name names nobody: "contact at acme dot com" said to "Contact ending 3390" is no read-back)
      const named = (s: Speaker) => [...speakerNameWords([s])].some((w) => local.includes(w));
      const [owner, other] = named(listener) && !named(unit.speaker) ? [unit.speaker, listener] : [listener, unit.speaker];
      const clause: Clause = { kind: 'request', text: unit.text, vp: `email ${address}`, verb: 'email', conditional: false, whenClause: false, offset: 0, negated: false };
      out.push({
        unit,
        clause,
        owner,
        other,
        intent: 'email',
        channel: null,
        provider: null,
        dates: unit.dates,
        antecedent: null,
        stems: contentStems(`email ${unit.plain}`),
        unclaimed: true,
      });
    }
  }
  return out;
}

// (the place may carry its time: "be at work all day Friday", "be in a meeting until three"; and
// what follows from it, when that is no plan of the speaker's: "be away next week, so the back door
// is the one to use")
const AWAY = /^be\s+(?:at work|at the office|in the office|away|out of town|on holiday|on vacation|travell?ing|busy|in (?:a )?meeting)(?:\s+(?:all|day|week|weekend|morning|afternoon|evening|night|then|today|tonight|tomorrow|on|this|next|until|till|from|to|the|at|by|around|about|[a-z]+day|\d[\w:.]*|[ap]\.?m\.?|noon|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|o'clock|half|past|quarter))*(?:,?\s+(?:so|but|though|and)\s+(?!I\b|I'll\b|we\b|we'll\b).*)?[.?!,]*$/i;

// A condition that opens the sentence and hangs on an event ("if the flight is delayed, ..."), not on
// the listener ("if you ...") nor a courtesy ("if that is okay, ...").
const CONTINGENT_LEAD = /^(?:(?:and|oh|so|but|also|okay|ok|lovely|right|well|actually|then)[,]?\s+)*(?:if|in case|should)\s+(?!(?:you|your)\b|(?:that|it|this) is (?:ok|okay|fine|alright|all right|good|convenient)\b)/;

/** A commitment said under a condition that opens its sentence and depends on an event (CONTINGENT_LEAD). */
function contingent(c: Candidate): boolean {
  return c.clause.conditional && CONTINGENT_LEAD.test(c.unit.plain);
}

// "I'll put a reminder in my phone, otherwise I'll totally forget": what will happen if the plan
// before it is not carried out is no plan of its own (a recogniser's run-on cuts the sentence after
// "otherwise", so the word may end the sentence before).
const CONSEQUENCE_LEAD = /\b(?:otherwise|or else)\s*[,.;:!]?\s*$/i;

/** A clause said as the consequence of not doing something ("..., otherwise I'll forget"). */
export function isConsequence(ct: CallText, unit: Unit, clause: Clause): boolean {
  if (clause.kind !== 'commit' && clause.kind !== 'soft' && clause.kind !== 'future') return false;
  const said = expand(unit.norm);
  const at = said.indexOf(clause.text.slice(0, 24));
  const before = said.slice(0, at >= 0 ? at : clause.offset);
  if (before.trim()) return CONSEQUENCE_LEAD.test(before);
  const prev = ct.units[unit.idx - 1];
  return !!prev && prev.turn === unit.turn && CONSEQUENCE_LEAD.test(prev.text);
}

/**
 * An item whose own sentences the recogniser was unsure of (none of them HIGH) needs words that say
 * what is to be done: a title with fewer than two content words ("Text", "Call him") is then a
 * fragment of misrecognised speech more often than a follow-up. Well-recognised items are not
 * judged here (the task rule below covers them).
 */
export function heardTooPoorly(g: { cands: Array<Pick<Candidate, 'unit' | 'unclaimed'>> }, title: string, vp = ''): boolean {
  if (g.cands.some((c) => c.unclaimed || c.unit.confidence === 'HIGH')) return false;
  // (nor is a verb phrase cut off before its object, "give you my", whatever names its pronouns became)
  return contentStems(title).length < 2 || DANGLING_END.test(vp.trim());
}

// (or before anything at all: "let's have", "I'll be", the verb of a sentence the recogniser cut off)
const DANGLING_END = /\b(?:the|a|an|my|your|our|their|his|her|its|of|to|for|with)[.?!,]*$|^(?:\S+\s+){0,2}(?:have|has|be|get|got|do|make)[.?!,]*$/i;

export function extractActions(ct: CallText): ActionResult {
  const day = callDay(ct.context.recordedAt);
  const cands: Candidate[] = [];
  const proposals: Array<{ unit: Unit; clause: Clause }> = [];
  const accepts: Array<{ unit: Unit; clause: Clause }> = [];
  const desires: Array<{ unit: Unit; clause: Clause }> = [];
  const changes: Array<{ unit: Unit; clause: Clause; date: DateMention }> = [];

  for (const unit of ct.units) {
    for (const read of clausesOf(unit)) {
      const clause = takesOnNeed(ct, unit, withSpeechActModel(ct, unit, read));
      // "Actually, make that Monday": a new date for something said before, not a new item
      const changed = CHANGE_OF_PLAN.test(clause.text) ? clauseDates(unit, clause).find((d) => d.date && d.date >= day) ?? unit.dates.find((d) => d.date && d.date >= day) : undefined;
      if (changed && !clause.negated) {
        changes.push({ unit, clause, date: changed });
        continue;
      }
      if (clause.kind === 'other' || clause.negated) continue;
      if (isConsequence(ct, unit, clause)) continue;
      // "And I guess if it floods tonight I just call you guys back?" - "Call the same number and press
      // one": what to do if something happens, asked and answered, is no errand unless it happens
      if (clause.kind === 'request' && answersHypothetical(ct, unit)) continue;
      // "... pay it as normal, and once the discount's on you'll get a credit." - "Right, pay it as
      // normal.": the listener saying an instruction back takes it, it asks nothing of the speaker
      if (clause.kind === 'request' && saidBack(ct, unit, clause)) {
        accepts.push({ unit, clause: { ...clause, kind: 'accept' } });
        continue;
      }
      // "I'll be at work, but you have a key": where the speaker will be instead, no plan to act on
      if ((clause.kind === 'commit' || clause.kind === 'soft' || clause.kind === 'future') && AWAY.test(clause.vp)) continue;
      // "I have Saturday at eight open. Does that work?" - "Yeah, I can do that.": the time proposed
      // taken, not a plan to "do that"
      // ("Could you do the afternoon instead?" - "Afternoon's twelve till four. I'll put you down for
      // that one.": the slot taken, which the appointment step makes the item of)
      // ("We're having a planning meeting on Zoom next Monday, six thirty" - "Monday at six thirty, I
      // can do that": a time announced and repeated is taken as well as a time proposed)
      if ((clause.kind === 'commit' || clause.kind === 'soft') && (/^do (?:that|it|this)$/i.test(clause.vp) || /^(?:put|pencil|book|write)\s+(?:you|him|her|them)\s+(?:down|in)(?:\s+for\s+(?:that|it|this)(?:\s+(?:one|slot|time))?)?$/i.test(clause.vp)) && (proposedJustBefore(ct, unit) || (/^do /i.test(clause.vp) && timeTakenBack(ct, unit)))) {
        accepts.push({ unit, clause: { ...clause, kind: 'accept' } });
        continue;
      }
      // "Tuesday the sixteenth, same window?" - "Yes, perfect, book that.": the time offered taken,
      // not an errand to book whatever "that" was last said of
      // ("I can refund it to your bank, or leave it on for the winter." - "Leave it on the account":
      // the option chosen, which the one who offered it carries out as part of what they said)
      if (clause.kind === 'request' && (TAKE_OFFERED.test(clause.vp) && offeredJustBefore(ct, unit) || choseOffered(ct, unit, clause))) {
        accepts.push({ unit, clause: { ...clause, kind: 'accept' } });
        continue;
      }
      if (clause.kind === 'proposal') {
        proposals.push({ unit, clause });
        // A proposal that names a meeting ("would a Zoom call next Tuesday work?") is a meeting even
        // if nobody says "I'll send the invite".
        if (!(providerOf(clause.text) || MEETING_NOUN.test(clause.text))) continue;
      }
      if (clause.kind === 'accept') {
        accepts.push({ unit, clause });
        continue;
      }
      if (clause.kind === 'desire') {
        desires.push({ unit, clause });
        continue;
      }
      if (clause.needsAnswer && !takenOn(ct, unit)) continue;
      const other = addresseeOf(ct, unit);
      const owner = clause.kind === 'request' ? other ?? unit.speaker : unit.speaker;
      const ante = findAntecedent(ct, unit, clause);
      const ruled = clause.kind === 'proposal' ? { intent: 'meeting' as Intent, channel: null, provider: providerOf(clause.text) } : classifyIntent(ct, unit, clause, ante);
      const { channel, provider } = ruled;
      // the rules' `task` is their default, not a reading: the speech-act model's intent, when it is sure
      const intent: Intent = ruled.intent === 'task' ? (modelIntentFor(clause.text, previousTurnText(ct, unit)) ?? 'task') : ruled.intent;
      cands.push({
        unit,
        clause,
        owner,
        other: clause.kind === 'request' ? unit.speaker : other,
        intent,
        channel,
        provider,
        dates: clauseDates(unit, clause),
        antecedent: ante,
        stems: contentStems(`${clause.vp} ${ante?.phrase ?? ''}`),
        person: clause.kind === 'request' ? undefined : personOf(ct, unit, clause),
      });
    }
  }

  cands.push(...unclaimedAddressCandidates(ct, cands));

  // ---- grouping: a request and the owner's answering commitment are one item
  const groups: Group[] = [];
  const meetingGroups: Group[] = [];
  for (const c of cands) {
    const generic = GENERIC_VP.test(c.clause.vp) && c.clause.kind === 'commit';
    if (generic) {
      // (or the speaker's own offer the other party just took up: "Shall I get him booked?" - "Aye, go on
      // then" - "I'll sort it first thing Monday")
      const target = [...groups].reverse().find((g) => g.owner.speakerId === c.owner.speakerId && c.unit.turn - lastTurn(g) <= 2 && g.cands.some((x) => (x.clause.kind === 'request' || (x.clause.needsAnswer && x.clause.kind === 'commit' && x.unit.speaker.speakerId === c.unit.speaker.speakerId)) && !x.clause.conditional));
      if (target) {
        target.cands.push(c);
        // ("Can you take a few photos of the crack? I'm from the ground and the email them over. Our
        // address is quotes at ..." - "Sure, I can do that": the e-mail the recogniser garbled in the
        // request is what the answer, beside the address, takes on; on sentences it was unsure of only)
        if (c.intent === 'email' && target.intent === 'task' && c.unit.confidence !== 'HIGH' && target.cands.every((x) => x.unit.confidence !== 'HIGH')) target.intent = 'email';
        continue;
      }
    }
    if (c.intent === 'meeting') {
      const g = meetingGroups.find((m) => Math.abs(c.unit.turn - lastTurn(m)) <= 6);
      if (g) g.cands.push(c);
      else meetingGroups.push({ cands: [c], owner: c.owner, intent: 'meeting', meeting: true, extraUnits: [], accepts: [] });
      continue;
    }
    // a dated remark about the same thing right after a plan ("I'm shipping you a replacement. It
    // should arrive on Thursday") completes that plan
    if (c.clause.kind === 'future' && /^(it|they|this|that|he|she)\b/i.test(c.clause.text)) {
      const prev = groups[groups.length - 1];
      if (prev && prev.owner.speakerId === c.owner.speakerId && lastTurn(prev) === c.unit.turn) {
        prev.cands.push(c);
        continue;
      }
    }
    // "Remind me to buy a card" - "I'll send you a reminder": the offer is how the reminder the other
    // party just asked for reaches them, one item (the spec's reminder is owned by the one reminded)
    if (c.clause.kind === 'commit' && c.intent === 'message' && /\breminder\b/i.test(c.clause.vp)) {
      const asked = [...groups].reverse().find((g) => g.intent === 'reminder' && g.owner.speakerId !== c.owner.speakerId && c.unit.turn - lastTurn(g) >= 0 && c.unit.turn - lastTurn(g) <= 1);
      if (asked) {
        asked.extraUnits.push(c.unit);
        continue;
      }
    }
    // "I'm gonna swing by Saturday afternoon anyway, so I can pick the pills up for you": the plan and
    // its purpose, said in one breath, are one errand
    const purposeOf = groups[groups.length - 1];
    const planBefore = purposeOf?.cands[purposeOf.cands.length - 1];
    if (
      planBefore && planBefore.unit === c.unit && planBefore.clause.kind === 'commit' && (c.clause.kind === 'commit' || c.clause.kind === 'soft') &&
      purposeOf.owner.speakerId === c.owner.speakerId && purposeOf.intent === 'task' && c.intent === 'task' &&
      new RegExp(`\\bso (?:that )?(?:i|we) (?:can|could|will|may) ${c.clause.verb}\\b`).test(c.unit.plain)
    ) {
      // (its "can" is the purpose's, not an offer: the plan's own modal holds for both)
      purposeOf.cands.push({ ...c, clause: { ...c.clause, kind: 'commit', modal: planBefore.clause.modal } });
      continue;
    }
    // "You can email them to claims dot desk at ..." ... "Please get the photos to us by the end of
    // the week" - "I'll send them tonight": the address dictated is where the e-mail asked for a few
    // sentences later goes, not an e-mail of its own
    if (c.unclaimed) {
      const sent = groups.find((g) => g.owner.speakerId === c.owner.speakerId && g.intent === 'email' && g.cands.every((x) => x.unit.turn > c.unit.turn && x.unit.turn - c.unit.turn <= ADDRESS_REACH_BEFORE + 2));
      if (sent) {
        sent.cands.push(c);
        continue;
      }
      // ("Right, I'll send that through. What's the email?" - "Bookings at coastline vans dot com":
      // the address given right after a promise to send something is where it goes, one e-mail)
      const promised = [...groups].reverse().find((g) => g.owner.speakerId === c.owner.speakerId && g.intent === 'task' && g.cands.some((x) => x.unit.speaker.speakerId === c.owner.speakerId && x.clause.kind === 'commit' && /^(?:send|forward|resend|submit|get)$/.test(x.clause.verb) && c.unit.turn > x.unit.turn && c.unit.turn - x.unit.turn <= 2));
      if (promised) {
        promised.cands.push(c);
        promised.intent = 'email';
        continue;
      }
    }
    // "Could you e-mail us the color name and a photo?" ... "Try to get it in by Friday": a request
    // again, by a pronoun for what the same speaker asked for a turn or two before, is that request
    // with its deadline, not a second errand
    if (c.clause.kind === 'request' && c.intent === 'task' && /^(?:get|send|submit)\s+(?:it|them)\b/i.test(c.clause.vp.replace(/^try\s+(?:to|and)\s+/i, ''))) {
      const asked = [...groups].reverse().find((g) => g.owner.speakerId === c.owner.speakerId && (g.intent === 'email' || g.intent === 'message') && c.unit.turn - lastTurn(g) <= 2 && c.unit.turn > lastTurn(g) - 1 && g.cands.some((x) => x.clause.kind === 'request' && x.unit.turn < c.unit.turn && x.unit.speaker.speakerId === c.unit.speaker.speakerId && !x.clause.conditional));
      if (asked) {
        asked.cands.push(c);
        continue;
      }
    }
    // "Can you call Uncle Bill and invite him?": a second verb whose object points back to the
    // first one's is the same request ("ask your doctor to fax it, and call us back" stays two)
    const sibling = groups[groups.length - 1];
    const lastCand = sibling?.cands[sibling.cands.length - 1];
    // ("You have to put the request in writing. Just email the board at ...": the next sentence
    // that says how, opening with "just", is the same request, however the sentences were cut)
    // ("... it'd help if you could email us a photo of the pump before he comes. Send it to service at
    // ...": where to send what was just asked for, in the next sentence, is the same request)
    const how = !!lastCand && lastCand.unit !== c.unit && lastCand.unit.turn === c.unit.turn && c.unit.idx === lastCand.unit.idx + 1 && (/^(?:just|simply)\s/i.test(c.unit.plain) || (/^(?:send|email|e-mail|forward|mail)\s+(?:it|them)\s+(?:over\s+|across\s+|through\s+)?to\b/i.test(c.clause.vp) && c.intent === sibling.intent));
    if (
      lastCand && (lastCand.unit === c.unit || how) && lastCand.clause.kind === 'request' && c.clause.kind === 'request' &&
      sibling.owner.speakerId === c.owner.speakerId &&
      (how || (/^\w+\s+(him|her|them)\b/i.test(c.clause.vp) && (c.intent === 'task' || sibling.intent === 'task' || c.intent === sibling.intent)) ||
        // "Please send it by Friday, and write your application number on the envelope", "sign it and
        // send it back": two errands asked in one breath are the steps of one task (an e-mail and a
        // call asked together stay two items)
        (c.intent === 'task' && sibling.intent === 'task'))
    ) {
      sibling.cands.push(c);
      if (SPECIFICITY[c.intent] > SPECIFICITY[sibling.intent]) sibling.intent = c.intent;
      continue;
    }
    // ("Do you want me to bleed the radiator in the meantime?" - "If you don't mind, yeah, that'd help.
    // Just put a towel under it.": how to do what was offered, said with the go-ahead, is part of it)
    if (
      lastCand && c.clause.kind === 'request' && lastCand.clause.kind === 'commit' && lastCand.clause.needsAnswer &&
      sibling.owner.speakerId === c.owner.speakerId && c.unit.turn === lastCand.unit.turn + 1 && /^just\s/i.test(c.unit.plain)
    ) {
      sibling.cands.push(c);
      continue;
    }
    // (a generic promise that takes on what the other party said just before answers that, not an
    // older request: "Could you sign the slip?" ... "you can pay it through the app" - "I'll do it tonight";
    // when what it took on was itself asked, "if you could post it in the class group, that'd be
    // great" - "Sure, I'll do that tonight", it answers that request)
    const askedThere = c.clause.tookOnFrom === undefined ? undefined : groups.find((g) => g.owner.speakerId === c.owner.speakerId && g.cands.some((x) => x.clause.kind === 'request' && x.unit.idx === c.clause.tookOnFrom));
    if (askedThere) {
      askedThere.cands.push(c);
      continue;
    }
    const matches = (g: Group): boolean => {
      if (g.owner.speakerId !== c.owner.speakerId || c.unit.turn - lastTurn(g) > 3) return false;
      const kinds = new Set(g.cands.map((x) => x.clause.kind));
      const pair = (kinds.has('request') && c.clause.kind !== 'request') || (c.clause.kind === 'request' && !kinds.has('request'));
      // "I can e-mail the estimate over this afternoon" ... "let me get that over to you": the same
      // promise said again, in other words, a turn or two later
      // ("Once the decorator has seen it, I'll call you back with the final price" ... "I'll ring you
      // tomorrow before noon": a call or a text to the listener promised again, in other words, is the
      // same call with its time)
      const toListener = (x: Candidate) => x.unit.speaker.speakerId === c.unit.speaker.speakerId && /^\w+\s+you\b/i.test(x.clause.vp);
      const sameContact = (c.intent === 'call' || c.intent === 'message') && toListener(c) && g.cands.some(toListener);
      const restated = !pair && c.clause.kind !== 'request' && !kinds.has('request') && g.intent === c.intent && c.intent !== 'task' && c.unit.turn - lastTurn(g) <= 2 && c.unit.turn > lastTurn(g) && (PRONOUN_OBJECT.test(c.clause.vp) || sameContact || Math.max(...g.cands.map((x) => overlap(x.stems, c.stems))) >= 0.3);
      if (restated) return true;
      // "I can download those from the website. I'll get them together this weekend.": a second promise
      // of the same turn whose object points back is the same task, in more words
      if (!pair && c.clause.kind !== 'request' && !kinds.has('request') && g.intent === 'task' && c.intent === 'task' && c.unit.turn === lastTurn(g) && c.unit.speaker.speakerId === g.cands[g.cands.length - 1].unit.speaker.speakerId && /^\w+\s+(?:them|those|these)\b/i.test(c.clause.vp) && /^\w+\s+(?:them|those|these)\b/i.test(g.cands[g.cands.length - 1].clause.vp)) return true;
      if (!pair) return false;
      if (g.intent === c.intent && g.intent !== 'task') return true;
      // (a request after a promise, for another kind of thing by another verb, asks something new,
      // whatever its pronoun was read as: "I'll sign it tonight" - "could you post it in the class
      // WhatsApp group?"; "I'll mail it this week" - "send it by Friday" is the same errand)
      if (c.clause.kind === 'request' && !kinds.has('request') && c.intent !== g.intent && !g.cands.some((x) => x.clause.verb === c.clause.verb)) return false;
      const sim = Math.max(...g.cands.map((x) => overlap(x.stems, c.stems)));
      // "Can you call Uncle Bill and invite him?" - "Sure, I'll call him tomorrow": a person named
      // by a pronoun in the very next turn is the one the request was about
      const pronoun = PRONOUN_OBJECT.test(c.clause.vp) || (c.clause.kind !== 'request' && /^\w+\s+(him|her|them)\b/i.test(c.clause.vp) && c.unit.turn - lastTurn(g) <= 1);
      return (g.intent === 'task' || c.intent === 'task' || g.intent === c.intent) && (sim >= 0.15 || pronoun);
    };
    // ("The easiest thing is to email all of it to our claims team" ... "And put your surname in the
    // subject line" - "I'll get it sent off": the promise answers the request of its own kind, not the
    // latest one)
    const match = c.clause.tookOn ? undefined : [...groups].reverse().find((g) => c.intent !== 'task' && g.intent === c.intent && matches(g)) ?? [...groups].reverse().find(matches);
    // The addressee's answer to a request, in whatever words ("Please pick him up within the hour." -
    // "Of course, I'll be there in twenty minutes"): the owner's first commitment within three turns
    // of the request, when nothing else took it, is the request taken on, not a second item
    // (the first one: a commitment said in between was the answer, whatever it took on)
    // (a reminder the owner sets is how they take it on: "Please arrive ten minutes early" - "Will do,
    // I'll set myself a reminder for Monday evening")
    // (a recogniser garbles the object that tied the answer to the request, "can you ask your brother
    // ...?" - "I'll text and tonight": on a sentence it was unsure of, the owner's very next turn
    // promising to call, text or e-mail is how they take the request on, even one read as
    // conditional, "ask your brother if we can borrow his tent")
    const byMeans = c.unit.confidence !== 'HIGH' && (c.intent === 'message' || c.intent === 'call' || c.intent === 'email');
    const answer = match ?? ((c.clause.kind === 'commit' || c.clause.kind === 'soft') && !c.clause.conditional && !c.clause.tookOn && (c.intent === 'task' || c.intent === 'reminder' || byMeans)
      ? [...groups].reverse().find((g) => g.owner.speakerId === c.owner.speakerId && (g.intent === 'task' || g.intent === c.intent) && (c.intent === 'task' || c.unit.turn === firstTurnAfter(ct, g, c.unit.speaker.speakerId)) && !g.cands.some((x) => x.clause.kind !== 'request') && g.cands.some((x) => x.clause.kind === 'request' && (!x.clause.conditional || byMeans) && c.unit.turn > x.unit.turn && c.unit.turn - x.unit.turn <= 3 && !cands.some((y) => y.unit.speaker.speakerId === c.unit.speaker.speakerId && y.unit.turn > x.unit.turn && y.unit.idx < c.unit.idx && (y.clause.kind === 'commit' || y.clause.kind === 'soft'))))
      : undefined);
    // ("I'll put a quote together tonight and get it over to you": making the thing and handing it over,
    // in one sentence, are one errand, with the group the handing over joins)
    const made = answer && c.antecedent?.unit === c.unit && PRONOUN_OBJECT.test(c.clause.vp) ? groups.find((g) => g !== answer && g.cands.length === 1 && g.cands[0].unit === c.unit && g.cands[0].owner.speakerId === c.owner.speakerId && g.cands[0].clause.kind === c.clause.kind && g.cands[0].clause.vp.includes(c.antecedent!.phrase)) : undefined;
    if (made) {
      groups.splice(groups.indexOf(made), 1);
      answer!.cands.push(made.cands[0]);
    }
    if (answer) {
      answer.cands.push(c);
      if (SPECIFICITY[c.intent] > SPECIFICITY[answer.intent]) answer.intent = c.intent;
    } else groups.push({ cands: [c], owner: c.owner, intent: c.intent, meeting: false, extraUnits: [], accepts: [] });
  }

  // acceptances ("will do") confirm the latest request to the speaker
  for (const a of accepts) {
    const g = [...groups, ...meetingGroups]
      .filter((x) => x.owner.speakerId === a.unit.speaker.speakerId && a.unit.turn - lastTurn(x) >= 0 && a.unit.turn - lastTurn(x) <= 1)
      .sort((x, y) => lastTurn(y) - lastTurn(x))[0];
    if (g && g.cands.some((x) => x.clause.kind === 'request')) {
      g.extraUnits.push(a.unit);
      // the day it is taken for ("Can you send me the forecast?" - "We'll do Thursday then"), when the
      // request said none
      const d = g.meeting || g.changedDue || dueOf(ct, g.cands, day) ? undefined : clauseDates(a.unit, a.clause).find((x) => x.date && x.date >= day);
      if (d) g.changedDue = { date: d.date!, text: d.text, mention: d };
    }
  }

  // changes of plan move the latest matching item's date (the one whose words they repeat, else the
  // latest dated one, else the latest one); a meeting's new time is one more proposal
  for (const ch of changes) {
    const stems = contentStems(ch.clause.text.replace(CHANGE_OF_PLAN, '$1'));
    const earlier = [...groups, ...meetingGroups].filter((g) => lastTurn(g) <= ch.unit.turn);
    const byWords = earlier.filter((g) => stems.length && g.cands.some((c) => overlap(c.stems, stems) > 0));
    const before = earlier.filter((g) => ch.unit.turn - lastTurn(g) <= 6);
    if (!before.length && !byWords.length) continue;
    const pool = byWords.length ? byWords : before.filter((g) => g.meeting || dueOf(ct, g.cands, day)).length ? before.filter((g) => g.meeting || dueOf(ct, g.cands, day)) : before;
    const target = pool.sort((a, b) => lastTurn(b) - lastTurn(a))[0];
    if (target.meeting) proposals.push({ unit: ch.unit, clause: ch.clause });
    else {
      target.changedDue = { date: ch.date.date!, text: ch.date.text, mention: ch.date };
      target.extraUnits.push(ch.unit);
    }
  }

  // A request refused in the addressee's next turn ("No, sorry, I can't this week"), or withdrawn by
  // the one who asked ("actually, never mind", "forget it"), is no item; a later yes wins.
  const refused = new Set<Group>();
  for (const g of groups) {
    const req = g.cands.find((c) => c.clause.kind === 'request');
    // (an offer on a condition is no yes: "Can you just leave it somewhere?" - "It needs a signature,
    // unfortunately. I can leave it with a neighbor if someone signs for it.")
    const onlyIf = g.cands.filter((c) => c.clause.kind !== 'request').every((c) => c.clause.conditional && c.clause.kind === 'soft' && !!req && c.unit.turn === req.unit.turn + 1);
    if (!req) continue;
    const reply = ct.units.filter((u) => u.turn === req.unit.turn + 1 && u.speaker.speakerId === g.owner.speakerId);
    if (reply.some((u) => DEFERRED_OR_HEDGED.test(u.plain))) {
      refused.add(g);
      continue;
    }
    if (!onlyIf || g.extraUnits.length) continue;
    const asker = req.unit.speaker.speakerId;
    // (in any sentence of the reply, not only its first: "Hmm, let me look. No, sorry, I can't on
    // Friday"; a yes or a promise before it is what holds: "Sure, I can. No rush?")
    // (or by sending the asker elsewhere, with an apology: "but we're away that weekend, sorry, maybe try
    // the girl down the street")
    const k = reply.findIndex((u) => REFUSAL.test(u.plain) || /^[^.?!]*\b(?:unfortunately|i am afraid)\b/.test(u.plain) || REDIRECT.test(u.plain));
    const no = k >= 0 && !reply.slice(0, k + 1).some((u) => clausesOf(u).some((c) => c.kind === 'commit' || c.kind === 'accept'));
    // (in the same breath too: "Could you drive her on Friday? Actually, no, scratch that, ...")
    const withdrawn = ct.units.some((u) => u.speaker.speakerId === asker && u.idx > req.unit.idx && u.turn <= req.unit.turn + 2 && WITHDRAWN.test(u.plain));
    if (no || withdrawn) refused.add(g);
  }
  // "Actually, you know what, forget calling Mum, I'm seeing her tonight": what the one who asked
  // takes back later in the call, by naming it, is no item, even once it was taken on
  for (const g of groups) {
    const req = g.cands.find((c) => c.clause.kind === 'request');
    if (!req || refused.has(g)) continue;
    const asked = new Set(g.cands.flatMap((c) => [...c.stems, ...c.unit.stems]));
    const back = ct.units.find((u) => {
      if (u.speaker.speakerId !== req.unit.speaker.speakerId || u.turn <= lastTurn(g)) return false;
      const m = u.plain.match(TAKEN_BACK);
      return !!m && contentStems(m[1]).some((st) => asked.has(st));
    });
    if (back) refused.add(g);
  }
  for (const g of refused) groups.splice(groups.indexOf(g), 1);

  // "Can you come in Thursday?" - "Thursday is tight for me. Any chance of Friday morning?" - "Friday
  // at 8:15 works": a request its owner answers with another day, which the one who asked takes, is
  // for that day
  for (const g of groups) {
    const req = g.cands.find((c) => c.clause.kind === 'request');
    if (!req || g.changedDue) continue;
    const dated = (u: Unit) => u.dates.find((d) => d.date && d.date >= day && !u.past);
    const counter = ct.units.find((u) => u.turn > req.unit.turn && u.turn <= req.unit.turn + 2 && u.speaker.speakerId === g.owner.speakerId && u.isQuestion && dated(u));
    if (!counter) continue;
    const taken = ct.units.find((u) => u.turn === counter.turn + 1 && u.speaker.speakerId === req.unit.speaker.speakerId && clausesOf(u).some((c) => c.kind === 'accept'));
    if (!taken) continue;
    const d = dated(taken) ?? dated(counter)!;
    if (dueOf(ct, g.cands, day)?.date === d.date) continue;
    g.changedDue = { date: d.date!, text: d.text, mention: d };
    g.extraUnits.push(counter, taken);
  }

  const actionItems: AnalysisActionItem[] = [];
  const nextSteps: NextStepOut[] = [];
  const actionUnits = new Set<number>();

  const inPerson = new Set<Group>();
  for (const mg of meetingGroups) {
    // A meeting is a video or phone meeting (the spec's `meeting`): one held in person, with no
    // platform, invite or link ("do we need to come in person?" - "there's a short meeting with the
    // counsellor ... I can offer Wednesday at 3:15"), is an appointment of the user's, which the
    // appointment step below reminds them of
    const near = ct.units.filter((u) => mg.cands.some((c) => Math.abs(c.unit.turn - u.turn) <= 2));
    if (!mg.cands.some((c) => c.provider) && !near.some((u) => providerOf(u.norm) || INVITE.test(u.norm) || /\blink\b/i.test(u.norm)) && (near.some((u) => IN_PERSON.test(u.norm)) || !near.some((u) => REMOTE.test(u.norm)))) {
      inPerson.add(mg);
      continue;
    }
    const item = meetingItem(ct, mg, proposals, accepts, desires, day);
    actionItems.push(item.item);
    for (const u of item.units) actionUnits.add(u.idx);
    const attached = attachmentItem(ct, mg, item.item, day);
    if (attached) actionItems.push(attached);
  }

  for (const g of groups) {
    // a reply takes along the sentence that announced the message it answers
    const replied = g.intent === 'message' ? g.cands.flatMap((c) => repliedTo(ct, c.unit, c.clause) ?? []) : [];
    // an offer the other party took up rests on their go-ahead too ("Do you want me to get the plumber
    // out?" - "Go on then, book him in")
    const tookUp = g.cands.flatMap((c) => (c.clause.kind === 'commit' && c.clause.needsAnswer ? (goAheadTo(ct, c.unit) ?? []) : []));
    const units = uniq([...g.cands.map((c) => c.unit), ...g.extraUnits, ...replied, ...tookUp]);
    const kinds = new Set(g.cands.map((c) => c.clause.kind));
    // a commitment that takes on the other party's stated need is what they asked for
    if (!kinds.has('request')) g.answers = answeredNeed(ct, g) ?? undefined;
    if (g.answers && !units.includes(g.answers)) units.push(g.answers);
    // (an offer the other party took, "Do you want me to bring my dolly?" - "Yes please", was asked for too)
    const asked = kinds.has('request') || !!g.answers || g.cands.some((c) => c.clause.needsAnswer);
    // ("If the flight's delayed I'll message you from the plane": a plan that hangs on something that
    // may not happen, said condition first, is a plan, not an item; "if you send it, I'll ..." waits
    // on the listener, and "if that's okay, I'll ..." is a courtesy, both still plans carried out)
    const planned = g.cands.some((c) => (c.clause.kind === 'commit' || c.clause.kind === 'joint') && !contingent(c));
    const due = g.changedDue ?? dueOf(ct, g.cands, day);
    // a dated promise to do something for the other party ("we'll send a technician Monday") is an
    // action item of the one who promised, like one they were asked for
    // (a plain "will" or "-ing", not "we can start next week", an offer; nor the speaker's own
    // comings and goings, "I'll stop by on Thursday", "I'll work from home that day")
    // (and it hands over or does something to a thing or a person: "pay darn 70 on Sunday" is misheard speech)
    // (an obligation the speaker states of an errand with its day is their plan: "I'll need to pick up
    // the part tomorrow", "I just have to collect it Saturday morning"; not "I have to work Saturday")
    const promised = !!due && g.cands.some((c) => c.clause.kind === 'commit' && !c.clause.conditional && (!/^(can|could|need to|have to|must|should|may|might|will have to|happy to)$/i.test(c.clause.modal ?? '') || (OBLIGATION.test(c.clause.modal ?? '') && NEED_VERB.test(c.clause.vp))) && (!OWN_MOVES.test(c.clause.verb) || HAS_DONE.test(c.clause.vp)) && /^\S+\s+(?:\w+\s+)?(?:the|a|an|your|my|our|his|her|their|you|him|them|it|this|that|these|those)\b/i.test(c.clause.vp));
    // an appointment of the user's (see PRESENCE) is a reminder of it for the user
    // (when the other party asked for it: the user's own comings and goings, "I'll stop by the office
    // on Thursday anyway", are a plan, no appointment; and an errand that takes the user there is a
    // task: "please pick him up within the hour" - "I'll be there in twenty minutes")
    if (g.intent === 'task' && g.owner.role === 'USER' && due && asked && g.cands.some((c) => PRESENCE.test(c.clause.vp) && !c.clause.conditional) && !g.cands.some((c) => ERRAND.test(c.clause.vp))) g.intent = 'reminder';
    const launchable = g.intent !== 'task' && g.intent !== 'none';
    // a promise or an offer of a task the other party welcomes in their next turn was as good as asked for
    // ("I can pick them up" - "You're a lifesaver"), even said in few words
    const welcome = g.intent === 'task' && welcomed(ct, g);
    const isAction = (launchable && (asked || planned)) || (asked && g.intent === 'task') || (promised && g.intent === 'task') || welcome;
    const best = pickBest(g.cands);
    // The confidence floor: what the recogniser was unsure of is not turned into an item.
    if (units.every(isBelowConfidenceFloor)) continue;
    // (a promise that takes on the other party's stated need rests on their words too: "fill it out tomorrow")
    if (!g.answers && heardTooPoorly(g, titleOf(best), best.clause.vp)) continue;
    // A task needs something to do: a title with fewer than two content words ("Fall", "Invite
    // him") is a fragment of misrecognised speech more often than a request.
    // (welcomed or not: "We can absolutely arrange that. I'll pass it to our front desk manager, and
    // I'll call you back tomorrow" - "Perfect": the welcome is for the promises that say what)
    const saidWhatAfter = cands.some((x) => x.unit.turn === best.unit.turn && x.unit.idx >= best.unit.idx && x !== best && x.owner.speakerId === g.owner.speakerId && (x.clause.kind === 'commit' || x.clause.kind === 'soft') && contentStems(titleOf(x)).length >= 2);
    // (nor when it takes on a request: "Yeah, I guess I can find that. It's in a drawer. I'll scan it
    // tomorrow": the promise said after it in the same turn says what is done, the bare "find" is its lead-in)
    // (both said of the same thing: the verb's object a pronoun in each, "find that" ... "scan it")
    const fullerAfter = BARE_POINTER.test(best.clause.vp) && cands.some((x) => x.unit.turn === best.unit.turn && x.unit.idx > best.unit.idx && x.owner.speakerId === g.owner.speakerId && x.clause.kind === 'commit' && POINTS_BACK.test(x.clause.vp) && (contentStems(titleOf(x)).length >= 2 || clauseDates(x.unit, x.clause).length > 0));
    if (g.intent === 'task' && contentStems(titleOf(best)).length < 2 && (fullerAfter || (!g.answers && !tookUp.length && (!welcome || saidWhatAfter)))) continue;
    if (!isAction) {
      nextSteps.push({
        text: titleOf(best),
        ownerSpeaker: g.owner.label,
        when: due?.text ?? null,
        sourceSegmentIds: segIds(units),
        ownerSpeakerId: g.owner.speakerId,
        ownerRole: g.owner.role,
        dueDate: due?.date ?? null,
      });
      continue;
    }
    const meta = metadataFor(ct, g, best, units, due);
    for (const u of units) actionUnits.add(u.idx);
    let title = titleOf(best);
    // "those records" of a promise that takes on the other party's words stand for the thing as they
    // named it ("Just her vaccination records" - "I'll dig those records out")
    if (g.answers) {
      const pointed = /\b(?:those|these|that|this)\s+([a-z]+)\b/i.exec(title);
      const named = pointed ? new RegExp(`\\b((?:(?:my|your|his|her|their|our|the)\\s+)?(?:(?!just\\b|only\\b|and\\b|also\\b|or\\b|the\\b)[a-z-]+\\s+){0,2}?${pointed[1]})\\b`, 'i').exec(g.answers.norm) : null;
      if (pointed && named && named[1].toLowerCase() !== pointed[1].toLowerCase() && !/^(?:those|these|that|this)\b/i.test(named[1])) title = title.replace(pointed[0], named[1]);
    }
    // two errands asked in one breath, one task: both steps in its title ("Sign the form and bring
    // it back by Monday")
    const steps = g.cands.filter((c) => c.clause.kind === 'request' && c.unit === best.unit);
    if (g.intent === 'task' && steps.length === 2 && steps.includes(best)) title = `${titleOf(steps[0])} and ${lowerFirst(titleOf(steps[1]))}`;
    const was = g.changedDue ? dueOf(ct, g.cands, day) : null;
    if (g.changedDue && was) title = title.replace(new RegExp(`\\b${was.text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`, 'i'), g.changedDue.text);
    // "Put the 20th in my calendar": a day of the month said alone is written with the month it is
    // in, so the title says which day ("Put 20 April in my calendar")
    if (due?.mention?.dayOfMonthOnly && due.date) {
      const [, mm, dd] = due.date.split('-').map(Number);
      title = title.replace(/\b(?:on |by )?the (\d{1,2})(?:st|nd|rd|th)\b/i, (all, n: string) => (Number(n) === dd ? `${/^(on|by) /i.exec(all)?.[0] ?? ''}${dd} ${MONTHS[mm - 1]}` : all));
    }
    actionItems.push(buildItem(g.owner, title, units, meta.units, g.intent, meta.metadata, due, g.cands));
  }

  for (const ap of appointmentItems(ct, cands.filter((c) => ![...inPerson].some((g) => g.cands.includes(c))), actionItems, day)) {
    actionItems.push(ap.item);
    for (const u of ap.units) actionUnits.add(u.idx);
  }

  actionItems.sort((a, b) => (a.sourceSegmentIds?.[0] ?? '').localeCompare(b.sourceSegmentIds?.[0] ?? ''));
  mergeSameErrands(ct, actionItems);
  const commitments = cands
    .filter((c) => c.clause.kind === 'commit' && !GENERIC_VP.test(c.clause.vp))
    .map((c) => {
      // in the base form whatever tense the recogniser heard ("will arrived" is no sentence)
      const vp = basePredicate(titleOf(c));
      const who = c.owner.displayName || c.owner.label;
      return { text: vp ? `${who} will ${lowerFirst(vp)}` : `${who}: "${titleOf(c)}"`, ownerSpeaker: c.owner.label, sourceSegmentIds: [c.unit.segmentId] };
    });
  const decisions = decisionsOf(ct, accepts);
  return { actionItems, nextSteps, commitments, decisions, actionUnits };
}

// ---- appointments agreed on the call
// A day with a clock time one party offers, proposes or announces for a visit, a
// delivery, an appointment or a meet-up, and the other party takes in their next turn ("Would
// Thursday at quarter past two work?" - "Thursday at quarter past two is fine"; "Monday morning, eight
// till twelve" - "Monday morning. Okay."): the user has to be there, and is reminded of it (the
// spec's `reminder`), whoever asked and whatever words the rules read as a request or a plan. A
// deadline ("by Friday at five") is no appointment, nor the time someone will call, text or e-mail
// (that is their item), nor a video or phone meeting (a meeting item).
const TAKES_SLOT = /\b(?:yes|yep|yeah|yup|okay|ok|sure|perfect|great|fine|brilliant|lovely|excellent|good|best|better|suits?|works|done|deal|alright|all right|see you|correct|understood|be (?:there|home|in|around|on site))\b/;
const RECAP = /\b(?:to confirm|to recap|to sum up|just to be clear|so that is|so we are|so that's)\b/i;
// (the close kin, and whoever else lives in or looks after the home)
const OTHER_PRESENT = new RegExp(`\\b(?:my|our)\\s+(?:\\w+\\s+)?(?:${anyOf(KIN, ['neighbou?r', 'roommate', 'flatmate', 'housemate', 'nanny', 'cleaner', 'kids?'])})\\s+(?:will|is going to|can|could|should)\\s+be\\s+(?:home|there|in|around)\\b|\\bsomeone else\\b|\\bsomebody else\\b`);
// "between 8 and noon", "9 till 11", "from 10 to 2": the start of a window said apart from its day
const WINDOW = /\b(?:between|from)\s+(\d{1,2})(?::(\d{2}))?\s*(a\.?m\.?|p\.?m\.?)?\s+(?:and|to|till|until)\s+(?:\d{1,2}|noon|midday|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\b|\b(\d{1,2})(?::(\d{2}))?\s*(a\.?m\.?|p\.?m\.?)?\s+(?:till|until|to)\s+(?:\d{1,2}|noon|midday|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\b(?!\s*(?:dollars|percent|days|weeks|minutes|hours))/i;

function windowStart(text: string): string | null {
  const m = text.match(WINDOW);
  if (!m) return null;
  let h = Number(m[1] ?? m[4]);
  const min = m[2] ?? m[5] ?? '00';
  const mer = (m[3] ?? m[6] ?? '').toLowerCase();
  if (h > 23) return null;
  // (no a.m./p.m.: 1 to 7 is the afternoon, as dates.ts reads a clock time)
  if (mer.startsWith('p') && h < 12) h += 12;
  else if (!mer && h >= 1 && h <= 7) h += 12;
  return `${String(h).padStart(2, '0')}:${min}`;
}
const DECLINES_SLOT = /\b(?:no|not|cannot|can not|busy|full|unfortunately|afraid|wait|hang on|actually)\b/;
const CHANGED = /\b(?:actually|instead|hang on|hold on|wait|change|move|rather|scratch that|sorry)\b/;
const NO_BOTHER = /\bno (?:problem|worries|bother|trouble)\b|\bnot a problem\b/g;
// ("the deadline for the forms is Friday at 5": a deadline said as a noun)
// ("They open at eight", "we're open until six": when a place is open, not a time agreed)
const OPENING_HOURS = /\b(?:open|opens|opening|close|closes|closing)\s+(?:at|from|until|till|by)\b|\b(?:opening|business|office) hours\b/i;
const DEADLINE_WORD = /\b(?:deadline|cut-?off|closes|closing|expires?|expiry|due date|at the latest)\b/i;
// ("by end of business Monday", "by the end of the day Friday")
const DEADLINE_BEFORE = /\b(?:by|before|until|till|no later than|due)(?:\s+(?:the\s+)?(?:end|close)\s+of(?:\s+(?:business|play|the\s+day|day))?)?\s*$/i;
// (a clock time said as a span from now, "within the hour", "in about forty minutes", is a delivery
// estimate or a callback, not an agreed time)
const RELATIVE_SPAN = /\b(?:ago|last|within|in|minutes?|hours?)\b/i;
const CONTACT_VERB = /^(?:call|ring|phone|text|message|email|e-mail|mail|send|whatsapp|ping|forward)$/i;
const APPOINTMENT_HEAD = 'appointment|visit|inspection|delivery|service|repair|installation|install|consultation|check-?up|exam|examination|fitting|viewing|survey|assessment|collection|pickup|pick-up|drop-off|interview|meeting|session|lesson|class|cleaning|tasting|tour|test|signing|walkthrough|walk-through|estimate|measurement|reading';
// (not one already past: "your last session")
const APPOINTMENT_NOUN = new RegExp(`\\b(?:the|your|my|our|a|an|this)\\s+(?!(?:last|previous|past)\\b)((?:[a-z-]+\\s+){0,2}?(?:${APPOINTMENT_HEAD}))\\b`, 'i');
const APPOINTMENT_NOUNS = new RegExp(`\\b(?:the|your|my|our|a|an|this)\\s+(?!(?:last|previous|past)\\b)((?:[a-z-]+\\s+){0,2}?(?:${APPOINTMENT_HEAD}))s?\\b`, 'i');
// (and one where nothing says it is remote: "Dr Patel can see you on Thursday at 11:20")
const REMOTE = /\b(?:call|calls|ring|phone|video|zoom|teams|meet|skype|face ?time|whats ?app|link|invite|invitation|dial|dial-in|online|virtual|virtually|remote|remotely|webinar|screen)\b/i;
const IN_PERSON = /\b(?:in person|face to face|come (?:in|down|into|by)|at (?:the|our) (?:office|clinic|school|branch|surgery|practice|store|shop|front desk|reception))\b/i;
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** "Monday 8 September at 08:00": the day (and clock time) of an appointment, for its title. */
function dayLabel(d: DateMention): string {
  const [y, m, dd] = d.date!.split('-').map(Number);
  const wd = WEEKDAYS[new Date(Date.UTC(y, m - 1, dd)).getUTCDay()];
  return `${wd} ${dd} ${MONTHS[m - 1]}${d.explicitTime && d.time ? ` at ${d.time}` : ''}`;
}

const SELF_NOTE_TITLE = /\b(?:remind|reminder|reminders|calendar|diary|note|alarm|alert)\b/i;
const ORDINAL_DAYS = ['first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth', 'ninth', 'tenth', 'eleventh', 'twelfth', 'thirteenth', 'fourteenth', 'fifteenth', 'sixteenth', 'seventeenth', 'eighteenth', 'nineteenth', 'twentieth', 'twenty-first', 'twenty-second', 'twenty-third', 'twenty-fourth', 'twenty-fifth', 'twenty-sixth', 'twenty-seventh', 'twenty-eighth', 'twenty-ninth', 'thirtieth', 'thirty-first'];
// a memory aid that says no more than its day ("Put a reminder in my phone for the fourteenth")
const bareNote = (title: string) => SELF_NOTE_TITLE.test(title) && BARE_REMINDER.test(title.replace(/\s+(?:for|on)\s+(?:the\s+)?(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day\s*)?(?:(?:the\s+)?\d+(?:st|nd|rd|th)?(?:\s+(?:january|february|march|april|may|june|july|august|september|october|november|december))?|\w+teenth|\w+ieth|\w+(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth))?(?:\s+at\s+\d+(?::\d+)?)?$/i, ''));

function appointmentItems(ct: CallText, cands: Candidate[], items: AnalysisActionItem[], day: string): Array<{ item: AnalysisActionItem; units: Unit[] }> {
  const user = ct.speakers.find((s) => s.role === 'USER');
  if (!user) return [];
  const found: Array<{ date: DateMention; units: Unit[]; turn: number }> = [];
  // units by turn and turns by segment, looked up, not searched: a call of hours has thousands of
  // turns, and a search per turn (or per item, per appointment) made this step quadratic and worse
  const byTurn = new Map<number, Unit[]>();
  for (const u of ct.units) {
    const list = byTurn.get(u.turn);
    if (list) list.push(u);
    else byTurn.set(u.turn, [u]);
  }
  const turnOfSegment = new Map(ct.units.map((u) => [u.segmentId, u.turn]));
  const turns = [...byTurn.keys()].sort((a, b) => a - b);
  // An appointment is kept after the call: a slot on the call's day at a time already gone when the
  // call was recorded is no slot ("share health x ten after this call", recognised at 18:15 for "I'll
  // text it after this call", read as ten o'clock that morning). Wall clock of recordedAt, as dates.ts.
  const recorded = /T(\d{2}:\d{2})/.exec(ct.context.recordedAt ?? '')?.[1];
  const gone = (d: DateMention) => d.date === day && !!recorded && !!d.datetime && d.datetime.slice(11, 16) <= recorded;
  // ("it's oh four seven eight, five five five, four oh three" - "Four oh three. What's his name?"):
  // a bare clock time said back that is the end of a phone number just dictated is that number's digits
  const readBack = (d: DateMention, t: number): boolean => {
    const digits = /^(\d{1,2}):(\d{2})$/.exec(d.text.trim());
    if (!digits) return false;
    const tail = `${digits[1]}${digits[2]}`;
    return [t - 2, t - 1, t].some((k) => (byTurn.get(k) ?? []).some((u) => u.entities.some((e) => e.kind === 'phone' && e.digits.endsWith(tail))));
  };
  for (const t of turns) {
    const offer = byTurn.get(t)!;
    const speaker = offer[0].speaker.speakerId;
    const reply = (byTurn.get(t + 1) ?? []).filter((u) => u.speaker.speakerId !== speaker).slice(0, 2);
    if (!reply.length || reply.some(isBelowConfidenceFloor) || offer.every(isBelowConfidenceFloor)) continue;
    // (what the reply says, not what it asks: "or would Thursday at ten suit you better?" takes nothing)
    const said = reply.filter((u) => !u.isQuestion).map((u) => u.plain).join(' ');
    if (!TAKES_SLOT.test(said) || DECLINES_SLOT.test(said.replace(NO_BOTHER, '')) || REFUSAL.test(said)) continue;
    // ("That is fine, my husband will be home tomorrow": someone else will be there for it)
    if (OTHER_PRESENT.test(said)) continue;
    // the slot: a day with a time, said in the reply (it repeats what it takes) or last in the offer
    const slotOf = (u: Unit): DateMention[] =>
      u.dates
        // ("the inspection has been scheduled for Tuesday the 12th" is past in form, future in fact)
        .filter((d) => d.date && (d.date > day || (d.date === day && !u.past)) && !DEADLINE_BEFORE.test(u.norm.slice(0, d.index)) && !RELATIVE_SPAN.test(d.text) && !DEADLINE_WORD.test(u.plain) && !OPENING_HOURS.test(u.plain) && !/\b(?:not|no|cannot|can't)\s+(?:do\s+|make\s+)?(?:at\s+|on\s+)?$/i.test(u.norm.slice(0, d.index)))
        .flatMap((d) => {
          // (the end of a window is no slot's time: "Tuesday the 12th between 8 and noon" is from eight)
          const w = WINDOW.exec(u.norm);
          const start = w ? windowStart(u.norm) : null;
          if (w && start && d.explicitTime && d.time && d.date && d.index > w.index + w[0].search(/\s(?:and|to|till|until)\s/i) && d.index < w.index + w[0].length) {
            return [{ ...d, time: start, datetime: `${d.date}T${start}:00` }];
          }
          if (d.explicitTime && d.time) return [d];
          // the day and its time said apart ("Tuesday the 12th between 8 and noon")
          // (a window's start first: "between 8 a.m. and noon" is from eight)
          const time = windowStart(u.norm) ?? u.dates.find((x) => x !== d && x.explicitTime && x.time && !RELATIVE_SPAN.test(x.text))?.time;
          return time ? [{ ...d, time, explicitTime: true, datetime: `${d.date}T${time}:00`, granularity: 'time' as const }] : [];
        })
        // (a clock time that only completes the day said with it is no slot of its own: "on Saturday,
        // between 8 a.m. and noon" is one slot, from eight)
        .filter((d, _i, all) => !d.timeOnly || all.every((x) => x.timeOnly))
        .filter((d) => !gone(d) && !readBack(d, u.turn));
    // (the sentence that takes it first: "Monday at eleven I have class. Thursday at two is better.")
    const fromReply = [...reply.filter((u) => TAKES_SLOT.test(u.plain)), ...reply.filter((u) => !TAKES_SLOT.test(u.plain))].flatMap((u) => slotOf(u).map((d) => ({ d, u })));
    const fromOffer = offer.flatMap((u) => slotOf(u).map((d) => ({ d, u }))).slice(-1);
    const slot = fromReply[0] ?? fromOffer[0];
    if (!slot) continue;
    // the user's own statement of a time, taken with an "okay" ("I'll be back from holiday on Monday
    // at 9" - "Okay, enjoy the trip"), is news, not an appointment: the user asks for a slot, or sums
    // the call up ("so just to confirm: the inspection is on Tuesday ..."), or the other party offers it
    if (offer[0].speaker.speakerId === user.speakerId && !offer.some((u) => u.isQuestion || RECAP.test(u.plain) || /^(?:(?:so|and|okay|ok|right)\s+)*(?:can|could|would|will) you\b|^(?:(?:so|and)\s+)*(?:can|could|shall|should) (?:we|I)\b/.test(u.plain)) && !cands.some((c) => offer.includes(c.unit) && (c.clause.kind === 'request' || c.clause.kind === 'proposal'))) continue;
    // the time of someone's call, text or e-mail, or of a meeting, is that item's
    // (nor a slot around which a video or phone meeting is arranged)
    if (cands.some((c) => c.intent === 'meeting' && Math.abs(c.unit.turn - t) <= 6)) continue;
    // (nor a slot said beside a video platform, "I'll send you the Zoom link", whose meeting the
    // rules did not read from garbled words: the user attends it from anywhere)
    if ([-2, -1, 0, 1, 2].some((d) => (byTurn.get(t + d) ?? []).some((u) => { const p = providerOf(u.norm); return p !== null && p !== 'phone'; }))) continue;
    const timedItem = cands.some((c) => (offer.includes(c.unit) || reply.includes(c.unit)) && c.dates.some((x) => x.date === slot.d.date) && (c.intent === 'meeting' || c.intent === 'call' || c.intent === 'message' || c.intent === 'email' || CONTACT_VERB.test(c.clause.verb)));
    if (timedItem) continue;
    const units = uniq([...offer.filter((u) => u.dates.some((d) => d.date === slot.d.date) || u === slot.u), ...reply]);
    // a slot taken and then changed a few turns later ("Friday morning, fine" - "actually, let's say
    // Monday"): the later one holds
    const prev = found[found.length - 1];
    if (prev && t - prev.turn <= 4 && prev.date.date !== slot.d.date && offer.some((u) => CHANGED.test(u.plain))) found.pop();
    else if (prev && prev.date.date === slot.d.date) {
      if (!prev.date.explicitTime && slot.d.explicitTime) prev.date = slot.d;
      continue;
    }
    found.push({ date: slot.d, units, turn: t });
  }
  // named by what it is for, said around it ("the boiler service", "the final deck inspection"), and its day
  const appointmentTitle = (f: (typeof found)[number]): string => {
    const around = [-4, -3, -2, -1, 0, 1].flatMap((d) => byTurn.get(f.turn + d) ?? []);
    const what = around.map((u) => u.norm.match(APPOINTMENT_NOUN)?.[1]).find(Boolean);
    return `${capitalize(what ? what.toLowerCase() : 'appointment')} on ${dayLabel(f.date)}`;
  };
  const out: Array<{ item: AnalysisActionItem; units: Unit[] }> = [];
  for (const f of found) {
    // "Would Thursday at quarter past two work?" - "That's fine. I'll make sure I'm at home.": the user's
    // reminder of being there is this appointment's, and it is named by it ("Inspection on Thursday
    // 24 July at 14:15", not "Make sure I am at home"), citing the turns that agreed it; a memory aid
    // the user set ("I'll put a reminder in my phone for Friday night") keeps its own words
    // (and a memory aid that says only its day, "I'll put a reminder in my phone for the fourteenth", is
    // of the appointment on that day)
    const bare = bareNote;
    const present = items.find((it) => it.dueDate === f.date.date && it.ownerRole === 'USER' && it.intent === 'reminder' && (!SELF_NOTE_TITLE.test(it.title) || bare(it.title)));
    if (present) {
      // (what the user said they will do for it stays in the title when it says something: "Appointment
      // on Monday 2 June at 13:00: have all the old keys ready", not "... : be")
      const own = contentStems(present.title).length >= 2 && !bare(present.title) ? `: ${lowerFirst(present.title)}` : '';
      const title = `${appointmentTitle(f)}${own}`;
      const segs = new Set([...(present.sourceSegmentIds ?? []), ...f.units.map((u) => u.segmentId)]);
      const units = ct.units.filter((u) => segs.has(u.segmentId));
      present.title = title;
      present.description = units.map(sentenceOf).join(' ');
      present.sourceSegmentIds = segIds(units);
      present.intentMetadata = { ...present.intentMetadata, title, ...(!present.intentMetadata?.remindAt && f.date.datetime && f.date.explicitTime ? { remindAt: f.date.datetime } : {}), notes: units.map(sentenceOf).join(' ') };
      continue;
    }
    if (items.some((it) => it.dueDate === f.date.date && (it.intent === 'meeting' || (it.ownerRole === 'USER' && it.intent === 'reminder')))) continue;
    // a reminder of the user's said just around it ("Monday at four works." - "Please arrive ten
    // minutes early") is of the same appointment
    const turnOf = (seg: string) => turnOfSegment.get(seg) ?? -99;
    if (items.some((it) => it.ownerRole === 'USER' && it.intent === 'reminder' && (it.sourceSegmentIds ?? []).some((seg) => turnOf(seg) >= f.turn - 2 && turnOf(seg) <= f.turn + 6))) continue;
    if (out.some((o) => o.item.dueDate === f.date.date)) continue;
    const title = appointmentTitle(f);
    const due: Due = { date: f.date.date!, text: f.date.text, mention: f.date };
    // The slot's time is the launcher time (`remindAt`): an appointment is read across turns ("next
    // Tuesday at, let me see, two forty five" - "two forty five, yep"), and the grounding check finds
    // the day in one mention and its clock time said alone in another beside it (grounding.ts).
    const md: IntentMetadata = { title, ...(f.date.datetime && f.date.explicitTime ? { remindAt: f.date.datetime } : {}), notes: f.units.map(sentenceOf).join(' ') };
    out.push({ item: buildItem(user, title, f.units, [], 'reminder', md, due, []), units: f.units });
  }
  // a memory aid that says only its day, set for a dated event the other party announced a few turns
  // before and the user did not take as a slot ("yours is down for Tuesday the 14th, between 9 and
  // 11" - "I'll be at work, but you have a key" ... "I'll put a reminder in my phone for the 14th"),
  // is of that event, and named by it
  for (const it of items) {
    if (it.ownerRole !== 'USER' || it.intent !== 'reminder' || !bareNote(it.title)) continue;
    const own = ct.units.filter((u) => (it.sourceSegmentIds ?? []).includes(u.segmentId) && SELF_NOTE_TITLE.test(u.norm));
    // (its day as a date, or as the day of the month said alone: "for the fourteenth")
    const days = new Set(own.flatMap((u) => u.dates.map((d) => d.date)).filter((d): d is string => !!d));
    const ord = /\bthe\s+(\d+)(?:st|nd|rd|th)\b|\bthe\s+([a-z]+(?:st|nd|rd|th))\b/i.exec(own.map((u) => u.norm).join(' '));
    const dom = ord ? (ord[1] ? Number(ord[1]) : ORDINAL_DAYS.indexOf(ord[2].toLowerCase()) + 1) : 0;
    if (!own.length || (!days.size && !dom)) continue;
    const first = Math.min(...own.map((u) => u.turn));
    const sameDay = (d: DateMention) => !!d.date && (days.size ? days.has(d.date) : Number(d.date.slice(8, 10)) === dom);
    const said = ct.units.filter((u) => u.turn < first && u.turn >= first - 6 && u.speaker.speakerId !== user.speakerId && u.dates.some(sameDay));
    const at = said[said.length - 1];
    if (!at) continue;
    // ("we're doing the yearly unit inspections next week, and yours is down for ...": one of them)
    const what = [0, -1].flatMap((d) => byTurn.get(at.turn + d) ?? []).map((u) => u.norm.match(APPOINTMENT_NOUNS)?.[1]).find(Boolean);
    if (!what) continue;
    const d = at.dates.find(sameDay)!;
    it.dueDate = d.date;
    const time = d.explicitTime && d.time ? d : (() => { const start = windowStart(at.norm); return start ? { ...d, time: start, explicitTime: true, datetime: `${d.date}T${start}:00`, granularity: 'time' as const } : d; })();
    const title = `${capitalize(what.toLowerCase())} on ${dayLabel(time)}`;
    const units = [at, ...own];
    it.title = title;
    it.description = units.map(sentenceOf).join(' ');
    it.sourceSegmentIds = segIds(units);
    it.intentMetadata = { ...it.intentMetadata, title, ...(!it.intentMetadata?.remindAt && time.datetime && time.explicitTime ? { remindAt: time.datetime } : {}), notes: units.map(sentenceOf).join(' ') };
  }
  return out;
}

// How the other party welcomes an offer or a promise at the start of their next turn: "You're a
// lifesaver", "Oh good", "That works", "That would be great".
const WELCOMES = /^(?:(?:oh|ah|aw|wow|okay|ok|yes|yeah|great|perfect)[,.!]?\s+)*(?:that works|that (?:would|will) (?:be )?(?:great|perfect|amazing|wonderful|brilliant|lovely|ideal|fantastic|awesome|a big help|a huge help)|you are (?:a |an )?(?:lifesaver|life saver|star|gem|legend|saint|angel|the best)|good|perfect|brilliant|amazing|wonderful|fantastic|lovely|awesome)\b/;

/** A promise of a task the other party welcomes in their next turn ("I can pick them up" - "You're a lifesaver"). */
function welcomed(ct: CallText, g: Group): boolean {
  // (the speaker's own words, "I can", "I'll": not "you'll see the credit on your statement", a fact)
  const c = g.cands.find((x) => (x.clause.kind === 'commit' || x.clause.kind === 'soft') && !!x.clause.modal && !x.clause.conditional && !x.clause.whenClause && (!OWN_MOVES.test(x.clause.verb) || HAS_DONE.test(x.clause.vp)) && /^\S+\s+(?:\w+\s+)?(?:the|a|an|your|my|our|his|her|their|him|them|it|this|that|these|those)\b/i.test(x.clause.vp));
  if (!c) return false;
  // (a question after it in the same turn is what the welcome answers: "I can book you in. Is
  // Thursday at ten okay?" - "Yes, that works")
  if (ct.units.some((u) => u.turn === c.unit.turn && u.idx > c.unit.idx && u.isQuestion)) return false;
  const next = ct.units.filter((u) => u.turn === c.unit.turn + 1 && u.speaker.speakerId !== c.unit.speaker.speakerId);
  return next.length > 0 && WELCOMES.test(next[0].plain);
}

/** Whether the other party's turn just before the unit's proposed a time ("Does Friday at ten work?"). */
function proposedJustBefore(ct: CallText, unit: Unit): boolean {
  const prev = ct.units.filter((u) => u.turn === unit.turn - 1 && u.speaker.speakerId !== unit.speaker.speakerId);
  return prev.some((u) => clausesOf(u).some((c) => c.kind === 'proposal')) && prev.some((u) => u.dates.some((d) => d.date !== null));
}

/** Whether the unit repeats a clock time the other party's turn just before said ("Monday at six thirty, I can do that"). */
function timeTakenBack(ct: CallText, unit: Unit): boolean {
  const timed = (u: Unit) => u.dates.filter((d) => d.date !== null && d.explicitTime).map((d) => d.datetime ?? d.date);
  const own = timed(unit);
  if (!own.length) return false;
  const prev = ct.units.filter((u) => u.turn === unit.turn - 1 && u.speaker.speakerId !== unit.speaker.speakerId);
  return prev.some((u) => timed(u).some((t) => own.includes(t)));
}

const TAKE_OFFERED = /^(?:book|take|grab|reserve|confirm|do|lock in|pencil in)\s+(?:that|it|this)(?:\s+(?:one|slot|in|then|please|for me))*$/i;

/** Whether the other party's turn just before the unit's offered a time: a proposal, or a question with a day in it ("Tuesday the sixteenth, same window?"). */
function offeredJustBefore(ct: CallText, unit: Unit): boolean {
  if (proposedJustBefore(ct, unit)) return true;
  const prev = ct.units.filter((u) => u.turn === unit.turn - 1 && u.speaker.speakerId !== unit.speaker.speakerId);
  return prev.some((u) => u.isQuestion && u.dates.some((d) => d.date !== null));
}

/** Whether the request picks one of the options the other party just offered ("I can X, or Y" - "Y, please"). */
function choseOffered(ct: CallText, unit: Unit, clause: Clause): boolean {
  const verb = clause.verb.toLowerCase();
  if (!verb) return false;
  const prev = ct.units.filter((u) => u.turn === unit.turn - 1 && u.speaker.speakerId !== unit.speaker.speakerId);
  return prev.some((u) => {
    const m = u.norm.match(/\b(?:I|we)\s+(?:can|could)\s+(?:just\s+)?(\w+)\b.*?,?\s+or\s+(?:(?:I|we)\s+(?:can|could)\s+)?(?:just\s+)?(\w+)\b/i);
    return !!m && (m[1].toLowerCase() === verb || m[2].toLowerCase() === verb);
  });
}

// How an addressee takes a request on at the start of their answer: "Sure, I'll be there", "Okay".
// (and the go-ahead to an offer: "Do you want me to get the plumber out?" - "Go on then, book him in",
// "Shall I get him booked?" - "Aye, go on then", "Yes please", "Please do")
const TAKES_ON = /^(?:(?:sure|yes|yeah|yep|okay|ok|of course|no problem|absolutely|definitely|certainly|will do|sounds good|alright|all right|aye|go on|go ahead|please do|if you would|if you could|if you do not mind)\b|(?:i|we) (?:will|can|shall|am going to|are going to)\b)/;

/** Whether the other party's next turn after `unit` opens by taking on what was asked. */
function takenOn(ct: CallText, unit: Unit): boolean {
  const next = ct.units.find((u) => u.idx > unit.idx && u.turn > unit.turn && u.speaker.speakerId !== unit.speaker.speakerId);
  if (!next || next.turn > unit.turn + 2) return false;
  return TAKES_ON.test(next.plain.replace(/^[^a-z]+/, ''));
}

/** The other party's sentences of their next turn when it opens by taking up what the unit offered. */
function goAheadTo(ct: CallText, unit: Unit): Unit[] | null {
  const next = ct.units.find((u) => u.idx > unit.idx && u.turn > unit.turn && u.speaker.speakerId !== unit.speaker.speakerId);
  if (!next || next.turn > unit.turn + 2 || !TAKES_ON.test(next.plain.replace(/^[^a-z]+/, ''))) return null;
  return ct.units.filter((u) => u.turn === next.turn && u.idx >= next.idx && u.idx <= next.idx + 1);
}

function lowerFirst(s: string): string {
  return s ? s[0].toLowerCase() + s.slice(1) : s;
}

/** The first turn of `speakerId` after the group's first sentence. */
function firstTurnAfter(ct: CallText, g: Group, speakerId: string): number | undefined {
  const from = Math.min(...g.cands.map((c) => c.unit.idx));
  return ct.units.find((u) => u.idx > from && u.speaker.speakerId === speakerId && u.turn > ct.units[from].turn)?.turn;
}

function lastTurn(g: Group): number {
  return Math.max(...g.cands.map((c) => c.unit.turn), ...g.extraUnits.map((u) => u.turn));
}

/** The clause that describes the item best: the one with the most content, requests first on ties. */
function pickBest(cands: Candidate[]): Candidate {
  // (an address's own item names the item only when nothing said asks or promises: "Stan at feld tax
  // dot com, okay." - "I'll send the 1099 today" is "Send the 1099 today", to that address)
  const said = cands.filter((c) => !c.unclaimed);
  return [...(said.length ? said : cands)]
    .filter((c) => !GENERIC_VP.test(c.clause.vp))
    .sort((a, b) => b.stems.length - a.stems.length || (a.clause.kind === 'request' ? -1 : 1))[0] ?? cands[0];
}

interface Due {
  date: string;
  text: string;
  mention: DateMention;
}

/**
 * Due date of a group: a date said in the owner's commitment wins over one in the request; an item
 * tied to another event ("I'll text you when the technician is on the way") takes the latest date
 * said shortly before it.
 */
const MEMORY_AID = /\b(?:reminder|remind me|calendar|diary|planner|alarm)\b/i;
const SET_NOW = /^(?:right now|now|right away|straight away|asap|as soon as possible)$/i;

function dueOf(ct: CallText, cands: Candidate[], day: string): Due | null {
  const ordered = [...cands].sort((a, b) => rank(a) - rank(b));
  for (const c of ordered) {
    // ("I'm setting a reminder right now for April tenth", "putting it on my calendar now": a memory
    // aid is set now, and is for the day it is about, said with it or just before)
    const aid = MEMORY_AID.test(c.clause.text);
    const d = c.dates.find((x) => x.date && x.date >= day && !(aid && SET_NOW.test(x.text)));
    if (d) return { date: d.date!, text: d.text, mention: d };
  }
  // "The inspection is on Friday at one. Please be on site.": an item with no date of its own is
  // for the day said just before it in the same turn, or the day the two parties just agreed on
  // ("Monday at four works." - "Please arrive ten minutes early.")
  const firstUnit = [...cands].sort((a, b) => a.unit.idx - b.unit.idx)[0]?.unit;
  if (firstUnit) {
    // (the same sentence counts too: "my flight lands on Friday at 7:40 and can you pick me up")
    for (let k = firstUnit.idx; k >= 0 && firstUnit.turn - ct.units[k].turn <= 2; k--) {
      const u = ct.units[k];
      const sameTurn = u.turn === firstUnit.turn;
      if (!sameTurn && !clausesOf(u).some((c) => c.kind === 'accept')) continue;
      // not a day said inside another request of the same sentence ("can you call the plumber, and
      // email me the invoice on Thursday?": Thursday is the e-mail's); a promise's steps share
      // theirs ("I'll swing by Friday after work and grab it")
      const asked = cands.some((k) => k.unit === u && k.clause.kind === 'request');
      const others = u === firstUnit && asked ? clausesOf(u).filter((c) => c.kind === 'request' && !cands.some((k) => k.clause === c || k.clause.text === c.text)) : [];
      const d = u.dates.find((x) => x.date && x.date > day && !u.past && !others.some((c) => c.text.toLowerCase().includes(x.text.toLowerCase())));
      if (d) return { date: d.date!, text: d.text, mention: d };
      if (sameTurn) continue;
      break;
    }
  }
  // "I'll text you when the technician is on the way": the event was scheduled by the same
  // speaker shortly before ("the boiler company can't come until Wednesday morning").
  const tied = cands.find((c) => c.clause.whenClause);
  if (tied) {
    const speaker = tied.owner.speakerId;
    const first = Math.min(...cands.map((c) => c.unit.idx));
    for (let k = first - 1; k >= 0 && ct.units[first].turn - ct.units[k].turn <= 3; k--) {
      const u = ct.units[k];
      if (u.speaker.speakerId !== speaker) continue;
      const future = clausesOf(u).find((c) => c.kind === 'future' || c.kind === 'soft');
      if (!future) continue;
      const d = u.dates.find((x) => x.date && x.date >= day && future.text.toLowerCase().includes(x.text.toLowerCase()));
      if (d) return { date: d.date!, text: d.text, mention: d };
    }
  }
  return null;
}

function rank(c: Candidate): number {
  return c.clause.kind === 'commit' ? 0 : c.clause.kind === 'request' ? 1 : 2;
}

interface Meta {
  metadata: IntentMetadata;
  /** Units cited by the metadata (where an address or number was said). */
  units: Unit[];
}

function nearUnits(ct: CallText, units: Unit[], before: number, after: number): Unit[] {
  const lo = Math.min(...units.map((u) => u.turn)) - before;
  const hi = Math.max(...units.map((u) => u.turn)) + after;
  return ct.units.filter((u) => u.turn >= lo && u.turn <= hi);
}

/**
 * An address with the sender's own name in its local part ("kwame dot mensah eighty eight at ..." in
 * Kwame's call) is where the sender is written to, not where they write: one said near an item the
 * sender owns is taken only when no other address was said around it.
 */
function ownAddress(e: SpokenEmail, owner: Speaker): boolean {
  const local = e.address.split('@')[0];
  return [...speakerNameWords([owner])].some((n) => local.split(/[._-]/).some((part) => part.replace(/\d+$/, '') === n || (part.startsWith(n) && n.length >= 4)));
}

// "I'll email you the logo files, what's your address?": the sender asks where to write.
const ASKS_ADDRESS = /\bwhat(?:'s| is) (?:your|the best|a good) (?:e-?mail(?: address)?|address)\b/i;

/**
 * The address the other party gives in answer, when the sender asks for it in the item's own turn
 * after the item: an address said before the question (a read-back of another one) is not it.
 */
function askedAddress(ct: CallText, units: Unit[], owner: Speaker): { entity: SpokenEmail; unit: Unit } | null {
  const last = units.reduce((a, u) => (u.idx > a.idx ? u : a), units[0]);
  const asked = ct.units.find((u) => u.turn === last.turn && u.idx >= last.idx && u.speaker.speakerId === owner.speakerId && ASKS_ADDRESS.test(u.plain));
  if (!asked) return null;
  for (const u of ct.units) {
    if (u.idx <= asked.idx || u.turn > asked.turn + 2 || u.speaker.speakerId === owner.speakerId) continue;
    const e = u.entities.find((x) => x.kind === 'email');
    if (e) return { entity: e as SpokenEmail, unit: u };
  }
  return null;
}

/**
 * "Is it jill at petal one stem dot com?" asked by the sender, "yep, jill at petal and stem dot com"
 * answered: the same local part said again by the other party in the next turn is their address as
 * they say it, the one to write to.
 */
function answeredAddress(ct: CallText, found: { entity: SpokenEmail; unit: Unit } | null, owner: Speaker): { entity: SpokenEmail; unit: Unit } | null {
  if (!found || found.unit.speaker.speakerId !== owner.speakerId) return found;
  const local = found.entity.address.split('@')[0];
  for (const u of ct.units) {
    if (u.turn < found.unit.turn || u.turn > found.unit.turn + 1 || u.idx <= found.unit.idx || u.speaker.speakerId === owner.speakerId) continue;
    const e = u.entities.find((x): x is SpokenEmail => x.kind === 'email' && x.address.split('@')[0] === local);
    if (e) return { entity: e, unit: u };
  }
  return found;
}

/** The spoken entity of a kind nearest to the item, preferring the other party's words. */
function nearestEntity<K extends 'email' | 'phone'>(
  ct: CallText,
  units: Unit[],
  kind: K,
  owner: Speaker,
  before: number,
  after: number,
  /** Only what the other party said. */
  othersOnly = false,
): { entity: K extends 'email' ? SpokenEmail : SpokenPhone; unit: Unit } | null {
  const pool = nearUnits(ct, units, before, after).filter((u) => !othersOnly || u.speaker.speakerId !== owner.speakerId);
  const center = units.reduce((a, u) => a + u.turn, 0) / units.length;
  // An address the owner read back at a domain the other party dictated, in other letters, is the
  // read-back misheard ("priya at mehta and co dot co dot u k" - "korea at mehta and co ..."): the
  // one who dictated it knows their address.
  const domainOf = (e: SpokenEmail) => e.address.slice(e.address.indexOf('@') + 1);
  const othersAddresses = pool.filter((u) => u.speaker.speakerId !== owner.speakerId).flatMap((u) => u.entities.filter((e): e is SpokenEmail => e.kind === 'email'));
  const misheardReadBack = (e: SpokenEmail, u: Unit) =>
    u.speaker.speakerId === owner.speakerId && othersAddresses.some((o) => domainOf(o) === domainOf(e)) && !othersAddresses.some((o) => o.address === e.address);
  let best: { entity: any; unit: Unit; score: number } | null = null;
  for (const u of pool) {
    for (const e of u.entities) {
      if (e.kind !== kind) continue;
      const score =
        Math.abs(u.turn - center) +
        (u.speaker.speakerId === owner.speakerId ? 0.5 : 0) +
        (units.includes(u) ? -2 : 0) +
        (kind === 'email' && ownAddress(e as SpokenEmail, owner) ? 6 : 0) +
        (kind === 'email' && misheardReadBack(e as SpokenEmail, u) ? 6 : 0);
      if (!best || score < best.score) best = { entity: e, unit: u, score };
    }
  }
  return best ? { entity: best.entity, unit: best.unit } : null;
}

function subjectOf(c: Candidate): string | null {
  const text = c.antecedent ? c.antecedent.phrase : c.clause.vp;
  const np = nounChunks(text).find((p) => DOCUMENTISH.test(p)) ?? nounChunks(text)[0];
  if (!np) return null;
  return capitalize(np.replace(/^(the|a|an|your|my|our|their)\s+/i, ''));
}

function metadataFor(ct: CallText, g: Group, best: Candidate, units: Unit[], due: Due | null): Meta {
  const other = g.cands.find((c) => c.other)?.other ?? null;
  const otherName = other ? other.displayName || other.label : null;
  const cited: Unit[] = [];
  const md: IntentMetadata = {};
  const title = titleOf(best);
  switch (g.intent) {
    case 'email': {
      const found = askedAddress(ct, units, g.owner) ?? answeredAddress(ct, nearestEntity(ct, units, 'email', g.owner, 4, 2), g.owner);
      if (found) {
        md.toEmail = found.entity.address;
        cited.push(found.unit);
        const sayer = found.unit.speaker;
        md.toName = sayer.speakerId !== g.owner.speakerId ? sayer.displayName || sayer.label : otherName;
      } else md.toName = otherName;
      const subject = subjectOf(best);
      if (subject) md.subject = subject;
      md.bodyPreview = `${otherName ? `Hi ${firstName(otherName)}, f` : 'F'}ollowing up on our call${subject ? `: ${subject.toLowerCase()}` : ''}.`;
      break;
    }
    case 'call': {
      const found = nearestEntity(ct, units, 'phone', g.owner, 2, 2);
      if (found) {
        const e164 = toE164(found.entity, ct.context.phoneNumber);
        const callDigits = phoneDigits(ct.context.phoneNumber);
        if (e164 && phoneDigits(e164) !== callDigits && !callDigits.endsWith(found.entity.digits)) {
          md.phoneNumber = e164;
          cited.push(found.unit);
        }
      }
      const named = best.clause.vp.match(/^(?:call|ring|phone)\s+((?:the|a)\s+[\w\s]+?)(?:\s+(?:back|on|at|if|when|about|by|within|tomorrow|today|tonight)\b|$)/i);
      // "call him": a third party the words do not name here; the other party is not the one called
      const thirdParty = g.cands.some((c) => /^(?:call|ring|phone)\s+(him|her|them)\b/i.test(c.clause.vp));
      md.contactName = named ? named[1] : thirdParty ? null : otherName;
      break;
    }
    case 'message': {
      const channel = g.cands.map((c) => c.channel).find(Boolean) ?? null;
      if (channel) {
        md.channel = channel;
        md.providerHint = channel;
      }
      const found = nearestEntity(ct, units, 'phone', g.owner, 1, 1);
      if (found) {
        const e164 = toE164(found.entity, ct.context.phoneNumber);
        if (e164 && phoneDigits(e164) !== phoneDigits(ct.context.phoneNumber)) {
          md.phoneNumber = e164;
          cited.push(found.unit);
        }
      }
      md.contactName = otherName;
      const subject = subjectOf(best);
      md.bodyPreview = subject ? `About ${subject.toLowerCase()}.` : null;
      break;
    }
    case 'reminder': {
      md.title = title;
      if (due?.mention.datetime && due.mention.explicitTime) md.remindAt = due.mention.datetime;
      md.notes = units.map(sentenceOf).join(' ');
      break;
    }
    default: {
      md.title = title;
      md.notes = units.map(sentenceOf).join(' ');
    }
  }
  return { metadata: md, units: cited };
}

/**
 * One errand asked for, then promised again turns later, after an address or a number was dictated
 * in between, is one errand, not two items (the turns of dictation put the promise beyond the reach
 * of the grouping above):
 * - two e-mail items of one owner to the same recipient (the same address, or the same name where
 *   only one has an address): "Could you email that through to us today?" ... "It's transfers at rego
 *   hub dot com dot au" ... "I'll flick it through this arvo";
 * - a call or a message promised with a pronoun for whom ("I'll ring them first thing tomorrow", "I'll
 *   text her tonight") within eight turns of a call (message) item of the same owner ("Would you be
 *   able to ring reception to book it in?" - "Have you the number?" - "It's oh one ..."), with no other
 *   item of that kind and owner between: the later number is the one that stands (a number is
 *   corrected, not taken back), and the promise's day.
 * The earlier item stays, with the other's details and sentences. In place; `items` sorted by source.
 */
function mergeSameErrands(ct: CallText, items: AnalysisActionItem[]): void {
  const turnOfSegment = new Map(ct.units.map((u) => [u.segmentId, u.turn]));
  const turnOf = (it: AnalysisActionItem) => Math.min(...(it.sourceSegmentIds ?? []).map((id) => turnOfSegment.get(id) ?? Infinity));
  const absorb = (a: AnalysisActionItem, b: AnalysisActionItem, metadata: IntentMetadata) => {
    a.intentMetadata = metadata;
    a.dueDate = b.intent === 'email' ? (a.dueDate ?? b.dueDate) : (b.dueDate ?? a.dueDate);
    a.sourceSegmentIds = [...new Set([...(a.sourceSegmentIds ?? []), ...(b.sourceSegmentIds ?? [])])].sort();
    if (b.description && !a.description?.includes(b.description)) a.description = `${a.description ?? ''} ${b.description}`.trim();
  };
  for (let i = 0; i < items.length; i++) {
    const a = items[i];
    if (a.intent !== 'email' && a.intent !== 'call' && a.intent !== 'message') continue;
    for (let j = i + 1; j < items.length; j++) {
      const b = items[j];
      if (b.intent !== a.intent || b.ownerSpeakerId !== a.ownerSpeakerId) continue;
      const am = a.intentMetadata ?? {};
      const bm = b.intentMetadata ?? {};
      if (a.intent === 'email') {
        const sameAddress = !!am.toEmail && am.toEmail === bm.toEmail;
        const oneAddressed = !am.toEmail !== !bm.toEmail && !!am.toName && am.toName === bm.toName;
        if (!sameAddress && !oneAddressed) continue;
        absorb(a, b, { ...bm, ...am, toEmail: am.toEmail ?? bm.toEmail });
      } else {
        if (!/^(?:ring|call|phone|give|text|message|whatsapp|send)\s+(?:them|him|her)\b/i.test(b.title) || turnOf(b) - turnOf(a) > 8) break;
        absorb(a, b, { ...bm, ...am, phoneNumber: bm.phoneNumber ?? am.phoneNumber });
      }
      items.splice(j--, 1);
    }
  }
}

function buildItem(
  owner: Speaker,
  title: string,
  units: Unit[],
  extra: Unit[],
  intent: Intent,
  metadata: IntentMetadata,
  due: Due | null,
  cands: Candidate[],
): AnalysisActionItem {
  const all = uniq([...units, ...extra]);
  const conditional = cands.length > 0 && cands.every((c) => c.clause.conditional);
  const urgent = cands.some((c) => URGENT.test(c.clause.text));
  const priority: AnalysisActionItem['priority'] = conditional ? 'low' : urgent ? 'high' : 'medium';
  return {
    title,
    description: units.sort((a, b) => a.idx - b.idx).map(sentenceOf).join(' '),
    ownerSpeaker: owner.label,
    ownerSpeakerId: owner.speakerId,
    ownerSpeakerLabel: owner.label,
    ownerDisplayName: owner.displayName,
    ownerRole: owner.role,
    dueDate: due?.date ?? null,
    priority,
    sourceSegmentIds: segIds(all),
    intent,
    intentMetadata: metadata,
  };
}

function meetingItem(
  ct: CallText,
  g: Group,
  proposals: Array<{ unit: Unit; clause: Clause }>,
  accepts: Array<{ unit: Unit; clause: Clause }>,
  desires: Array<{ unit: Unit; clause: Clause }>,
  day: string,
): { item: AnalysisActionItem; units: Unit[] } {
  const turns = g.cands.map((c) => c.unit.turn);
  const lo = Math.min(...turns) - 3;
  const hi = Math.max(...turns) + 3;
  const inWin = (u: Unit) => u.turn >= lo && u.turn <= hi;
  const props = proposals.filter((p) => inWin(p.unit));
  const accs = accepts.filter((a) => inWin(a.unit) && a.unit.dates.some((d) => d.date && d.date >= day));
  // Owner: whoever commits to set it up or send the invite; else whoever proposed it.
  // (the one who sends the invite or link or sets it up, before one who only says they are free:
  // "Thursday at eleven, I'm working from home that day" - "I'll send you the Teams link")
  const commits = g.cands.filter((c) => c.clause.kind === 'commit' || c.clause.kind === 'joint');
  const committer = commits.find((c) => INVITE.test(c.clause.vp) || /\blink\b/i.test(c.clause.vp) || MEETING_SETUP_VERB.test(c.clause.verb)) ?? commits[0];
  const proposer = props[0]?.unit.speaker;
  const owner = committer?.owner ?? proposer ?? g.cands[0].owner;
  const other = ct.speakers.find((s) => s.speakerId !== owner.speakerId) ?? null;

  // The time: the last accepted time, else the time of the proposal the last acceptance took (the
  // last one before it: "Thursday at ten?" - "Could we do eleven instead?" - "Sure."), else the last
  // proposed one, else one said with the meeting.
  // ("I'll send the invite now": the moment of sending is not the meeting's day)
  const timed = (u: Unit) => u.dates.filter((d) => d.date && d.date >= day && !/^now$/i.test(d.text));
  const clockOf = (u: Unit) => timed(u).find((d) => d.datetime && d.explicitTime);
  const lastAccept = accepts.filter((a) => inWin(a.unit)).at(-1)?.unit;
  const taken = lastAccept ? props.map((p) => p.unit).filter((u) => u.idx < lastAccept.idx && u.speaker.speakerId !== lastAccept.speaker.speakerId && clockOf(u)).at(-1) : undefined;
  // ("Thursday at fourteen hundred, or Friday at ten thirty." - "Thursday at fourteen hundred would
  // suit me best."): a time said back by the other party is the one agreed
  const echoes = ct.units.filter((u) => inWin(u) && clockOf(u) && ct.units.some((v) => v.idx < u.idx && u.idx - v.idx <= 4 && v.speaker.speakerId !== u.speaker.speakerId && timed(v).some((x) => x.explicitTime && x.datetime === clockOf(u)!.datetime)));
  let when: DateMention | null = null;
  for (const src of [accs.map((a) => a.unit), echoes.slice(-1), taken ? [taken] : [], props.map((p) => p.unit), g.cands.map((c) => c.unit)]) {
    for (const u of [...src].reverse()) {
      const withTime = timed(u).find((d) => d.datetime && d.explicitTime);
      if (withTime) {
        when = withTime;
        break;
      }
    }
    if (when) break;
  }
  if (!when) {
    for (const u of [...accs.map((a) => a.unit).reverse(), ...props.map((p) => p.unit), ...g.cands.map((c) => c.unit)]) {
      const d = timed(u)[0];
      if (d) {
        when = d;
        break;
      }
    }
  }
  // (the turn that agreed the time is cited with it, though it names none: "Yes, that works for me.")
  const echo = echoes.at(-1);
  const agreedIn = [...(taken && lastAccept && when && taken.dates.includes(when) ? [lastAccept] : []), ...(echo && when && echo.dates.includes(when) ? [echo] : [])];
  const units = uniq([...g.cands.map((c) => c.unit), ...props.map((p) => p.unit), ...accs.map((a) => a.unit), ...agreedIn]);
  const window = ct.units.filter(inWin);
  // A named day said around the meeting ("Thursday the 24th") beats the day of sending the
  // invite ("this afternoon") when the proposal itself was not understood.
  if (!when || (when.date === day && !when.explicitTime)) {
    const named = window
      .flatMap((u) => timed(u).filter((d) => /\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|may|june|july|august|september|october|november|december|\d+(st|nd|rd|th))\b/i.test(d.text)))
      .pop();
    if (named) when = named;
  }
  // "every Tuesday at five pm starting next Tuesday": the day is known, and a clock time was said
  // for that weekday around the meeting
  if (when?.date && !when.explicitTime) {
    const weekday = new Date(`${when.date}T00:00:00Z`).getUTCDay();
    const clock = window.flatMap((u) => u.dates).find((d) => d.explicitTime && d.time && d.date && new Date(`${d.date}T00:00:00Z`).getUTCDay() === weekday);
    if (clock) when = { ...when, time: clock.time, explicitTime: true, datetime: `${when.date}T${clock.time}:00`, granularity: 'time' };
  }
  const provider = [...g.cands.map((c) => c.provider), ...props.map((p) => providerOf(p.clause.text))].find(Boolean) ?? null;

  // Duration: "about thirty minutes", "an hour" said around the meeting.
  let durationMinutes: number | null = null;
  for (const u of window) {
    for (const e of u.entities) {
      if (e.kind !== 'number') continue;
      const n = e as SpokenNumber;
      if (n.unit && /^minutes?$/.test(n.unit) && n.value > 0 && n.value <= 480) durationMinutes = n.value;
      if (n.unit && /^hours?$/.test(n.unit) && n.value > 0 && n.value <= 8) durationMinutes = n.value * 60;
    }
    if (durationMinutes === null && /\b(an|one) hour\b/i.test(u.norm) && /\b(take|need|last|for|about)\b/i.test(u.norm)) durationMinutes = 60;
    if (durationMinutes === null && /\bhalf an hour\b/i.test(u.norm)) durationMinutes = 30;
  }
  const durUnit = window.find((u) => u.entities.some((e) => e.kind === 'number' && (e as SpokenNumber).unit !== null && /^(minutes?|hours?)$/.test((e as SpokenNumber).unit!)));

  // Attendees: the other party, with the address they gave for the invite.
  const attendees: Array<{ name: string; email?: string | null }> = [];
  const emailFound = nearestEntity(ct, g.cands.map((c) => c.unit), 'email', owner, 4, 2);
  if (other) {
    attendees.push({ name: other.displayName || other.label, ...(emailFound && emailFound.unit.speaker.speakerId !== owner.speakerId ? { email: emailFound.entity.address } : {}) });
  }
  // ("send it to dan dot whitfield at outlook dot com" said by Dan, the owner: the owner's own
  // address, given for the invite, and the owner attends with it)
  if (emailFound && emailFound.unit.speaker.speakerId === owner.speakerId && ownAddress(emailFound.entity, owner) && !attendees.some((a) => a.email)) {
    attendees.push({ name: owner.displayName || owner.label, email: emailFound.entity.address });
  }
  const topic = meetingTitle([...desires.filter((d) => inWin(d.unit)).map((d) => d.unit), ...units]) ?? meetingPurpose(units) ?? (other ? `${provider ? `${capitalize(provider)} call` : 'Call'} with ${other.displayName || other.label}` : null);
  const md: IntentMetadata = {
    providerHint: provider,
    attendees,
    proposedAt: when?.datetime && when.explicitTime ? when.datetime : null,
    durationMinutes,
    title: topic,
  };
  const cited = [...units, ...(emailFound ? [emailFound.unit] : []), ...(durUnit && durationMinutes ? [durUnit] : [])];
  // Title: the owner's own words for the step ("Send the Teams invite") and what the meeting is for.
  const own = g.cands.filter((c) => c.owner.speakerId === owner.speakerId && c.clause.kind !== 'proposal');
  const best = own.length ? pickBest(own) : null;
  const what = topic ?? (provider ? `${capitalize(provider)} meeting` : 'Meeting');
  let title = best ? titleOf(best) : `Schedule: ${what}`;
  if (best && topic && !title.toLowerCase().includes(topic.toLowerCase())) title = `${title}: ${topic.toLowerCase()}`;
  const due = when?.date ? { date: when.date, text: when.text, mention: when } : null;
  const item = buildItem(owner, title, units, cited, 'meeting', md, due, g.cands);
  return { item, units: uniq(cited) };
}

const MEETING_HEAD = /^(meeting|demo|demonstration|interview|webinar|consultation|session|catch-up|walkthrough|presentation|call)$/i;
const TOPIC_LEFT_STOP = /^(a|an|the|to|for|see|like|would|we|you|i|your|our|my|set|up|book|schedule|have|do|meet|join|send|with|about|on|at|is|be|that|this|need|want|zoom|teams|video|phone|quick)$/i;

/** A short name for the meeting from the meeting noun said ("final interview", "demo of ..."). */
function meetingTitle(units: Unit[]): string | null {
  for (const u of units) {
    const toks = u.norm.replace(/[.,!?;:]+(\s|$)/g, ' | ').split(/\s+/).filter(Boolean);
    const h = toks.findIndex((t, i) => MEETING_HEAD.test(t) && !(t.toLowerCase() === 'call' && !/^(zoom|teams|video|conference|sales|intro|discovery)$/i.test(toks[i - 1] ?? '')));
    if (h < 0) continue;
    let l = h;
    while (l - 1 >= 0 && h - l < 2 && toks[l - 1] !== '|' && !TOPIC_LEFT_STOP.test(toks[l - 1])) l--;
    let r = h + 1;
    if (/^(of|about|for)$/i.test(toks[r] ?? '')) {
      let k = r + 1;
      if (/^(the|your|our|a|an)$/i.test(toks[k] ?? '')) k++;
      let end = k;
      while (end < toks.length && end - k < 4 && toks[end] !== '|' && !/^(next|on|at|by|with|this|tomorrow|today|work|works)$/i.test(toks[end])) end++;
      if (end > k) r = end;
    }
    const phrase = toks
      .slice(l, r)
      .join(' ')
      .replace(/\b(your|our|my)\b/gi, 'the')
      .trim();
    if (phrase && !/^call$/i.test(phrase)) return capitalize(phrase);
  }
  return null;
}

/**
 * "I'll send the invite with our pricing sheet": a document sent along with the invite is an
 * e-mail of its own, to the address given for the invite.
 */
function attachmentItem(ct: CallText, g: Group, meeting: AnalysisActionItem, day: string): AnalysisActionItem | null {
  for (const c of g.cands) {
    if (c.owner.speakerId !== meeting.ownerSpeakerId || !/^(send|resend|forward|share|email)$/.test(c.clause.verb)) continue;
    const m = c.clause.vp.match(/\b(?:with|along with|plus|and)\s+((?:the|our|my|a|your)\s+[\w-]+(?:\s+[\w-]+){0,3})/i);
    if (!m) continue;
    const phrase = m[1].replace(/\s+(?:today|tonight|tomorrow|this \w+|by \w+|on \w+|later|too|as well)\b.*$/i, '');
    if (!DOCUMENTISH.test(phrase) || INVITE.test(phrase)) continue;
    const doc = phrase.replace(/^(our|my|your)\s+/i, 'the ');
    // (the other party's address: "is it jill at petal one stem dot com?" asked by the sender and
    // "yep, jill at petal and stem dot com" answered, the answer is the one to use)
    const found = nearestEntity(ct, [c.unit], 'email', c.owner, 4, 2, true);
    const otherName = c.other ? c.other.displayName || c.other.label : null;
    const due = c.dates.find((d) => d.date && d.date >= day);
    const md: IntentMetadata = {
      toEmail: found && found.unit.speaker.speakerId !== c.owner.speakerId ? found.entity.address : null,
      toName: otherName,
      subject: capitalize(doc.replace(/^the\s+/i, '')),
      bodyPreview: `${otherName ? `Hi ${firstName(otherName)}, a` : 'A'}s promised on our call, here is ${doc}.`,
    };
    const units = [c.unit, ...(found ? [found.unit] : [])];
    return buildItem(c.owner, `Send ${doc}`, [c.unit], units, 'email', md, due?.date ? { date: due.date, text: due.text, mention: due } : null, [c]);
  }
  return null;
}

/** "... to go through the final version" -> "Go through the final version". */
function meetingPurpose(units: Unit[]): string | null {
  for (const u of units) {
    const m = u.norm.match(/\bto ((?:discuss|go over|go through|review|talk about|talk through|look at|walk through|plan|finali[sz]e|catch up on|sign)\b[^.?!,;]*)/i);
    if (m) return capitalize(m[1].replace(/\b(your|our|my)\b/gi, 'the').trim());
  }
  return null;
}

function lowerFirstWord(s: string): string {
  return /^(The|A|An|It|This|That|Replacing|We|I've|Our|Your|There)\b/.test(s) ? s[0].toLowerCase() + s.slice(1) : s;
}

const WEAK_ACCEPT = /^(yes|yeah|sure|okay|ok|great|perfect|fine|got it|no problem|will do|of course|absolutely|deal|agreed|sure thing)[.!]*$/i;

function decisionsOf(ct: CallText, accepts: Array<{ unit: Unit; clause: Clause }>): ActionResult['decisions'] {
  const out: ActionResult['decisions'] = [];
  for (const a of accepts) {
    if (WEAK_ACCEPT.test(a.clause.text.trim())) continue;
    // what was accepted: the other party's last sentence before the acceptance
    const prev = [...ct.units.slice(0, a.unit.idx)].reverse().find((u) => u.speaker.speakerId !== a.unit.speaker.speakerId);
    // an acceptance answers an offer: a proposal, a price, a date, something with content
    if (!prev || prev.words < 4 || a.unit.turn - prev.turn > 1) continue;
    const name = a.unit.speaker.displayName || a.unit.speaker.label;
    const accepted = a.clause.text.replace(/\s+(for|to)\s+(me|us)\b/i, '').replace(/[.!]+$/, '');
    const hasContent = a.unit.dates.length > 0 || contentStems(accepted).length >= 2;
    const text = hasContent ? `${name} agreed: ${accepted}` : `${name} agreed: ${lowerFirstWord(prev.norm.replace(/[.!?]+$/, ''))}`;
    out.push({ text, agreedBy: name, sourceSegmentIds: uniq([prev.segmentId, a.unit.segmentId]) });
  }
  return out;
}

// The transcript as a list of sentences ("units"), each with its speaker, an estimated time, the
// written form of what was said, its content-word stems and its date mentions. Every later stage
// (summaries, action items, sentiment) works on these units.
import nlp from 'compromise';
import { stemmer } from 'stemmer';
import type { Transcript, TranscriptSegment, SpeakerRole } from '../../../domain/transcript.js';
import type { AnalysisContext } from '../../../domain/analysis.js';
import { normalizeSpoken, type SpokenEmail, type SpokenEntity } from './spoken.js';
import { speakerNameWords, WEBMAIL } from '../heard.js';
import { callDay, dropCorrectedDates, onDay, resolveDates, shiftDay, TAKING_BACK, type DateMention } from './dates.js';
import { expand, IMPERATIVE_VERB_NAMES } from './clauses.js';

export interface Speaker {
  speakerId: string;
  label: string;
  displayName: string;
  role: SpeakerRole;
}

export interface Unit {
  /** Position in the call, 0-based over all sentences. */
  idx: number;
  /** Index of the segment (turn) the sentence belongs to. */
  turn: number;
  segmentId: string;
  speaker: Speaker;
  /** The sentence as transcribed. */
  text: string;
  /** Written form (numbers, phones, e-mails rewritten). */
  norm: string;
  /** Lower-case written form with contractions expanded, for pattern matching. */
  plain: string;
  start: number;
  end: number;
  /** Stems of the content words. */
  stems: string[];
  words: number;
  isQuestion: boolean;
  past: boolean;
  /** The segment's alignment confidence as the transcript gives it (HIGH, MEDIUM, LOW, ...). */
  confidence: string;
  entities: SpokenEntity[];
  dates: DateMention[];
}

export interface CallText {
  units: Unit[];
  segments: TranscriptSegment[];
  speakers: Speaker[];
  /** Speaker by speakerId. */
  byId: Map<string, Speaker>;
  duration: number;
  context: AnalysisContext;
}

// English function words (the usual IR stopword list), plus conversational fillers and verbs too
// common in calls to say anything about the topic.
const ENGLISH = `a about above after again against all am an and any are as at be because been before being below between both
but by could did do does doing down during each few for from further had has have having he her here hers herself him himself his
how i if in into is it its itself me more most my myself nor not of off on once only or other ought our ours ourselves out over
own same she should so some such than that the their theirs them themselves then there these they this those through to too under
until up very was we were what when where which while who whom why with would you your yours yourself yourselves cannot isn aren
wasn weren hasn haven hadn doesn don didn won wouldn shan shouldn couldn mustn let's that's who's what's here's there's when's
where's why's how's i'm you're he's she's it's we're they're i've you've we've they've i'd you'd he'd she'd we'd they'd i'll you'll
he'll she'll we'll they'll`.split(/\s+/);
const STOP = new Set([
  ...ENGLISH,
  'okay', 'ok', 'yeah', 'yes', 'no', 'hi', 'hello', 'hey', 'bye', 'thanks', 'thank', 'please', 'sure', 'oh', 'um', 'uh', 'got',
  'well', 'right', 'just', 'really', 'also', 'great', 'perfect', 'good', 'fine', 'sounds', 'will', 'can', 'could', 'would', 'shall',
  'let', 'get', 'go', 'going', 'know', 'think', 'say', 'said', 'tell', 'like', 'want', 'need', 'make', 'see', 'look', 'come',
  'll', 've', 're', 'd', 's', 't', 'm', 'don', 'didn', 'isn', 'it’s', "it's", 'i’m', "i'm", 'one', 'thing', 'things', 'lot', 'bit',
  'time', 'today', 'tomorrow', 'tonight', 'now', 'then', 'there', 'here', 'much', 'many', 'little', 'first', 'again',
]);

export function isStopword(w: string): boolean {
  return STOP.has(w.toLowerCase());
}

/** Lower-case words of a text, apostrophes kept inside words. */
export function words(text: string): string[] {
  return (text.toLowerCase().replace(/[’‘]/g, "'").match(/[\p{L}\p{N}]+(?:['@.-][\p{L}\p{N}]+)*/gu) ?? []);
}

/** Stems of the content words of a text (stopwords and one-letter words dropped). */
export function contentStems(text: string): string[] {
  return words(text)
    .filter((w) => w.length > 1 && !STOP.has(w) && !/^\d+$/.test(w) && !w.includes('@'))
    .map((w) => stemmer(w.replace(/'s$/, '')));
}


/** Lower-case text with contractions expanded, so patterns need one spelling only. */
export function plainOf(text: string): string {
  return expand(text).toLowerCase();
}

/**
 * Whether a sentence reports the past. "got" is left out: "Got a minute?" and "Got it" are
 * present in meaning. A sentence with a future or modal marker is not past.
 */
type View = ReturnType<typeof nlp>;

export function isPastSentence(norm: string, parsed?: View): boolean {
  const plain = plainOf(norm);
  if (/\b(will|going to|can|could|should|would|shall|tomorrow|next|tonight)\b/.test(plain)) return false;
  // an obligation ahead ("I need to leave the gate unlocked Monday") and a recap of what was agreed
  // ("so just to confirm: ... uploaded by end of business Friday") are about the future
  if (/\b(need to|needs to|have to|has to|remember to|got to|gotta|want to|wants to)\b|^(?:so,? )?(?:just )?to confirm\b/.test(plain)) return false;
  // an arrangement in the present perfect or passive ("the engineer is booked for Friday", "it has been
  // scheduled for Tuesday the 12th") names a day ahead
  if (/\b(?:is|are|has been|have been|is now|are now)\s+(?:all\s+)?(?:booked|scheduled|set|arranged|planned|confirmed|penciled|pencilled|moved|rescheduled|pushed|lined up)\s+(?:in\s+)?(?:for|on|to)\b/.test(plain)) return false;
  // instructions are about the future ("don't forget to bring the signed contract on Monday")
  if (/^(?:(?:also|and|so|then|just|oh)[,]?\s+)?(please|do not|don't|make sure|remember|be sure)\b/.test(plain)) return false;
  const doc = parsed ?? nlp(norm);
  // a participle used as an adjective ("the signed contract") is not a past-tense verb
  const past = doc.match('#PastTense').not('(got|get)').not('#Determiner #PastTense').not('(#Determiner|#Adjective) [#PastTense]', 0).not('#PastTense #Noun').found;
  return past || /\b(ago|yesterday|last (night|week|month|year|monday|tuesday|wednesday|thursday|friday|saturday|sunday))\b/.test(plain);
}

// Offline recognisers write a turn as one unpunctuated run ("no problem call me back on the shop's
// line when you decide I'll call you back within the hour"). Speech acts are read from the start of
// a sentence, so a run is cut before the openings that begin a new one in conversation: a subject
// with a modal, a request or question opener, and a leading acknowledgement.
// "please" opens a request before a verb; after a request and before anything else it closes it
const PLEASE_VERB = `(?:${IMPERATIVE_VERB_NAMES}|have|be|bear|feel|allow|expect|hang|stay|wait|arrive|hold)`;
const PLEASE_OPENING = `please(?=\\s+(?:just\\s+|also\\s+|do\\s+|don't\\s+|kindly\\s+)?${PLEASE_VERB}\\b)`;
const RUN_ON_OPENINGS = `(?:I'll|I will|I'm|I am|I'd (?:also |really )?(?:like|appreciate|prefer)|I would (?:also |really )?(?:like|appreciate|prefer)|we'll|we will|we can|we could|we're|we'd like|you'll need|let me|let's|let us|${PLEASE_OPENING}|can you|could you|would you|will you|could use|can use|do you|did you|are you|is it|is this|what's|what is|where should|where do|how much|how about|thanks|thank you|sounds good|no problem|(?:my|our|the) (?:cell |mobile |phone |direct |work |home |office )?(?:number|line|email|e-mail|email address|address) is)\\b`;
// (not inside a subordinate clause: "what we can do is ...", "if I'm late"; not after "to confirm")
const RUN_ON_CUT = new RegExp(`(?<!\\b(?:what|where|how|when|why|who|if|whether|because|once|unless|until|confirm|and|but|so))\\s+(?=${RUN_ON_OPENINGS})`, 'gi');
// (a conjunction before such an opening goes with it: "... by the 13th and we'll see the counsellor")
const CONJUNCTION_CUT = new RegExp(`(?<!\\b(?:what|where|how|when|why|who|if|whether|because|once|unless|until|confirm))\\s+(?=(?:and|but|so)\\s+${RUN_ON_OPENINGS})`, 'gi');
// (not before "at ... dot ...": "hello at pixel work studio dot co" is the address of a shared mailbox)
// ("go on so", "go on then": the Irish and British "all right then", not an instruction)
const LEADING_ACK = /^((?:no problem|got it|sure|okay|ok|great|perfect|yes|yeah|fine|sounds good|of course|hello|hi|thanks|thank you|understood|right|alright|go on (?:so|then))(?:\s+(?:no problem|got it|sure|okay|ok|great|perfect|yes|yeah|fine|sounds good|of course|thanks|thank you))*)\s+(?=\w)(?!at\s+(?:\S+\s+){1,4}dot\s)/i;

const SHORT_ACK = /^((?:no problem|got it|sure|okay|ok|great|perfect|yes|yeah|fine|sounds good|of course|thanks|thank you|alright|absolutely|definitely|certainly)(?:\s+(?:no problem|got it|sure|okay|ok|great|perfect|yes|yeah|fine|thanks|thank you))*)\s+(?=(?:I|I'll|I'm|I've|I'd|we|we'll|we're|let's|let me|please|can|could|will|would|you|you'll|that|that's|it's)\b)/i;

// Where a new sentence may start after a closing remark: an imperative ("Friday works, text me"),
// a subject, a question word, a determiner or a connective ("That's fine. And I can email you").
const VERB_LIST = IMPERATIVE_VERB_NAMES;
const OPENER = `(?:(?:just\\s+)?(?:${VERB_LIST})|booking|sending|texting|calling|emailing|I|I'm|I'll|I've|I'd|we|we'll|we're|we've|you|you'll|you're|it|it's|that's|there's|he|she|they|this|which|what|when|where|how|can|could|would|will|should|shall|do|did|any|anything|so|oh|and|also|please|the|my|your|our)\\b`;
// A closing remark said in the middle of a turn: an acceptance of what was proposed ("Monday's fine",
// "Friday at three is fine", "ten works for everyone") or an acknowledgement ("I'm sorry", "no worries").
const TIME_WORD = '(?:it|that|this|then|time|slot|day|date|morning|afternoon|evening|noon|tonight|tomorrow|today|(?:mon|tues|wednes|thurs|fri|satur|sun)day|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|thirty|forty|forty five|o\'clock|a m|p m|am|pm|\\d+)';
const MID_CLOSURE = new RegExp(
  `\\b((?:is|'s|are|sounds|looks)\\s+(?:fine|perfect|good|great|okay|ok|correct|right|tight(?:\\s+for\\s+me)?)|${TIME_WORD}\\s+works(?:\\s+for\\s+(?:me|us|you|everyone|everybody|both of us))?|(?:I'm|I am)\\s+sorry|no worries|no problem)\\s+(?=${OPENER})`,
  'gi',
);
// An acknowledgement that opens a turn and closes before an instruction or a statement ("Good, call
// me tomorrow", "Done, the itinerary is on its way", "Do it, email the new itinerary").
// ("good call" is the idiom unless someone is to be called: "good call me tomorrow")
const LEADING_CLOSURE = new RegExp(`^((?:good(?!\\s+call\\b(?!\\s+(?:me|us|him|her|them|back)\\b))|done|do it|will do|no worries|that's (?:fine|great|perfect|correct|right)|that works|it's fine)(?:\\s+(?:then|thanks|thank you))?)\\s+(?=${OPENER})|^((?:I know|I see|I hear you|I understand))\\s+(?=${OPENER}|if\\b)`, 'i');
// A new sentence said without a pause: "oh and ...", an instruction to the other party joined with
// "and" ("we're open until six and bring your new card"), a question by its word order, an indirect
// request ("... mould in the bathroom last time I reckon you could email me a few photos"), a
// correction ("yeah I'll wait sorry that's my old one it's ..."; not "... five one one sorry no six
// zero zero three", which corrects the number in the same sentence, where spoken.ts reads it).
const NEW_SENTENCE_CUT = new RegExp(
  `\\s+(?=oh\\s+(?:and|by the way|also|actually)\\b|(?:could|can|should|shall) we\\b|any chance\\b|(?:and\\s+)?(?:I\\s+|you\\s+)?reckon (?:that )?you (?:could|can|would|might)\\b|sorry that(?:'s| is) (?:my|the|an?) (?:old|wrong|other)\\b|(?<!\\b(?:ask|asked|asking|wonder|wondered|wondering|know|see|check|checking|appreciate it|great|helpful|nice|good|grateful)\\s+)if you could\\b|(?:which|(?<!\\b(?:know|knows|knew|tell|told|ask|asked|see|sure|wonder|wondering|decide|decided|confirm|check|about|on|of|is|that's|remember)\\s+)what) (?:email|e-mail|address|number|day|time|date|one) (?:should|would|do|does|is|are|can|could|will)\\b)`,
  'gi',
);
// "and" before an instruction to the other party opens a new sentence after a statement or a
// promise ("I'll send it this afternoon and bring your running shoes"), not after an instruction
// it continues ("please send it by Friday and write your number on the envelope").
const AND_INSTRUCTION = new RegExp(`\\s+(?=and\\s+(?:${VERB_LIST})\\s+(?:me|us|your)\\b)`, 'gi');
const INSTRUCTION_OPENING = new RegExp(`^(?:please|just|(?:also|and|so|then)\\s+(?:please\\s+)?(?:${VERB_LIST})|(?:${VERB_LIST}))\\b`, 'i');

function splitAndInstruction(part: string): string[] {
  const pieces = part.split(AND_INSTRUCTION);
  const out: string[] = [pieces[0]];
  for (const p of pieces.slice(1)) {
    if (INSTRUCTION_OPENING.test(out[out.length - 1])) out[out.length - 1] += ` ${p}`;
    else out.push(p);
  }
  return out;
}
// "the fourteenth at nine please earlier is better": a "please" not followed by a verb closes the
// request before it
const PLEASE_END = new RegExp(`(?<=\\S\\s+please)\\s+(?!(?:just|also|do|don't|kindly|and|if|thanks|thank|${PLEASE_VERB})\\b)(?=\\w)`, 'gi');
// A number read out digit by digit ends before the sentence after it ("... oh four eight three a
// supervisor will call you"), and a list said with ordinals opens a sentence at each ("second the
// quarterly forecast is due ...").
const DIGIT = '(?:zero|oh|one|two|three|four|five|six|seven|eight|nine)';
const AFTER_NUMBER_CUT = new RegExp(`(?<=(?:\\b${DIGIT}\\s+){3}${DIGIT})\\s+(?=(?:a|the|I|I'll|I'm|we|we'll|you|you'll|he|she|they|it's|that's|thanks|thank|okay|ok|got|perfect|great|don't|please)\\b)`, 'gi');
const ORDINAL_CUT = /\s+(?=(?:second|third|fourth|fifth|finally|lastly)\s+(?:the|I|we|you|my|our|your|I'd|I'll|I've|we'll|we'd|there's)\b)/gi;
// A list of tasks after one subject ("I'll approve the invoices by friday send the forecast by the
// tenth", "I'll email them to enrolment at school dot edu complete the form ...") gets the comma the
// recogniser left out between a day or a dictated address and the next verb with its object.
const DAY_WORD = '(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day|today|tonight|tomorrow|morning|afternoon|evening|noon|week|weekend|month|first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|\\w+teenth|twentieth|thirtieth)';
const LISTED_TASK = new RegExp(`(?<=\\b(?:${DAY_WORD}|dot (?:com|net|org|edu|gov|io|co uk)))\\s+(?=(?:${VERB_LIST})\\s+(?:the|a|an|your|my|our|his|her|their|it|them)\\b)`, 'gi');
// A dictated or read-back address ends its sentence before an answer after it ("quotes at tall
// timber tree dot com sure I can do that this afternoon"): the address is no subject of the promise.
const ADDRESS_END_CUT = /(?<=\bdot (?:com|net|org|edu|gov|io|co uk|ca))\s+(?=(?:sure|okay|ok|great|perfect|got it|yes|yeah|thanks|thank you|will do|lovely|brilliant|I|I'll|I'm|I've|we|we'll|that's)\b)/gi;
// What a notice or a person said opens a sentence after a question or an offer run into it ("would
// you take one eighty the listing said two hundred but ...")
// (not after a word that makes the report a part of the sentence: "I think my landlord said ...",
// "as the manual says", "when the inspector said")
const REPORTED_CUT = /(?<!\b(?:that|what|how|if|whether|because|cause|and|but|so|me|us|him|her|them|as|like|when|since|until|after|before|where|while|unless|though|although|think|thought|guess|believe|know|knew|heard|hear|remember|mean|meant|say|said|tell|told|see|saw|read|show|shows|showed))\s+(?=(?:the|my|your|our|his|her|their)\s+(?:\w+\s+)?(?:said|says)\b)/gi;
// A time said as an answer ends before a request to get in touch ("between eight and ten text me
// photos ..."); and a promise said as a bare progressive opens a sentence ("slightly darker
// texting you photos in a few minutes").
const CLOCK = '(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|thirty|forty five|forty|fifty|noon|o\'clock|a m|p m)';
const TIME_THEN_CONTACT = new RegExp(`(?<=\\b${CLOCK})\\s+(?=(?:text|call|email|ring|message|phone)\\s+(?:me|us)\\b)`, 'gi');
// A clock time ends before a third party's promise said after it without a pause ("the earliest is
// Thursday at ten a m a claims specialist will call you").
const TIME_THEN_THIRD_PARTY = new RegExp(`(?<=\\b(?:${CLOCK}|\\d{1,2})\\s+(?:a m|p m|am|pm|o'clock))\\s+(?=(?:(?:a|an|the|our|your|someone|somebody)\\s+(?:[\\w-]+\\s+){0,3}?(?:will|is going to)|(?:they|he|she)(?:'ll|\\s+will))\\s)`, 'gi');
const BARE_PROGRESSIVE_CUT = /(?<!\b(?:am|is|are|was|were|be|been|being|I'm|we're|you're|he's|she's|they're|it's|keep|kept|start|started|stop|stopped|about|for|of|by|without|after|before|like|love|mind|enjoy|finish|finished|just|still|also|and|or|not|go|going|try|tried))\s+(?=(?:texting|sending|emailing|calling|forwarding)\s+(?:you|it|them|that|this|the|over)\b)/gi;
// "oh and clear the cupboard": an interjection before "and" is no clause whose subject the verb shares
const INTERJECTION_AND = /^(oh|well|okay|ok|right|alright)\s+(?=and\s)/i;
// ("do it", "will do" and "what I'd do is ..." open no question)
const QUESTION_OPENING = /^(?:can|could|would|will(?!\s+do\b)|(?:do|did)\s+(?:you|we|they|I|he|she|the|your|my)|are|is|what's|what\s+(?:is|are|do|does|did|time|day|about|would|should|can|could|will)|where|how|which|shall|should|any chance|anything\s+(?:I|we|you|else))\b/i;

/** Sentence breaks for an unpunctuated recogniser turn; punctuated text is returned unchanged. */
export function punctuateRunOn(text: string): string {
  // "Share I'll be there": the recogniser's "share" for "sure" before a subject is not a verb
  // and before anything that cannot be what is shared ("Share health x p a reminder": "Sure, I'll
  // text you a reminder"); a real "share" takes an object: the, it, your, with ...
  const t = text
    .trim()
    // a recogniser's "e mail" is the word "email"
    .replace(/\be mail(s|ed|ing)?\b/gi, 'email$1')
    .replace(/^share(?=\s+(?:i|i'll|i will|we|we'll|that|that's|thing|no problem)\b)/i, 'Sure')
    .replace(/^share\s+(?!(?:the|a|an|it|this|that|these|those|your|my|our|their|them|with|me|him|her|us|some|all|any|what|how|details|photos?|pictures?|screen|link|file|files|document|documents)\b)(?=\w)/i, 'Sure. ');
  if (/[.?!;,]/.test(t.replace(/[.?!]+$/, ''))) return t;
  // A short turn is one sentence, but an acknowledgement before a subject still opens it without
  // the comma a recogniser never writes ("Sure I'll call him tomorrow").
  if (t.split(/\s+/).length < 6) {
    const m = t.match(SHORT_ACK);
    return m ? `${capitalize(m[1])}. ${capitalize(t.slice(m[0].length))}` : t;
  }
  const end = t.match(/[.?!]+$/)?.[0] ?? '.';
  const body = t.replace(/[.?!]+$/, '');
  const parts = body
    .replace(LEADING_ACK, '$1|')
    .replace(LEADING_CLOSURE, (_m, a?: string, b?: string) => `${a ?? b}|`)
    .replace(MID_CLOSURE, '$1|')
    .replace(NEW_SENTENCE_CUT, '|')
    .replace(AFTER_NUMBER_CUT, '|')
    .replace(ADDRESS_END_CUT, '|')
    .replace(REPORTED_CUT, '|')
    .replace(PLEASE_END, '|')
    .replace(TIME_THEN_CONTACT, '|')
    .replace(TIME_THEN_THIRD_PARTY, '|')
    .replace(BARE_PROGRESSIVE_CUT, '|')
    .replace(ORDINAL_CUT, '|')
    .replace(CONJUNCTION_CUT, '|')
    .replace(RUN_ON_CUT, '|')
    .replace(LISTED_TASK, ', ')
    .split('|')
    .flatMap((p) => splitAndInstruction(p.trim()))
    .map((p) => p.trim().replace(INTERJECTION_AND, '$1, '))
    .filter(Boolean);
  // one sentence: a question by its word order gets the question mark a long turn was not given
  if (parts.length < 2) return parts.length ? `${parts[0]}${end === '.' && QUESTION_OPENING.test(parts[0]) ? '?' : end}` : t;
  return parts
    .map((p, i) => {
      const q = QUESTION_OPENING.test(p) ? '?' : '.';
      return `${p[0].toUpperCase()}${p.slice(1)}${i === parts.length - 1 ? (q === '?' ? '?' : end) : q}`;
    })
    .join(' ');
}

function speakerOf(seg: TranscriptSegment, byId: Map<string, Speaker>): Speaker {
  return (
    byId.get(seg.speakerId) ?? {
      speakerId: seg.speakerId,
      label: seg.speakerLabel,
      displayName: seg.speakerDisplayName,
      role: seg.role,
    }
  );
}

export function buildCallText(transcript: Transcript, context: AnalysisContext): CallText {
  const byId = new Map<string, Speaker>();
  for (const s of transcript.speakers) {
    byId.set(s.speakerId, { speakerId: s.speakerId, label: s.label, displayName: s.displayName, role: s.role });
  }
  const segments = [...transcript.segments].sort((a, b) => a.startSeconds - b.startSeconds || a.id.localeCompare(b.id));
  const units: Unit[] = [];
  // The per-call dictionary of names (user, contact, speakers): dictated addresses are built from them.
  const names = new Set(
    [context.userDisplayName, context.contactName, ...transcript.speakers.map((s) => s.displayName)]
      .flatMap((n) => (n ?? '').toLowerCase().split(/[^a-z]+/))
      .filter((w) => w.length > 1),
  );
  // The speakers' names, which a word of an address may have been heard for ("fill" for Phil): the
  // ones the grounding check reads the same way (grounding.ts)
  const spokenNames = speakerNameWords(transcript.speakers);
  // Addresses dictated so far: a read-back ("Fraser family at post box dot com") is rebuilt like them.
  const dictated = new Set<string>();
  segments.forEach((seg, turn) => {
    // one parse per segment serves the sentence split and the tense of each sentence
    const trimmed = punctuateRunOn(seg.text);
    const views: View[] = [];
    if (trimmed) nlp(trimmed).sentences().forEach((v) => void views.push(v as unknown as View));
    const sentences = views.length ? views.map((v) => v.text().trim()) : trimmed ? [trimmed] : [];
    const total = sentences.reduce((a, s) => a + s.length, 0) || 1;
    let offset = 0;
    const span = Math.max(0, seg.endSeconds - seg.startSeconds);
    sentences.forEach((text, k) => {
      if (!text) return;
      // ("It's gareth lyle plastering at gmail dot com. All one word.": the remark as a sentence of its own)
      const oneWordAfter = ONE_WORD_REMARK.test(sentences[k + 1] ?? '');
      const { text: norm, entities } = normalizeSpoken(text, names, dictated, spokenNames, oneWordAfter);
      for (const e of entities) if (e.kind === 'email') dictated.add(e.address);
      const past = isPastSentence(norm, views[k]);
      const start = seg.startSeconds + (span * offset) / total;
      offset += text.length;
      const end = seg.startSeconds + (span * offset) / total;
      units.push({
        idx: units.length,
        turn,
        segmentId: seg.id,
        speaker: speakerOf(seg, byId),
        text,
        norm,
        plain: plainOf(norm),
        start,
        end,
        stems: contentStems(norm),
        words: words(text).length,
        isQuestion: /\?\s*$/.test(text),
        past,
        confidence: seg.alignmentConfidence,
        entities,
        dates: resolveDates(norm, context.recordedAt, past),
      });
    });
  });
  dropCorrectedDates(units);
  dropCorrectedAddresses(units, names, spokenNames);
  dropAddressesCorrectedNextTurn(units, names, spokenNames);
  placeTimesOnDays(units, context.recordedAt);
  preferReadBackDomain(units, names);
  const speakers: Speaker[] = [];
  for (const seg of segments) {
    const sp = speakerOf(seg, byId);
    if (!speakers.some((s) => s.speakerId === sp.speakerId)) speakers.push(sp);
  }
  for (const s of byId.values()) if (!speakers.some((x) => x.speakerId === s.speakerId)) speakers.push(s);
  const duration = Math.max(transcript.durationSeconds, ...segments.map((s) => s.endSeconds), 0);
  return { units, segments, speakers, byId, duration, context };
}

// A second address after a correction cue is one more, not another ("sorry, and copy in jo at ...")
const ADDRESS_ADDED = /\b(?:copy|cc|also|as well|too|and)\b/i;
// "... at yahoo dot com, no wait, at gmail dot com": only the domain said again
const DOMAIN_AGAIN = /^[\s,.;:-]*(?:(?:it's|it is|that's|that is)\s+)?at\s+(.+?\bdot\s+[a-z]+(?:\s+dot\s+[a-z]+)?)\b/i;

/**
 * Addresses a speaker took back in the same turn. After a correction cue that goes on to give
 * another address ("tom at acme dot com. Sorry, tom at acme dot co dot uk"), the earlier address is
 * no longer an entity of its sentence; when only the domain is said again ("anna dot berg at yahoo
 * dot com, no wait, at gmail dot com") the earlier address takes the new domain. Every item then
 * cites what the speaker settled on, not what they withdrew.
 */
function dropCorrectedAddresses(units: Unit[], names: ReadonlySet<string>, spokenNames: ReadonlySet<string>): void {
  const turns = new Map<number, Unit[]>();
  for (const u of units) turns.set(u.turn, [...(turns.get(u.turn) ?? []), u]);
  for (const turn of turns.values()) {
    // the turn's text with each address's place in it, in order
    let text = '';
    const placed: Array<{ u: Unit; e: SpokenEmail; at: number; end: number }> = [];
    for (const u of turn) {
      const base = text.length;
      let from = 0;
      for (const e of u.entities) {
        if (e.kind !== 'email') continue;
        const at = u.norm.toLowerCase().indexOf(e.address, from);
        if (at < 0) continue;
        placed.push({ u, e, at: base + at, end: base + at + e.address.length });
        from = at + e.address.length;
      }
      text += `${u.norm} `;
    }
    for (let i = 0; i < placed.length; i++) {
      const p = placed[i];
      const next = placed[i + 1];
      const between = text.slice(p.end, next ? next.at : undefined);
      // bare cues ("sorry", "actually") count: another address must follow
      const cue = between.search(TAKING_BACK);
      if (cue < 0) continue;
      const afterCue = between.slice(cue).replace(TAKING_BACK, '');
      if (next) {
        if (ADDRESS_ADDED.test(afterCue) || next.e.address === p.e.address) continue;
        p.u.entities = p.u.entities.filter((x) => x !== p.e);
        continue;
      }
      const domainAgain = afterCue.match(DOMAIN_AGAIN);
      if (!domainAgain) continue;
      const local = p.e.address.split('@')[0];
      // (the domain read the way the address reader reads one, behind a stand-in local part)
      const rebuilt = normalizeSpoken(`contact at ${domainAgain[1]}`, names, new Set(), spokenNames).entities.find((x): x is SpokenEmail => x.kind === 'email');
      const domain = rebuilt?.address.startsWith('contact@') ? rebuilt.address.slice('contact@'.length) : null;
      if (!domain) continue;
      const corrected: SpokenEmail = { ...p.e, address: `${local}@${domain}`, spoken: `${p.e.spoken} ${between.trim()}` };
      p.u.entities = p.u.entities.map((x) => (x === p.e ? corrected : x));
    }
  }
}

// A turn that opens by taking back what the speaker said last ("Sorry, j dot smith", "No sorry, it's
// ..."): the cue words, with "no" only beside another of them ("No, that's right" takes nothing back).
const TURN_TAKES_BACK = /^[\s,.;:!-]*(?:(?:oh|oops|um|uh|no|wait|sorry|actually|hang on|my mistake|correction|i mean|it's|it is|that's|that is|should be)\b[\s,.;:!-]*)*?(?:sorry|actually|hang on|my mistake|correction|i mean|no,? wait)\b[\s,.;:!-]*(?:(?:no|it's|it is|that's|that is|should be|i mean)\b[\s,.;:!-]*)*/i;

/**
 * Addresses a speaker took back in their next turn (the other party said at most one turn in
 * between, "Okay."): the turn opens with a correction cue and gives another address ("j smith at
 * gmail dot com" - "Okay." - "Sorry, j dot smith at gmail dot com"), or only the local part again
 * ("Sorry, no, j dot smith"): the address taken back is no longer an entity of its sentence. As
 * dropCorrectedAddresses, over two turns: no item cites what the speaker withdrew.
 */
function dropAddressesCorrectedNextTurn(units: Unit[], names: ReadonlySet<string>, spokenNames: ReadonlySet<string>): void {
  const turns = [...new Set(units.map((u) => u.turn))].sort((a, b) => a - b);
  const unitsOf = (t: number) => units.filter((u) => u.turn === t);
  for (let i = 0; i < turns.length; i++) {
    const mine = unitsOf(turns[i]);
    const speaker = mine[0].speaker.speakerId;
    const last = mine.flatMap((u) => u.entities.filter((e): e is SpokenEmail => e.kind === 'email').map((e) => ({ u, e }))).at(-1);
    if (!last) continue;
    // the speaker's next turn, with at most one turn of the other party before it
    let j = i + 1;
    if (j < turns.length && unitsOf(turns[j])[0].speaker.speakerId !== speaker) j++;
    if (j >= turns.length || unitsOf(turns[j])[0].speaker.speakerId !== speaker) continue;
    const next = unitsOf(turns[j]);
    const text = next.map((u) => u.text).join(' ');
    const cue = text.match(TURN_TAKES_BACK);
    if (!cue) continue;
    const rest = text.slice(cue[0].length);
    const again = next.flatMap((u) => u.entities.filter((e): e is SpokenEmail => e.kind === 'email'))[0];
    if (again) {
      if (again.address === last.e.address || ADDRESS_ADDED.test(rest.slice(0, Math.max(0, rest.toLowerCase().indexOf(again.spoken.toLowerCase()))))) continue;
      last.u.entities = last.u.entities.filter((x) => x !== last.e);
      continue;
    }
    // only the local part again ("Sorry, no, j dot smith"): the whole first sentence after the cue
    // reads as one. The address withdrawn is dropped, not rebuilt from two turns: no one run of the
    // transcript says the settled address, and the grounding check (grounding.ts) would drop it.
    const said = rest.split(/[.?!]/)[0].trim().replace(/,/g, '');
    const words = said.split(/\s+/).filter(Boolean);
    if (!words.length || words.length > 8 || !words.every((w) => /^[a-z0-9]+$/i.test(w))) continue;
    const read = normalizeSpoken(`${said} at example dot com`, names, new Set(), spokenNames).entities.find((x): x is SpokenEmail => x.kind === 'email');
    if (!read || !read.address.endsWith('@example.com') || read.spoken.split(/\s+/).length !== words.length + 4) continue;
    if (read.address.slice(0, -'@example.com'.length) === last.e.address.split('@')[0]) continue;
    last.u.entities = last.u.entities.filter((x) => x !== last.e);
  }
}

/** A sentence that only says an address just said is written as one word. */
const ONE_WORD_REMARK = /^(?:(?:it's|that's|and)\s+)?(?:all\s+)?(?:one word|together|no spaces?)(?:,?\s+(?:all\s+)?(?:lower\s?case|one word))?[.!]?$/i;

/**
 * An address dictated and read back with the same local part but another domain ("elm street
 * rentals at camille dot com" - "elm street rentals at gmail dot com"): one of the two was misheard,
 * and it is the one whose domain is neither a webmail domain nor made of the call's names (the
 * contact's business name: "intake at cried latter allergy" - "intake at brightwater allergy" from
 * Brightwater Allergy Clinic). The misheard one takes the other's domain, so every item reads the
 * address as said where it was heard right. Nothing changes when both or neither domain is known.
 */
function preferReadBackDomain(units: Unit[], names: ReadonlySet<string>): void {
  const emails = units.flatMap((u) => u.entities.filter((e): e is SpokenEmail => e.kind === 'email').map((e) => ({ u, e })));
  if (emails.length < 2) return;
  const madeOfNames = (label: string): boolean => {
    if (!label) return true;
    for (const n of names) if (n.length >= 3 && label.startsWith(n) && madeOfNames(label.slice(n.length))) return true;
    return false;
  };
  const known = (address: string) => {
    const labels = address.split('@')[1].split('.');
    const name = labels.slice(0, -1).join('');
    return WEBMAIL.has(name) || (name.length > 0 && madeOfNames(name));
  };
  for (const a of emails) {
    if (known(a.e.address)) continue;
    const [local, domain] = a.e.address.split('@');
    const tld = domain.split('.').at(-1);
    const right = emails.find((b) => b !== a && b.u.speaker.speakerId !== a.u.speaker.speakerId && Math.abs(b.u.turn - a.u.turn) <= 3 && b.e.address.split('@')[0] === local && b.e.address.split('.').at(-1) === tld && known(b.e.address));
    if (!right) continue;
    a.u.norm = a.u.norm.split(a.e.address).join(right.e.address);
    a.u.plain = plainOf(a.u.norm);
    a.e.address = right.e.address;
  }
}

/**
 * A time said without a day ("at 11", "her train gets in at 11:15") belongs to the day talked
 * about just before it, if one was named in the last few sentences; otherwise to the call's day.
 * "That morning" and "the day before" are placed against the last day ahead of the call that was
 * talked about (dropped when there is none: they do not mean the call's day), and a day of the
 * month said alone ("by the 13th") takes the month it was said with elsewhere in the call.
 */
function placeTimesOnDays(units: Unit[], recordedAt: string): void {
  const day = callDay(recordedAt);
  const explicit = units.flatMap((u) => u.dates.filter((m) => m.date && m.date >= day && !m.dayOfMonthOnly && m.anchorOffset === undefined && !m.timeOnly));
  const namedDays = new Map<string, { date: string; idx: number }>();
  let last: { date: string; idx: number; evening?: boolean } | null = null;
  let lastClock = -1;
  let lastEvening = -1;
  let lastEvent: { date: string; idx: number } | null = null;
  for (const u of units) {
    const clockBefore = lastClock;
    u.dates = u.dates.flatMap((m) => {
      if (m.timeOnly) {
        // ("two works for me" is an option taken, unless a clock time was just offered)
        if (m.bareHour && (clockBefore < 0 || u.idx - clockBefore > 4)) return [];
        const near = last && u.idx - last.idx <= 6 ? last : null;
        // "can we talk tonight?" - "sure, at eight": the evening's eight
        const hour = m.time ? Number(m.time.slice(0, 2)) : 0;
        if (near?.evening && m.time && hour >= 8 && hour <= 11 && !/\b[ap]\.?m\b/i.test(m.text)) m = { ...m, time: `${hour + 12}${m.time.slice(2)}` };
        return [onDay(m, near ? near.date : day)];
      }
      if (m.anchorEvent) {
        // "the day before the inspection": the day the inspection was said to be on, earlier in the
        // call or before it in the same sentence; else, as "the day before", the day talked about last
        const eventDay = dayOfEvent(units, u, m, day);
        if (eventDay) return [onDay(m, shiftDay(eventDay, m.anchorOffset!))];
      }
      if (m.anchorOffset !== undefined) {
        if (!lastEvent || u.idx - lastEvent.idx > 8) return [];
        return [onDay(m, shiftDay(lastEvent.date, m.anchorOffset))];
      }
      if (m.dayOfMonthOnly && m.date) {
        const dom = m.date.slice(8);
        const said = explicit.find((x) => x.date!.slice(8) === dom && x.date !== m.date);
        if (said) m = onDay(m, said.date!);
      }
      // "Thursday the nineteenth at two" ... "Thursday at two it is", "They land Friday the 12th" ...
      // "I'm off that Friday anyway": a weekday said alone is the one named with its date just before
      const wd = BARE_WEEKDAY.exec(m.text);
      if (wd && m.date && !u.past) {
        const named = namedDays.get(wd[1].toLowerCase());
        if (named && named.date !== m.date && named.date > day && u.idx - named.idx <= 12) m = onDay(m, named.date);
      }
      // "Sunday at seven's his quiz night. Make it eight." - "Sunday at eight": an hour from 8 to 11
      // said just after an evening's time or the word evening or night, with no morning said, is the
      // evening's too
      if (m.explicitTime && m.time && m.date && lastEvening >= 0 && u.idx - lastEvening <= 3) {
        const hour = Number(m.time.slice(0, 2));
        if (hour >= 8 && hour <= 11 && !/\b(?:[ap]\.?m|morning|breakfast|noon)\b/i.test(m.text) && !/\b(?:morning|breakfast|a\.m\.?)(?=\W|$)/i.test(u.plain)) m = onDay({ ...m, time: `${hour + 12}${m.time.slice(2)}` }, m.date);
      }
      const dated = DATED_WEEKDAY.exec(m.text);
      if (dated && m.date) namedDays.set(dated[1].toLowerCase(), { date: m.date, idx: u.idx });
      if (m.date && m.date >= day) last = { date: m.date, idx: u.idx, evening: /\b(?:tonight|evening)\b/i.test(m.text) };
      if (m.date && m.date > day) lastEvent = { date: m.date, idx: u.idx };
      return [m];
    });
    if (u.dates.some((m) => m.explicitTime)) lastClock = u.idx;
    // (an evening's time: said as one, in 24-hour form or with p.m. or an evening's word; not a bare
    // "six fifty" read as the afternoon's by default, which says nothing of the "ten fifteen" after it)
    if (u.dates.some((m) => m.time && Number(m.time.slice(0, 2)) >= 17 && (/\b(?:1[7-9]|2[0-3]):\d\d\b/.test(m.text) || /\b(?:p\.?m|evening|tonight|night|dinner|supper)\b/i.test(u.plain)))) lastEvening = u.idx;
  }
}

/** The day an event named by an anchor was said to be on: the latest sentence up to `u` naming the event with a day. */
function dayOfEvent(units: Unit[], u: Unit, m: DateMention, day: string): string | null {
  const named = new RegExp(`\\b${m.anchorEvent}(?:s|es)?\\b`, 'i');
  for (let k = u.idx; k >= 0; k--) {
    const v = units.find((x) => x.idx === k);
    if (!v || !named.test(v.plain)) continue;
    const d = v.dates.find((x) => x !== m && x.date && x.date >= day && x.anchorOffset === undefined && !x.timeOnly && (v !== u || x.index < m.index));
    if (d) return d.date;
  }
  return null;
}

const WEEKDAYS_RE = '(monday|tuesday|wednesday|thursday|friday|saturday|sunday)';
// a weekday with nothing that fixes its week ("Thursday", "that Friday", "on Thursday at 2")
const BARE_WEEKDAY = new RegExp(`^(?:on\\s+|that\\s+|this\\s+)?${WEEKDAYS_RE}\\b(?!,?\\s+(?:the\\s+)?\\d|,?\\s+(?:january|february|march|april|may|june|july|august|september|october|november|december)\\b)`, 'i');
// a weekday said with its day of the month ("Friday the 12th", "Thursday, October 1st")
const DATED_WEEKDAY = new RegExp(`\\b${WEEKDAYS_RE},?\\s+(?:the\\s+\\d{1,2}(?:st|nd|rd|th)?|\\d{1,2}(?:st|nd|rd|th)|(?:january|february|march|april|may|june|july|august|september|october|november|december)\\s+\\d{1,2})`, 'i');

/** The other party of a two-party call as seen from `speaker`: the nearest different speaker. */
export function addresseeOf(ct: CallText, unit: Unit): Speaker | null {
  for (let d = 1; d < ct.units.length; d++) {
    for (const k of [unit.idx + d, unit.idx - d]) {
      const u = ct.units[k];
      if (u && u.speaker.speakerId !== unit.speaker.speakerId) return u.speaker;
    }
  }
  const other = ct.speakers.find((s) => s.speakerId !== unit.speaker.speakerId);
  return other ?? null;
}

/**
 * A name for a sentence: the display name the app shows, a stand-in ('Contact ending 1234') included,
 * so the summary names a party as the transcript does; the label or 'the other party' without one.
 */
export function nameOf(s: Speaker | null): string {
  if (!s) return 'the other party';
  return s.displayName || s.label || 'the other party';
}

/** Jaccard overlap of two stem lists. */
export function overlap(a: string[], b: string[]): number {
  if (!a.length || !b.length) return 0;
  const A = new Set(a);
  const B = new Set(b);
  let inter = 0;
  for (const x of A) if (B.has(x)) inter++;
  return inter / (A.size + B.size - inter);
}

export function capitalize(s: string): string {
  return s ? s[0].toUpperCase() + s.slice(1) : s;
}

/**
 * A verb phrase in its base form, for templates that put a modal or "to" before it ("Sam will
 * arrive ten minutes early", not "will arrived"): a recognised sentence can carry any tense or
 * person ("arrived", "sends", "sending", "is"). Returns null when the text does not start with a
 * verb at all ("the card arrives Monday"), so the caller quotes it instead of templating it.
 */
export function basePredicate(vp: string): string | null {
  // a modal said before the verb is the template's to say ("will send it" -> "send it")
  const text = vp.trim().replace(/^(?:will|shall|would|can|could|should|may|might|must)\s+(?=\w)/i, '');
  if (!text) return null;
  const doc = nlp(text);
  const first = (doc.json()[0]?.terms as Array<{ text: string; tags: string[] }> | undefined)?.[0];
  if (!first) return null;
  const tags = new Set(first.tags);
  if (['Determiner', 'Pronoun', 'Possessive', 'Preposition', 'Conjunction', 'Article', 'QuestionWord'].some((t) => tags.has(t))) return null;
  const word = first.text;
  const rest = text.slice(text.toLowerCase().indexOf(word.toLowerCase()) + word.length);
  // the first word alone, read after a subject, so that compromise tags and conjugates it as a
  // verb whatever the rest of the (possibly misrecognised) sentence does to its tagging
  const probe = nlp(`they ${word.toLowerCase()}`);
  const asVerb = (probe.json()[0]?.terms as Array<{ tags: string[] }> | undefined)?.[1]?.tags ?? [];
  if (!asVerb.includes('Verb') || asVerb.includes('Modal') || asVerb.includes('Auxiliary')) return text;
  const base = (probe.verbs().toInfinitive().text().split(/\s+/).pop() ?? '').toLowerCase();
  if (!base || base === 'they') return text;
  const cased = /^[A-Z]/.test(word) ? base[0].toUpperCase() + base.slice(1) : base;
  return `${cased}${rest}`;
}

// Reported speech: a transcript sentence rewritten in the third person so that it reads as a
// summary line ("I'll send the quote tomorrow" by Daniel -> "Daniel Okafor will send the quote
// tomorrow"). The rewrite is lexical (pronouns, the verb right after them, possessives); a
// sentence it cannot rewrite safely (a question) is reported as asked.
import nlp from 'compromise';
import { expand } from './clauses.js';
import type { Speaker, Unit } from './text.js';

const PLEASANTRY = /^(?:thanks|thank you|thank|have a (?:nice|good|great|lovely|wonderful)|see you|talk soon|speak soon|bye|goodbye|take care|my pleasure|you too|good (?:morning|afternoon|evening|night)[.!]?$|hello\??$|hi\??$)/i;

/** Second and later mentions of a person's full name become the first name. */
function shorten(s: string, names: string[]): string {
  let out = s;
  for (const name of names) {
    const parts = name.split(/\s+/);
    if (parts.length < 2 || !nlp(name).has('#FirstName')) continue;
    const first = out.indexOf(name);
    if (first < 0) continue;
    const head = out.slice(0, first + name.length);
    out = head + out.slice(first + name.length).split(name).join(parts[0]);
  }
  return out;
}

const conjCache = new Map<string, string>();

/** Third person singular of a present-tense verb ("need" -> "needs"). */
function thirdPerson(verb: string): string {
  const key = verb.toLowerCase();
  let out = conjCache.get(key);
  if (out === undefined) {
    const c = (nlp(key).verbs().conjugate()[0] as { PresentTense?: string } | undefined)?.PresentTense;
    out = c && /^[a-z-]+$/.test(c) ? c : key.endsWith('s') ? key : `${key}s`;
    conjCache.set(key, out);
  }
  return /^[A-Z]/.test(verb) ? out[0].toUpperCase() + out.slice(1) : out;
}

const MODALS = /^(will|would|can|could|should|shall|may|might|must|did|do|does|was|were|had|am|is|are|have|has|not)$/i;
const NON_VERB = /^(just|really|also|only|still|already|never|always|actually|think|guess|mean)$/i;

function isPastWord(w: string): boolean {
  if (/ed$/i.test(w)) return true;
  const doc = nlp(w);
  return doc.has('#PastTense');
}

/** Replaces a subject pronoun and agrees the verb after it with a singular name. */
function subjectSwap(text: string, pronoun: RegExp, name: string): string {
  return text.replace(pronoun, (_m, lead: string, _pronoun: string, rest: string) => {
    const ws = rest.split(/\s+/);
    const first = ws[0] ?? '';
    let verbIdx = 0;
    // skip an adverb between subject and verb ("I just wanted")
    if (NON_VERB.test(first) && ws.length > 1 && !/^(think|guess|mean)$/i.test(first)) verbIdx = 1;
    const rawV = ws[verbIdx] ?? '';
    const punct = rawV.match(/[,.;:!?]+$/)?.[0] ?? '';
    const v = rawV.slice(0, rawV.length - punct.length);
    const lower = v.toLowerCase();
    let nv = v;
    if (lower === 'am' || lower === 'are') nv = 'is';
    else if (lower === 'were') nv = 'was';
    else if (lower === 'have') nv = 'has';
    else if (lower === 'do') nv = 'does';
    else if (MODALS.test(lower)) nv = v;
    else if (/^[a-z]+$/i.test(v) && !isPastWord(v)) nv = thirdPerson(v);
    ws[verbIdx] = nv + punct;
    return `${lead}${name} ${ws.join(' ')}`;
  });
}

function stripOpeners(s: string, speakers: Speaker[]): string {
  let t = s.trim();
  const names = speakers.flatMap((sp) => [sp.displayName, sp.displayName.split(/\s+/)[0]]).filter((n) => n && n.length > 1);
  const esc = (x: string) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const nameAlt = names.length ? names.map(esc).join('|') : '(?!)';
  for (let i = 0; i < 3; i++) {
    const before = t;
    t = t
      .replace(/^(?:hi|hello|hey|oh|well|so|okay|ok|yes|yeah|sure|great|perfect|look|listen|honestly|right|fine|understood|no problem|got it|of course|and|but|just|also|thanks|thank you)\b[,.!]?\s+/i, '')
      .replace(new RegExp(`^(?:${nameAlt})\\s*,\\s*`, 'i'), '')
      .replace(new RegExp(`,\\s*(?:(?:mr|mrs|ms|miss|dr)\\.?\\s+)?(?:${nameAlt})\\s*([.?!]?)$`, 'i'), '$1');
    if (t === before) break;
  }
  return t;
}

/**
 * The sentence of `unit` in the third person. `other` is the party addressed. Returns null for a
 * sentence with nothing to report (a greeting, an acknowledgement).
 */
export function report(unit: Unit, other: Speaker | null, speakers: Speaker[]): string | null {
  const speakerName = unit.speaker.displayName || unit.speaker.label;
  const otherName = other ? other.displayName || other.label : 'the other party';
  if (PLEASANTRY.test(unit.text.trim())) return null;
  let s = stripOpeners(expand(unit.norm), speakers);
  if (!s || s.split(/\s+/).length < 3 || PLEASANTRY.test(s)) return null;
  s = s.replace(/[.!]+$/, '');

  const question = /\?$/.test(s);
  if (question) {
    const q = s.replace(/\?$/, '');
    const m = q.match(/^(?:can|could|would|will)\s+you\s+(?:please\s+)?(.+)$/i);
    if (m) return finish(shorten(`${speakerName} asks ${otherName} to ${swapPronouns(m[1], speakerName, otherName, 'request')}`, [speakerName, otherName]));
    // other questions are quoted as asked: rewriting an inverted question goes wrong too easily
    return `${speakerName} asks: "${unit.norm.trim()}"`;
  }
  const letMe = s.match(/^let me\s+(.+)$/i);
  if (letMe) return finish(shorten(`${speakerName} will ${swapPronouns(letMe[1], speakerName, otherName, 'statement')}`, [speakerName, otherName]));
  const please = s.match(/^(?:please|just|kindly)\s+(.+)$/i);
  if (please || /^(call|email|send|check|pick|bring|text|arrive|come|make|remember|let|return|pay|sign|fill)\b/i.test(s)) {
    const body = please ? please[1] : s;
    return finish(shorten(`${speakerName} asks ${otherName} to ${lowerFirst(swapPronouns(body, speakerName, otherName, 'request'))}`, [speakerName, otherName]));
  }
  const swapped = swapPronouns(s, speakerName, otherName, 'statement');
  if (swapped.startsWith(speakerName)) return finish(shorten(swapped, [speakerName, otherName]));
  return finish(shorten(`${speakerName} says ${lowerFirst(swapped)}`, [speakerName, otherName]));
}

const KEEP_CASE = /^(I|I'm|OK)$/;

/** Lower-cases the first word unless it is a name or a date ("Leo", "Tuesday"). */
function lowerFirst(s: string): string {
  const first = s.split(/\s+/)[0] ?? '';
  if (!first || KEEP_CASE.test(first) || /^[A-Z0-9]{2,}\b/.test(first) || /\d/.test(first)) return s;
  const tags = (nlp(s).json()[0]?.terms?.[0]?.tags ?? []) as string[];
  const common = tags.some((t) => /^(Verb|Adverb|Adjective|Determiner|Pronoun|Conjunction|Preposition|QuestionWord|Expression|Negative|Copula)$/.test(t));
  if (!common && !/^(The|A|An|It|Its|This|That|These|Those|There|Here|No|Not|If|Once|When|So|Everything|Nothing|Something|Anything|Everyone|Someone)$/.test(first)) return s;
  return s[0].toLowerCase() + s.slice(1);
}

function finish(s: string, period = true): string {
  const t = s.replace(/\s+/g, ' ').replace(/\s+([,.?!])/g, '$1').trim();
  return period && !/[.?!]$/.test(t) ? `${t}.` : t;
}

function swapPronouns(s: string, speakerName: string, otherName: string, mode: 'statement' | 'request'): string {
  let t = ` ${s} `;
  const speakerPoss = `${speakerName}'s`;
  const otherPoss = `${otherName}'s`;
  // first person singular
  t = subjectSwap(t, /(^|\s)(I)\s+(\S+(?:\s+\S+)?)(?=\s|$)/g, speakerName);
  t = t.replace(/\s(I)\s/g, ` ${speakerName} `);
  t = t.replace(/\bmyself\b/gi, 'themselves').replace(/\bmy\b/gi, speakerPoss).replace(/\bmine\b/gi, speakerPoss).replace(/\bme\b/gi, speakerName);
  // first person plural: the speaker's side
  t = t.replace(/\bWe\b/g, 'They').replace(/\bwe\b/g, 'they').replace(/\bus\b/g, 'them').replace(/\bour\b/gi, 'their').replace(/\bours\b/gi, 'theirs').replace(/\bourselves\b/gi, 'themselves');
  // second person
  if (mode === 'request') {
    t = t
      .replace(/\byour\b/gi, 'their')
      .replace(/\byourself\b/gi, 'themselves')
      .replace(/((?:^|[,;]|\b(?:and|but|so|that|if|when|once|because|as|since|until|before|after)\b)\s+)you\b/gi, '$1they')
      .replace(/\byou\b/gi, 'them');
  } else {
    t = t.replace(/\byourself\b/gi, 'themselves');
    // "you" is a subject only at the start of a clause; elsewhere ("call you back") it is an object
    t = subjectSwap(t, /((?:^|[,;]|\b(?:and|but|so|that|if|when|once|because|as|since|until|before|after|where|what|how)\b)\s+)([Yy]ou)\s+(\S+(?:\s+\S+)?)(?=\s)/g, otherName);
    t = t.replace(/\byour\b/gi, otherPoss).replace(/\byou\b/gi, otherName);
  }
  // agreement where a pronoun was replaced outside subject position ("the number you are calling from")
  for (const name of [speakerName, otherName]) {
    const esc = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    t = t.replace(new RegExp(`(${esc}) are\\b`, 'g'), '$1 is').replace(new RegExp(`(${esc}) were\\b`, 'g'), '$1 was').replace(new RegExp(`(${esc}) have\\b`, 'g'), '$1 has');
  }
  // "it's been" expands to "it is been"; the 's was "has"
  t = t.replace(/\b(it|that|there|he|she|what) is been\b/gi, '$1 has been');
  return t.replace(/\s+/g, ' ').trim();
}

// Sentiment, emotional signals and tone.
//
// Word polarity comes from the AFINN-165 lexicon (the `sentiment` package). Phone calls need
// adjustments the lexicon does not know: courtesy formulas ("thank you", "have a nice day", "how
// can I help") carry little feeling; "no problem" and "no need to worry" are cooperative or
// reassuring, not negative; complaints have their own phrases ("not acceptable", "the third
// time"); names and domain nouns ("fraud team", "support") are not opinions. Those phrases are
// scored here first and removed before the lexicon sees the sentence. Tone comes from lexical
// formality cues, the speaking rate (words per second from segment times) and turn lengths.
import Sentiment from 'sentiment';
import type { CallText, Speaker, Unit } from './text.js';
import { plainOf } from './text.js';
import { phaseOf } from './summary.js';

type Overall = 'positive' | 'neutral' | 'negative' | 'mixed' | 'unclear';

const analyzer = new Sentiment();

/** Lexicon changes for conversation: courtesy words count little, billing words are neutral. */
const EXTRAS: Record<string, number> = {
  thank: 1, thanks: 1, please: 0, appreciate: 1, help: 0, yes: 0, no: 0, like: 1, best: 1, support: 0, share: 0, pay: 0,
  invite: 0, blocked: 0, forget: 0, charge: 0, charges: 0, credit: 0, fine: 1, okay: 0, sure: 0, pleasure: 1, grace: 0,
  fraud: -2, nervous: -2, anxious: -2, worrying: -3, overdue: -2, freezing: -2, broken: -2, outage: -2, unacceptable: -3,
  relief: 2, relieved: 2, improved: 2, proud: 2, fair: 2, interested: 1, frustrating: -3, frustrated: -3, ridiculous: -3,
  expensive: -1, finally: -1, worn: -1, failed: -2, down: 0, cancel: -1, late: -1, delay: -1, delayed: -2,
};

/** Phrases scored as a whole (then removed), matched on contraction-expanded lower-case text. */
const PHRASES: Array<[RegExp, number, string | null]> = [
  [/\b(?:good (?:morning|afternoon|evening|night)|have a (?:nice|good|great|lovely|wonderful) (?:day|evening|night|weekend|one)|how (?:can|may) i help(?: you)?|you too|bye now|talk soon|see you(?: \w+day| then| soon| later)?)\b/g, 0, null],
  [/\b(?:my pleasure|thank you so much|thanks so much|thank you|thanks)\b/g, 0.5, 'grateful'],
  [/\b(?:no problem|not a problem|no worries|of course|sure thing|sounds good|works for me|that works|is good|happy to)\b/g, 1, 'cooperative'],
  [/\b(?:no need to worry|nothing to worry about|do not worry|not to worry|everything looks good|all good|nothing serious)\b/g, 2, 'reassuring'],
  [/\b(?:not acceptable|unacceptable|not okay|not good enough|ridiculous)\b/g, -3, 'frustrated'],
  [/\b(?:the (?:second|third|fourth|fifth) time|again and again|still not|still broken|keeps? (?:breaking|happening))\b/g, -2, 'frustrated'],
  [/\b(?:more than i expected|that is a lot|that is expensive|pricey)\b/g, -1, 'surprised'],
  [/\b(?:if (?:it|this|that) (?:is not|does not|is never) (?:fixed|resolved|sorted|done)|(?:calling|call|contact|report (?:it|this|you) to) the (?:housing office|police|ombudsman|authorities|council)|my lawyer|legal action|file a complaint|escalate)\b/g, -2, 'frustrated'],
  [/\b(?:that is a relief|what a relief)\b/g, 2, 'relieved'],
  [/\b(?:looking forward|look forward|can not wait|excited)\b/g, 2, 'enthusiastic'],
  [/\b(?:fraud (?:team|department|unit|alert)|support team)\b/g, 0, null],
  [/\bwould (?:like|love) (?:to|you to)\b/g, 0, null],
  [/\bi am sorry|sorry about that|apologi[sz]e\b/g, -1, 'apologetic'],
];

/** Signal words: the emotion adjective they evidence (for emotionalSignals). */
const SIGNALS: Array<[RegExp, string]> = [
  [/\b(worr(?:y|ied|ying)|nervous|anxious|scared|afraid|concerned)\b/, 'worried'],
  [/\b(relief|relieved)\b/, 'relieved'],
  [/\b(frustrat\w*|annoy\w*|fed up|unacceptable|not acceptable|third time|finally)\b/, 'frustrated'],
  [/\b(angry|furious|outraged|livid)\b/, 'angry'],
  [/\b(sorry|apologi[sz]e)\b/, 'apologetic'],
  [/\b(appreciate|grateful)\b/, 'grateful'],
  [/\b(happy|glad|pleased|wonderful|great news|good news|delighted)\b/, 'pleased'],
  [/\b(proud)\b/, 'proud'],
  [/\b(looking forward|excited|can not wait|interested)\b/, 'enthusiastic'],
  [/\b(no need to worry|do not worry|everything looks good|nothing to worry)\b/, 'reassuring'],
  [/\b(more than i expected|surprised|wow)\b/, 'surprised'],
  [/\b(confus\w*|not sure what)\b/, 'confused'],
  [/\b(urgent|asap|immediately|right away)\b/, 'urgent'],
];

export interface UnitAffect {
  unit: Unit;
  score: number;
  positives: string[];
  negatives: string[];
}

function namesOf(ct: CallText): RegExp | null {
  const names = ct.speakers.flatMap((s) => [s.displayName, s.label, ...s.displayName.split(/\s+/)]).filter((x) => x && x.length > 2);
  if (!names.length) return null;
  return new RegExp(`\\b(${names.map((x) => x.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})\\b`, 'g');
}

export function scoreUnits(ct: CallText): UnitAffect[] {
  const names = namesOf(ct);
  return ct.units.map((unit) => {
    // names are not opinions ("Miss Alvarez", "Grace")
    let text = plainOf(unit.text).replace(/\b(mr|mrs|ms|miss|dr|prof)\.?\s+[a-z]+/g, ' ');
    if (names) text = text.replace(names, ' ');
    let score = 0;
    const positives: string[] = [];
    const negatives: string[] = [];
    for (const [re, value] of PHRASES) {
      text = text.replace(re, (m) => {
        score += value;
        if (value > 0.5) positives.push(m);
        if (value < 0) negatives.push(m);
        return ' ';
      });
    }
    const r = analyzer.analyze(text, { extras: EXTRAS });
    score += r.score;
    for (const c of r.calculation as Array<Record<string, number>>) {
      const [word, v] = Object.entries(c)[0];
      if (v > 0 && EXTRAS[word] !== 0) positives.push(word);
      if (v < 0) negatives.push(word);
    }
    // questions and hypotheticals say less about how the speaker feels
    if (unit.isQuestion) score *= 0.5;
    if (/!/.test(unit.text)) score *= 1.2;
    // words the recogniser was unsure of are often wrong words ("death" for "both")
    score *= unit.confidence === 'LOW' ? 0.4 : unit.confidence === 'MEDIUM' ? 0.8 : 1;
    return { unit, score, positives, negatives };
  });
}

interface Tally {
  pos: number;
  neg: number;
  n: number;
}

function tally(xs: UnitAffect[]): Tally {
  return xs.reduce((t, x) => ({ pos: t.pos + Math.max(0, x.score), neg: t.neg + Math.max(0, -x.score), n: t.n + 1 }), { pos: 0, neg: 0, n: 0 });
}

function scoreOf(t: Tally): number {
  const s = (t.pos - t.neg) / (t.pos + t.neg + 4);
  return Math.round(Math.max(-1, Math.min(1, s)) * 100) / 100;
}

function overallOf(t: Tally, phases?: Tally[]): Overall {
  if (t.n === 0) return 'unclear';
  const s = scoreOf(t);
  const strongNeg = t.neg >= 3;
  const strongPos = t.pos >= 3;
  // Both feelings clearly present, or the mood turned from one to the other across the call.
  const balanced = strongNeg && strongPos && Math.min(t.pos, t.neg) / Math.max(t.pos, t.neg) >= 0.4;
  const turned = phases ? phases.some((p) => scoreOf(p) <= -0.3 && p.neg >= 3) && phases.some((p) => scoreOf(p) >= 0.3 && p.pos >= 2) : false;
  if ((balanced || turned) && Math.abs(s) < 0.5) return 'mixed';
  if (s >= 0.3) return 'positive';
  if (s <= -0.2) return 'negative';
  return 'neutral';
}

function uniq<T>(xs: T[]): T[] {
  return [...new Set(xs)];
}

function describe(xs: UnitAffect[]): string {
  const pos = uniq(xs.flatMap((x) => x.positives)).slice(0, 3);
  const neg = uniq(xs.flatMap((x) => x.negatives)).slice(0, 3);
  const parts: string[] = [];
  if (neg.length) parts.push(`negative cues: ${neg.map((w) => `"${w}"`).join(', ')}`);
  if (pos.length) parts.push(`positive cues: ${pos.map((w) => `"${w}"`).join(', ')}`);
  return parts.length ? parts.join('; ') : 'no strong sentiment words';
}

export function buildSentiment(ct: CallText, affects: UnitAffect[], planUnits: Set<number>) {
  const all = tally(affects);
  const phaseNames = ['opening', 'middle', 'closing'] as const;
  const byPhase = new Map<string, UnitAffect[]>();
  for (const a of affects) {
    const p = phaseOf(a.unit, ct.duration, false);
    (byPhase.get(p) ?? byPhase.set(p, []).get(p)!).push(a);
  }
  const phaseTallies = phaseNames.map((p) => tally(byPhase.get(p) ?? []));
  const overall = overallOf(all, phaseTallies);
  const score = overall === 'unclear' ? null : scoreOf(all);

  const forRole = (role: Speaker['role']) => {
    const xs = affects.filter((a) => a.unit.speaker.role === role);
    const t = tally(xs);
    const o = overallOf(t);
    return { overall: o, score: o === 'unclear' ? null : scoreOf(t), notes: xs.length ? describe(xs) : 'did not speak' };
  };

  // 2 to 4 moments: opening, middle, closing (and what was planned for afterwards)
  const progression: Array<{ phase: 'opening' | 'middle' | 'closing' | 'followup'; overall: Overall; note: string; sourceSegmentIds: string[] }> = [];
  for (const p of phaseNames) {
    const xs = byPhase.get(p) ?? [];
    if (!xs.length) continue;
    const t = tally(xs);
    const strongest = [...xs].sort((a, b) => Math.abs(b.score) - Math.abs(a.score) || a.unit.idx - b.unit.idx).filter((x) => x.score !== 0).slice(0, 2);
    progression.push({
      phase: p,
      overall: overallOf(t),
      note: strongest.length ? `${capitalizeFirst(describe(strongest))}.` : 'Matter-of-fact exchange.',
      sourceSegmentIds: uniq(strongest.map((x) => x.unit.segmentId)),
    });
  }
  const planned = affects.filter((a) => planUnits.has(a.unit.idx));
  if (progression.length < 4 && planned.length && progression.length >= 2) {
    const t = tally(planned);
    progression.push({ phase: 'followup', overall: overallOf(t), note: 'Tone around the agreed follow-ups.', sourceSegmentIds: uniq(planned.map((x) => x.unit.segmentId)).slice(0, 3) });
  }
  if (progression.length === 1) {
    const only = progression[0];
    progression.push({ ...only, phase: only.phase === 'closing' ? 'opening' : 'closing' });
  }

  const signals: string[] = [];
  for (const a of affects) {
    const text = plainOf(a.unit.text);
    for (const [re, label] of SIGNALS) if (re.test(text) && !signals.includes(label)) signals.push(label);
  }
  const trend = progression.length >= 2 ? `${progression[0].overall} at the start, ${progression[progression.length - 1].overall} at the end` : '';
  const reason = `${capitalizeFirst(describe(affects))}${trend ? `; ${trend}` : ''}.`;
  return {
    overall,
    score,
    reason,
    userSentiment: forRole('USER'),
    contactSentiment: forRole('CONTACT'),
    progression: progression.length >= 2 ? progression.slice(0, 4) : undefined,
    emotionalSignals: signals.slice(0, 6),
  };
}

function capitalizeFirst(s: string): string {
  return s ? s[0].toUpperCase() + s.slice(1) : s;
}

// ---------------------------------------------------------------------------------- tone

const FORMAL = /\b(please|sir|madam|ma'am|mr|mrs|ms|miss|dr|kindly|certainly|regarding|sincerely|appreciate|how (?:can|may) i (?:help|assist)|would you|could you|may i|i would like|thank you|good (?:morning|afternoon|evening)|understood|of course)\b/g;
const INFORMAL = /\b(yeah|yep|nope|gonna|wanna|kinda|gotta|hey|cool|awesome|guys|no worries|sure thing|got a minute|grandma|grandpa|mom|dad|bro|buddy|cheers|okay|ok|bye now|see you|talk soon|honestly|look,)\b/g;
const CONTRACTION = /\b\w+'(?:ll|re|ve|d|m|s|t)\b/g;

export interface PartyToneOut {
  overall: string;
  descriptors: string[];
  notes: string;
}

function toneFeatures(units: Unit[], affects: UnitAffect[]) {
  const text = units.map((u) => u.text.toLowerCase().replace(/[’]/g, "'")).join(' ');
  const words = units.reduce((a, u) => a + u.words, 0);
  const formal = (text.match(FORMAL) ?? []).length;
  const informal = (text.match(INFORMAL) ?? []).length + 0.3 * (text.match(CONTRACTION) ?? []).length;
  // speaking rate over the segments these units belong to
  const segs = new Map<string, { words: number; dur: number }>();
  for (const u of units) {
    const s = segs.get(u.segmentId) ?? { words: 0, dur: 0 };
    s.words += u.words;
    s.dur = Math.max(s.dur, 0) + Math.max(0, u.end - u.start);
    segs.set(u.segmentId, s);
  }
  const dur = [...segs.values()].reduce((a, s) => a + s.dur, 0);
  const rate = dur > 0 ? words / dur : 0;
  const turns = segs.size || 1;
  const wordsPerTurn = words / turns;
  const exclaims = units.filter((u) => /!/.test(u.text)).length;
  const intensity = affects.length ? affects.reduce((a, x) => a + Math.abs(x.score), 0) / affects.length : 0;
  const negUnits = affects.filter((x) => x.score <= -1).length;
  const polite = (text.match(/\b(please|thank|thanks|appreciate|sorry)\b/g) ?? []).length;
  const apolog = (text.match(/\b(sorry|apologi[sz]e)\b/g) ?? []).length;
  const coop = (text.match(/\b(no problem|sure|sounds good|works for me|will do|of course|got it|happy to|perfect)\b/g) ?? []).length;
  const reassure = (text.match(/\b(no need to worry|do not worry|don't worry|everything looks good|all good|nothing to worry)\b/g) ?? []).length;
  const urgent = (text.match(/\b(urgent|asap|immediately|right away|as soon as possible|today|tonight|within the hour)\b/g) ?? []).length;
  return { negUnits, words, formal, informal, rate, wordsPerTurn, exclaims, intensity, polite, apolog, coop, reassure, urgent, units: units.length };
}

type Features = ReturnType<typeof toneFeatures>;

function formalityOf(f: Features): 'formal' | 'semi-formal' | 'informal' {
  const per = (f.formal - f.informal) / Math.max(1, f.units);
  if (per >= 0.35) return 'formal';
  if (per <= -0.2) return 'informal';
  return 'semi-formal';
}

function energyOf(f: Features): 'low' | 'medium' | 'high' {
  const ex = f.exclaims / Math.max(1, f.units);
  if (f.rate > 3.4 || ex > 0.2 || f.intensity > 2.5) return 'high';
  if (f.rate > 0 && f.rate < 1.8 && f.intensity < 0.8) return 'low';
  return 'medium';
}

function paceOf(f: Features): 'slow' | 'normal' | 'fast' {
  if (f.rate === 0) return 'normal';
  if (f.rate < 1.9) return 'slow';
  if (f.rate > 3.3) return 'fast';
  return 'normal';
}

function descriptorsOf(f: Features, sentiment: Overall, formality: string): string[] {
  const out: Array<[string, number]> = [];
  if ((sentiment === 'negative' || sentiment === 'mixed') && (f.intensity > 1 || f.negUnits >= 2)) out.push(['frustrated', 1.5 + f.negUnits / 2]);
  if (f.urgent >= 2) out.push(['urgent', f.urgent]);
  if (f.reassure) out.push(['reassuring', 2 + f.reassure]);
  if (f.apolog) out.push(['apologetic', 1.5 + f.apolog]);
  if (f.coop) out.push(['cooperative', 1 + f.coop]);
  if (f.polite >= 2) out.push(['polite', f.polite / 2]);
  if (sentiment === 'positive' && formality !== 'formal') out.push(['warm', 1.5]);
  if (formality === 'formal' || (formality === 'semi-formal' && sentiment !== 'positive')) out.push(['businesslike', 1.2]);
  if (f.wordsPerTurn < 8) out.push(['concise', 1]);
  if (f.wordsPerTurn > 25) out.push(['detailed', 1]);
  const seen = new Set<string>();
  return out
    .sort((a, b) => b[1] - a[1])
    .map(([d]) => d)
    .filter((d) => !seen.has(d) && !!seen.add(d))
    .slice(0, 4);
}

function overallTone(sentiment: Overall, formality: string, f: Features): string {
  if (sentiment === 'negative') return f.intensity > 1.5 ? 'tense' : 'strained';
  if (f.urgent >= 3) return 'urgent';
  if (sentiment === 'mixed') return 'concerned';
  if (sentiment === 'positive') return formality === 'informal' ? 'friendly' : 'warm and professional';
  return formality === 'informal' ? 'casual' : 'professional';
}

export function buildTone(ct: CallText, affects: UnitAffect[], sentimentOverall: Overall, byRole: { USER: Overall; CONTACT: Overall }) {
  const f = toneFeatures(ct.units, affects);
  const formality = formalityOf(f);
  const energy = energyOf(f);
  const pace = paceOf(f);
  let descriptors = descriptorsOf(f, sentimentOverall, formality);
  const overall = overallTone(sentimentOverall, formality, f);
  if (!descriptors.length) descriptors = [overall.split(' ')[0]];
  const party = (role: 'USER' | 'CONTACT'): PartyToneOut | undefined => {
    const units = ct.units.filter((u) => u.speaker.role === role);
    if (!units.length) return undefined;
    const pf = toneFeatures(units, affects.filter((a) => a.unit.speaker.role === role));
    const pform = formalityOf(pf);
    const d = descriptorsOf(pf, byRole[role], pform);
    const o = overallTone(byRole[role], pform, pf);
    return { overall: o, descriptors: d.length ? d : [o.split(' ')[0]], notes: `${pform}; about ${pf.rate.toFixed(1)} words per second, ${Math.round(pf.wordsPerTurn)} words per turn` };
  };
  const userTone = party('USER');
  const contactTone = party('CONTACT');
  return {
    overall,
    descriptors,
    formality,
    energy,
    pace,
    notes: `Speaking rate about ${f.rate.toFixed(1)} words per second; ${Math.round(f.wordsPerTurn)} words per turn on average.`,
    byParty: { ...(userTone ? { userTone } : {}), ...(contactTone ? { contactTone } : {}) },
  };
}

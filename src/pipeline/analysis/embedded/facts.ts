// Call type, tags, quality warnings and the fact lists (dates, numbers, people, open questions,
// risks, opportunities). Each list holds only what the transcript states.
import nlp from 'compromise';
import type { Transcript } from '../../../domain/transcript.js';
import { phoneDigits, toE164, type SpokenNumber, type SpokenPhone, type SpokenIdentifier } from './spoken.js';
import type { Keyphrase } from './summary.js';
import { plainOf, type CallText, type Unit } from './text.js';
import { anyOf, KIN } from './words.js';

type CallType = 'personal' | 'business' | 'sales' | 'support' | 'interview' | 'finance' | 'healthcare' | 'legal' | 'education' | 'unknown' | 'other';

// Topic evidence per call type. Multi-word cues count more than single words; the contact name
// and upload title are weaker evidence than what was said.
const TOPICS: Record<Exclude<CallType, 'unknown'>, string[]> = {
  finance: ['bank', 'banking', 'debit', 'credit card', 'debit card', 'card', 'transaction', 'transactions', 'fraud', 'loan', 'mortgage', 'balance', 'deposit', 'overdraft', 'wire transfer', 'atm', 'pin', 'investment', 'tax', 'taxes', 'interest rate', 'statement', 'charge', 'unauthorized', 'account number', 'savings', 'insurance claim', 'premium'],
  business: ['invoice', 'quote', 'estimate', 'contract', 'client', 'project', 'order', 'supplier', 'vendor', 'labor', 'labour', 'parts', 'materials', 'redesign', 'website', 'freelance', 'overdue', 'roof', 'repair', 'shop', 'garage', 'mechanic', 'brake', 'brakes', 'rotors', 'tires', 'oil change', 'contractor', 'installation', 'payment', 'deadline', 'deliverable', 'business', 'budget', 'meeting', 'office', 'report', 'clients', 'proposal', 'presentation'],
  sales: ['demo', 'pricing', 'price list', 'pricing sheet', 'trial', 'subscription', 'purchase', 'discount', 'proposal', 'prospect', 'product', 'software', 'license', 'licence', 'upgrade', 'tool', 'package', 'plan', 'features', 'onboard', 'sign up', 'signup'],
  support: ['support', 'router', 'internet', 'outage', 'troubleshoot', 'diagnostics', 'ticket', 'replacement', 'technician', 'reset', 'not working', 'error', 'wifi', 'wi-fi', 'modem', 'connection', 'callback', 'broken', 'stopped working', 'courier', 'warranty', 'prepaid label', 'service'],
  interview: ['interview', 'interviewed', 'role', 'position', 'candidate', 'recruiter', 'panel', 'hiring', 'resume', 'cv', 'application', 'offer letter', 'salary', 'onboarding', 'applied', 'analyst', 'job'],
  healthcare: ['doctor', 'dr', 'dentist', 'dental', 'clinic', 'nurse', 'test results', 'blood test', 'blood', 'cholesterol', 'prescription', 'checkup', 'check-up', 'cleaning', 'patient', 'symptoms', 'pharmacy', 'hospital', 'medication', 'surgery', 'appointment', 'insurance form', 'blood sugar', 'physio', 'therapy'],
  legal: ['lawyer', 'attorney', 'court', 'lawsuit', 'legal', 'lease', 'settlement', 'notary', 'custody', 'housing office', 'tribunal', 'solicitor', 'evict', 'eviction'],
  education: ['school', 'teacher', 'class', 'classroom', 'reading', 'homework', 'grade', 'grades', 'term', 'student', 'principal', 'elementary', 'tutor', 'exam', 'semester', 'course', 'lesson', 'story'],
  personal: ['grandma', 'grandpa', 'mom', 'dad', 'brother', 'sister', 'wife', 'husband', 'birthday', 'dinner', 'cake', 'family', 'kids', 'weekend', 'visit', 'party', 'friend', 'wedding', 'holiday', 'train', 'station'],
  other: ['apartment', 'heating', 'heat', 'boiler', 'landlord', 'rent', 'plumbing', 'leak', 'tenant', 'space heater', 'building', 'flat'],
};

export function classifyCall(ct: CallText): { callType: CallType; evidence: Record<string, number> } {
  const said = ` ${ct.units.map((u) => plainOf(u.norm)).join(' ')} `.replace(/[.,!?;:]/g, ' ');
  const meta = ` ${[ct.context.contactName, ct.context.title].filter(Boolean).join(' ').toLowerCase()} `;
  const evidence: Record<string, number> = {};
  for (const [type, cues] of Object.entries(TOPICS)) {
    let score = 0;
    for (const cue of cues) {
      const re = new RegExp(`\\b${cue.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}s?\\b`, 'g');
      const weight = cue.includes(' ') ? 1.5 : 1;
      score += Math.min(3, (said.match(re) ?? []).length) * weight;
      if (re.test(meta)) score += 0.5 * weight;
    }
    evidence[type] = score;
  }
  const ranked = Object.entries(evidence).sort((a, b) => b[1] - a[1]);
  const [best, bestScore] = ranked[0];
  const words = ct.units.reduce((a, u) => a + u.words, 0);
  if (bestScore < 1.5) return { callType: words < 30 ? 'unknown' : 'other', evidence };
  return { callType: best as CallType, evidence };
}

export function buildTags(callType: CallType, phrases: Keyphrase[], providers: string[]): string[] {
  const tags: string[] = [];
  if (callType !== 'unknown' && callType !== 'other') tags.push(callType);
  for (const p of phrases) {
    const t = p.phrase.toLowerCase().replace(/[^a-z0-9 '-]/g, '').trim();
    if (!t || t.split(/\s+/).length > 3 || tags.includes(t)) continue;
    tags.push(t);
    if (tags.length >= 5) break;
  }
  for (const p of providers) if (!tags.some((t) => t.split(/\s+/).includes(p)) && tags.length < 7) tags.push(p);
  return tags;
}

export function qualityWarnings(transcript: Transcript, ct: CallText): string[] {
  const out: string[] = [];
  const segs = transcript.segments;
  if (!segs.length) return ['no_speech_detected'];
  const low = segs.filter((s) => /^(LOW|VERY_LOW)$/i.test(s.alignmentConfidence)).length;
  // too little to summarise: many segments the recogniser was unsure of, or none it was sure of
  if (low / segs.length >= 0.3 || !segs.some((s) => s.alignmentConfidence === 'HIGH')) out.push('low_transcription_confidence');
  const words = ct.units.reduce((a, u) => a + u.words, 0);
  if (ct.duration < 15 || words < 25) out.push('very_short_call');
  if (new Set(segs.map((s) => s.speakerId)).size < 2) out.push('single_speaker');
  const warnings = transcript.speakerResolution?.warnings ?? [];
  if (warnings.includes('speaker_roles_unresolved') || warnings.includes('speaker_identity_ambiguous')) out.push('speaker_roles_uncertain');
  return out;
}

export function importantDates(ct: CallText) {
  return ct.units.flatMap((unit) => unit.dates.map((mention) => ({ unit, mention }))).map(({ unit, mention }) => ({
    text: mention.text,
    resolved: mention.datetime && mention.explicitTime ? mention.datetime : mention.date ?? mention.month,
    date: mention.date,
    time: mention.explicitTime ? mention.time : null,
    context: unit.text,
    speakerLabel: unit.speaker.label,
    sourceSegmentIds: [unit.segmentId],
  }));
}

export function numbersAndAmounts(ct: CallText) {
  const out: Array<Record<string, unknown>> = [];
  for (const u of ct.units) {
    for (const e of u.entities) {
      if (e.kind === 'number') {
        const n = e as SpokenNumber;
        if (!n.unit) continue;
        const kind = n.currency ? 'amount' : /^(minutes?|hours?|days?|weeks?|months?|years?|nights?|business|working|seconds?)$/.test(n.unit) ? 'duration' : 'quantity';
        out.push({ text: n.spoken, value: n.value, unit: n.currency ? null : n.unit, currency: n.currency, kind, sourceSegmentIds: [u.segmentId] });
      } else if (e.kind === 'identifier') {
        const id = e as SpokenIdentifier;
        out.push({ text: id.spoken, value: id.digits, unit: null, currency: null, kind: 'identifier', label: id.label, sourceSegmentIds: [u.segmentId] });
      } else if (e.kind === 'phone') {
        const p = e as SpokenPhone;
        const e164 = toE164(p, ct.context.phoneNumber);
        out.push({ text: p.spoken, value: e164 ?? p.digits, unit: null, currency: null, kind: 'phone', sourceSegmentIds: [u.segmentId] });
      }
    }
  }
  // the same phone number read back is one fact
  const seen = new Set<string>();
  return out.filter((x) => {
    if (x.kind !== 'phone') return true;
    const k = phoneDigits(String(x.value));
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

// The close kin but "mum", "boyfriend" and "girlfriend", which this list never had (adding them would
// change which people a call names, unmeasured), and the people one deals with in one's errands.
const RELATION_KIN = KIN.filter((w) => !['mum', 'boyfriend', 'girlfriend'].includes(w));
const RELATIONS = new RegExp(`\\b(?:my|our|your|his|her|the)\\s+(${anyOf(RELATION_KIN, ['boss', 'manager', 'director', 'doctor', 'teacher', 'landlord', 'technician', 'accountant', 'lawyer', 'colleague', 'grandma', 'grandpa', 'grandmother', 'grandfather', 'kids', 'children'])})\\b|\\b(Grandma|Grandpa)\\b`, 'g');

export function peopleMentioned(ct: CallText) {
  const speakerNames = ct.speakers.flatMap((s) => [s.displayName, ...s.displayName.split(/\s+/), s.label]).map((x) => x.toLowerCase());
  const byName = new Map<string, { name: string; relation: string | null; sourceSegmentIds: string[] }>();
  const add = (name: string, relation: string | null, seg: string) => {
    const key = name.toLowerCase();
    if (speakerNames.includes(key)) return;
    const cur = byName.get(key) ?? { name, relation, sourceSegmentIds: [] };
    if (!cur.sourceSegmentIds.includes(seg)) cur.sourceSegmentIds.push(seg);
    byName.set(key, cur);
  };
  for (const u of ct.units) {
    for (const m of u.text.matchAll(/\b((?:Dr|Mr|Mrs|Ms|Miss|Prof)\.?\s+[A-Z][a-z]+)/g)) {
      const surname = m[1].split(/\s+/).pop()!.toLowerCase();
      if (speakerNames.includes(surname)) continue;
      add(m[1], null, u.segmentId);
    }
    const people = nlp(u.text).people().out('array') as string[];
    for (const p of people) {
      const name = p.replace(/[.,!?;:']+$/g, '').replace(/'s$/, '').trim();
      if (name.length < 2 || /^(Dr|Mr|Mrs|Ms|Miss)\.?$/.test(name)) continue;
      const last = name.split(/\s+/).pop()!.toLowerCase();
      if (speakerNames.includes(last)) continue;
      if ([...byName.keys()].some((k) => k.endsWith(name.toLowerCase()) || k.endsWith(last))) continue;
      add(name, null, u.segmentId);
    }
    // possessive names of third parties ("Leo's dad", "Grandma's visit")
    for (const m of u.text.matchAll(/\b([A-Z][a-z]+)'s\b/g)) {
      if (u.text.indexOf(m[0]) === 0 && !/^[A-Z][a-z]+'s\s+(dad|mom|mother|father|teacher|visit|office|birthday|class)/.test(u.text)) continue;
      if (/^(It|That|What|There|Here|He|She|Who|Where|Let)$/.test(m[1])) continue;
      if (nlp(m[1]).has('#Place') || nlp(m[1]).has('#Organization')) continue;
      if ([...byName.keys()].some((k) => k.endsWith(m[1].toLowerCase()))) continue;
      add(m[1], null, u.segmentId);
    }
    for (const m of u.text.matchAll(RELATIONS)) {
      const rel = (m[1] ?? m[2]).toLowerCase();
      add(m[2] ?? rel, rel, u.segmentId);
    }
  }
  return [...byName.values()];
}

const NON_ANSWER = /^(i (do not|don't) know|not sure|no idea|i will (check|find out|get back)|let me (check|find out)|i am not sure|good question)/i;

export function openQuestions(ct: CallText) {
  const out: Array<{ text: string; askedBy: string; sourceSegmentIds: string[] }> = [];
  for (const u of ct.units) {
    if (!u.isQuestion || u.words < 4) continue;
    if (/^(hello|hi|is this|am i speaking|was that you|how are you|got a minute|right\?)/i.test(u.text.trim())) continue;
    const reply = ct.units.find((x) => x.idx > u.idx && x.speaker.speakerId !== u.speaker.speakerId);
    if (!reply || NON_ANSWER.test(plainOf(reply.text))) out.push({ text: u.text, askedBy: u.speaker.label, sourceSegmentIds: [u.segmentId] });
  }
  return out;
}

const RISK = /\b(if (?:it|this|that) (?:is not|does not|is never)|overdue|fraud|unauthori[sz]ed|escalat\w*|complain\w*|cancel\w*|delay\w*|not acceptable|unacceptable|third time|failed|broke|broken|worn|housing office|lawyer|legal action|late payment|outage)\b/i;
const OPPORTUNITY = /\b(interested in|would like to see|looking forward|upgrade|referral|more work|another project|expand|renew|sign up)\b/i;

export function risksAndOpportunities(ct: CallText, reported: Array<string | null>) {
  const risks: Array<{ text: string; sourceSegmentIds: string[] }> = [];
  const opportunities: Array<{ text: string; sourceSegmentIds: string[] }> = [];
  for (const u of ct.units) {
    const p = plainOf(u.norm);
    const text = reported[u.idx] ?? u.text;
    if (RISK.test(p) && !u.isQuestion) risks.push({ text, sourceSegmentIds: [u.segmentId] });
    if (OPPORTUNITY.test(p) && !u.isQuestion) opportunities.push({ text, sourceSegmentIds: [u.segmentId] });
  }
  return { risks: risks.slice(0, 6), opportunities: opportunities.slice(0, 6) };
}

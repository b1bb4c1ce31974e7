// Speaker naming, strategy version 2: which diarized speaker is the user, which the contact, and
// what each is called. Pure: words in, roles and names out.
//
// EVIDENCE, strongest first. Roles are decided by the strongest tier that prefers one assignment;
// a tier whose claims contradict each other evenly is skipped (and if nothing below decides
// either, the result is AMBIGUOUS).
//
//  1. Names in greeting and introduction patterns, HIGH: a speaker introduces themselves ("it's
//     Maria", "this is Nadia Rahman", "Jamie speaking", "I'm calling from Bayview Logistics") or
//     addresses the other ("Hi Daniel", "Am I speaking with Laura Chen?", "Good morning Mr Patel").
//     Only the supplied user and contact names count here, compared tolerantly (names.ts).
//     A supplied first name opening a turn of the opening exchange, then one or two words and "here"
//     or "speaking", is the speaker's own whole name with the surname misheard ("irene l back here"
//     for "Irene Novak here"), not a name said to the listener (patterns.ts ownNameBeforeSignOff).
//     A whole supplied name opening the call's first turn when that turn is an answering phrase
//     ("Northbeam Analytics customer success, how can I help?") is the answerer's own, even when
//     the lexicon takes it for a person's name.
//  2. Voice embedding (voice.status MATCHED): the best-scoring speaker above the threshold is the
//     USER. It ranks below tier 1 only when the two disagree: a greeting that names a speaker
//     survives telephone audio and similar voices, while a score near the threshold on a few seconds
//     of one speaker does not. When they agree, or tier 1 is silent or split, the voice decides and
//     the user's labelSource is VOICE_EMBEDDING. It is also the only evidence that can still decide
//     when the names are ambiguous (below).
//  3. MEDIUM text: a supplied person's name used in passing points at the listener ("Thank you,
//     Priya"; counted once per speaker and name, so it is the asymmetry that decides), and a first name
//     that is not the user's in an introduction or greeting ("this is Janet") marks a non-user.
//     Such a greeting of a stranger counts only when it opens its turn: a "hi karen" the recogniser
//     makes of words in the middle of a turn greets no one.
//  4. The call's opening turn is an answering phrase ("Acme Dental, how can I help?"): with the
//     direction, the answerer is the USER on INCOMING calls and the CONTACT on OUTGOING ones.
//     MEDIUM, warning `answering_pattern_used`. Only the first turn of the recording counts, since
//     a caller's "Dr. Patel's office, this is Janet" in the second turn looks the same.
//  5. Call-opening cues in the first turns of the call (patterns.ts callOpeningCue): "returning
//     your call", "I'm calling about", "you called about", "got your message", "it's me", "am I speaking
//     with", "may I speak to" mark the party who placed this call; "thanks for calling", "thanks for getting back to me" the one who took it.
//     With the direction, the caller is the USER on OUTGOING calls and the CONTACT on INCOMING ones.
//     MEDIUM, labelled like the answering phrase (GREETING_MATCH, warning `answering_pattern_used`:
//     roles from an opening phrase). This is what gets "Hi, this is the front desk at Harbor
//     Clinic, returning your call" right when the user speaks first on an outgoing call.
//  6. Positional fallback, LOW: no evidence at all. The first speaker answered the phone, so is the
//     USER on INCOMING calls and the CONTACT on OUTGOING ones. Warning `speaker_roles_unresolved`.
//     Without a direction there is no guess: both speakers stay UNKNOWN (labelSource DIARIZATION).
//     Weaker call-flow signs in the opening turns (patterns.ts callFlowCue: "calling about ..."
//     without "I'm", "just a quick heads up"; "go ahead, I'm listening", "who's this?") only check
//     the guess: all saying the first voice placed the call, they overturn it (GREETING_MATCH,
//     MEDIUM, `answering_pattern_used`); otherwise the guess stands as a guess.
//
// AMBIGUOUS: when each of the two speakers says both the user's and the contact's name (in any
// pattern) in the opening exchange (the first OPENING_TURNS turns of the call), no text evidence is
// used: which of the two names is "self" then hangs on parsing and on where diarization put a turn
// boundary, and showing no names is better than showing swapped ones. A name said later, once the
// parties are introduced ("Thank you, Brian" closing the call), is an ordinary mention: it does not
// undo the introductions ("this is Jessica" / "Hi Jessica, Brian Ford here") that settled who is who.
// Nor is a call ambiguous when one speaker introduced themselves with their whole supplied name ("Hi
// Kevin, it's Megan Hill") and every introduction and greeting agrees with it.
// Both speakers get role UNKNOWN, labelSource AMBIGUOUS, warning `speaker_identity_ambiguous`,
// unless the voice profile decides. Evenly contradicting evidence with nothing below to break the
// tie ends the same way.
//
// LABEL SOURCES. Once roles are set, each speaker is labelled with its own strongest evidence that
// agrees with the outcome; a speaker without any is BY_ELIMINATION (MEDIUM), shown as PHONE_FALLBACK
// when it is the contact and its name is the phone-number label. The division of the text sources:
//  - USER_PROFILE / CONTACT_METADATA (HIGH): the whole supplied name, word for word, in an
//    introduction or address ("this is Nadia Rahman", "Am I speaking with Laura Chen?", "calling
//    from Bayview Logistics"). The strict text match on the supplied names.
//  - GREETING_MATCH (HIGH): the same patterns with part of a supplied name ("Hi Daniel", "it's
//    Maria", "Mr Patel") or a misheard one ("hi mariah"). Also, at MEDIUM, a stranger's first name
//    in such a pattern and the answering phrase.
//  - NAME_MENTION (MEDIUM): a supplied person's name anywhere else.
// A speaker's confidence is that of its label, capped at MEDIUM when the roles were decided by
// MEDIUM evidence or against some contrary evidence of the deciding tier. LOW only ever comes with
// POSITIONAL_FALLBACK or DIARIZATION. AMBIGUOUS speakers are MEDIUM: the spec keeps LOW for
// fallbacks, and the conflict itself is evidence.
//
// NAMES. USER: the user's display name ('You' when unknown). CONTACT: the contact name, else
// `Contact ending <last 4 digits>` of the phone number (usedPhoneFallback), else 'Contact'.
// UNKNOWN: 'Speaker <n>' in order of first appearance. `label` equals `displayName`. A contact
// without a supplied person's name (no contact name, or an organisation's: "County Assessor's
// Office") is shown with the name it introduced itself with ("this is Linda Moreau", "that's me,
// Pete Larsen"), else the one the user greeted it by ("Hi Grace", "Dana, hi"): issue 28's calls
// expect the person on the line, not the phone label. Only first names the lexicon knows count
// (patterns.ts heardNamesOf), so a rare word the recogniser guessed is never shown as a name; the
// label source becomes GREETING_MATCH where it was BY_ELIMINATION or PHONE_FALLBACK.
//
// SPEAKER COUNTS. One speaker: its own introductions and its greetings of the other party still
// decide its role ("Hi Maria, it's Daniel" on a voicemail is the contact); no position guess, since
// "who answered" needs two parties. Three or more (usually an over-split diarization): the two who
// say the most words are resolved as above, the rest stay UNKNOWN with labelSource DIARIZATION;
// voice evidence counts only when it points into that pair.
import {
  STRATEGY_VERSION,
  type Confidence,
  type LabelSource,
  type SpeakerResolutionInfo,
  type SpeakerRole,
} from '../../domain/transcript.js';
import type { ResolutionContext } from '../types.js';
import { nameSpecOf, phoneFallbackLabel, wordsOf, type NameOwner } from './names.js';
import { callFlowCue, callOpeningCue, claimsOfSpeaker, heardNamesOf, isAnsweringPhrase, type HeardName, type NameSpecs } from './patterns.js';

/** One stretch of speech of one source speaker. */
export interface Utterance {
  sourceSpeakerId: string;
  text: string;
  start: number;
  end: number;
}

/** A source speaker with its utterances in time order. */
export interface SpeakerUtterances {
  sourceSpeakerId: string;
  utterances: Utterance[];
}

export interface ResolvedSpeaker {
  sourceSpeakerId: string;
  role: SpeakerRole;
  displayName: string;
  label: string;
  labelSource: LabelSource;
  confidence: Confidence;
  voiceMatchScore: number | null;
  voiceProfileMatched: boolean | null;
}

/** Result of speaker naming: one entry per input speaker, in the input order. */
export interface SpeakerResolutionResult {
  speakers: ResolvedSpeaker[];
  speakerResolution: SpeakerResolutionInfo;
}

type Role = 'USER' | 'CONTACT';
type Kind = 'voice' | 'strict' | 'greeting' | 'mention' | 'unknownName' | 'answering' | 'cue';
type Tier = 'TEXT_HIGH' | 'VOICE' | 'TEXT_MEDIUM' | 'ANSWERING' | 'CUES';

interface Evidence {
  kind: Kind;
  /** Index into the resolved pair. */
  target: number;
  role: Role;
  from: number;
  who?: NameOwner;
}

const TIER_OF: Record<Kind, Tier> = {
  strict: 'TEXT_HIGH',
  greeting: 'TEXT_HIGH',
  voice: 'VOICE',
  mention: 'TEXT_MEDIUM',
  unknownName: 'TEXT_MEDIUM',
  answering: 'ANSWERING',
  cue: 'CUES',
};
const TIERS: Tier[] = ['TEXT_HIGH', 'VOICE', 'TEXT_MEDIUM', 'ANSWERING', 'CUES'];
/** Turns at the start of the call in which call-opening cues count and names make the call ambiguous. */
const OPENING_TURNS = 4;
// Precedence of a speaker's own evidence when choosing its label.
const LABEL_RANK: Record<Kind, number> = { voice: 0, strict: 1, greeting: 2, mention: 3, unknownName: 4, answering: 5, cue: 6 };

const other = (r: Role): Role => (r === 'USER' ? 'CONTACT' : 'USER');

/** Groups time-ordered utterances by source speaker, speakers in order of first appearance. */
export function groupUtterances(utterances: Utterance[]): SpeakerUtterances[] {
  const sorted = [...utterances].sort((a, b) => a.start - b.start);
  const bySpeaker = new Map<string, Utterance[]>();
  for (const u of sorted) {
    const list = bySpeaker.get(u.sourceSpeakerId);
    if (list) list.push(u);
    else bySpeaker.set(u.sourceSpeakerId, [u]);
  }
  return [...bySpeaker].map(([sourceSpeakerId, list]) => ({ sourceSpeakerId, utterances: list }));
}

function voiceMatchStatusOf(ctx: ResolutionContext): string {
  if (!ctx.voiceEmbeddingEnabled) return 'DISABLED';
  return ctx.voice?.status ?? 'NO_PROFILE';
}

/**
 * The speaker the voice profile matched: the matcher's choice when it names one (it also applies
 * the margin over the runner-up), else the unique best score at or above the threshold.
 */
function voiceMatchedId(ctx: ResolutionContext, ids: string[]): string | null {
  const v = ctx.voice;
  if (!ctx.voiceEmbeddingEnabled || !v || v.status !== 'MATCHED') return null;
  if (v.matchedSpeaker !== undefined) return v.matchedSpeaker !== null && ids.includes(v.matchedSpeaker) ? v.matchedSpeaker : null;
  const scored = ids
    .map((id) => ({ id, score: v.scores[id] }))
    .filter((s): s is { id: string; score: number } => typeof s.score === 'number' && Number.isFinite(s.score))
    .sort((a, b) => b.score - a.score);
  const best = scored[0];
  if (!best || best.score < v.threshold) return null;
  if (scored[1] && scored[1].score === best.score) return null;
  return best.id;
}

function clamp01(x: number): number {
  return Math.min(1, Math.max(0, x));
}

/** Resolves roles and names for the speakers of one call (see the rules at the top of this file). */
export function resolveSpeakers(input: SpeakerUtterances[], context: ResolutionContext): SpeakerResolutionResult {
  const ids = input.map((s) => s.sourceSpeakerId);
  const specs: NameSpecs = {
    user: nameSpecOf(context.userDisplayName, 'user'),
    contact: nameSpecOf(context.contactName, 'contact'),
  };
  const userName = context.userDisplayName?.trim() || null;
  const contactName = context.contactName?.trim() || null;
  const phoneLabel = contactName ? null : phoneFallbackLabel(context.phoneNumber);
  const voiceStatus = voiceMatchStatusOf(context);
  const matchedId = voiceMatchedId(context, ids);
  const scoresKnown = context.voiceEmbeddingEnabled && context.voice && (context.voice.status === 'MATCHED' || context.voice.status === 'NO_MATCH');

  // The pair that is resolved: everyone when there are at most two, else the two who say the most.
  const wordCount = input.map((s) => s.utterances.reduce((n, u) => n + wordsOf(u.text).length, 0));
  let pair = input.map((_, i) => i);
  if (pair.length > 2) {
    pair = [...pair].sort((a, b) => wordCount[b] - wordCount[a] || a - b).slice(0, 2).sort((a, b) => a - b);
  }

  // Gather evidence, indexed by position in `pair`.
  const evidence: Evidence[] = [];
  // Which supplied names each speaker said in the opening exchange (see namesAmbiguous).
  const references: Array<Set<NameOwner>> = [];
  // The turns that open the call: where an answerer says their own name ("Hello, Frank Harris").
  const openers = new Set(openingUtterances(input, 3).map((o) => o.utterance));
  const introductions = new Set(openingUtterances(input, OPENING_TURNS).map((o) => o.utterance));
  const callOpener = openingUtterances(input, 1)[0]?.utterance;
  pair.forEach((speakerIndex, p) => {
    const utts = input[speakerIndex].utterances;
    const opening = new Set(utts.flatMap((u, k) => (openers.has(u) ? [k] : [])));
    const first = utts.findIndex((u) => u === callOpener);
    const { claims, referencedIn } = claimsOfSpeaker(utts.map((u) => u.text), specs, opening, first >= 0 ? first : null);
    references.push(new Set([...referencedIn].filter(([, at]) => at.some((k) => introductions.has(utts[k]))).map(([who]) => who)));
    for (const c of claims) {
      if (c.about === 'self') evidence.push({ kind: c.kind, target: p, role: c.role, from: p, who: c.who });
      else if (pair.length === 2) evidence.push({ kind: c.kind, target: 1 - p, role: c.role, from: p, who: c.who });
      // Alone on the recording: addressing the user means the speaker is the contact, and the reverse.
      else evidence.push({ kind: c.kind, target: p, role: other(c.role), from: p, who: c.who });
    }
  });
  // Names neither supplied one, per speaker (see heardNamesOf): only for showing a contact.
  const heardNames: HeardName[][] = input.map((s) => {
    const first = s.utterances.findIndex((u) => u === callOpener);
    return heardNamesOf(s.utterances.map((u) => u.text), specs, first >= 0 ? first : null);
  });
  if (matchedId !== null) {
    const p = pair.findIndex((i) => ids[i] === matchedId);
    if (p >= 0) evidence.push({ kind: 'voice', target: p, role: 'USER', from: p });
  }
  const opening = earliestUtterance(input);
  if (opening && context.direction && isAnsweringPhrase(opening.utterance.text, specs)) {
    const p = pair.indexOf(opening.speakerIndex);
    if (p >= 0) evidence.push({ kind: 'answering', target: p, role: context.direction === 'INCOMING' ? 'USER' : 'CONTACT', from: p });
  }
  if (context.direction) {
    for (const { speakerIndex, utterance } of openingUtterances(input, OPENING_TURNS)) {
      const cue = callOpeningCue(utterance.text);
      const p = pair.indexOf(speakerIndex);
      if (!cue || p < 0) continue;
      const placedCall = cue === 'caller';
      const role: Role = placedCall === (context.direction === 'OUTGOING') ? 'USER' : 'CONTACT';
      evidence.push({ kind: 'cue', target: p, role, from: p });
    }
  }

  // Hypothesis 0: pair[0] is the USER (and pair[1], if any, the CONTACT); hypothesis 1: the reverse.
  const hypothesisOf = (e: Evidence): 0 | 1 => ((e.target === 0) === (e.role === 'USER') ? 0 : 1);
  const namesAmbiguous =
    pair.length === 2 && specs.user !== null && specs.contact !== null &&
    references.every((r) => r.has('user') && r.has('contact'));
  // ... unless one of them gave their whole supplied name in an introduction ("Hi Kevin, it's Megan
  // Hill", "Hi Rosa, this is Owen Park") and no introduction or greeting says otherwise: the whole
  // name leaves no doubt whose it is, and the rest only agrees with it. A first name alone ("Jamie,
  // it's Chris") keeps the call ambiguous.
  const wholeNameIntroduced =
    namesAmbiguous &&
    evidence.some((e) => e.kind === 'strict' && e.target === e.from) &&
    new Set(evidence.filter((e) => TIER_OF[e.kind] === 'TEXT_HIGH').map(hypothesisOf)).size === 1;
  const tiers = namesAmbiguous && !wholeNameIntroduced ? (['VOICE'] as Tier[]) : TIERS;
  const ambiguousNames = namesAmbiguous && !wholeNameIntroduced;

  let decided: { hypothesis: 0 | 1; tier: Tier; unanimous: boolean } | null = null;
  let contradicted = false;
  for (const tier of tiers) {
    const votes = [new Set<string>(), new Set<string>()];
    for (const e of evidence) {
      if (TIER_OF[e.kind] !== tier) continue;
      votes[hypothesisOf(e)].add(`${e.kind === 'strict' ? 'greeting' : e.kind}|${e.from}|${e.target}|${e.role}|${e.who ?? ''}`);
    }
    const [a, b] = [votes[0].size, votes[1].size];
    if (a === b) {
      if (a > 0) contradicted = true;
      continue;
    }
    decided = { hypothesis: a > b ? 0 : 1, tier, unanimous: a === 0 || b === 0 };
    break;
  }

  const resolved: ResolvedSpeaker[] = input.map((s, i) => ({
    sourceSpeakerId: s.sourceSpeakerId,
    role: 'UNKNOWN',
    displayName: `Speaker ${i + 1}`,
    label: `Speaker ${i + 1}`,
    labelSource: 'DIARIZATION',
    confidence: 'LOW',
    voiceMatchScore: scoresKnown && typeof context.voice!.scores[s.sourceSpeakerId] === 'number' ? clamp01(context.voice!.scores[s.sourceSpeakerId]) : null,
    voiceProfileMatched: scoresKnown ? s.sourceSpeakerId === matchedId : null,
  }));
  const nameFor = (role: SpeakerRole, i: number): string =>
    role === 'USER' ? userName ?? 'You' : role === 'CONTACT' ? contactName ?? phoneLabel ?? 'Contact' : `Speaker ${i + 1}`;
  const assign = (i: number, role: SpeakerRole, labelSource: LabelSource, confidence: Confidence) => {
    const name = nameFor(role, i);
    Object.assign(resolved[i], { role, displayName: name, label: name, labelSource, confidence });
  };

  const warnings: string[] = [];
  let usedDirection = false;
  let ambiguous = false;
  if (decided) {
    const roles: Role[] = decided.hypothesis === 0 ? ['USER', 'CONTACT'] : ['CONTACT', 'USER'];
    const capMedium = decided.tier === 'TEXT_MEDIUM' || decided.tier === 'ANSWERING' || decided.tier === 'CUES' || !decided.unanimous;
    let answeringUsed = decided.tier === 'ANSWERING' || decided.tier === 'CUES';
    pair.forEach((speakerIndex, p) => {
      const role = roles[p];
      const own = evidence
        // Cues are the weakest evidence: they label a speaker only when they decided the roles.
        .filter((e) => e.target === p && e.role === role && (!ambiguousNames || e.kind === 'voice') && (e.kind !== 'cue' || decided.tier === 'CUES'))
        .sort((x, y) => LABEL_RANK[x.kind] - LABEL_RANK[y.kind])[0];
      if (!own) {
        const source: LabelSource = role === 'CONTACT' && !contactName && phoneLabel ? 'PHONE_FALLBACK' : 'BY_ELIMINATION';
        assign(speakerIndex, role, source, 'MEDIUM');
        return;
      }
      if (own.kind === 'answering' || own.kind === 'cue') answeringUsed = true;
      const source: LabelSource =
        own.kind === 'voice' ? 'VOICE_EMBEDDING'
        : own.kind === 'strict' ? (role === 'USER' ? 'USER_PROFILE' : 'CONTACT_METADATA')
        : own.kind === 'mention' ? 'NAME_MENTION'
        : 'GREETING_MATCH';
      const strong = own.kind === 'voice' || own.kind === 'strict' || own.kind === 'greeting';
      assign(speakerIndex, role, source, strong && !capMedium ? 'HIGH' : 'MEDIUM');
    });
    if (answeringUsed) {
      warnings.push('answering_pattern_used');
      usedDirection = true;
    }
  } else if (ambiguousNames || contradicted) {
    ambiguous = true;
    for (const i of pair) assign(i, 'UNKNOWN', 'AMBIGUOUS', 'MEDIUM');
    warnings.push('speaker_identity_ambiguous');
  } else if (pair.length === 2 && context.direction) {
    const first: Role = context.direction === 'INCOMING' ? 'USER' : 'CONTACT';
    // The guess assumes the first voice answered. Weaker call-flow signs in the opening turns
    // (patterns.ts callFlowCue) that all say the first voice placed the call overturn it: the
    // recording began after the pickup, or the answerer's short "Hello?" was lost or went to the
    // other party. When they agree with the guess, or there are none, it stands as a guess.
    const placedFirst = new Set<boolean>();
    for (const { speakerIndex, utterance } of openingUtterances(input, OPENING_TURNS)) {
      const p = pair.indexOf(speakerIndex);
      const cue = p < 0 ? null : callFlowCue(utterance.text);
      if (cue) placedFirst.add((cue === 'caller') === (p === 0));
    }
    if (placedFirst.size === 1 && placedFirst.has(true)) {
      assign(pair[0], other(first), 'GREETING_MATCH', 'MEDIUM');
      assign(pair[1], first, 'GREETING_MATCH', 'MEDIUM');
      warnings.push('answering_pattern_used');
    } else {
      assign(pair[0], first, 'POSITIONAL_FALLBACK', 'LOW');
      assign(pair[1], other(first), 'POSITIONAL_FALLBACK', 'LOW');
    }
    usedDirection = true;
  }

  // A contact without a supplied person's name (none, or an organisation's) is shown with the name
  // it introduced itself with, or the one the user greeted it by ("this is Dana", "Hi Grace").
  let heardContactName = false;
  if (!contactName || (specs.contact && !specs.contact.personLike)) {
    const contactAt = pair.find((i) => resolved[i].role === 'CONTACT');
    const userAt = pair.find((i) => resolved[i].role === 'USER');
    if (contactAt !== undefined) {
      const own = heardNames[contactAt].find((h) => h.about === 'self') ?? (userAt !== undefined ? heardNames[userAt].find((h) => h.about === 'other') : undefined);
      if (own) {
        const r = resolved[contactAt];
        const labelSource: LabelSource = r.labelSource === 'PHONE_FALLBACK' || r.labelSource === 'BY_ELIMINATION' ? 'GREETING_MATCH' : r.labelSource;
        Object.assign(r, { displayName: own.name, label: own.name, labelSource });
        heardContactName = true;
      }
    }
  }

  const resolvedSpeakerCount = resolved.filter(
    (s) => s.role !== 'UNKNOWN' && s.labelSource !== 'POSITIONAL_FALLBACK' && s.labelSource !== 'DIARIZATION',
  ).length;
  if (input.length > 0 && resolvedSpeakerCount === 0 && !ambiguous) warnings.push('speaker_roles_unresolved');

  const nameClaimed = (who: NameOwner) => evidence.some((e) => e.who === who);
  const speakerResolution: SpeakerResolutionInfo = {
    strategyVersion: STRATEGY_VERSION,
    usedUserDisplayName: userName !== null && (resolved.some((s) => s.role === 'USER') || nameClaimed('user')),
    usedContactName: contactName !== null && (resolved.some((s) => s.role === 'CONTACT') || nameClaimed('contact')),
    usedDirection,
    usedPhoneFallback: phoneLabel !== null && !heardContactName && resolved.some((s) => s.role === 'CONTACT'),
    voiceEmbeddingEnabled: context.voiceEmbeddingEnabled,
    voiceProfileUsed: resolved.some((s) => s.labelSource === 'VOICE_EMBEDDING'),
    voiceMatchStatus: voiceStatus,
    totalSpeakerCount: input.length,
    resolvedSpeakerCount,
    warnings,
  };
  return { speakers: resolved, speakerResolution };
}

/** The first `n` utterances of the call (with words), in time order, with their speaker. */
function openingUtterances(input: SpeakerUtterances[], n: number): Array<{ speakerIndex: number; utterance: Utterance }> {
  const all = input.flatMap((s, speakerIndex) => s.utterances.filter((u) => wordsOf(u.text).length > 0).map((utterance) => ({ speakerIndex, utterance })));
  return all.sort((a, b) => a.utterance.start - b.utterance.start).slice(0, n);
}

function earliestUtterance(input: SpeakerUtterances[]): { speakerIndex: number; utterance: Utterance } | null {
  let best: { speakerIndex: number; utterance: Utterance } | null = null;
  input.forEach((s, speakerIndex) => {
    for (const u of s.utterances) {
      if (wordsOf(u.text).length === 0) continue;
      if (!best || u.start < best.utterance.start) best = { speakerIndex, utterance: u };
    }
  });
  return best;
}

// The embedded analyzer: the offline, deterministic default (no model). It reads the transcript as
// sentences (compromise), rewrites spoken numbers, phone numbers and addresses to written form,
// resolves dates with chrono-node, ranks sentences with TextRank for the summaries, finds topic
// shifts for the sections, reads requests and commitments into action items and next steps, and
// scores sentiment with the AFINN lexicon. The same transcript always gives the same analysis.
import type { Analysis, AnalysisContext } from '../../../domain/analysis.js';
import type { Transcript } from '../../../domain/transcript.js';
import type { Analyzer } from '../../types.js';
import { finalizeAnalysis } from '../finalize.js';
import { groundAnalysis, type GroundingViolation } from '../grounding.js';
import { extractActions } from './actions.js';
import { buildSentiment, buildTone, scoreUnits } from './affect.js';
import { buildTags, classifyCall, importantDates, numbersAndAmounts, openQuestions, peopleMentioned, qualityWarnings, risksAndOpportunities } from './facts.js';
import { buildBullets, buildSections, discussionPoints, executiveSentences, keyphrases, rankUnits } from './summary.js';
import { basePredicate, buildCallText, capitalize, type CallText } from './text.js';

export const EMBEDDED_MODEL = 'embedded-nlp-v1';

export interface EmbeddedAnalyzerOptions {
  /** Called with the number of grounding violations the safety net removed (never the values). */
  onGroundingViolations?: (count: number, kinds: string[]) => void;
}

export class EmbeddedAnalyzer implements Analyzer {
  readonly provider = 'embedded';
  readonly model = EMBEDDED_MODEL;

  constructor(private readonly options: EmbeddedAnalyzerOptions = {}) {}

  async analyze(transcript: Transcript, context: AnalysisContext, signal?: AbortSignal): Promise<Analysis> {
    signal?.throwIfAborted();
    const raw = buildAnalysis(transcript, context);
    const finalized = finalizeAnalysis(raw, transcript);
    // Everything the analyzer writes comes from the transcript, so grounding should find nothing;
    // it stays as a safety net against a regression, reporting counts only.
    const { analysis, violations } = groundAnalysis(finalized, transcript, context.recordedAt);
    if (violations.length) this.options.onGroundingViolations?.(violations.length, [...new Set(violations.map((v) => v.kind))]);
    return analysis;
  }
}

/** Grounding check of a built analysis, for the benchmark and tests. */
export function groundingViolations(a: Analysis, transcript: Transcript, context: AnalysisContext): GroundingViolation[] {
  return groundAnalysis(a, transcript, context.recordedAt).violations;
}

function names(ct: CallText): { user: string; contact: string; resolved: boolean; labels: string[] } {
  const user = ct.speakers.find((s) => s.role === 'USER');
  const contact = ct.speakers.find((s) => s.role === 'CONTACT');
  const other = ct.speakers.filter((s) => s !== user);
  return {
    user: user?.displayName || ct.context.userDisplayName || 'The user',
    contact: contact?.displayName || other[0]?.displayName || ct.context.contactName || 'the caller',
    // Neither speaker holds a role: the upload's direction says who called whom, but not which
    // voice is which, so a summary must not pair the user's name with one of the voices.
    resolved: !!(user || contact),
    labels: ct.speakers.map((s) => s.displayName || s.label).filter(Boolean),
  };
}

/** Who called whom, as far as the upload and the speaker roles say it. */
export function openerOf(ct: CallText): string {
  const { user, contact, resolved, labels } = names(ct);
  const direction = ct.context.direction;
  if (!resolved) {
    const who = labels.length >= 2 ? `${labels.slice(0, -1).join(', ')} and ${labels[labels.length - 1]}` : labels[0] ?? 'Two speakers';
    const kind = direction === 'INCOMING' ? ' on an incoming call' : direction === 'OUTGOING' ? ' on an outgoing call' : '';
    return `${who} spoke${kind}`;
  }
  return direction === 'INCOMING' ? `${contact} called ${user}` : direction === 'OUTGOING' ? `${user} called ${contact}` : `${user} and ${contact} spoke`;
}

function lowerFirst(s: string): string {
  return s && !/^[A-Z]{2}/.test(s) ? s[0].toLowerCase() + s.slice(1) : s;
}

function sentence(s: string): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return /[.?!]$/.test(t) ? t : `${t}.`;
}

/** The analysis before finalisation (exported for the benchmark). */
export function buildAnalysis(transcript: Transcript, context: AnalysisContext): Analysis {
  const ct = buildCallText(transcript, context);
  const actions = extractActions(ct);
  const planUnits = new Set<number>();
  for (const n of actions.nextSteps) for (const id of n.sourceSegmentIds) for (const u of ct.units) if (u.segmentId === id) planUnits.add(u.idx);
  const boosted = new Set([...actions.actionUnits]);
  const ranking = rankUnits(ct, boosted);
  const phrases = keyphrases(ct, ranking);
  const sections = buildSections(ct, ranking, actions.actionUnits);
  const { callType } = classifyCall(ct);
  const affects = scoreUnits(ct);
  const sentiment = buildSentiment(ct, affects, planUnits);
  const tone = buildTone(ct, affects, sentiment.overall, { USER: sentiment.userSentiment.overall, CONTACT: sentiment.contactSentiment.overall });

  // Summaries
  const topics = phrases.slice(0, 2).map((p) => p.phrase);
  const first = actions.actionItems[0];
  const firstStep = actions.nextSteps[0];
  // Who called whom is a fact of the upload, not a reading of the recognised words.
  const opener = openerOf(ct);
  // topics are keyphrases of the recognised words: not stated when the recognition was poor
  const poor = !transcript.segments.some((s) => s.alignmentConfidence === 'HIGH');
  const about = topics.length && !poor ? ` about ${topics.join(' and ')}` : '';
  let oneLine = `${opener}${about}`;
  // titles address their owner ("when you decide") or keep the app user's own words for the user's
  // items ("talk it over with my husband": only ever the owner's, see actions.ts); in a
  // third-person summary the owner is "they" either way
  const third = (t: string) =>
    lowerFirst(t)
      .replace(/\byou\b/g, 'they')
      .replace(/\b(your|my)\b/g, 'their')
      .replace(/\b(yourself|myself)\b/g, 'themselves');
  // "<owner> will <verb phrase>" only where the title is a verb phrase, in its base form whatever
  // tense or person the recogniser heard ("will arrived" is no sentence); otherwise it is quoted
  const plan = (owner: string, modal: 'will' | 'to', text: string) => {
    const vp = basePredicate(text);
    return vp ? `${owner} ${modal} ${third(vp)}` : `${owner}: "${text.replace(/[.]+$/, '')}"`;
  };
  if (first) oneLine += `; ${plan(first.ownerDisplayName ?? first.ownerSpeakerLabel ?? 'Someone', 'will', first.title)}`;
  // a next step is quoted as said (its text is the speaker's own sentence, not a verb phrase)
  else if (firstStep && firstStep.text.split(/\s+/).length <= 15) oneLine += `; ${firstStep.ownerSpeaker}: "${firstStep.text.replace(/[.]+$/, '')}"`;
  oneLine = sentence(oneLine.replace(/[.]+(?=;|$)/g, ''));
  // The executive summary is templated from the extracted facts (who called whom, about what, who
  // will do what by when), then completed with well-recognised sentences quoted as said.
  const facts = [sentence(`${opener}${about}`)];
  for (const a of actions.actionItems.slice(0, 2)) {
    const due = a.dueDate && !/\b(today|tonight|tomorrow|by|on|within|before|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b/i.test(a.title) ? ` (due ${a.dueDate})` : '';
    facts.push(sentence(`${plan(a.ownerDisplayName ?? a.ownerSpeakerLabel ?? 'Someone', 'to', a.title)}${due}`));
  }
  // Only well-recognised sentences (HIGH confidence) are quoted in the executive summary: a
  // misrecognised sentence quoted there reads as a statement of the call. With none, the summary is
  // the extracted facts alone and says why (qualityWarnings: low_transcription_confidence).
  const wellRecognised = !poor;
  const exec = wellRecognised ? executiveSentences(ranking, sections, actions.actionUnits, ct.duration, (u) => u.confidence === 'HIGH') : [];
  if (!wellRecognised && transcript.segments.length) facts.push('The recording was hard to recognise, so no sentence of it is quoted here.');
  const executiveSummary = [...facts, ...exec.slice(0, Math.max(1, 4 - facts.length))].join(' ');

  const outcomeParts: string[] = [];
  if (actions.decisions.length) outcomeParts.push(`${actions.decisions.map((d) => d.text.replace(/[.]+$/, '')).join('; ')}.`);
  if (actions.actionItems.length) {
    outcomeParts.push(
      `Follow-ups: ${actions.actionItems
        .slice(0, 4)
        .map((a) => `${plan(a.ownerDisplayName ?? a.ownerSpeakerLabel ?? 'Someone', 'to', a.title)}${a.dueDate ? ` (by ${a.dueDate})` : ''}`)
        .join('; ')}.`,
    );
  }
  if (!outcomeParts.length) {
    const planned = actions.nextSteps.slice(0, 2).map((n) => plan(n.ownerSpeaker ?? 'Someone', 'will', n.text));
    outcomeParts.push(planned.length ? `No launchable follow-ups; planned: ${planned.join('; ')}.` : 'No decisions or follow-up actions were recorded.');
  }
  const conversationOutcome = outcomeParts.join(' ');

  const bullets = buildBullets(ct, ranking, sections, actions.actionItems, conversationOutcome);
  const providers = [...new Set(actions.actionItems.map((a) => a.intentMetadata?.providerHint).filter((p): p is NonNullable<typeof p> => !!p))];
  const { risks, opportunities } = risksAndOpportunities(ct, ranking.reported);
  const title = phrases.length ? capitalize(phrases.slice(0, phrases[1] && phrases[0].phrase.length < 22 ? 2 : 1).map((p) => p.phrase).join(' and ')) : context.title ?? 'Phone call';

  const analysis: Analysis = {
    schemaVersion: 3,
    callType,
    suggestedTitle: title,
    oneLineSummary: oneLine,
    executiveSummary,
    ...(bullets ? { executiveSummaryBullets: bullets } : {}),
    conversationOutcome,
    sections: sections.map(({ units: _units, ...s }) => s),
    keyDiscussionPoints: discussionPoints(ct, ranking, sections, actions.actionUnits, planUnits),
    actionItems: actions.actionItems,
    nextSteps: actions.nextSteps,
    followUps: [],
    importantDates: importantDates(ct),
    decisions: actions.decisions,
    commitments: actions.commitments,
    openQuestions: openQuestions(ct),
    risks,
    opportunities,
    peopleMentioned: peopleMentioned(ct),
    numbersAndAmounts: numbersAndAmounts(ct),
    sentiment,
    tone,
    tags: buildTags(callType, phrases, providers),
    qualityWarnings: qualityWarnings(transcript, ct),
  };
  return analysis;
}

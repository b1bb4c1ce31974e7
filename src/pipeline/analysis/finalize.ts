// The last step of every analyzer (embedded or provider-backed): it makes the stored artifact obey
// the spec whatever the model produced. Grounding of intent metadata is a separate step
// (grounding.ts) because it needs the transcript text, not only the segment ids.
import { ANALYSIS_SCHEMA_VERSION, type Analysis } from '../../domain/analysis.js';
import type { Transcript } from '../../domain/transcript.js';
import { computeConversationMetrics } from '../../domain/conversation-metrics.js';

/** The spec's Limits section ("Analysis detail"). */
export const ANALYSIS_LIMITS = {
  executiveSummaryBullets: { min: 3, max: 6 },
  sentimentProgression: { min: 2, max: 4 },
  emotionalSignals: { max: 6 },
  toneDescriptors: { min: 1, max: 4 },
} as const;

/** Arrays the spec promises as present-and-empty when the model found no evidence. */
const DEFAULT_ARRAYS = ['actionItems', 'nextSteps', 'keyDiscussionPoints', 'sections', 'tags', 'qualityWarnings'] as const;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Cuts over-long arrays down to the spec's maxima, in place. Exported so that an adapter can apply
 * it to raw model output before validation: exceeding a maximum is harmless to repair by
 * truncation and should not cost a repair round-trip.
 */
export function clampLimits(a: unknown): void {
  if (!isObj(a)) return;
  const L = ANALYSIS_LIMITS;
  if (Array.isArray(a.executiveSummaryBullets) && a.executiveSummaryBullets.length > L.executiveSummaryBullets.max) {
    a.executiveSummaryBullets = a.executiveSummaryBullets.slice(0, L.executiveSummaryBullets.max);
  }
  const s = a.sentiment;
  if (isObj(s)) {
    if (Array.isArray(s.progression) && s.progression.length > L.sentimentProgression.max) {
      // Progression runs from opening to closing; keeping the last point preserves how the call ended.
      const p = s.progression;
      s.progression = [...p.slice(0, L.sentimentProgression.max - 1), p[p.length - 1]];
    }
    if (Array.isArray(s.emotionalSignals) && s.emotionalSignals.length > L.emotionalSignals.max) {
      s.emotionalSignals = s.emotionalSignals.slice(0, L.emotionalSignals.max);
    }
  }
  const t = a.tone;
  if (isObj(t) && Array.isArray(t.descriptors) && t.descriptors.length > L.toneDescriptors.max) {
    t.descriptors = t.descriptors.slice(0, L.toneDescriptors.max);
  }
}

/** Filters every `sourceSegmentIds` array in the tree, in place; calls `onDrop` per removed id. */
export function filterSegmentIds(node: unknown, known: ReadonlySet<string>, onDrop?: (path: string, id: string) => void, path = ''): void {
  if (Array.isArray(node)) {
    node.forEach((v, i) => filterSegmentIds(v, known, onDrop, `${path}/${i}`));
    return;
  }
  if (!isObj(node)) return;
  for (const [k, v] of Object.entries(node)) {
    const p = `${path}/${k}`;
    if (k === 'sourceSegmentIds' && Array.isArray(v)) {
      const kept: string[] = [];
      v.forEach((id, i) => {
        if (typeof id === 'string' && known.has(id) && !kept.includes(id)) kept.push(id);
        else if (!(typeof id === 'string' && kept.includes(id))) onDrop?.(`${p}/${i}`, String(id));
      });
      node[k] = kept;
    } else {
      filterSegmentIds(v, known, onDrop, p);
    }
  }
}

/**
 * Makes an analysis conform to the spec: schemaVersion 3, only real segment ids, limits enforced,
 * the main arrays present, the legacy aliases derived exactly as the spec defines them, and
 * conversationMetrics measured from the transcript.
 * Does not mutate its input. Where a minimum cannot be met without inventing content the optional
 * field is removed (progression, summary bullets) so that the result always validates; an empty
 * tone.descriptors falls back to tone.overall, which is itself a descriptor.
 */
export function finalizeAnalysis(a: Analysis, transcript: Transcript): Analysis {
  const out = structuredClone(a) as Analysis & Obj;
  out.schemaVersion = ANALYSIS_SCHEMA_VERSION;

  filterSegmentIds(out, new Set(transcript.segments.map((s) => s.id)));

  for (const key of DEFAULT_ARRAYS) {
    if (!Array.isArray(out[key])) (out as Obj)[key] = [];
  }
  // Problems found while building the transcript (e.g. word times that did not fit the audio) are
  // the analysis's quality warnings too, whichever analyzer ran.
  out.qualityWarnings = [...new Set([...out.qualityWarnings!, ...(transcript.qualityWarnings ?? [])])];

  clampLimits(out);
  const L = ANALYSIS_LIMITS;
  if (out.executiveSummaryBullets && out.executiveSummaryBullets.length < L.executiveSummaryBullets.min) {
    delete out.executiveSummaryBullets;
  }
  if (out.sentiment?.progression && out.sentiment.progression.length < L.sentimentProgression.min) {
    delete out.sentiment.progression;
  }
  if (out.tone && out.tone.descriptors.length < L.toneDescriptors.min && out.tone.overall.trim() !== '') {
    out.tone.descriptors = [out.tone.overall.trim()];
  }

  // The spec: "Short lower-case tags".
  out.tags = [...new Set(out.tags!.map((t) => t.trim().toLowerCase()).filter((t) => t !== ''))];

  for (const item of out.actionItems!) {
    // ownerSpeaker is the legacy alias of ownerSpeakerLabel; older producers only set the alias.
    if (item.ownerSpeakerLabel === undefined && item.ownerSpeaker !== undefined) item.ownerSpeakerLabel = item.ownerSpeaker;
    if (item.ownerSpeakerLabel !== undefined) item.ownerSpeaker = item.ownerSpeakerLabel;
  }

  // Legacy aliases: exactly the spec's definitions, always overwriting whatever the model wrote.
  if (out.oneLineSummary !== undefined) out.shortSummary = out.oneLineSummary;
  if (out.executiveSummary !== undefined) out.detailedSummary = out.executiveSummary;
  out.keyPoints = out.sections!.flatMap((s) => s.items.filter((i) => i.importance === 'high').map((i) => i.text));

  // Measured from the transcript's timing; whatever a model put under this key is replaced.
  out.conversationMetrics = computeConversationMetrics(transcript);

  return out;
}

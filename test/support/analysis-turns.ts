// Two-party transcripts written as turns, for tests of the embedded analyzer's readings: the
// user speaks as speaker 0, the contact as speaker 1, at a steady speaking rate, names resolved;
// a turn's alignment confidence is HIGH unless the turn gives its own.
import assert from 'node:assert/strict';
import type { AnalysisActionItem, AnalysisContext } from '../../src/domain/analysis.js';
import { cleanTextOf, type Transcript } from '../../src/domain/transcript.js';
import { buildAnalysis, groundingViolations } from '../../src/pipeline/analysis/embedded/index.js';
import type { clausesOf } from '../../src/pipeline/analysis/embedded/clauses.js';
import { finalizeAnalysis } from '../../src/pipeline/analysis/finalize.js';
import { resolvedTwoSpeakers } from '../fixtures/seed.js';

type Confidence = Transcript['segments'][number]['alignmentConfidence'];
export type Turns = Array<[0 | 1, string, Confidence?]>;

export function transcriptOf(turns: Turns, names: [string, string], recordedAt: string): Transcript {
  let t = 0.3;
  const segments = turns.map(([sp, text, confidence], i) => {
    const dur = text.split(/\s+/).length / 2.6;
    const seg = {
      id: `seg_${String(i + 1).padStart(4, '0')}`,
      speaker: `spk_${sp + 1}`,
      speakerLabel: names[sp],
      speakerDisplayName: names[sp],
      speakerId: `spk_${sp + 1}`,
      sourceSpeakerId: `S${sp}`,
      role: sp === 0 ? ('USER' as const) : ('CONTACT' as const),
      startSeconds: t,
      endSeconds: t + dur,
      text,
      alignmentConfidence: confidence ?? ('HIGH' as const),
    };
    t += dur + 0.5;
    return seg;
  });
  return {
    schemaVersion: 2,
    callId: '6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f',
    language: 'en',
    durationSeconds: Math.round(t),
    cleanText: cleanTextOf(segments),
    speakers: names.map((n, i) => ({
      speakerId: `spk_${i + 1}`,
      sourceSpeakerId: `S${i}`,
      label: n,
      displayName: n,
      role: i === 0 ? ('USER' as const) : ('CONTACT' as const),
      confidence: 'HIGH' as const,
      labelSource: 'MANUAL' as const,
      voiceMatchScore: null,
      voiceProfileMatched: null,
    })),
    segments,
    ...resolvedTwoSpeakers(),
    createdAt: recordedAt,
  };
}

/** The finalized action items of an outgoing call of these turns. */
export function itemsOf(turns: Turns, names: [string, string], recordedAt: string): AnalysisActionItem[] {
  const transcript = transcriptOf(turns, names, recordedAt);
  const ctx: AnalysisContext = { userDisplayName: names[0], contactName: names[1], phoneNumber: '+1 555 204 0000', direction: 'OUTGOING', recordedAt, title: null };
  return finalizeAnalysis(buildAnalysis(transcript, ctx), transcript).actionItems ?? [];
}

/** The meeting item a call yields (the test fails, listing the items, when there is none). */
export function meetingOf(turns: Turns, names: [string, string], recordedAt: string): AnalysisActionItem {
  const items = itemsOf(turns, names, recordedAt);
  const m = items.find((i) => i.intent === 'meeting');
  assert.ok(m, JSON.stringify(items.map((i) => [i.intent, i.title])));
  return m;
}

/** One sentence as the clause reader takes it (clausesOf). */
export const unit = (text: string) => ({ text, norm: text, plain: text.toLowerCase(), isQuestion: /\?$/.test(text), dates: [], past: false }) as unknown as Parameters<typeof clausesOf>[0];

/** The context of an incoming call from the contact to the user, recorded at `recordedAt`. */
export function incomingCallContext(names: [string, string], recordedAt: string): AnalysisContext {
  return { userDisplayName: names[0], contactName: names[1], phoneNumber: '+1 555 204 0000', direction: 'INCOMING', recordedAt, title: null };
}

/**
 * The finalized analysis of an incoming call of these turns, checked to hold no grounding violation;
 * with `runOn`, the turns as an offline recogniser writes them (lower case, no punctuation).
 */
export function groundedAnalysis(turns: Turns, names: [string, string], recordedAt: string, runOn = false): { transcript: Transcript; raw: ReturnType<typeof finalizeAnalysis> } {
  const written = transcriptOf(turns, names, recordedAt);
  const transcript: Transcript = runOn ? { ...written, segments: written.segments.map((s) => ({ ...s, text: s.text.toLowerCase().replace(/[.,?!]/g, '') })) } : written;
  const ctx = incomingCallContext(names, recordedAt);
  const raw = finalizeAnalysis(buildAnalysis(transcript, ctx), transcript);
  assert.deepEqual(groundingViolations(raw, transcript, ctx), []);
  return { transcript, raw };
}

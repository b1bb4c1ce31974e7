// The transcript resource (spec: Transcript, schemaVersion 2). The schemas serve three purposes:
// the TypeScript types used across the pipeline, validation before a transcript is stored, and the
// response schema of GET /api/calls/{id}/transcript.
import { Type, type Static } from '@sinclair/typebox';
import './formats.js';
import { LiteralUnion } from './literal-union.js';

export const TRANSCRIPT_SCHEMA_VERSION = 2;
export const NORMALIZATION_VERSION = 3;
export const STRATEGY_VERSION = 2;

export const SpeakerRole = Type.Union([Type.Literal('USER'), Type.Literal('CONTACT'), Type.Literal('UNKNOWN')]);
export type SpeakerRole = Static<typeof SpeakerRole>;

export const Confidence = Type.Union([Type.Literal('HIGH'), Type.Literal('MEDIUM'), Type.Literal('LOW')]);
export type Confidence = Static<typeof Confidence>;

export const LABEL_SOURCES = [
  'DIARIZATION',
  'USER_PROFILE',
  'CONTACT_METADATA',
  'GREETING_MATCH',
  'NAME_MENTION',
  'BY_ELIMINATION',
  'PHONE_FALLBACK',
  'POSITIONAL_FALLBACK',
  'VOICE_EMBEDDING',
  'AMBIGUOUS',
  'MANUAL',
] as const;
export const LabelSource = LiteralUnion(LABEL_SOURCES);
export type LabelSource = (typeof LABEL_SOURCES)[number];

export const RESOLUTION_WARNINGS = [
  'speaker_roles_unresolved',
  'speaker_identity_ambiguous',
  'answering_pattern_used',
] as const;

/** Values of speakerResolution.voiceMatchStatus; documented in the OpenAPI description. */
export const VOICE_MATCH_STATUSES = ['DISABLED', 'NO_PROFILE', 'MATCHED', 'NO_MATCH', 'ERROR'] as const;
export type VoiceMatchStatus = (typeof VOICE_MATCH_STATUSES)[number];

export const TranscriptSpeaker = Type.Object({
  speakerId: Type.String({ pattern: '^spk_[0-9]+$' }),
  sourceSpeakerId: Type.String(),
  label: Type.String(),
  displayName: Type.String(),
  role: SpeakerRole,
  confidence: Confidence,
  labelSource: LabelSource,
  voiceMatchScore: Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()]),
  voiceProfileMatched: Type.Union([Type.Boolean(), Type.Null()]),
});
export type TranscriptSpeaker = Static<typeof TranscriptSpeaker>;

export const TranscriptSegment = Type.Object({
  id: Type.String({ pattern: '^seg_[0-9]{4,}$' }),
  speaker: Type.String(),
  speakerLabel: Type.String(),
  speakerDisplayName: Type.String(),
  speakerId: Type.String(),
  sourceSpeakerId: Type.String(),
  role: SpeakerRole,
  startSeconds: Type.Number({ minimum: 0 }),
  endSeconds: Type.Number({ minimum: 0 }),
  text: Type.String(),
  alignmentConfidence: Type.String(),
});
export type TranscriptSegment = Static<typeof TranscriptSegment>;

export const SpeakerResolutionInfo = Type.Object({
  strategyVersion: Type.Integer(),
  usedUserDisplayName: Type.Boolean(),
  usedContactName: Type.Boolean(),
  usedDirection: Type.Boolean(),
  usedPhoneFallback: Type.Boolean(),
  voiceEmbeddingEnabled: Type.Boolean(),
  voiceProfileUsed: Type.Boolean(),
  voiceMatchStatus: Type.String(),
  totalSpeakerCount: Type.Integer({ minimum: 0 }),
  resolvedSpeakerCount: Type.Integer({ minimum: 0 }),
  warnings: Type.Array(Type.String()),
});
export type SpeakerResolutionInfo = Static<typeof SpeakerResolutionInfo>;

export const PipelineInfo = Type.Object({
  transcriptionProvider: Type.String(),
  transcriptionModel: Type.String(),
  diarizationProvider: Type.String(),
  diarizationModel: Type.String(),
  alignmentVersion: Type.String(),
  normalizationVersion: Type.Integer(),
  status: Type.String(),
});
export type PipelineInfo = Static<typeof PipelineInfo>;

export const Transcript = Type.Object({
  schemaVersion: Type.Integer(),
  callId: Type.String({ format: 'uuid' }),
  language: Type.String(),
  durationSeconds: Type.Integer({ minimum: 0 }),
  cleanText: Type.String(),
  speakers: Type.Array(TranscriptSpeaker),
  segments: Type.Array(TranscriptSegment),
  speakerResolution: SpeakerResolutionInfo,
  pipeline: PipelineInfo,
  createdAt: Type.String({ format: 'date-time' }),
  /**
   * Problems found while building the transcript (not in the spec's field list; documented in the
   * OpenAPI description): `word_times_adjusted`, `word_times_unverified`. Older transcripts lack it.
   */
  qualityWarnings: Type.Optional(Type.Array(Type.String())),
});
export type Transcript = Static<typeof Transcript>;

/** `MM:SS` (or `HH:MM:SS` past one hour) as used in cleanText and summary bullets. */
export function formatClock(seconds: number): string {
  const total = Math.max(0, Math.floor(seconds));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const pad = (n: number) => String(n).padStart(2, '0');
  return h > 0 ? `${pad(h)}:${pad(m)}:${pad(s)}` : `${pad(m)}:${pad(s)}`;
}

/** The spec's cleanText line format: `[MM:SS - MM:SS] <speaker name>: <text>`. */
export function cleanTextOf(segments: Pick<TranscriptSegment, 'startSeconds' | 'endSeconds' | 'speakerDisplayName' | 'text'>[]): string {
  return segments
    .map((s) => `[${formatClock(s.startSeconds)} - ${formatClock(s.endSeconds)}] ${s.speakerDisplayName}: ${s.text}`)
    .join('\n');
}

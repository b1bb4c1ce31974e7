// The analysis resource (spec: Analysis, schemaVersion 3). Every field is optional and extra keys
// are allowed, as the spec says; the limits of the spec's Limits section are encoded here so that
// validation before storage enforces them.
import { Type, type Static } from '@sinclair/typebox';
import './formats.js';
import { ConversationMetrics } from './conversation-metrics.js';
import { LiteralUnion } from './literal-union.js';

export const ANALYSIS_SCHEMA_VERSION = 3;

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);
const SegmentIds = Type.Array(Type.String({ pattern: '^seg_[0-9]{4,}$' }));
const Importance = Type.Union([Type.Literal('low'), Type.Literal('medium'), Type.Literal('high')]);
const Role = Type.Union([Type.Literal('USER'), Type.Literal('CONTACT'), Type.Literal('UNKNOWN')]);
const Phase = Type.Union([Type.Literal('opening'), Type.Literal('middle'), Type.Literal('closing'), Type.Literal('followup')]);
const Overall = LiteralUnion(['positive', 'neutral', 'negative', 'mixed', 'unclear']);
const Score = Type.Union([Type.Number({ minimum: -1, maximum: 1 }), Type.Null()]);
const open = { additionalProperties: true } as const;

export const CALL_TYPES = ['personal', 'business', 'sales', 'support', 'interview', 'finance', 'healthcare', 'legal', 'education', 'unknown', 'other'] as const;
export const INTENTS = ['meeting', 'email', 'call', 'message', 'reminder', 'task', 'none'] as const;
export type Intent = (typeof INTENTS)[number];
export const PROVIDER_HINTS = ['meet', 'zoom', 'teams', 'phone', 'whatsapp', 'sms', 'telegram'] as const;
export const CHANNELS = ['whatsapp', 'sms', 'telegram'] as const;

export const IntentMetadata = Type.Object(
  {
    providerHint: Type.Optional(Type.Union([...PROVIDER_HINTS.map((v) => Type.Literal(v)), Type.Null()])),
    attendees: Type.Optional(Type.Union([Type.Array(Type.Object({ name: Type.String(), email: Type.Optional(Nullable(Type.String())) }, open)), Type.Null()])),
    proposedAt: Type.Optional(Nullable(Type.String())),
    durationMinutes: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()])),
    title: Type.Optional(Nullable(Type.String())),
    location: Type.Optional(Nullable(Type.String())),
    toEmail: Type.Optional(Nullable(Type.String())),
    toName: Type.Optional(Nullable(Type.String())),
    subject: Type.Optional(Nullable(Type.String())),
    bodyPreview: Type.Optional(Nullable(Type.String())),
    phoneNumber: Type.Optional(Nullable(Type.String())),
    contactName: Type.Optional(Nullable(Type.String())),
    channel: Type.Optional(Type.Union([...CHANNELS.map((v) => Type.Literal(v)), Type.Null()])),
    handle: Type.Optional(Nullable(Type.String())),
    remindAt: Type.Optional(Nullable(Type.String())),
    notes: Type.Optional(Nullable(Type.String())),
  },
  open,
);
export type IntentMetadata = Static<typeof IntentMetadata>;

export const AnalysisActionItem = Type.Object(
  {
    title: Type.String(),
    description: Type.Optional(Nullable(Type.String())),
    ownerSpeaker: Type.Optional(Nullable(Type.String())),
    ownerSpeakerId: Type.Optional(Nullable(Type.String())),
    ownerSpeakerLabel: Type.Optional(Nullable(Type.String())),
    ownerDisplayName: Type.Optional(Nullable(Type.String())),
    ownerRole: Type.Optional(Role),
    dueDate: Type.Optional(Nullable(Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' }))),
    priority: Type.Optional(Importance),
    sourceSegmentIds: Type.Optional(SegmentIds),
    intent: Type.Optional(LiteralUnion(INTENTS)),
    intentMetadata: Type.Optional(Type.Union([IntentMetadata, Type.Null()])),
  },
  open,
);
export type AnalysisActionItem = Static<typeof AnalysisActionItem>;

export const SummaryBullet = Type.Object(
  {
    header: Type.String(),
    startTimestamp: Type.String({ pattern: '^(\\d{2}:)?\\d{2}:\\d{2}$' }),
    paragraphs: Type.Array(Type.String()),
  },
  open,
);

export const SectionItem = Type.Object(
  { text: Type.String(), importance: Importance, speaker: Type.Optional(Nullable(Type.String())), sourceSegmentIds: SegmentIds },
  open,
);
export const Section = Type.Object(
  { id: Type.String(), title: Type.String(), type: Type.String(), summary: Type.String(), items: Type.Array(SectionItem) },
  open,
);
export type Section = Static<typeof Section>;

export const DiscussionPoint = Type.Object(
  {
    text: Type.String(),
    topic: Type.Optional(Type.String()),
    phase: Type.Optional(Phase),
    speakerId: Type.Optional(Nullable(Type.String())),
    speakerLabel: Type.Optional(Nullable(Type.String())),
    speakerDisplayName: Type.Optional(Nullable(Type.String())),
    speakerRole: Type.Optional(Role),
    importance: Type.Optional(Importance),
    sourceSegmentIds: Type.Optional(SegmentIds),
  },
  open,
);

export const NextStep = Type.Object(
  { text: Type.String(), ownerSpeaker: Nullable(Type.String()), when: Nullable(Type.String()), sourceSegmentIds: SegmentIds },
  open,
);

const SpeakerSentiment = Type.Object({ overall: Overall, score: Score, notes: Type.Optional(Type.String()) }, open);
export const Sentiment = Type.Object(
  {
    overall: Overall,
    score: Type.Optional(Score),
    reason: Type.Optional(Type.String()),
    userSentiment: Type.Optional(SpeakerSentiment),
    contactSentiment: Type.Optional(SpeakerSentiment),
    progression: Type.Optional(
      Type.Array(
        Type.Object({ phase: Phase, overall: Overall, note: Type.String(), sourceSegmentIds: SegmentIds }, open),
        { minItems: 2, maxItems: 4 },
      ),
    ),
    emotionalSignals: Type.Optional(Type.Array(Type.String(), { maxItems: 6 })),
  },
  open,
);

const PartyTone = Type.Object(
  { overall: Type.String(), descriptors: Type.Array(Type.String()), notes: Type.Optional(Type.String()) },
  open,
);
export const Tone = Type.Object(
  {
    overall: Type.String(),
    descriptors: Type.Array(Type.String(), { minItems: 1, maxItems: 4 }),
    formality: Type.Union([Type.Literal('formal'), Type.Literal('semi-formal'), Type.Literal('informal')]),
    energy: Type.Union([Type.Literal('low'), Type.Literal('medium'), Type.Literal('high')]),
    pace: Type.Union([Type.Literal('slow'), Type.Literal('normal'), Type.Literal('fast')]),
    notes: Type.Optional(Type.String()),
    byParty: Type.Optional(Type.Object({ userTone: Type.Optional(PartyTone), contactTone: Type.Optional(PartyTone) }, open)),
  },
  open,
);

const Loose = Type.Array(Type.Unknown());

/** Analysis schemaVersion 3 as produced by this service. */
export const Analysis = Type.Object(
  {
    schemaVersion: Type.Integer(),
    callType: Type.Optional(LiteralUnion(CALL_TYPES)),
    suggestedTitle: Type.Optional(Type.String()),
    oneLineSummary: Type.Optional(Type.String()),
    executiveSummary: Type.Optional(Type.String()),
    executiveSummaryBullets: Type.Optional(Type.Array(SummaryBullet, { minItems: 3, maxItems: 6 })),
    conversationOutcome: Type.Optional(Type.String()),
    sections: Type.Optional(Type.Array(Section)),
    keyDiscussionPoints: Type.Optional(Type.Array(DiscussionPoint)),
    actionItems: Type.Optional(Type.Array(AnalysisActionItem)),
    nextSteps: Type.Optional(Type.Array(NextStep)),
    followUps: Type.Optional(Loose),
    importantDates: Type.Optional(Loose),
    decisions: Type.Optional(Loose),
    commitments: Type.Optional(Loose),
    openQuestions: Type.Optional(Loose),
    risks: Type.Optional(Loose),
    opportunities: Type.Optional(Loose),
    peopleMentioned: Type.Optional(Loose),
    numbersAndAmounts: Type.Optional(Loose),
    sentiment: Type.Optional(Sentiment),
    tone: Type.Optional(Tone),
    tags: Type.Optional(Type.Array(Type.String())),
    qualityWarnings: Type.Optional(Type.Array(Type.String())),
    shortSummary: Type.Optional(Type.String()),
    detailedSummary: Type.Optional(Type.String()),
    keyPoints: Type.Optional(Type.Array(Type.String())),
    // Added by this service after the analyzer (finalizeAnalysis), never asked of a model.
    conversationMetrics: Type.Optional(ConversationMetrics),
  },
  open,
);
export type Analysis = Static<typeof Analysis>;

/** What the analyzer knows about the call besides its transcript. */
export interface AnalysisContext {
  /** The app user's display name (role USER). */
  userDisplayName: string | null;
  contactName: string | null;
  phoneNumber: string | null;
  direction: 'INCOMING' | 'OUTGOING' | null;
  /** ISO datetime; relative dates ("tomorrow at four") are resolved against it. */
  recordedAt: string;
  title: string | null;
}

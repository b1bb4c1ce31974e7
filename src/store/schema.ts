// Kysely table types. Columns are snake_case in SQL and camelCase here (CamelCasePlugin).
import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
type Json<T> = ColumnType<T, string | T, string | T>;

export type AccountStatus = 'ACTIVE' | 'SUSPENDED' | 'DISABLED';
export type Plan = 'FREE' | 'PRO';
export type CallStatus = 'QUEUED' | 'PROCESSING' | 'TRANSCRIBING' | 'ANALYZING' | 'COMPLETED' | 'FAILED';
export const ACTIVE_CALL_STATUSES: CallStatus[] = ['QUEUED', 'PROCESSING', 'TRANSCRIBING', 'ANALYZING'];
export type ActionItemStatus = 'OPEN' | 'IN_PROGRESS' | 'DONE' | 'DISMISSED';

export interface UsersTable {
  id: Generated<string>;
  externalUserId: string;
  email: string | null;
  displayName: string | null;
  photoUrl: string | null;
  createdAt: Generated<Date>;
  lastLoginAt: Timestamp;
  privacyPolicyVersion: string | null;
  privacyPolicyAcceptedAt: NullableTimestamp;
  termsVersion: string | null;
  termsAcceptedAt: NullableTimestamp;
  callRecordingDisclaimerVersion: string | null;
  callRecordingDisclaimerAcceptedAt: NullableTimestamp;
  marketingOptIn: Generated<boolean>;
  marketingOptInAt: NullableTimestamp;
  plan: Generated<Plan>;
  plansIntroShownAt: NullableTimestamp;
  accountStatus: Generated<AccountStatus>;
  accountStatusReason: string | null;
  topupMinutesBalance: Generated<number>;
  topupTranscriptsBalance: Generated<number>;
  /** Media session cookies of an older generation are refused (migration 013). */
  mediaSessionGeneration: Generated<number>;
}

export interface ContactsTable {
  id: Generated<string>;
  userId: string;
  name: string;
  phoneNumber: string | null;
  email: string | null;
  notes: string | null;
  createdAt: Generated<Date>;
  updatedAt: Timestamp;
}

export interface CallsTable {
  id: Generated<string>;
  userId: string;
  status: Generated<CallStatus>;
  title: string | null;
  uploadTitle: string | null;
  suggestedTitle: string | null;
  direction: string | null;
  contactName: string | null;
  legacyContactId: string | null;
  phoneNumber: string | null;
  organization: string | null;
  durationSeconds: number | null;
  recordedAt: NullableTimestamp;
  createdAt: Generated<Date>;
  updatedAt: Timestamp;
  completedAt: NullableTimestamp;
  errorReason: string | null;
  summary: string | null;
  summaryEdited: Generated<boolean>;
  notes: string | null;
  serviceContactId: string | null;
  audioKey: string | null;
  audioFormat: string | null;
  audioBytes: ColumnType<number, number | undefined, number>;
  attempts: Generated<number>;
  idempotencyKey: string | null;
  /** Writes of a corrected transcript (migration 008). */
  transcriptRevision: Generated<number>;
  /** The transcript revision waiting for its analysis; null when none is pending. */
  analysisRequestedRevision: number | null;
}

export interface CallArtifactsTable {
  callId: string;
  userId: string;
  kind: 'transcript' | 'analysis';
  schemaVersion: number;
  body: Json<unknown>;
  createdAt: Generated<Date>;
}

export interface ActionItemsTable {
  id: Generated<string>;
  userId: string;
  callId: string;
  title: string;
  description: string | null;
  dueDate: ColumnType<string | null, string | null | undefined, string | null>;
  status: Generated<ActionItemStatus>;
  sourceText: string | null;
  createdAt: Generated<Date>;
  updatedAt: Timestamp;
  completedAt: NullableTimestamp;
  ownerSpeakerId: string | null;
  ownerSpeakerLabel: string | null;
  ownerDisplayName: string | null;
  ownerRole: string | null;
  sourceSegmentIds: Json<string[]>;
  intent: string | null;
  intentMetadata: Json<Record<string, unknown> | null>;
  priority: 'LOW' | 'MEDIUM' | 'HIGH' | null;
  source: 'AI' | 'MANUAL' | null;
  position: Generated<number>;
  /** Content fingerprint of the analysis item an AI row was made from. */
  aiFingerprint: string | null;
  /** Set when the user changed the item (PUT, status); a re-analysis keeps such items. */
  userEditedAt: NullableTimestamp;
}

export interface ActionItemTombstonesTable {
  callId: string;
  userId: string;
  fingerprint: string;
  sourceKey: string | null;
  deletedAt: Generated<Date>;
}

export interface ProcessingEventsTable {
  id: Generated<string>;
  callId: string;
  userId: string;
  step: string;
  outcome: string;
  detail: Json<Record<string, unknown> | null>;
  createdAt: Generated<Date>;
}

/** Per-call pipeline stage state (migration 010, src/store/repos/call-stages.ts). */
export interface CallStagesTable {
  callId: string;
  userId: string;
  stage: string;
  attempt: Generated<number>;
  outcome: 'RUNNING' | 'COMPLETED' | 'FAILED';
  startedAt: Generated<Date>;
  finishedAt: Date | null;
  updatedAt: Generated<Date>;
  progress: number | null;
  detail: Json<Record<string, unknown> | null>;
  output: Json<unknown>;
}

export interface VoiceProfilesTable {
  userId: string;
  status: Generated<string>;
  provider: string;
  consentVersion: string;
  embedding: Buffer;
  sampleDurationSeconds: number;
  createdAt: Generated<Date>;
  updatedAt: Timestamp;
}

export interface FeatureFlagsTable {
  flagKey: string;
  enabled: Generated<boolean>;
  updatedAt: NullableTimestamp;
  updatedBy: string | null;
}

export interface AuditLogTable {
  id: Generated<string>;
  actorEmail: string;
  action: 'FLAG_TOGGLE' | 'CREDIT_GRANT' | 'ACCOUNT_STATUS_CHANGE' | 'PLAN_CHANGE';
  targetType: 'feature_flag' | 'user';
  targetId: string;
  details: string;
  createdAt: Generated<Date>;
}

export interface IdempotencyKeysTable {
  userId: string;
  key: string;
  requestHash: string;
  state: 'IN_PROGRESS' | 'DONE';
  responseStatus: number | null;
  responseBody: Json<unknown>;
  createdAt: Generated<Date>;
  expiresAt: Timestamp;
}

export interface UsageLedgerTable {
  id: Generated<number>;
  userId: string;
  callId: string | null;
  bytes: number;
  durationSeconds: number | null;
  createdAt: Generated<Date>;
}

export interface WebhookEndpointsTable {
  id: Generated<string>;
  userId: string;
  url: string;
  events: string[];
  description: string | null;
  secret: string;
  createdAt: Generated<Date>;
}

/** One attempt of a webhook delivery, as kept in the delivery log. */
export interface WebhookAttempt {
  at: string;
  statusCode: number | null;
  /** A short fixed reason (`timeout`, `network_error`, `blocked_address`, `http_500`...), never a response body. */
  error: string | null;
  durationMs: number;
}

export interface WebhookDeliveriesTable {
  id: Generated<string>;
  endpointId: string;
  userId: string;
  callId: string | null;
  event: string;
  payload: string;
  status: Generated<'PENDING' | 'SUCCEEDED' | 'FAILED'>;
  attempts: ColumnType<WebhookAttempt[], string | undefined, string>;
  createdAt: Generated<Date>;
  updatedAt: Timestamp;
  deliveredAt: NullableTimestamp;
}

/** Per call: its action-item count and first open title, kept by a trigger on action_items (migration 004); read by the call list only. */
export interface CallActionSummariesTable {
  callId: string;
  userId: string;
  itemCount: number;
  firstOpenTitle: string | null;
}

export interface ServiceSecretsTable {
  name: string;
  secret: Buffer;
  createdAt: ColumnType<Date, never, never>;
}

export interface Database {
  serviceSecrets: ServiceSecretsTable;
  webhookEndpoints: WebhookEndpointsTable;
  webhookDeliveries: WebhookDeliveriesTable;
  usageLedger: UsageLedgerTable;
  users: UsersTable;
  contacts: ContactsTable;
  calls: CallsTable;
  callArtifacts: CallArtifactsTable;
  actionItems: ActionItemsTable;
  actionItemTombstones: ActionItemTombstonesTable;
  callActionSummaries: CallActionSummariesTable;
  processingEvents: ProcessingEventsTable;
  callStages: CallStagesTable;
  voiceProfiles: VoiceProfilesTable;
  featureFlags: FeatureFlagsTable;
  auditLog: AuditLogTable;
  idempotencyKeys: IdempotencyKeysTable;
  serviceIdentity: ServiceIdentityTable;
  uploadsInFlight: UploadsInFlightTable;
  voiceEnrolmentAttempts: VoiceEnrolmentAttemptsTable;
}

/** One row: the random id of this database, to which the blob store is bound (migration 009). */
export interface ServiceIdentityTable {
  singleton: Generated<boolean>;
  databaseId: Generated<string>;
  createdAt: Generated<Date>;
}

/** An upload whose body is still arriving; counted by the per-user cap on uploads in flight. */
export interface UploadsInFlightTable {
  id: string;
  userId: string;
  startedAt: Generated<Date>;
  expiresAt: Date;
}

/** A voice sample that reached decoding; counted by the per-user enrolment rate limit (migration 012). */
export interface VoiceEnrolmentAttemptsTable {
  id: Generated<string>;
  userId: string;
  attemptedAt: Generated<Date>;
}

export type User = Selectable<UsersTable>;
export type Contact = Selectable<ContactsTable>;
export type Call = Selectable<CallsTable>;
export type NewCall = Insertable<CallsTable>;
export type CallUpdate = Updateable<CallsTable>;
export type ActionItem = Selectable<ActionItemsTable>;
export type FeatureFlag = Selectable<FeatureFlagsTable>;
export type AuditEntry = Selectable<AuditLogTable>;
export type WebhookEndpoint = Selectable<WebhookEndpointsTable>;
export type WebhookDelivery = Selectable<WebhookDeliveriesTable>;

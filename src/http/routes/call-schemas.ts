// Call schemas shared by the call routes and the routes that answer with a call detail.
import { Type } from '@sinclair/typebox';
import { DateTime, Nullable, Uuid, LiteralUnion } from '../schemas.js';
import { PROGRESS_STAGES } from '../../domain/calls.js';

export const CALL_STATUSES = ['QUEUED', 'PROCESSING', 'TRANSCRIBING', 'ANALYZING', 'COMPLETED', 'FAILED'] as const;
export const CallStatusSchema = LiteralUnion(CALL_STATUSES);

export const CallDetailSchema = Type.Object(
  {
    callId: Uuid,
    title: Nullable(Type.String()),
    status: CallStatusSchema,
    direction: Nullable(Type.String()),
    contactName: Nullable(Type.String()),
    phoneNumber: Nullable(Type.String()),
    durationSeconds: Nullable(Type.Integer()),
    recordedAt: Nullable(DateTime),
    createdAt: DateTime,
    errorReason: Nullable(Type.String()),
    summary: Type.Optional(Nullable(Type.String())),
    notes: Type.Optional(Nullable(Type.String())),
    serviceContactId: Type.Optional(Nullable(Uuid)),
    progress: Type.Optional(
      Type.Object(
        {
          stage: LiteralUnion(PROGRESS_STAGES, { description: 'The stage running now.' }),
          percent: Nullable(Type.Integer({ minimum: 0, maximum: 100, description: 'Share of the stage done; null for stages that do not report it. Recognition through an OpenAI-compatible provider reports the share of audio recognised; analysis in parts the share of parts analysed.' })),
          updatedAt: DateTime,
        },
        { description: 'Progress of a call being processed (status PROCESSING, TRANSCRIBING or ANALYZING), for a progress bar; absent otherwise and in the answers of edits.' },
      ),
    ),
    analysisPending: Type.Optional(
      Type.Literal(true, {
        description: 'Present (true) on a COMPLETED call while the analysis of its corrected transcript (PATCH /api/calls/{id}/speakers) is queued or running; absent otherwise. Until it is stored, the analysis, title, summary and action items are those of the previous analysis.',
      }),
    ),
  },
  { description: 'Call detail. Besides the specification\'s fields it returns summary, notes and serviceContactId, so an edit is visible in its response, and, while the call is processed, progress.' },
);

export const CallListItemSchema = Type.Object({
  callId: Uuid,
  title: Nullable(Type.String()),
  contactName: Nullable(Type.String()),
  direction: Nullable(Type.String()),
  status: CallStatusSchema,
  durationSeconds: Nullable(Type.Integer()),
  createdAt: DateTime,
  actionItemCount: Type.Integer(),
  firstActionTitle: Nullable(Type.String()),
});

export const CallIdParams = Type.Object({ id: Uuid });

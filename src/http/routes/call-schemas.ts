// Call schemas shared by the call routes and the routes that answer with a call detail.
import { Type } from '@sinclair/typebox';
import { DateTime, Nullable, Uuid } from '../schemas.js';

export const CALL_STATUSES = ['QUEUED', 'PROCESSING', 'TRANSCRIBING', 'ANALYZING', 'COMPLETED', 'FAILED'] as const;
export const CallStatusSchema = Type.Union(CALL_STATUSES.map((s) => Type.Literal(s)));

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
  },
  { description: 'Call detail. Besides the specification\'s fields it returns summary, notes and serviceContactId, so an edit is visible in its response.' },
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

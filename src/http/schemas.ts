// Response and request schemas shared by several route files. They drive validation,
// serialisation and the OpenAPI document, so the field names here are the spec's, exactly.
import { Type, type TSchema } from '@sinclair/typebox';

export const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
export const DateTime = Type.String({ format: 'date-time' });
export const Uuid = Type.String({ format: 'uuid' });
export const DateOnly = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'YYYY-MM-DD' });

export const ErrorBody = Type.Object(
  {
    error: Type.Object({
      code: Type.String(),
      message: Type.String(),
      details: Type.Optional(Type.Object({}, { additionalProperties: true })),
    }),
  },
  { $id: 'ErrorBody', description: 'The error body of every failed request.' },
);

/** Error responses of a route, for the OpenAPI document. */
export function errorResponses(...statuses: number[]): Record<number, TSchema> {
  const out: Record<number, TSchema> = {};
  for (const s of statuses) out[s] = Type.Ref('ErrorBody');
  return out;
}

export const IdParams = Type.Object({ id: Uuid });

export const UserProfile = Type.Object({
  id: Uuid,
  externalUserId: Type.String(),
  email: Nullable(Type.String()),
  displayName: Nullable(Type.String()),
  photoUrl: Nullable(Type.String()),
  createdAt: DateTime,
  lastLoginAt: DateTime,
  privacyPolicyVersion: Nullable(Type.String()),
  termsVersion: Nullable(Type.String()),
  callRecordingDisclaimerVersion: Nullable(Type.String()),
  privacyPolicyAcceptedAt: Nullable(DateTime),
  termsAcceptedAt: Nullable(DateTime),
  callRecordingDisclaimerAcceptedAt: Nullable(DateTime),
  marketingOptIn: Type.Boolean(),
  marketingOptInAt: Nullable(DateTime),
  plan: Type.Union([Type.Literal('FREE'), Type.Literal('PRO')]),
  plansIntroShownAt: Nullable(DateTime),
  isAdmin: Type.Boolean(),
  accountStatus: Type.Union([Type.Literal('ACTIVE'), Type.Literal('SUSPENDED'), Type.Literal('DISABLED')]),
  accountStatusReason: Nullable(Type.String()),
});

export const UsageLimitsSchema = Type.Object(
  {
    maxUploadsPerHour: Type.Integer(),
    uploadsThisHour: Type.Integer(),
    maxConcurrentActiveCalls: Type.Integer(),
    activeCalls: Type.Integer(),
    maxMonthlyUploadBytes: Type.Integer(),
    uploadedBytesThisMonth: Type.Integer(),
    plan: Type.Union([Type.Literal('FREE'), Type.Literal('PRO')]),
    minutesUsedThisPeriod: Type.Integer(),
    minutesLimit: Type.Integer(),
    transcriptsToday: Nullable(Type.Integer()),
    dailyTranscriptLimit: Nullable(Type.Integer()),
    topupMinutesBalance: Type.Integer(),
    topupTranscriptsBalance: Type.Integer(),
  },
  { description: 'UploadLimitsResponse: the usage limits of an account and its current usage.' },
);

export const AdminUserSummary = Type.Object({
  id: Uuid,
  email: Nullable(Type.String()),
  displayName: Nullable(Type.String()),
  plan: Type.Union([Type.Literal('FREE'), Type.Literal('PRO')]),
  accountStatus: Type.Union([Type.Literal('ACTIVE'), Type.Literal('SUSPENDED'), Type.Literal('DISABLED')]),
  accountStatusReason: Nullable(Type.String()),
  topupMinutesBalance: Type.Integer(),
  topupTranscriptsBalance: Type.Integer(),
  createdAt: DateTime,
  lastLoginAt: DateTime,
});

export function PageEnvelope<T extends TSchema>(item: T) {
  return Type.Object({
    content: Type.Array(item),
    totalElements: Type.Integer(),
    totalPages: Type.Integer(),
    number: Type.Integer(),
    size: Type.Integer(),
    numberOfElements: Type.Integer(),
    first: Type.Boolean(),
    last: Type.Boolean(),
    empty: Type.Boolean(),
    pageable: Type.Object({
      pageNumber: Type.Integer(),
      pageSize: Type.Integer(),
      offset: Type.Integer(),
      paged: Type.Boolean(),
      unpaged: Type.Boolean(),
      sort: Type.Object({ sorted: Type.Boolean(), unsorted: Type.Boolean(), empty: Type.Boolean() }),
    }),
    sort: Type.Object({ sorted: Type.Boolean(), unsorted: Type.Boolean(), empty: Type.Boolean() }),
  });
}

/** The Spring-style page envelope the spec's admin lists use. */
export function pageOf<T>(content: T[], total: number, page: number, size: number) {
  const totalPages = size > 0 ? Math.ceil(total / size) : 0;
  const sort = { sorted: true, unsorted: false, empty: false };
  return {
    content,
    totalElements: total,
    totalPages,
    number: page,
    size,
    numberOfElements: content.length,
    first: page === 0,
    last: page >= totalPages - 1,
    empty: content.length === 0,
    pageable: { pageNumber: page, pageSize: size, offset: page * size, paged: true, unpaged: false, sort },
    sort,
  };
}

export const PageQuery = Type.Object({
  // Bounded so the row offset stays a valid SQL bigint: a page beyond it is a 400, never a 500.
  page: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 })),
  size: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 50, description: 'Clamped to 200.' })),
});

export { LiteralUnion } from '../domain/literal-union.js';

// The single catalogue of error codes. Every error the service answers comes from here, so a code
// always has the same status and the messages are fixed strings without personal data.

export const ErrorCode = {
  // the spec's codes
  ValidationFailed: 'validation_failed',
  AuthMissing: 'auth_missing',
  AuthInvalid: 'auth_invalid',
  AuthDisabled: 'auth_disabled',
  AccountSuspended: 'ACCOUNT_SUSPENDED',
  AccountDisabled: 'ACCOUNT_DISABLED',
  PayloadTooLarge: 'payload_too_large',
  UnsupportedMediaType: 'unsupported_media_type',
  CallNotFound: 'call_not_found',
  CallNotCompleted: 'call_not_completed',
  FeatureNotAvailable: 'feature_not_available',
  VoiceSampleTooShort: 'voice_sample_too_short',
  VoiceSampleTooLong: 'voice_sample_too_long',
  VoiceSampleTooLarge: 'voice_sample_too_large',
  VoiceProviderError: 'voice_provider_error',
  VoiceProfileNotFound: 'voice_profile_not_found',
  // this implementation's codes where the spec names a status only
  NotFound: 'not_found',
  ContactNotFound: 'contact_not_found',
  ActionItemNotFound: 'action_item_not_found',
  UserNotFound: 'user_not_found',
  FlagNotFound: 'feature_flag_not_found',
  ApiKeyInvalid: 'api_key_invalid',
  CallNotReanalyzable: 'call_not_reanalyzable',
  WebhookNotFound: 'webhook_not_found',
  SpeakerCorrectionNotApplicable: 'speaker_correction_not_applicable',
  WebhookLimitReached: 'webhook_limit_reached',
  ActionItemLimitReached: 'action_item_limit_reached',
  IdempotencyInProgress: 'idempotency_request_in_progress',
  IdempotencyKeyReused: 'idempotency_key_reused',
  UploadRateLimited: 'upload_rate_limited',
  ConcurrentCallsLimit: 'concurrent_calls_limit',
  MonthlyUploadBytesLimit: 'monthly_upload_bytes_limit',
  PlanMinutesLimit: 'plan_minutes_limit',
  PlanDailyTranscriptsLimit: 'plan_daily_transcripts_limit',
  UploadsInFlightLimit: 'uploads_in_flight_limit',
  VoiceEnrolmentRateLimited: 'voice_enrolment_rate_limited',
  UriTooLong: 'uri_too_long',
  RangeNotSatisfiable: 'range_not_satisfiable',
  WaveformNotFound: 'waveform_not_found',
  RequestHeadersTooLarge: 'request_headers_too_large',
  RequestTimeout: 'request_timeout',
  StorageUnavailable: 'storage_unavailable',
  ServiceUnavailable: 'service_unavailable',
  InternalError: 'internal_error',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

interface CatalogueEntry {
  status: number;
  message: string;
}

const catalogue: Record<ErrorCode, CatalogueEntry> = {
  validation_failed: { status: 400, message: 'The request is invalid.' },
  auth_missing: { status: 401, message: 'Authentication is required.' },
  auth_invalid: { status: 401, message: 'The access token is invalid or expired.' },
  auth_disabled: { status: 403, message: 'This account is disabled at the identity provider.' },
  ACCOUNT_SUSPENDED: { status: 403, message: 'This account is suspended.' },
  ACCOUNT_DISABLED: { status: 403, message: 'This account is disabled.' },
  payload_too_large: { status: 413, message: 'The uploaded file is too large.' },
  unsupported_media_type: { status: 415, message: 'The audio format is not supported.' },
  call_not_found: { status: 404, message: 'Call not found.' },
  call_not_completed: { status: 422, message: 'The call has not finished processing.' },
  feature_not_available: { status: 404, message: 'This feature is not available.' },
  voice_sample_too_short: { status: 400, message: 'The voice sample is too short.' },
  voice_sample_too_long: { status: 400, message: 'The voice sample is too long.' },
  voice_sample_too_large: { status: 413, message: 'The voice sample file is too large.' },
  voice_provider_error: { status: 502, message: 'The voice provider failed to process the sample.' },
  voice_profile_not_found: { status: 404, message: 'No voice profile exists.' },
  not_found: { status: 404, message: 'Not found.' },
  contact_not_found: { status: 404, message: 'Contact not found.' },
  action_item_not_found: { status: 404, message: 'Action item not found.' },
  user_not_found: { status: 404, message: 'User not found.' },
  feature_flag_not_found: { status: 404, message: 'Feature flag not found.' },
  api_key_invalid: { status: 401, message: 'A valid service API key is required.' },
  call_not_reanalyzable: { status: 409, message: 'Only a completed call can be re-analysed.' },
  webhook_not_found: { status: 404, message: 'Webhook endpoint not found.' },
  speaker_correction_not_applicable: { status: 422, message: 'The speaker correction does not apply to this transcript.' },
  webhook_limit_reached: { status: 422, message: 'The maximum number of webhook endpoints is reached.' },
  action_item_limit_reached: { status: 422, message: 'The maximum number of manual action items of this call is reached.' },
  idempotency_request_in_progress: { status: 409, message: 'A request with this Idempotency-Key is still being processed.' },
  idempotency_key_reused: { status: 422, message: 'This Idempotency-Key was used for a different request.' },
  upload_rate_limited: { status: 429, message: 'Too many uploads in the last hour.' },
  concurrent_calls_limit: { status: 429, message: 'Too many calls are still processing.' },
  monthly_upload_bytes_limit: { status: 429, message: 'The 30-day upload volume limit is reached.' },
  plan_minutes_limit: { status: 429, message: 'The plan minutes for the last 30 days are used up.' },
  plan_daily_transcripts_limit: { status: 429, message: 'The daily transcript limit of the plan is reached.' },
  range_not_satisfiable: { status: 416, message: 'The requested range is outside the file.' },
  waveform_not_found: { status: 404, message: 'No waveform is stored for this call.' },
  uploads_in_flight_limit: { status: 429, message: 'Too many uploads are in progress; wait for one to finish.' },
  voice_enrolment_rate_limited: { status: 429, message: 'Too many voice samples in the last hour.' },
  uri_too_long: { status: 414, message: 'The request path is too long.' },
  request_headers_too_large: { status: 431, message: 'The request headers are too large.' },
  request_timeout: { status: 408, message: 'The request was not received in time.' },
  storage_unavailable: { status: 503, message: 'Storage for recordings is temporarily unavailable; try again later.' },
  service_unavailable: { status: 503, message: 'The service is temporarily unavailable.' },
  internal_error: { status: 500, message: 'An unexpected error occurred.' },
};

export class ServiceError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    readonly details?: Record<string, unknown>,
    message?: string,
  ) {
    super(message ?? catalogue[code].message);
    this.name = 'ServiceError';
    this.status = catalogue[code].status;
  }

  toBody(): ErrorBody {
    return { error: { code: this.code, message: this.message, ...(this.details ? { details: this.details } : {}) } };
  }
}

export interface ErrorBody {
  error: { code: string; message: string; details?: Record<string, unknown> };
}

export function statusOf(code: ErrorCode): number {
  return catalogue[code].status;
}

export const errors = {
  validation: (details?: Record<string, unknown>, message?: string) => new ServiceError(ErrorCode.ValidationFailed, details, message),
  callNotFound: () => new ServiceError(ErrorCode.CallNotFound),
  callNotCompleted: (status: string) => new ServiceError(ErrorCode.CallNotCompleted, { status }),
  contactNotFound: () => new ServiceError(ErrorCode.ContactNotFound),
  actionItemNotFound: () => new ServiceError(ErrorCode.ActionItemNotFound),
  notFound: () => new ServiceError(ErrorCode.NotFound),
  featureNotAvailable: () => new ServiceError(ErrorCode.FeatureNotAvailable),
  of: (code: ErrorCode, details?: Record<string, unknown>, message?: string) => new ServiceError(code, details, message),
};

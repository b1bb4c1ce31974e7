// The prose part of the OpenAPI document: the choices this implementation makes where the
// interface specification is silent. Kept next to the code so it changes with it.
import type { Config } from '../config.js';

export function openApiDescription(config: Config): string {
  return `Turns recordings of two-party phone calls into speaker-attributed transcripts and structured analysis.

## Errors
Every error answers \`{"error": {"code", "message", "details"?}}\`. Codes beyond the specification's list:
\`not_found\` (unknown route, or a non-admin on an admin route, or any caller on the re-analysis route in production),
\`contact_not_found\`, \`action_item_not_found\`, \`user_not_found\`, \`feature_flag_not_found\` (404),
\`api_key_invalid\` (401), \`call_not_reanalyzable\` (409; \`details.status\` holds the call's status),
\`idempotency_request_in_progress\` (409), \`idempotency_key_reused\` (422), \`service_unavailable\` (503), \`internal_error\` (500).
Upload limits answer 429 with \`upload_rate_limited\`, \`concurrent_calls_limit\`, \`monthly_upload_bytes_limit\`,
\`plan_minutes_limit\` or \`plan_daily_transcripts_limit\`; \`details\` holds \`limit\` and \`current\`.
Validation failures list \`details.fields[]\` of \`{path, message}\`. A wrong HTTP method on a known path is answered like an unknown route (404 \`not_found\`).

## Idempotency
Every mutating request may carry \`Idempotency-Key\` (1-255 visible ASCII characters). The first response is stored per user and key for 24 hours and replayed on retry with the header \`Idempotent-Replayed: true\`.
A retry while the first request runs answers 409 \`idempotency_request_in_progress\`; the same key with another method, path or JSON body answers 422 \`idempotency_key_reused\`.
5xx, 409 and 429 responses are not stored, so the retry runs again. For uploads the key identifies the upload (file bytes are not compared), and the call records the key, so a retried upload always yields the same callId.

## Uploads
\`POST /api/calls/analyze\` takes the parts in any order. The \`metadata\` envelope is accepted in every form clients send it:
a field with \`Content-Type: application/json\` (any charset parameter; OkHttp/Retrofit, Alamofire, \`curl -F 'metadata=<m.json;type=application/json'\`),
a plain text field, or a file part holding JSON (a browser \`Blob\`, \`curl -F metadata=@m.json\`). Absent or empty means \`{}\`.
Metadata that is not a JSON object answers 400 \`validation_failed\` with \`details.fields[0].path\` \`/metadata\`; a bad field names it (\`/metadata/direction\`).
Text fields are kept as sent (outer whitespace trimmed; blank means absent); \`direction\` is INCOMING or OUTGOING (any case).
The envelope's \`title\` wins over a separate \`title\` part. The file part may omit its Content-Type and may name itself with \`filename*=\`: the content is sniffed.
A body that is not well-formed multipart (no boundary, bare LF line ends, cut off) answers 400 \`validation_failed\`.

## Call processing
Status moves QUEUED → PROCESSING (decoding) → TRANSCRIBING (recognition and speaker separation) → ANALYZING → COMPLETED, or FAILED.
\`errorReason\` of a FAILED call is one of: \`audio_undecodable\`, \`audio_too_long\`, \`audio_missing\`, \`no_speech_detected\`, \`transcription_failed\`,
\`transcription_provider_error\`, \`diarization_failed\`, \`analysis_failed\`, \`analysis_provider_error\`, \`internal_error\`.
Transient provider errors are retried with exponential backoff (${config.worker.retryLimit} retries) before the call fails.
\`GET /api/calls/status\` takes at most 100 ids; ids that are unknown, malformed or owned by another user are left out of \`items\` (no error, so existence is not revealed).
\`GET /api/calls\` lists newest first; its \`status\` filter also accepts PROCESSING and ANALYZING.
\`DELETE /api/calls\` takes at most 100 ids; \`failed\` holds \`{callId, reason}\` entries.

## Transcripts
\`segments[].alignmentConfidence\` is \`HIGH\`, \`MEDIUM\` or \`LOW\` from the recogniser's word confidences.
Word times are checked against the audio whatever the recogniser reports: every word lies inside [0, duration] and words keep the recogniser's order, so no segment ends after the recording ends; a word outside the speech the service's voice-activity detection found is moved into the speech between its well-placed neighbours.
\`qualityWarnings\` (an addition to the transcript; also merged into the analysis's \`qualityWarnings\`) says when that happened: \`word_times_adjusted\` (some words were re-timed into the speech), \`word_times_unverified\` (some words fit no speech and were only kept inside the audio and in order). Transcripts made before it lack the field.
\`speakerResolution.voiceMatchStatus\` is one of \`DISABLED\` (feature off), \`NO_PROFILE\` (the user has no voice profile), \`MATCHED\`, \`NO_MATCH\`, \`ERROR\` (the voice step failed; text-only resolution was used).

## Usage and plans
Usage guards count uploads (a ledger that deleting a call does not shrink): uploads in the last hour, calls in an active status, bytes in the last 30 days.
While \`billing_enabled\` is on, plan limits apply to uploads: minutes over the last 30 days (computed live) and, for FREE, transcripts per UTC day; when the plan allowance is spent, top-up balances are used (a transcript credit at upload, minutes once the call's duration is known).

## Action items
Action items are listed newest first. \`openActionItems\` in the statistics counts OPEN and IN_PROGRESS items.

## Authentication
${config.auth.projectId ? 'ID tokens are verified (RS256, audience and issuer checked).' : 'Local development mode: every request is the local user.'}
`;
}

// The prose part of the OpenAPI document: the choices this implementation makes where the
// interface specification is silent. Kept next to the code so it changes with it.
import type { Config } from '../config.js';
import { MIN_BYTES_PER_SECOND } from '../pipeline/audio/decode.js';
import { MAX_ID3_BYTES } from '../pipeline/audio/sniff.js';

export function openApiDescription(config: Config): string {
  return `Turns recordings of two-party phone calls into speaker-attributed transcripts and structured analysis.

## Errors
Every error answers \`{"error": {"code", "message", "details"?}}\`. Codes beyond the specification's list:
\`not_found\` (unknown route, or a non-admin on an admin route, or any caller on the re-analysis route in production),
\`contact_not_found\`, \`action_item_not_found\`, \`user_not_found\`, \`feature_flag_not_found\` (404),
\`api_key_invalid\` (401), \`call_not_reanalyzable\` (409; \`details.status\` holds the call's status),
\`webhook_not_found\` (404), \`webhook_limit_reached\` (422; \`details.limit\`), \`speaker_correction_not_applicable\` (422; \`details.operation\` and \`details.reason\`),
\`idempotency_request_in_progress\` (409), \`idempotency_key_reused\` (422), \`service_unavailable\` (503, the database is unreachable${config.databaseRequestStatementTimeoutMs > 0 ? `, or a statement of the request ran past the database time limit of ${config.databaseRequestStatementTimeoutMs / 1000} s and was cancelled; retry later` : ''}),
\`storage_unavailable\` (503: the recording could not be stored, the disk being full or read-only; nothing was created, retry later), \`uri_too_long\` (414),
\`request_headers_too_large\` (431), \`request_timeout\` (408), \`range_not_satisfiable\` (416, a call audio range past the end), \`waveform_not_found\` (404), \`internal_error\` (500).
Upload limits answer 429 with \`upload_rate_limited\`, \`concurrent_calls_limit\`, \`monthly_upload_bytes_limit\`,
\`plan_minutes_limit\`, \`plan_daily_transcripts_limit\` or \`uploads_in_flight_limit\`; \`details\` holds \`limit\` and \`current\`.
Voice enrolments (\`POST /api/users/me/voice-profile\`) past ${config.voice.maxEnrolmentsPerHour} samples decoded per user in a rolling hour answer 429 \`voice_enrolment_rate_limited\` (\`details\`: \`limit\`, \`current\`, \`windowSeconds\`); a \`SUSPENDED\` or \`DISABLED\` account gets the uploads' 403 \`ACCOUNT_SUSPENDED\`/\`ACCOUNT_DISABLED\` there too, with \`details.reason\`.
Validation failures list \`details.fields[]\` of \`{path, message}\`.
Text containing the NUL character (U+0000), which PostgreSQL cannot store, is rejected in every JSON body (values and keys), query string, path parameter and multipart text part with 400 \`validation_failed\` naming the field (\`body/name\`, \`querystring/status\`, \`/metadata/title\`); the value is never echoed. JSON nested deeper than 32 levels is 400 \`validation_failed\` as well. An empty body sent with \`Content-Type: application/json\` counts as no body (clients that set that header on every request send it with DELETE and body-less POSTs); a route that needs a body then answers 400 \`validation_failed\`. Admin paging takes \`page\` and \`size\` up to 1000000 (\`size\` is then clamped to 200).
A path parameter longer than 1024 characters answers 414 \`uri_too_long\` (a shorter malformed id is 400 \`validation_failed\`); a path that is not valid percent-encoding answers 400 \`validation_failed\`; both are answered before authentication.
Requests the HTTP parser rejects answer with the same error body before the connection closes: 400 \`validation_failed\` (not valid HTTP), 431 \`request_headers_too_large\`, 408 \`request_timeout\`. A wrong HTTP method on a known path is answered like an unknown route (404 \`not_found\`).

## Browsers: media and the console
The web console is served at \`/\` by the same process. Media elements cannot send an Authorization header, so \`POST /api/session\` exchanges the request's authentication for a short-lived, service-signed, HttpOnly, SameSite=Strict cookie that only \`GET /api/calls/{id}/audio\`, \`GET /api/calls/{id}/waveform\` and \`GET /api/calls/{id}/transcript\` accept in place of the header; every other route, and every write, still needs the header (so writes need no CSRF defence). The audio route honours single HTTP ranges (206, \`Content-Range\`; 416 past the end) and streams from the disk or the bucket; the waveform comes from peaks stored when the call was decoded.

## Idempotency
Every mutating request may carry \`Idempotency-Key\` (1-255 visible ASCII characters). The first response is stored per user and key for 24 hours and replayed on retry with the header \`Idempotent-Replayed: true\`.
A retry while the first request runs answers 409 \`idempotency_request_in_progress\`; the same key with another method, path or JSON body answers 422 \`idempotency_key_reused\`.
5xx, 409 and 429 responses are not stored, so the retry runs again. For uploads the key identifies the upload (file bytes are not compared), and the call records the key, so a retried upload always yields the same callId.
A webhook's signing secret is never stored with the response: the record of \`POST /api/webhooks\` keeps the body without \`secret\`, and a replay reads the secret from the endpoint (404 \`webhook_not_found\` once the endpoint is deleted).

## Uploads
\`POST /api/calls/analyze\` takes the parts in any order. The \`metadata\` envelope is accepted in every form clients send it:
a field with \`Content-Type: application/json\` (any charset parameter; OkHttp/Retrofit, Alamofire, \`curl -F 'metadata=<m.json;type=application/json'\`),
a plain text field, or a file part holding JSON (a browser \`Blob\`, \`curl -F metadata=@m.json\`). Absent or empty means \`{}\`.
Metadata that is not a JSON object answers 400 \`validation_failed\` with \`details.fields[0].path\` \`/metadata\`; a bad field names it (\`/metadata/direction\`).
Text fields are kept as sent (outer whitespace trimmed; blank means absent); \`direction\` is INCOMING or OUTGOING (any case).
The envelope's \`title\` wins over a separate \`title\` part. The file part may omit its Content-Type and may name itself with \`filename*=\`: the content is sniffed.
A body that is not well-formed multipart (no boundary, bare LF line ends, cut off) answers 400 \`validation_failed\`.
Audio (calls and voice samples) is accepted on what its bytes are: behind a leading ID3 tag (at most ${MAX_ID3_BYTES} bytes) MPEG audio or ADTS frames must follow; a playlist (HLS), an ffconcat script, an SDP description or text behind it answers 415 \`unsupported_media_type\`. The service decodes only the uploaded bytes, never files or addresses a file names.
Uploads in flight: a user may have ${config.uploads.maxInFlight} uploads whose body is still arriving, across all processes of the service; one more answers 429 \`uploads_in_flight_limit\` before its body is read (\`details.limit\`, \`details.current\`).
An upload body that sends nothing for ${config.uploads.idleTimeoutSeconds} s, or is not complete ${config.uploads.timeoutSeconds} s after it started, answers 408 \`request_timeout\` (\`details.limit\` \`idle\` or \`total\`, \`details.timeoutSeconds\`) and the connection is closed; nothing of it is stored (the voice-profile sample has the same two limits). An upload refused before its body was read closes the connection too.

## Call processing
Status moves QUEUED → PROCESSING (decoding) → TRANSCRIBING (recognition and speaker separation) → ANALYZING → COMPLETED, or FAILED.
\`errorReason\` of a FAILED call is one of: \`audio_undecodable\`, \`audio_too_long\`, \`audio_missing\`, \`no_speech_detected\`, \`transcription_failed\`,
\`transcription_provider_error\`, \`diarization_failed\`, \`analysis_failed\`, \`analysis_provider_error\`, \`internal_error\`.
A call whose processing job the queue ended without a result (it expired on every attempt, or its failure could not be recorded) is failed by a sweep that runs every 5 minutes, once the call has not changed for a minute: \`internal_error\`, with its \`call.failed\` webhook. A job that is waiting, running or due for a retry is never taken for gone.
Transient provider errors are retried with exponential backoff (${config.worker.retryLimit} retries) before the call fails.
A file that decodes to more audio than its size can hold fails with \`audio_undecodable\`: at most 5 s plus its size divided by the lowest plausible rate of its format (bytes per second of audio: ${Object.entries(MIN_BYTES_PER_SECOND).map(([f, r]) => `${f} ${r}`).join(', ')}), so a few bytes never become hours. A local storage fault while decoding (disk full, quota, read-only file system) is the server's, not the file's: the job is retried, and only after the last retry does the call fail, with \`internal_error\` (for a voice sample: 503 \`storage_unavailable\`).
While a call is processed (PROCESSING, TRANSCRIBING, ANALYZING), the call detail carries an additional optional \`progress\` object \`{stage, percent, updatedAt}\`:
\`stage\` is \`DECODE\`, \`TRANSCRIBE\`, \`DIARIZE\` or \`ANALYZE\`; \`percent\` (0-100) is the share of audio recognised when recognition runs in parts (OpenAI-compatible provider) and the share of parts analysed when a long transcript is analysed in parts, else null. It is absent for queued and finished calls.
Long calls: the OpenAI-compatible recogniser receives FLAC (or MP3/Opus, as configured) in parts of at most ${config.transcription.openai.maxChunkSeconds} s and ${config.transcription.openai.maxRequestBytes} bytes, cut at pauses, ${config.transcription.openai.concurrency} at a time; a part that still fails after ${config.transcription.openai.chunkRetries} retries fails the call with \`transcription_provider_error\` (the job is not retried as a whole).
The language-model analyzer analyses a transcript beyond its context (${config.analysis.openai.contextTokens} tokens) in parts and merges them; the summaries are written from all parts.
\`GET /api/calls/status\` takes at most 100 ids; ids that are unknown, malformed or owned by another user are left out of \`items\` (no error, so existence is not revealed). Ids match in any letter case and are answered in lower case, the form the service hands out.
\`GET /api/calls\` lists newest first; its \`status\` filter also accepts PROCESSING and ANALYZING. A \`cursor\` that is not a previous page's \`nextCursor\` (unchanged) answers 400 \`validation_failed\`.
\`DELETE /api/calls\` takes at most 100 ids; \`failed\` holds \`{callId, reason}\` entries.
Speaker corrections (\`PATCH /api/calls/{id}/speakers\`) answer with the corrected transcript at once; the analysis follows on its own job queue, at most one waiting per call (repeated corrections are coalesced and the analysis reads the latest transcript). Until it is stored the call detail carries \`analysisPending: true\`. Re-analysis, corrections and retried processing keep the user's work on AI action items: edited items keep the user's fields and id, deleted ones do not come back, unchanged ones keep their id (see \`POST /api/calls/{id}/reanalyze\`).

## Stored audio
Audio is kept ${config.blobStore.kind === 's3' ? 'in S3-compatible object storage' : 'on the server\'s disk'} under the owner's id (\`users/{userId}/calls/{callId}/\`) until the call or the account is deleted; voice-profile samples are removed before the response.
On the server's disk, stored audio and decoding work files are readable by the service's account only (folders 0700, files 0600).
\`DELETE /api/calls/{id}\` (and each entry of \`DELETE /api/calls\`) deletes the stored audio before the row. When object storage deletes only part of a call's files, the call is deleted all the same (204; counted in \`deleted\`) and the hourly orphan sweep removes the remaining files.
The orphan sweep deletes files only from the blob store bound to this service's database (a marker object \`service/database-id.json\` names it); a voice sample left behind by a crash is removed after an hour.
\`DELETE /api/users/me\` deletes the stored files first; when that fails nothing else is deleted (503 \`service_unavailable\` when object storage cannot be reached), so the request can simply be retried.
Object storage that cannot be reached during an upload answers 503 \`service_unavailable\`; an upload cut off by the client leaves no stored object.

## Transcripts
\`segments[].alignmentConfidence\` is \`HIGH\`, \`MEDIUM\` or \`LOW\` from the recogniser's word confidences.
Word times are checked against the audio whatever the recogniser reports: every word lies inside [0, duration] and words keep the recogniser's order, so no segment ends after the recording ends; a word outside the speech the service's voice-activity detection found is moved into the speech between its well-placed neighbours.
\`qualityWarnings\` (an addition to the transcript; also merged into the analysis's \`qualityWarnings\`) says when that happened: \`word_times_adjusted\` (some words were re-timed into the speech), \`word_times_unverified\` (some words fit no speech and were only kept inside the audio and in order). Transcripts made before it lack the field.
\`speakerResolution.voiceMatchStatus\` is one of \`DISABLED\` (feature off), \`NO_PROFILE\` (the user has no voice profile), \`MATCHED\`, \`NO_MATCH\`, \`ERROR\` (the voice step failed; text-only resolution was used); a profile made by another embedding provider or version counts as no profile (\`NO_PROFILE\`), and \`GET /api/users/me/voice-profile/status\` then answers \`status: REENROLLMENT_REQUIRED\` until the user records a new sample.
A voice sample is checked before it becomes a profile: clipped, too quiet (loud frames below -45 dBFS) or too noisy (speech less than 15 dB above the background) answers 400 \`validation_failed\`, and less than 3 s of detected speech 400 \`voice_sample_too_short\`; \`error.message\` says what is wrong and \`error.details.problem\` names it (\`clipped\`, \`too_quiet\`, \`too_noisy\`, \`not_enough_speech\`).
Call-opening cues decide roles when no name or voice evidence does, before the positional fallback: "returning your call", "I'm calling about", "you called about", "got your message" mark the party who placed the call, "thanks for calling" the one who took it (with \`direction\`: the caller is the USER on OUTGOING calls). Such a speaker is labelled \`GREETING_MATCH\` at MEDIUM, the other \`BY_ELIMINATION\`, with the warning \`answering_pattern_used\` (roles from an opening phrase).
The offline recogniser hears the call's names (the user's display name, \`contactName\`, \`organization\`, the user's contacts) even when they are not English dictionary words: they are added to its dictionary for that call.

## Speaker corrections
\`PATCH /api/calls/{id}/speakers\` takes \`{"operations": [...]}\` (1 to 100, applied in order, all or nothing) of
\`{"type": "SWAP_SPEAKERS"}\` (the two speakers exchange label, displayName and role; which segments belong to which voice is unchanged),
\`{"type": "RENAME_SPEAKER", "speakerId", "displayName"}\` (sets label and displayName; 1-100 characters, no line breaks),
\`{"type": "SET_ROLE", "speakerId", "role"}\` (USER, CONTACT or UNKNOWN; the speaker that held USER or CONTACT gets the opposite role) and
\`{"type": "MOVE_SEGMENT", "segmentId", "speakerId"?}\` (without speakerId: the other of two speakers, or a new \`Speaker 2\` when the transcript has one).
Corrected speakers get \`labelSource\` MANUAL and \`confidence\` HIGH (a moved segment does not change its speakers' identity, so they are not marked);
segments' speaker fields and \`cleanText\` follow; a moved segment keeps its \`sourceSpeakerId\` (what speaker separation said); \`speakerResolution\` keeps describing the automatic resolution.
The analysis is then run again on the corrected transcript in every environment, with the side effects of re-analysis (AI action items replaced, MANUAL items kept), and the transcript, analysis and an audit event (user id, operation, speaker and segment ids, roles; no names) are stored in one transaction.
A failing analysis leaves everything unchanged (503 \`service_unavailable\` when the provider may recover, else 500). Re-analysis and retried processing start from the stored, corrected transcript, and an automatic re-resolution never overrides MANUAL speakers.

## Webhooks
\`POST /api/webhooks\` registers an endpoint for \`call.completed\` and/or \`call.failed\` and returns its signing secret (\`whsec_...\`) once; \`GET\` lists (oldest first, without secrets, one page: at most ${config.webhooks.maxEndpointsPerUser} endpoints per user), \`DELETE /api/webhooks/{id}\` removes an endpoint with its delivery log and its pending deliveries.
URLs must be https; plain http only to a loopback host ${config.webhooks.allowPrivateNetworks ? '(allowed in this deployment)' : '(not allowed in this deployment)'}. ${config.webhooks.allowPrivateNetworks ? 'In this deployment private network addresses are allowed (development).' : 'Private, loopback, link-local, carrier-grade NAT, multicast and reserved addresses are refused: address literals at registration, and at every delivery the host name is resolved and every address it has must be public; the connection goes to a checked address.'} Redirects are never followed (a 3xx counts as a failed attempt).
When a call reaches COMPLETED or FAILED, one delivery per subscribed endpoint is enqueued in the same transaction as the status change, on the durable job queue.
A delivery is \`POST\` \`application/json\` \`{"type": "call.completed"|"call.failed", "timestamp", "data": {"callId", "status", "errorReason", "links": {"call", "transcript"?, "analysis"?}}}\` (links are paths on this service; no transcript content, no names)
with the Standard Webhooks headers \`webhook-id\` (the delivery id, the same on every retry), \`webhook-timestamp\` (Unix seconds of the attempt) and \`webhook-signature\` \`v1,<base64 HMAC-SHA256 of "id.timestamp.body">\` keyed by the base64-decoded secret after \`whsec_\`.
A 2xx answer within ${config.webhooks.timeoutMs} ms is success; anything else is retried with exponential backoff (${config.webhooks.retryLimit} retries, the first after ${config.webhooks.retryDelaySeconds}-${config.webhooks.retryDelaySeconds * 2} s, each following one about twice as late), then the delivery is FAILED. A refused address fails at once.
\`GET /api/webhooks/{id}/deliveries\` (newest first, \`limit\`/\`cursor\`) shows each delivery's status and attempts (time, HTTP status, error: \`http_<status>\`, \`timeout\`, \`network_error\`, \`blocked_address\`); receivers' response bodies are not stored.
Export: \`GET /api/calls/{id}/transcript?format=vtt|srt|txt\` downloads the transcript (no \`format\`, or \`json\`, is the stored JSON as before). One cue per segment;
WebVTT cues are named by the segment id and carry a voice tag \`<v Speaker Name>\`; SubRip cues are numbered from 1 and prefixed \`Speaker Name: \`; \`txt\` is the cleanText line format.
Times are \`HH:MM:SS.mmm\` (SubRip \`HH:MM:SS,mmm\`), so hours keep counting past one hour. UTF-8, LF line ends, \`Content-Type\` \`text/vtt\`, \`application/x-subrip\` or \`text/plain\` with \`charset=utf-8\`,
and \`Content-Disposition: attachment\` named after the call's title (characters not allowed in file names removed; \`call-<first 8 characters of the id>\` without a title) with an ASCII \`filename\` and, for other characters, an RFC 5987 \`filename*\`.

## Search
\`GET /api/calls/search?q=\` searches the caller's calls in every status: title, contact name (as uploaded and the assigned contact's), the one-line and executive summaries, notes, action items (AI and manual) and transcript text.
PostgreSQL full-text search with English stemming; \`q\` is web-search syntax (\`"a phrase"\`, \`or\`, \`-word\`); ranking by \`ts_rank_cd\` with weights title/contact > summaries/action items > notes > transcript, then newest first.
Each hit has a \`snippet\` safe to insert as HTML (matched words in \`<mark>…</mark>\`, its only markup; every other character HTML-escaped as \`&amp;\` \`&lt;\` \`&gt;\` \`&quot;\` \`&#39;\`, user text that looks like markup or a literal \`<mark>\` included; words are marked with private sentinels before escaping, so user text cannot forge a marker) and transcript segments (\`segmentId\`, start and end, speaker), at most 20, with \`matchingSegmentCount\`:
the segments that match the whole query on their own (\`segmentMatch: all_terms\`), or, when none does, those holding some of its words (\`some_terms\`; excluded words never count), else none (\`none\`).
The index is updated by the database in the same transaction as every write it depends on, so a completed call, an edit or a deleted call shows at once. \`limit\` 1-50 (default 20); \`nextCursor\` is an opaque offset valid for the same \`q\` only (another \`q\` answers 400).

## Conversation metrics
Analyses produced from now on carry an added top-level \`conversationMetrics\` (existing fields unchanged; older analyses lack it), measured from the transcript's timing, not by a model, on every analysis run (processing, re-analysis).
Segment bounds are the recogniser's word times and a pause over 1.5 s starts a new segment, so talk time is the sum of segment spans; a turn is a run of consecutive segments of one speaker.
Per party: talk seconds and share (of all parties' talk), words and words per minute, turns, longest monologue, interruptions started, mean response latency. Overall: talk, overlap and silence seconds, silence share, turns, interruptions
(a turn that starts while the other still speaks, or within 0.2 s of the end of the other's turn when that turn ends without . ! ? or …), longest monologue, response latency (count, mean, median; 0 on overlap).
\`GET /api/analytics/vibe\` adds \`conversationMetrics\`: means over the window's calls that have them, overall and \`byRole\` (USER, CONTACT, UNKNOWN).

## Usage and plans
Usage guards count uploads (a ledger that deleting a call does not shrink): uploads in the last hour, calls in an active status, bytes in the last 30 days.
While \`billing_enabled\` is on, plan limits apply to uploads: minutes over the last 30 days (computed live; calls still in processing count with their measured length once decoded, and until then with a reservation: the declared \`durationSeconds\`, or the file's size at 128 kbit/s, at least one minute; \`minutesUsedThisPeriod\` includes them) and, for FREE, transcripts per UTC day; when the plan allowance is spent, top-up balances are used (a transcript credit at upload, minutes once the call's duration is known).

## Action items
Action items are listed newest first. \`openActionItems\` in the statistics counts OPEN and IN_PROGRESS items.
Action items versus next steps, one rule for every analysis: an action item carries a launchable intent (\`meeting\`, \`email\`, \`call\`, \`message\`, \`reminder\`) that either party asked for or committed to ("could you email me the quote?" / "I'll send the invite today"), or is a \`task\` one party asked the other to do, with the owner's answer ("please sign the form by Monday" / "I'll sign it tonight") joined to it, or offered to do and the other welcomed in the next turn ("I can pick them up" / "You're a lifesaver"). A video call is a \`meeting\` whatever app carries it ("I'll video call you on WhatsApp").
A plan a party announces without being asked and without a launcher ("I'll talk to the neighbours today", "the new card arrives in five days") is a \`nextSteps\` entry, never an action item. "Remind me to ..." is a \`reminder\` owned by the one to be reminded.
\`reminder\` versus \`task\`, one rule: a \`reminder\` is the user's own memory aid ("remind me to ...", a note to self, "I'll put it on my calendar") or an appointment the user must keep, being somewhere or available on a day or at a time ("could you come in Friday after ten?", "please be on site at one", "make sure someone is home Thursday morning"); something to get done is a \`task\`, even with a deadline or a place ("pick up the refill by Saturday", "drop off the signed form Thursday", "book the cabin tonight").
An appointment agreed on the call (a day and a time one party offers and the other takes in the next turn) is such a \`reminder\`: its \`dueDate\` is the day, its title names the time, and \`intentMetadata.remindAt\` is the day at that time. The day and the time are often said in different turns ("next Tuesday at, let me see, two forty five" - "two forty five, yep"); every launcher time must be one the transcript's words give, and a clock time said alone counts for the day named just before it.
A dictated e-mail address that no \`email\` or \`meeting\` item uses is an \`email\` item for the party who heard it (its \`toEmail\` is the address as recognised): people dictate an address for the other party to write to. An address that names the party who heard it, and not the one who said it, is that party's own address read back to them: the item is then the speaker's, who will write to it.
The embedded analyzer's summaries say only what was said: the executive summary is templated from the upload's direction (who called whom) and the action items, completed with transcript sentences quoted as recognised and attributed to their speaker (no pronoun rewriting);
sentences of segments with \`alignmentConfidence\` LOW (the recogniser's word confidence, per segment) are not quoted and produce no action item, and \`qualityWarnings\` holds \`low_transcription_confidence\` when at least 30 % of the segments are LOW.

## Pages of array lists
\`GET /api/contacts\` and \`GET /api/actions\` answer the bare JSON array the specification defines, in pages: query \`limit\` (1-1000, default 1000, so a client that does not page still gets all of a normal user's list) and \`cursor\`.
When more items follow, the response carries the next page's cursor in \`X-Next-Cursor\` and as \`Link: </api/...?limit=N&cursor=...>; rel="next"\`; both are absent on the last page. A \`cursor\` that is not a previous \`X-Next-Cursor\` (unchanged) answers 400 \`validation_failed\`.
Pages are keyset pages in the lists' own orders (contacts by name, case-insensitively, then exact name, then id; action items newest first, then analysis order, then id), so writes between pages never repeat or skip an item that stays in place.

## Authentication
${config.auth.projectId ? 'ID tokens are verified (RS256, audience and issuer checked).' : 'Local development mode: every request is the local user.'}
Admin access (and \`isAdmin\`) needs an allow-listed email whose token carries \`email_verified: true\`; a token without the claim, or with any other value, is not an admin.
The polled read routes (\`GET /api/calls\`, \`/api/calls/status\`, \`/api/calls/{id}\`, \`/api/calls/{id}/transcript\`, \`/api/actions\`) resolve the token's user from a cache of at most 10 seconds;
every other route looks the user up afresh. A token whose signature checked out is not checked again for up to a minute (never past its expiry, and only while its key is in the key set last fetched). Deleting the account forgets the entry at once, and a later request on any route creates a new, empty account.
A stored transcript is sent exactly as stored.

## Operations
\`GET /api/health\` is the specification's liveness route (503 while the database is unreachable). Outside the API, without authentication and left out of this document:
\`GET /health/live\` (200 while the process serves HTTP), \`GET /health/ready\` (200 when the database answers, every migration is applied and the blob store is reachable; 503 naming the failing check otherwise),
and \`GET /metrics\` (Prometheus text format, only when \`METRICS_ENABLED\`; with \`METRICS_TOKEN\` set it needs \`Authorization: Bearer <METRICS_TOKEN>\`). Metric names and labels: docs/deployment.md.
`;
}

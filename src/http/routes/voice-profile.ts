// The voice profile: one per user, made from a short sample of the user's voice. The route reads the
// sample into the blob store; the use case (size checks, decode, measure, embed, store, the sample
// deleted whatever the outcome) is domain/voice-enrolment.ts. Only the opaque embedding is kept,
// never returned.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { errors, type ServiceError } from '../../domain/errors.js';
import { DateTime, errorResponses } from '../schemas.js';
import { storeAudioPart, type StoredAudio } from '../audio-part.js';
import { guardUploadBody } from '../upload-body-guard.js';
import { deleteVoiceProfile, enrolVoiceSample, voiceProfileStatus } from '../../domain/voice-enrolment.js';

const tags = ['Voice profile'];
const VOICE_FORMATS = ['wav', 'mp3', 'm4a'] as const;
/** Room for the multipart framing around the sample in the declared body size. */
const MULTIPART_OVERHEAD = 256 * 1024;

const ProfileStatus = Type.Object({
  status: Type.String({ description: 'ACTIVE, MISSING, or REENROLLMENT_REQUIRED: the profile was made by another embedding provider or version than the one in use (`provider` names it); calls do not use it until the user records a new sample.' }),
  provider: Type.Optional(Type.String()),
  consentVersion: Type.Optional(Type.String()),
  createdAt: Type.Optional(DateTime),
});
const CreatedProfile = Type.Object({
  status: Type.String(),
  provider: Type.String(),
  consentVersion: Type.String(),
  createdAt: DateTime,
  sampleDurationSeconds: Type.Integer(),
});

export default async function voiceProfileRoutes(app: FastifyInstance, ctx: AppContext) {
  const db = ctx.database.requestDb;
  const voice = ctx.config.voice;

  // The hook is scoped to this plugin's routes; it runs before the body is read.
  app.addHook('onRequest', async () => {
    if (!voice.enabled) throw errors.featureNotAvailable();
  });

  app.post(
    '/api/users/me/voice-profile',
    {
      // As on the call upload: a request refused or cut before its sample was read (403 account
      // status, 429 rate or slots, 413 declared size) closes the connection, since the unread rest
      // of the body would otherwise hold the socket, and the server's close, for nothing.
      onSend: (req, reply, payload, done) => {
        if (reply.statusCode >= 400 && !req.raw.readableEnded) reply.header('connection', 'close');
        done(null, payload);
      },
      schema: {
        tags,
        summary: 'Create or replace the voice profile from a sample (WAV, MP3 or M4A)',
        description:
          `multipart/form-data with one \`file\` part. The client must show a consent screen first. Duration between ${voice.sampleMinSeconds} and ${voice.sampleMaxSeconds} s, at most ${voice.sampleMaxSizeMb} MB. The sample is deleted once the embedding is made.\n\n` +
          `A \`SUSPENDED\` or \`DISABLED\` account gets 403 \`ACCOUNT_SUSPENDED\` or \`ACCOUNT_DISABLED\` with the admin's reason in \`details.reason\` (as on \`POST /api/calls/analyze\`), before any byte of the sample is read; the profile is unchanged.\n\n` +
          `Rate limit: at most ${voice.maxEnrolmentsPerHour} samples per user reach decoding in a rolling hour (\`SERVICE_MAX_VOICE_ENROLMENTS_PER_HOUR\`), counted across all processes of the service, whatever their outcome (a new profile, or a sample refused as too short, too long, too noisy); a request refused before decoding (no file part, not audio, too large) is not counted. Past it: 429 \`voice_enrolment_rate_limited\` with \`details\` \`{limit, current, windowSeconds}\` (the body of the upload usage guards), answered before the sample is read; the existing profile is unchanged. ` +
          `An enrolment also holds one of the caller's upload slots (shared with \`POST /api/calls/analyze\`) until it is answered: past that limit, 429 \`uploads_in_flight_limit\`.`,
        consumes: ['multipart/form-data'],
        response: { 201: CreatedProfile, ...errorResponses(400, 401, 403, 404, 408, 413, 415, 429, 502, 503) },
      },
    },
    async (req, reply) => {
      if (!req.isMultipart()) throw errors.validation({ fields: [{ path: '/file', message: 'is required (multipart/form-data)' }] });
      const created = await enrolVoiceSample({ db, blobs: ctx.blobs, embedder: ctx.embedder, config: ctx.config, log: req.log }, req.user.row, {
        declaredBytes: Number(req.headers['content-length'] ?? 0) - MULTIPART_OVERHEAD,
        readSample: (keyFor, limits) => readGuardedSample(req, reply, ctx, keyFor, limits),
      });
      return reply.status(201).send(created);
    },
  );

  app.get(
    '/api/users/me/voice-profile/status',
    { schema: { tags, summary: 'Whether a voice profile exists', response: { 200: ProfileStatus, ...errorResponses(401, 404) } } },
    async (req) => {
      return voiceProfileStatus(db, req.user.id, ctx.embedder.provider);
    },
  );

  app.delete(
    '/api/users/me/voice-profile',
    { schema: { tags, summary: 'Delete the voice profile (idempotent)', response: { 204: Type.Null(), ...errorResponses(401, 404) } } },
    async (req, reply) => {
      await deleteVoiceProfile(db, req.user.id);
      return reply.status(204).send();
    },
  );
}

/**
 * Stores the request's `file` part (WAV, MP3 or M4A, sniffed) within the upload time limits (408
 * request_timeout past them); other parts are drained. Null when there is no file part.
 */
async function readGuardedSample(
  req: FastifyRequest,
  reply: FastifyReply,
  ctx: AppContext,
  keyFor: (format: string) => string,
  limits: { maxBytes: number; tooLarge: ServiceError },
): Promise<StoredAudio | null> {
  const bodyGuard = guardUploadBody(req, reply, { idleSeconds: ctx.config.uploads.idleTimeoutSeconds, totalSeconds: ctx.config.uploads.timeoutSeconds });
  try {
    let stored: StoredAudio | null = null;
    for await (const part of req.parts({ limits: { fileSize: limits.maxBytes, files: 1 } })) {
      if (part.type !== 'file' || part.fieldname !== 'file' || stored) {
        if (part.type === 'file') part.file.resume();
        continue;
      }
      stored = await storeAudioPart(part, ctx.blobs, keyFor, { allowed: VOICE_FORMATS, tooLarge: limits.tooLarge });
    }
    return stored;
  } finally {
    bodyGuard.dispose();
  }
}

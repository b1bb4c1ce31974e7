// The voice profile: one per user, made from a short sample of the user's voice. The sample is
// decoded, measured and embedded, then deleted; only the opaque embedding is kept, never returned.
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { AppContext } from '../../context.js';
import { ErrorCode, ServiceError, errors } from '../../domain/errors.js';
import { DateTime, errorResponses } from '../schemas.js';
import { storeAudioPart } from '../audio-part.js';
import { decodeAudio, LocalStorageFault } from '../../pipeline/audio/decode.js';
import { makePrivateDir } from '../../store/blobs.js';
import { guardUploadBody } from '../upload-body-guard.js';
import { readAllPcm } from '../../pipeline/audio/pcm.js';
import { PipelineError } from '../../pipeline/types.js';
import { EmbeddingError, serializeEmbedding } from '../../pipeline/voice/embedder.js';
import { observeUpload } from '../../observability/metrics.js';
import { MIN_ENROLMENT_SPEECH_SECONDS, checkEnrolmentSample } from '../../pipeline/voice/sample-check.js';

const tags = ['Voice profile'];
const VOICE_FORMATS = ['wav', 'mp3', 'm4a'] as const;

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
  const db = ctx.database.db;
  const voice = ctx.config.voice;

  // The hook is scoped to this plugin's routes; it runs before the body is read.
  app.addHook('onRequest', async () => {
    if (!voice.enabled) throw errors.featureNotAvailable();
  });

  app.post(
    '/api/users/me/voice-profile',
    {
      schema: {
        tags,
        summary: 'Create or replace the voice profile from a sample (WAV, MP3 or M4A)',
        description: `multipart/form-data with one \`file\` part. The client must show a consent screen first. Duration between ${voice.sampleMinSeconds} and ${voice.sampleMaxSeconds} s, at most ${voice.sampleMaxSizeMb} MB. The sample is deleted once the embedding is made.`,
        consumes: ['multipart/form-data'],
        response: { 201: CreatedProfile, ...errorResponses(400, 401, 404, 408, 413, 415, 502, 503) },
      },
    },
    async (req, reply) => {
      if (!req.isMultipart()) throw errors.validation({ fields: [{ path: '/file', message: 'is required (multipart/form-data)' }] });
      const maxBytes = voice.sampleMaxSizeMb * 1024 * 1024;
      const tooLarge = new ServiceError(ErrorCode.VoiceSampleTooLarge, { maxBytes });
      if (Number(req.headers['content-length'] ?? 0) > maxBytes + 256 * 1024) throw tooLarge;
      const userId = req.user.id;
      const sampleDir = `users/${userId}/voice-samples/${crypto.randomUUID()}`;
      const workDir = path.join(ctx.config.dataDir, 'work', `voice-${crypto.randomUUID()}`);
      // The sample's body has the upload time limits (408 request_timeout past them).
      const bodyGuard = guardUploadBody(req, reply, { idleSeconds: ctx.config.uploads.idleTimeoutSeconds, totalSeconds: ctx.config.uploads.timeoutSeconds });
      let created;
      try {
        let stored = null;
        for await (const part of req.parts({ limits: { fileSize: maxBytes, files: 1 } })) {
          if (part.type !== 'file' || part.fieldname !== 'file' || stored) {
            if (part.type === 'file') part.file.resume();
            continue;
          }
          stored = await storeAudioPart(part, ctx.blobs, (format) => `${sampleDir}/sample.${format}`, { allowed: VOICE_FORMATS, tooLarge });
        }
        bodyGuard.dispose();
        if (!stored) throw errors.validation({ fields: [{ path: '/file', message: 'is required' }] }, 'The file part is missing.');
        observeUpload('voice_sample', stored.bytes);

        await makePrivateDir(path.dirname(workDir));
        await makePrivateDir(workDir);
        let audio;
        try {
          const sample = await ctx.blobs.localFile(stored.key, workDir);
          try {
            audio = await decodeAudio(sample.path, workDir, { timeoutMs: 120_000, maxSeconds: voice.sampleMaxSeconds + 1 });
          } finally {
            await sample.release();
          }
        } catch (err) {
          if (err instanceof PipelineError && err.reason === 'audio_too_long') throw new ServiceError(ErrorCode.VoiceSampleTooLong, { maxSeconds: voice.sampleMaxSeconds });
          if (err instanceof PipelineError && err.reason === 'audio_undecodable') throw new ServiceError(ErrorCode.UnsupportedMediaType, undefined, 'The voice sample could not be decoded.');
          // The disk, not the sample: the client may send it again later.
          if (err instanceof LocalStorageFault) throw new ServiceError(ErrorCode.StorageUnavailable);
          throw err;
        }
        const seconds = audio.durationSeconds;
        if (seconds < voice.sampleMinSeconds) throw new ServiceError(ErrorCode.VoiceSampleTooShort, { minSeconds: voice.sampleMinSeconds });
        if (seconds > voice.sampleMaxSeconds) throw new ServiceError(ErrorCode.VoiceSampleTooLong, { maxSeconds: voice.sampleMaxSeconds });

        // A voice sample is short (sampleMaxSeconds), so reading it whole is fine.
        const pcm = await readAllPcm(audio.mono);
        // A profile from a poor sample would mis-score every later call: say what to fix instead.
        const check = await checkEnrolmentSample(pcm, audio.sampleRate);
        if (check.problem === 'not_enough_speech') {
          throw new ServiceError(ErrorCode.VoiceSampleTooShort, { minSeconds: voice.sampleMinSeconds, minSpeechSeconds: MIN_ENROLMENT_SPEECH_SECONDS, problem: check.problem }, check.message!);
        }
        if (check.problem) throw errors.validation({ fields: [{ path: '/file', message: check.message! }], problem: check.problem }, check.message!);

        let embedding: Float32Array;
        try {
          embedding = await ctx.embedder.embed(pcm, audio.sampleRate);
        } catch (err) {
          if (err instanceof EmbeddingError && err.reason === 'not_enough_speech') {
            throw new ServiceError(ErrorCode.VoiceSampleTooShort, { minSeconds: voice.sampleMinSeconds }, 'The voice sample holds too little speech.');
          }
          req.log.warn({ err: (err as Error).message }, 'voice embedding failed');
          throw new ServiceError(ErrorCode.VoiceProviderError);
        }
        const row = await db
          .insertInto('voiceProfiles')
          .values({
            userId,
            status: 'ACTIVE',
            provider: ctx.embedder.provider,
            consentVersion: voice.consentVersion,
            embedding: serializeEmbedding(embedding),
            sampleDurationSeconds: Math.round(seconds),
            updatedAt: new Date(),
          })
          .onConflict((oc) =>
            oc.column('userId').doUpdateSet({
              status: 'ACTIVE',
              provider: ctx.embedder.provider,
              consentVersion: voice.consentVersion,
              embedding: serializeEmbedding(embedding),
              sampleDurationSeconds: Math.round(seconds),
              createdAt: sql`now()`,
              updatedAt: sql`now()`,
            }),
          )
          .returningAll()
          .executeTakeFirstOrThrow();
        created = {
          status: row.status,
          provider: row.provider,
          consentVersion: row.consentVersion,
          createdAt: row.createdAt.toISOString(),
          sampleDurationSeconds: row.sampleDurationSeconds,
        };
      } finally {
        bodyGuard.dispose();
        // The sample is never kept, whatever the outcome; removed before the answer goes out.
        await ctx.blobs.deletePrefix(sampleDir).catch(() => undefined);
        await fs.promises.rm(workDir, { recursive: true, force: true });
      }
      return reply.status(201).send(created);
    },
  );

  app.get(
    '/api/users/me/voice-profile/status',
    { schema: { tags, summary: 'Whether a voice profile exists', response: { 200: ProfileStatus, ...errorResponses(401, 404) } } },
    async (req) => {
      const row = await db.selectFrom('voiceProfiles').select(['status', 'provider', 'consentVersion', 'createdAt']).where('userId', '=', req.user.id).executeTakeFirst();
      if (!row) return { status: 'MISSING' };
      // A profile made by another embedder (an older version, or another provider) is not comparable
      // with today's embeddings, so calls treat it as absent (voiceMatchStatus NO_PROFILE): say so.
      const status = row.status === 'ACTIVE' && row.provider !== ctx.embedder.provider ? 'REENROLLMENT_REQUIRED' : row.status;
      return { status, provider: row.provider, consentVersion: row.consentVersion, createdAt: row.createdAt.toISOString() };
    },
  );

  app.delete(
    '/api/users/me/voice-profile',
    { schema: { tags, summary: 'Delete the voice profile (idempotent)', response: { 204: Type.Null(), ...errorResponses(401, 404) } } },
    async (req, reply) => {
      await db.deleteFrom('voiceProfiles').where('userId', '=', req.user.id).execute();
      return reply.status(204).send();
    },
  );
}

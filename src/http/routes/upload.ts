// POST /api/calls/analyze: the upload. This file only reads the multipart request: the audio part
// is streamed into the blob store as it arrives (sniffed, size-limited), the metadata envelope and
// title are collected in whatever form and order the client sends them, and `acceptUpload`
// (src/domain/uploads.ts) creates the call.
import crypto from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Multipart } from '@fastify/multipart';
import type { AppContext } from '../../context.js';
import { ErrorCode, ServiceError, errors } from '../../domain/errors.js';
import { observeUpload } from '../../observability/metrics.js';
import { acceptUpload, assertAccountMayUpload, findUploadByKey, metadataNotJson, openUploadGate, parseUploadMetadata, uploadTitle } from '../../domain/uploads.js';
import { errorResponses, Uuid } from '../schemas.js';
import { storeAudioPart, type StoredAudio } from '../audio-part.js';
import { audioKey } from '../../store/blobs.js';
import { AUDIO_FORMATS } from '../../pipeline/audio/sniff.js';
import { claimUploadSlot } from '../../domain/upload-slots.js';
import { guardUploadBody } from '../upload-body-guard.js';

const MULTIPART_OVERHEAD = 256 * 1024;
const METADATA_MAX_BYTES = 64 * 1024;

async function readSmallPart(stream: AsyncIterable<Buffer> & { resume(): void }, max: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += chunk.length;
    if (size > max) {
      stream.resume();
      throw errors.validation({ fields: [{ path: '/metadata', message: `must be at most ${max} bytes` }] });
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * The parts of an upload after the file: the metadata envelope as it arrived and the title part.
 * Real clients send the envelope three ways: a plain text field (browsers' FormData with a
 * string), a field with `Content-Type: application/json` (OkHttp/Retrofit, Alamofire, curl
 * `-F 'metadata=<m.json;type=application/json'`), which the multipart parser has already decoded,
 * or a file part with a JSON body (FormData with a Blob, curl `-F metadata=@m.json`).
 */
async function readTextPart(part: Multipart): Promise<unknown> {
  if (part.type === 'file') return (await readSmallPart(part.file, METADATA_MAX_BYTES)).toString('utf8');
  return part.value;
}

/** @fastify/multipart rejects a field declared application/json whose value does not parse. */
function isInvalidJsonField(err: unknown): boolean {
  return (err as { code?: string } | null)?.code === 'FST_INVALID_JSON_FIELD_ERROR';
}

export default async function uploadRoutes(app: FastifyInstance, ctx: AppContext) {
  const db = ctx.database.db;

  app.post(
    '/api/calls/analyze',
    {
      // An upload refused or cut before its body was read closes the connection: the unread rest
      // of the body would otherwise keep the socket (and the client waiting) for nothing.
      onSend: (req, reply, payload, done) => {
        if (reply.statusCode >= 400 && !req.raw.readableEnded) reply.header('connection', 'close');
        done(null, payload);
      },
      schema: {
        tags: ['Calls'],
        summary: 'Upload a call recording for processing',
        description:
          'multipart/form-data with a `file` part (m4a, mp3, wav, aac or ogg; the content is sniffed, the name and MIME type are not trusted), a `metadata` JSON part (the metadata envelope; every field optional; treated as empty when absent) and an optional `title` text part. Send `Idempotency-Key` so a retry returns the same callId.',
        consumes: ['multipart/form-data'],
        response: {
          202: Type.Object({ callId: Uuid, status: Type.Literal('QUEUED') }),
          ...errorResponses(400, 401, 403, 408, 413, 415, 429),
        },
      },
    },
    async (req: FastifyRequest, reply) => {
      const userId = req.user.id;
      if (!req.isMultipart()) throw errors.validation({ fields: [{ path: '/file', message: 'is required (multipart/form-data)' }] }, 'The upload must be multipart/form-data with a file part.');

      assertAccountMayUpload(req.user.row);
      const idempotencyKey = typeof req.headers['idempotency-key'] === 'string' ? req.headers['idempotency-key'] : null;
      const prior = await findUploadByKey(db, userId, idempotencyKey);
      if (prior) return reply.status(202).send({ callId: prior, status: 'QUEUED' });

      const declared = Number(req.headers['content-length'] ?? 0);
      const gate = await openUploadGate(db, ctx.config, userId, Math.max(0, (Number.isFinite(declared) ? declared : 0) - MULTIPART_OVERHEAD));
      // A slot of the user's uploads in flight, held until the request ends; the body must arrive
      // within the idle and total limits.
      const { uploads } = ctx.config;
      const slot = await claimUploadSlot(db, userId, { maxInFlight: uploads.maxInFlight, holdSeconds: uploads.timeoutSeconds + 120 });
      const bodyGuard = guardUploadBody(req, reply, { idleSeconds: uploads.idleTimeoutSeconds, totalSeconds: uploads.timeoutSeconds });

      const callId = crypto.randomUUID();
      let stored: StoredAudio | null = null;
      let metadataRaw: unknown;
      let titlePart: string | undefined;
      try {
        try {
          for await (const part of req.parts()) {
            if (part.fieldname === 'file' && part.type === 'file' && !stored) {
              stored = await storeAudioPart(part, ctx.blobs, (format) => audioKey(userId, callId, format), {
                allowed: AUDIO_FORMATS,
                tooLarge: new ServiceError(ErrorCode.PayloadTooLarge, { maxBytes: ctx.config.limits.maxFileSize }),
              });
            } else if (part.fieldname === 'metadata') {
              metadataRaw = await readTextPart(part);
            } else if (part.fieldname === 'title') {
              const value = await readTextPart(part);
              titlePart = typeof value === 'string' ? value : undefined;
            } else if (part.type === 'file') {
              part.file.resume();
            }
          }
        } catch (err) {
          if (isInvalidJsonField(err)) throw metadataNotJson();
          throw err;
        }
        bodyGuard.dispose();
        if (!stored) throw errors.validation({ fields: [{ path: '/file', message: 'is required' }] }, 'The file part is missing.');
        const metadata = parseUploadMetadata(metadataRaw);
        const accepted = await acceptUpload(
          { db, config: ctx.config, queue: ctx.queue },
          { userId, callId, audio: stored, metadata, title: uploadTitle(metadata, titlePart), idempotencyKey, gate },
        );
        if (accepted.duplicate) await ctx.blobs.deletePrefix(`users/${userId}/calls/${callId}`).catch(() => undefined);
        else observeUpload('call', stored.bytes);
        return reply.status(202).send({ callId: accepted.callId, status: 'QUEUED' });
      } catch (err) {
        // Whatever was stored of this upload goes, a part cut off by a time limit included.
        if (stored || bodyGuard.timedOut) await ctx.blobs.deletePrefix(`users/${userId}/calls/${callId}`).catch(() => undefined);
        throw err;
      } finally {
        bodyGuard.dispose();
        await slot.release();
      }
    },
  );
}

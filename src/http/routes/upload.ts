// POST /api/calls/analyze: the upload. This file only reads the multipart request: the audio part
// is streamed into the blob store as it arrives (sniffed, size-limited), the metadata envelope and
// title are collected in whatever form and order the client sends them, and `uploadCall`
// (src/domain/uploads.ts) checks, holds the upload slot and creates the call.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Multipart } from '@fastify/multipart';
import type { AppContext } from '../../context.js';
import { ErrorCode, ServiceError, errors } from '../../domain/errors.js';
import { metadataNotJson, uploadCall, type UploadBody } from '../../domain/uploads.js';
import { errorResponses, Uuid } from '../schemas.js';
import { storeAudioPart } from '../audio-part.js';
import { audioKey } from '../../store/blobs.js';
import { AUDIO_FORMATS } from '../../pipeline/audio/sniff.js';
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
  const db = ctx.database.requestDb;

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
      if (!req.isMultipart()) throw errors.validation({ fields: [{ path: '/file', message: 'is required (multipart/form-data)' }] }, 'The upload must be multipart/form-data with a file part.');
      const declared = Number(req.headers['content-length'] ?? 0);
      const { callId } = await uploadCall(
        { db, config: ctx.config, queue: ctx.queue, blobs: ctx.blobs },
        {
          user: req.user.row,
          idempotencyKey: typeof req.headers['idempotency-key'] === 'string' ? req.headers['idempotency-key'] : null,
          declaredBytes: Math.max(0, (Number.isFinite(declared) ? declared : 0) - MULTIPART_OVERHEAD),
          readBody: (newCallId, body) => readGuardedUpload(req, reply, ctx, audioKeyOf(req.user.id, newCallId), body),
        },
      );
      return reply.status(202).send({ callId, status: 'QUEUED' });
    },
  );
}

/**
 * Reads the upload's body within the upload time limits (idle and total; 408 request_timeout
 * past them, with `interrupted` set so the use case removes what was half stored).
 */
async function readGuardedUpload(req: FastifyRequest, reply: FastifyReply, ctx: AppContext, keyOf: (format: string) => string, body: UploadBody): Promise<void> {
  const { uploads } = ctx.config;
  const bodyGuard = guardUploadBody(req, reply, { idleSeconds: uploads.idleTimeoutSeconds, totalSeconds: uploads.timeoutSeconds });
  try {
    await readUploadParts(req, ctx, keyOf, body);
  } finally {
    bodyGuard.dispose();
    body.interrupted = bodyGuard.timedOut;
  }
}

const audioKeyOf = (userId: string, callId: string) => (format: string) => audioKey(userId, callId, format);

/** Reads the upload's parts: the first `file` into the blob store, `metadata` and `title` as text; other files are drained. */
async function readUploadParts(req: FastifyRequest, ctx: AppContext, keyOf: (format: string) => string, out: UploadBody): Promise<void> {
  try {
    for await (const part of req.parts()) {
      if (part.fieldname === 'file' && part.type === 'file' && !out.audio) {
        out.audio = await storeAudioPart(part, ctx.blobs, keyOf, {
          allowed: AUDIO_FORMATS,
          tooLarge: new ServiceError(ErrorCode.PayloadTooLarge, { maxBytes: ctx.config.limits.maxFileSize }),
        });
      } else if (part.fieldname === 'metadata') {
        out.metadataRaw = await readTextPart(part);
      } else if (part.fieldname === 'title') {
        const value = await readTextPart(part);
        out.titlePart = typeof value === 'string' ? value : undefined;
      } else if (part.type === 'file') {
        part.file.resume();
      }
    }
  } catch (err) {
    if (isInvalidJsonField(err)) throw metadataNotJson();
    throw err;
  }
}

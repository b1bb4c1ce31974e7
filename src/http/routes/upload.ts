// POST /api/calls/analyze: the upload. The file is streamed into the blob store as it arrives;
// the call row, its usage-ledger entry, the contact assignment and the processing job commit in
// one transaction, so a crash leaves either nothing (a stray file is swept later) or a call that
// will be processed.
import crypto from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import type { AppContext } from '../../context.js';
import { ErrorCode, ServiceError, errors } from '../../domain/errors.js';
import { errorResponses, Uuid } from '../schemas.js';
import { storeAudioPart, type StoredAudio } from '../audio-part.js';
import { audioKey } from '../../store/blobs.js';
import { checkUpload, computeLimits, consumesTranscriptTopup, isFlagEnabled, type LimitViolation } from '../../domain/usage.js';
import { autoAssignContact } from '../../domain/contact-assignment.js';
import { recordEvent } from '../../domain/calls.js';
import { AUDIO_FORMATS } from '../../pipeline/audio/sniff.js';

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

interface UploadMetadata {
  title?: string | null;
  contactName?: string | null;
  contactId?: string | null;
  phoneNumber?: string | null;
  organization?: string | null;
  direction?: string | null;
  recordedAt?: string | null;
  durationSeconds?: number | null;
}

const STRING_FIELDS: Array<[keyof UploadMetadata, number]> = [
  ['title', 500],
  ['contactName', 200],
  ['contactId', 200],
  ['phoneNumber', 50],
  ['organization', 200],
];

/** Validates the metadata envelope; field errors are reported without the values sent. */
export function parseMetadata(raw: string | undefined): UploadMetadata {
  if (raw === undefined || raw.trim() === '') return {};
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch {
    throw errors.validation({ fields: [{ path: '/metadata', message: 'is not valid JSON' }] }, 'The metadata part is not valid JSON.');
  }
  if (!data || typeof data !== 'object' || Array.isArray(data)) throw errors.validation({ fields: [{ path: '/metadata', message: 'must be a JSON object' }] });
  const m = data as Record<string, unknown>;
  const fields: Array<{ path: string; message: string }> = [];
  const out: UploadMetadata = {};
  for (const [name, max] of STRING_FIELDS) {
    const v = m[name];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'string') fields.push({ path: `/metadata/${name}`, message: 'must be a string' });
    else if (v.length > max) fields.push({ path: `/metadata/${name}`, message: `must be at most ${max} characters` });
    else if (v.trim()) (out as Record<string, unknown>)[name] = v.trim();
  }
  if (m.direction !== undefined && m.direction !== null) {
    const d = typeof m.direction === 'string' ? m.direction.trim().toUpperCase() : '';
    if (d !== 'INCOMING' && d !== 'OUTGOING') fields.push({ path: '/metadata/direction', message: 'must be INCOMING or OUTGOING' });
    else out.direction = d;
  }
  if (m.recordedAt !== undefined && m.recordedAt !== null) {
    const v = m.recordedAt;
    if (typeof v !== 'string' || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/.test(v) || Number.isNaN(Date.parse(v)))
      fields.push({ path: '/metadata/recordedAt', message: 'must be an ISO 8601 datetime with a zone' });
    else out.recordedAt = new Date(v).toISOString();
  }
  if (m.durationSeconds !== undefined && m.durationSeconds !== null) {
    const v = m.durationSeconds;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 7 * 24 * 3600) fields.push({ path: '/metadata/durationSeconds', message: 'must be a non-negative integer' });
    else out.durationSeconds = v;
  }
  if (fields.length) throw errors.validation({ fields });
  return out;
}

function limitError(v: LimitViolation): ServiceError {
  return new ServiceError(v.code as ErrorCode, v.details);
}

export default async function uploadRoutes(app: FastifyInstance, ctx: AppContext) {
  const db = ctx.database.db;

  app.post(
    '/api/calls/analyze',
    {
      schema: {
        tags: ['Calls'],
        summary: 'Upload a call recording for processing',
        description:
          'multipart/form-data with a `file` part (m4a, mp3, wav, aac or ogg; the content is sniffed, the name and MIME type are not trusted), a `metadata` JSON part (the metadata envelope; every field optional; treated as empty when absent) and an optional `title` text part. Send `Idempotency-Key` so a retry returns the same callId.',
        consumes: ['multipart/form-data'],
        response: {
          202: Type.Object({ callId: Uuid, status: Type.Literal('QUEUED') }),
          ...errorResponses(400, 401, 403, 413, 415, 429),
        },
      },
    },
    async (req: FastifyRequest, reply) => {
      const user = req.user;
      const userId = user.id;
      if (!req.isMultipart()) throw errors.validation({ fields: [{ path: '/file', message: 'is required (multipart/form-data)' }] }, 'The upload must be multipart/form-data with a file part.');

      const status = user.row.accountStatus;
      if (status === 'SUSPENDED' || status === 'DISABLED') {
        throw new ServiceError(status === 'SUSPENDED' ? ErrorCode.AccountSuspended : ErrorCode.AccountDisabled, { reason: user.row.accountStatusReason });
      }

      const key = typeof req.headers['idempotency-key'] === 'string' ? req.headers['idempotency-key'] : null;
      if (key) {
        const prior = await db.selectFrom('calls').select('id').where('userId', '=', userId).where('idempotencyKey', '=', key).executeTakeFirst();
        if (prior) return reply.status(202).send({ callId: prior.id, status: 'QUEUED' });
      }

      const declared = Number(req.headers['content-length'] ?? 0);
      if (declared > ctx.config.limits.maxFileSize + MULTIPART_OVERHEAD) throw new ServiceError(ErrorCode.PayloadTooLarge, { maxBytes: ctx.config.limits.maxFileSize });
      const billing = await isFlagEnabled(db, 'billing_enabled');
      const early = checkUpload(await computeLimits(db, ctx.config, userId), Math.max(0, declared - MULTIPART_OVERHEAD), billing);
      if (early) throw limitError(early);

      const callId = crypto.randomUUID();
      let stored: StoredAudio | null = null;
      let metadataRaw: string | undefined;
      let titlePart: string | undefined;
      try {
        for await (const part of req.parts()) {
          if (part.type === 'file' && part.fieldname === 'metadata') {
            // Clients send the envelope as a plain field or as an application/json file part.
            metadataRaw = (await readSmallPart(part.file, METADATA_MAX_BYTES)).toString('utf8');
          } else if (part.type === 'file') {
            if (part.fieldname !== 'file' || stored) {
              part.file.resume();
              continue;
            }
            stored = await storeAudioPart(part, ctx.blobs, (format) => audioKey(userId, callId, format), {
              allowed: AUDIO_FORMATS,
              tooLarge: new ServiceError(ErrorCode.PayloadTooLarge, { maxBytes: ctx.config.limits.maxFileSize }),
            });
          } else if (part.fieldname === 'metadata') {
            metadataRaw = String(part.value);
          } else if (part.fieldname === 'title') {
            titlePart = String(part.value);
          }
        }
        if (!stored) throw errors.validation({ fields: [{ path: '/file', message: 'is required' }] }, 'The file part is missing.');
        const metadata = parseMetadata(metadataRaw);
        const title = metadata.title ?? (titlePart?.trim() ? titlePart.trim().slice(0, 500) : null);
        const audio = stored;

        await db.transaction().execute(async (trx) => {
          // One upload at a time per user, so concurrent uploads cannot both pass the guards.
          await sql`SELECT pg_advisory_xact_lock(hashtext(${`upload:${userId}`}))`.execute(trx);
          if (key) {
            const prior = await trx.selectFrom('calls').select('id').where('userId', '=', userId).where('idempotencyKey', '=', key).executeTakeFirst();
            if (prior) throw new DuplicateUpload(prior.id);
          }
          const limits = await computeLimits(trx, ctx.config, userId);
          const violation = checkUpload(limits, audio.bytes, billing);
          if (violation) throw limitError(violation);
          const serviceContactId = await autoAssignContact(trx, userId, { serviceContactId: null, contactName: metadata.contactName ?? null, phoneNumber: metadata.phoneNumber ?? null });
          await trx
            .insertInto('calls')
            .values({
              id: callId,
              userId,
              status: 'QUEUED',
              title: null,
              uploadTitle: title,
              suggestedTitle: null,
              direction: metadata.direction ?? null,
              contactName: metadata.contactName ?? null,
              legacyContactId: metadata.contactId ?? null,
              phoneNumber: metadata.phoneNumber ?? null,
              organization: metadata.organization ?? null,
              durationSeconds: metadata.durationSeconds ?? null,
              recordedAt: metadata.recordedAt ?? null,
              updatedAt: new Date(),
              completedAt: null,
              errorReason: null,
              summary: null,
              notes: null,
              serviceContactId,
              audioKey: audio.key,
              audioFormat: audio.format,
              audioBytes: audio.bytes,
              idempotencyKey: key,
            })
            .execute();
          await trx.insertInto('usageLedger').values({ userId, callId, bytes: audio.bytes, durationSeconds: null }).execute();
          if (consumesTranscriptTopup(limits, billing)) {
            await trx.updateTable('users').set((eb) => ({ topupTranscriptsBalance: eb('topupTranscriptsBalance', '-', 1) })).where('id', '=', userId).execute();
          }
          await recordEvent(trx, userId, callId, 'UPLOAD', 'ACCEPTED', { bytes: audio.bytes, format: audio.format });
          await ctx.queue.enqueueCall(trx, { callId, userId, kind: 'process' });
        });
        return reply.status(202).send({ callId, status: 'QUEUED' });
      } catch (err) {
        if (stored) await ctx.blobs.deletePrefix(`users/${userId}/calls/${callId}`).catch(() => undefined);
        if (err instanceof DuplicateUpload) return reply.status(202).send({ callId: err.callId, status: 'QUEUED' });
        throw err;
      }
    },
  );
}

class DuplicateUpload extends Error {
  constructor(readonly callId: string) {
    super('duplicate upload');
  }
}

// Accepting an upload: who may upload, what the metadata envelope may hold, and the one transaction
// that turns a stored audio file into a call. The call row, its usage-ledger entry, the contact
// assignment and the processing job commit together, so a crash leaves either nothing (a stray
// file is swept later) or a call that will be processed.
import crypto from 'node:crypto';
import type { Config } from '../config.js';
import type { Db } from '../store/database.js';
import type { JobQueue } from '../store/queue.js';
import { callPrefix, type BlobStore } from '../store/blobs.js';
import type { User } from '../store/schema.js';
import { findCallIdByIdempotencyKey, insertCall } from '../store/repos/calls.js';
import { lockKeyForTransaction } from '../store/repos/locks.js';
import { recordUpload, spendTranscriptTopup } from '../store/repos/usage.js';
import { ErrorCode, ServiceError, errors } from './errors.js';
import { checkUpload, computeLimits, consumesTranscriptTopup, isFlagEnabled, type LimitViolation } from './usage.js';
import { autoAssignContact } from './contact-assignment.js';
import { recordEvent } from './calls.js';
import { audioSecondsUpperBound, callJobTimeLimitSeconds } from './job-time-limit.js';
import { assertNoNul, NUL_MESSAGE } from './text-input.js';
import { cutText } from './text-cut.js';
import { claimUploadSlot } from './upload-slots.js';
import { observeUpload } from '../observability/metrics.js';

/** The metadata envelope after validation; absent and blank fields are left out. */
export interface UploadMetadata {
  title?: string;
  contactName?: string;
  contactId?: string;
  phoneNumber?: string;
  organization?: string;
  direction?: 'INCOMING' | 'OUTGOING';
  recordedAt?: string;
  durationSeconds?: number;
}

const STRING_FIELDS: Array<[keyof UploadMetadata, number]> = [
  ['title', 500],
  ['contactName', 200],
  ['contactId', 200],
  ['phoneNumber', 50],
  ['organization', 200],
];

const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

export const metadataNotJson = () => errors.validation({ fields: [{ path: '/metadata', message: 'is not valid JSON' }] }, 'The metadata part is not valid JSON.');

/**
 * Validates the metadata envelope. `raw` is the part as it arrived: JSON text (a plain field or a
 * file part), or the value a multipart parser already decoded from an application/json field.
 * Field errors name the field, never the value sent.
 */
export function parseUploadMetadata(raw: unknown): UploadMetadata {
  if (raw === undefined || raw === null) return {};
  let data: unknown = raw;
  if (typeof raw === 'string') {
    if (raw.trim() === '') return {};
    try {
      data = JSON.parse(raw);
    } catch {
      throw metadataNotJson();
    }
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
    else if (v.includes('\u0000')) fields.push({ path: `/metadata/${name}`, message: NUL_MESSAGE });
    else if (v.trim()) (out as Record<string, unknown>)[name] = v.trim();
  }
  if (m.direction !== undefined && m.direction !== null) {
    const d = typeof m.direction === 'string' ? m.direction.trim().toUpperCase() : '';
    if (d !== 'INCOMING' && d !== 'OUTGOING') fields.push({ path: '/metadata/direction', message: 'must be INCOMING or OUTGOING' });
    else out.direction = d;
  }
  if (m.recordedAt !== undefined && m.recordedAt !== null) {
    const v = m.recordedAt;
    if (typeof v !== 'string' || !ISO_WITH_ZONE.test(v) || Number.isNaN(Date.parse(v))) fields.push({ path: '/metadata/recordedAt', message: 'must be an ISO 8601 datetime with a zone' });
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

/**
 * The call title an upload starts with: the envelope's title, else the separate `title` part, cut
 * to 500 code units at a character boundary (a cut inside an emoji would store U+FFFD).
 */
export function uploadTitle(metadata: UploadMetadata, titlePart: string | undefined): string | null {
  if (metadata.title) return metadata.title;
  assertNoNul(titlePart, '/title');
  const t = titlePart?.trim();
  return t ? cutText(t, { maxCodeUnits: 500 }) || null : null;
}

function limitError(v: LimitViolation): ServiceError {
  return new ServiceError(v.code as ErrorCode, v.details);
}

export interface UploadGate {
  /** Whether billing is on; decided once per upload so both guards agree. */
  billing: boolean;
}

/** A suspended or disabled account uploads nothing, not even an idempotent replay. */
export function assertAccountMayUpload(user: User): void {
  if (user.accountStatus === 'SUSPENDED' || user.accountStatus === 'DISABLED') {
    throw new ServiceError(user.accountStatus === 'SUSPENDED' ? ErrorCode.AccountSuspended : ErrorCode.AccountDisabled, { reason: user.accountStatusReason });
  }
}

/**
 * The checks made before any byte is stored, after an idempotent replay has been answered: the
 * size the client declared fits the plan. `declaredBytes` is Content-Length less multipart overhead.
 */
export async function openUploadGate(db: Db, config: Config, userId: string, declaredBytes: number): Promise<UploadGate> {
  if (declaredBytes > config.limits.maxFileSize) throw new ServiceError(ErrorCode.PayloadTooLarge, { maxBytes: config.limits.maxFileSize });
  const billing = await isFlagEnabled(db, 'billing_enabled');
  const violation = checkUpload(await computeLimits(db, config, userId), Math.max(0, declaredBytes), billing);
  if (violation) throw limitError(violation);
  return { billing };
}

/** The call an earlier upload with the same Idempotency-Key created, if any. */
export async function findUploadByKey(db: Db, userId: string, idempotencyKey: string | null): Promise<string | null> {
  if (!idempotencyKey) return null;
  return (await findCallIdByIdempotencyKey(db, userId, idempotencyKey)) ?? null;
}

export interface StoredUploadAudio {
  key: string;
  format: string;
  bytes: number;
}

export interface UploadRequest {
  userId: string;
  callId: string;
  audio: StoredUploadAudio;
  metadata: UploadMetadata;
  title: string | null;
  idempotencyKey: string | null;
  gate: UploadGate;
}

/**
 * Creates the call for audio already in the blob store. Returns the call id, which is an earlier
 * call's when a concurrent upload with the same Idempotency-Key won (`duplicate`: the caller then
 * deletes the audio it stored).
 */
export async function acceptUpload(deps: { db: Db; config: Config; queue: JobQueue }, req: UploadRequest): Promise<{ callId: string; duplicate: boolean }> {
  const { userId, callId, audio, metadata } = req;
  return deps.db.transaction().execute(async (trx) => {
    // One upload at a time per user, so concurrent uploads cannot both pass the guards.
    await lockKeyForTransaction(trx, `upload:${userId}`);
    if (req.idempotencyKey) {
      const prior = await findCallIdByIdempotencyKey(trx, userId, req.idempotencyKey);
      if (prior) return { callId: prior, duplicate: true };
    }
    const limits = await computeLimits(trx, deps.config, userId);
    const violation = checkUpload(limits, audio.bytes, req.gate.billing);
    if (violation) throw limitError(violation);
    const serviceContactId = await autoAssignContact(trx, userId, { serviceContactId: null, contactName: metadata.contactName ?? null, phoneNumber: metadata.phoneNumber ?? null });
    await insertCall(trx, userId, {
      id: callId,
      status: 'QUEUED',
      title: null,
      uploadTitle: req.title,
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
      idempotencyKey: req.idempotencyKey,
    });
    await recordUpload(trx, userId, callId, audio.bytes);
    if (consumesTranscriptTopup(limits, req.gate.billing)) await spendTranscriptTopup(trx, userId);
    await recordEvent(trx, userId, callId, 'UPLOAD', 'ACCEPTED', { bytes: audio.bytes, format: audio.format });
    // The audio's length is measured only by the worker: until then the job may run as long as
    // the most audio a file of this size can hold needs (the worker lowers it after decoding).
    const timeLimitSeconds = callJobTimeLimitSeconds(deps.config.worker, audioSecondsUpperBound(audio.bytes));
    await deps.queue.enqueueCall(trx, { callId, userId, kind: 'process' }, { timeLimitSeconds });
    return { callId, duplicate: false };
  });
}

/** What an upload's body held, filled by the HTTP layer as parts arrive (so a failure leaves what was stored). */
export interface UploadBody {
  audio: StoredUploadAudio | null;
  /** The metadata envelope as it arrived (see parseUploadMetadata). */
  metadataRaw: unknown;
  titlePart: string | undefined;
  /** Set when the body was cut off (a time limit): a part may be half stored. */
  interrupted: boolean;
}

export interface UploadCallRequest {
  user: User;
  idempotencyKey: string | null;
  /** The body size the client declared, less the multipart framing. */
  declaredBytes: number;
  /** Reads the body, storing the audio under the new call's id; called once the upload may proceed. */
  readBody(callId: string, body: UploadBody): Promise<void>;
}

/**
 * The upload use case, POST /api/calls/analyze: an account that may upload, an idempotent replay
 * answered before any byte is read, the plan's checks on the declared size, one of the user's
 * upload slots held while the body arrives, then the call created from what was stored. Whatever
 * was stored of an upload that fails, or loses an idempotency race, is removed.
 */
export async function uploadCall(deps: { db: Db; config: Config; queue: JobQueue; blobs: BlobStore }, req: UploadCallRequest): Promise<{ callId: string }> {
  const userId = req.user.id;
  assertAccountMayUpload(req.user);
  const prior = await findUploadByKey(deps.db, userId, req.idempotencyKey);
  if (prior) return { callId: prior };
  const gate = await openUploadGate(deps.db, deps.config, userId, req.declaredBytes);
  const { uploads } = deps.config;
  const slot = await claimUploadSlot(deps.db, userId, { maxInFlight: uploads.maxInFlight, holdSeconds: uploads.timeoutSeconds + 120 });
  const callId = crypto.randomUUID();
  const removeStored = () => deps.blobs.deletePrefix(callPrefix(userId, callId)).catch(() => undefined);
  const body: UploadBody = { audio: null, metadataRaw: undefined, titlePart: undefined, interrupted: false };
  try {
    await req.readBody(callId, body);
    if (!body.audio) throw errors.validation({ fields: [{ path: '/file', message: 'is required' }] }, 'The file part is missing.');
    const metadata = parseUploadMetadata(body.metadataRaw);
    const title = uploadTitle(metadata, body.titlePart);
    const accepted = await acceptUpload(deps, { userId, callId, audio: body.audio, metadata, title, idempotencyKey: req.idempotencyKey, gate });
    if (accepted.duplicate) await removeStored();
    else observeUpload('call', body.audio.bytes);
    return { callId: accepted.callId };
  } catch (err) {
    if (body.audio || body.interrupted) await removeStored();
    throw err;
  } finally {
    await slot.release();
  }
}

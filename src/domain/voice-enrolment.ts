// Voice enrolment: a stored sample becomes the user's voice profile. The sample is decoded,
// measured and embedded; only the opaque embedding is kept (the caller deletes the sample).
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import type { Config } from '../config.js';
import type { Db } from '../store/database.js';
import { makePrivateDir, type BlobStore } from '../store/blobs.js';
import { deleteVoiceProfileRow, upsertVoiceProfile, voiceProfileSummary } from '../store/repos/voice-profiles.js';
import { decodeAudio, LocalStorageFault } from '../pipeline/audio/decode.js';
import { readAllPcm } from '../pipeline/audio/pcm.js';
import { PipelineError, type SpeakerEmbedder } from '../pipeline/types.js';
import { EmbeddingError, serializeEmbedding } from '../pipeline/voice/embedder.js';
import { MIN_ENROLMENT_SPEECH_SECONDS, checkEnrolmentSample } from '../pipeline/voice/sample-check.js';
import { ErrorCode, ServiceError, errors } from './errors.js';
import { observeUpload } from '../observability/metrics.js';
import { claimUploadSlot } from './upload-slots.js';
import { assertAccountMayUpload } from './uploads.js';
import { lockKeyForTransaction } from '../store/repos/locks.js';
import { countRecentEnrolmentAttempts, deleteEnrolmentAttemptsBefore, insertEnrolmentAttempt } from '../store/repos/voice-enrolment-attempts.js';
import type { User } from '../store/schema.js';

export interface VoiceEnrolmentDeps {
  db: Db;
  blobs: BlobStore;
  embedder: SpeakerEmbedder;
  config: Pick<Config, 'voice' | 'dataDir'>;
  log: { warn(obj: object, msg: string): void };
}

export interface EnrolledProfile {
  status: string;
  provider: string;
  consentVersion: string;
  createdAt: string;
  sampleDurationSeconds: number;
}

/**
 * The enrolments' CPU work: the sample check (about a millisecond) and the embedding (about 0.9 s
 * for a two-minute sample with the embedded embedder). The embedding runs in the pipeline's
 * embedding threads (src/pipeline/voice/threaded.ts); before, on this process's event loop,
 * enrolments sent side by side ran back to back in one turn of the loop (eight: a 4.7 s stall for
 * every request of every user). The process still takes them one at a time, so that enrolments
 * cannot take the CPU from the calls being processed. The per-user upload slot bounds one user;
 * this bounds many users together.
 */
let cpuTurn: Promise<void> = Promise.resolve();
async function oneAtATime<T>(work: () => Promise<T>): Promise<T> {
  const previous = cpuTurn;
  let finished!: () => void;
  cpuTurn = new Promise<void>((resolve) => (finished = resolve));
  try {
    await previous;
    await new Promise<void>((resolve) => setImmediate(resolve));
    return await work();
  } finally {
    finished();
  }
}

/** How long the sample's decoding may take (ffmpeg's time limit). */
const DECODE_TIMEOUT_MS = 120_000;

/** Decodes the sample at `sampleKey`, checks its length, embeds it and stores the profile (created or replaced). */
export async function enrolVoice(deps: VoiceEnrolmentDeps, userId: string, sampleKey: string): Promise<EnrolledProfile> {
  const voice = deps.config.voice;
  const workDir = path.join(deps.config.dataDir, 'work', `voice-${crypto.randomUUID()}`);
  try {
    await makePrivateDir(path.dirname(workDir));
    await makePrivateDir(workDir);
    let audio;
    try {
      const sample = await deps.blobs.localFile(sampleKey, workDir);
      try {
        audio = await decodeAudio(sample.path, workDir, { timeoutMs: DECODE_TIMEOUT_MS, maxSeconds: voice.sampleMaxSeconds + 1 });
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
    const check = await oneAtATime(() => checkEnrolmentSample(pcm, audio.sampleRate));
    if (check.problem === 'not_enough_speech') {
      throw new ServiceError(ErrorCode.VoiceSampleTooShort, { minSeconds: voice.sampleMinSeconds, minSpeechSeconds: MIN_ENROLMENT_SPEECH_SECONDS, problem: check.problem }, check.message!);
    }
    if (check.problem) throw errors.validation({ fields: [{ path: '/file', message: check.message! }], problem: check.problem }, check.message!);

    let embedding: Float32Array;
    try {
      embedding = await oneAtATime(() => deps.embedder.embed(pcm, audio.sampleRate));
    } catch (err) {
      if (err instanceof EmbeddingError && err.reason === 'not_enough_speech') {
        throw new ServiceError(ErrorCode.VoiceSampleTooShort, { minSeconds: voice.sampleMinSeconds }, 'The voice sample holds too little speech.');
      }
      deps.log.warn({ err: (err as Error).message }, 'voice embedding failed');
      throw new ServiceError(ErrorCode.VoiceProviderError);
    }
    const row = await upsertVoiceProfile(deps.db, userId, {
      provider: deps.embedder.provider,
      consentVersion: voice.consentVersion,
      embedding: serializeEmbedding(embedding),
      sampleDurationSeconds: Math.round(seconds),
    });
    return { status: row.status, provider: row.provider, consentVersion: row.consentVersion, createdAt: row.createdAt.toISOString(), sampleDurationSeconds: row.sampleDurationSeconds };
  } finally {
    await fs.promises.rm(workDir, { recursive: true, force: true });
  }
}

/** A stored sample, as the HTTP layer's reader reports it. */
export interface StoredSample {
  key: string;
  bytes: number;
}

/** The rolling window of the per-user enrolment rate limit. */
export const ENROLMENT_WINDOW_SECONDS = 3600;

function enrolmentRateLimited(limit: number, current: number): ServiceError {
  return new ServiceError(ErrorCode.VoiceEnrolmentRateLimited, { limit, current, windowSeconds: ENROLMENT_WINDOW_SECONDS });
}

/**
 * Refuses, before any byte of the sample is read, a user who has already had `limit` samples
 * decoded in the window. A read only: `recordEnrolmentAttempt` decides.
 */
async function assertEnrolmentAllowed(db: Db, userId: string, limit: number): Promise<void> {
  const current = await countRecentEnrolmentAttempts(db, userId, ENROLMENT_WINDOW_SECONDS);
  if (current >= limit) throw enrolmentRateLimited(limit, current);
}

/**
 * Counts one sample about to be decoded, or answers 429 `voice_enrolment_rate_limited` when the
 * user's window is full. The count is rows of voice_enrolment_attempts, checked and written under
 * a per-user lock in one transaction, so the limit holds across every process sharing the
 * database, and enrolments sent at once cannot all pass on the same count.
 */
async function recordEnrolmentAttempt(db: Db, userId: string, limit: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await lockKeyForTransaction(trx, `voice-enrolments:${userId}`);
    const current = await countRecentEnrolmentAttempts(trx, userId, ENROLMENT_WINDOW_SECONDS);
    if (current >= limit) throw enrolmentRateLimited(limit, current);
    await insertEnrolmentAttempt(trx, userId);
  });
}

/** Removes enrolment attempts that left the window. Returns how many. */
export async function sweepOldEnrolmentAttempts(db: Db): Promise<number> {
  return deleteEnrolmentAttemptsBefore(db, ENROLMENT_WINDOW_SECONDS);
}

/**
 * The enrolment use case, POST /api/users/me/voice-profile. Before any byte of the sample is read:
 * an account that may upload (403 `ACCOUNT_SUSPENDED`/`ACCOUNT_DISABLED` with the reason, as call
 * uploads), the declared size, the user's enrolment rate (429 `voice_enrolment_rate_limited`), one
 * of the user's upload slots. Then `readSample` stores the sample under a folder of its own (with
 * the size limit it is given), the sample is counted against the rate limit, and the profile is
 * made from it; the sample is deleted whatever the outcome, before the answer goes out.
 * `declaredBytes`: the body size the client declared, less the multipart framing.
 *
 * The rate limit counts samples that reach decoding, whatever their outcome (too short, too
 * noisy, a new profile): that is where the cost is. A request refused before (no file part, a
 * format that is not audio, too large while streaming) costs no decode and is not counted.
 */
export async function enrolVoiceSample(
  deps: VoiceEnrolmentDeps & { config: Pick<Config, 'uploads'> },
  user: User,
  req: { declaredBytes: number; readSample(keyFor: (format: string) => string, limits: { maxBytes: number; tooLarge: ServiceError }): Promise<StoredSample | null> },
): Promise<EnrolledProfile> {
  const userId = user.id;
  assertAccountMayUpload(user);
  const maxBytes = deps.config.voice.sampleMaxSizeMb * 1024 * 1024;
  const tooLarge = new ServiceError(ErrorCode.VoiceSampleTooLarge, { maxBytes });
  if (req.declaredBytes > maxBytes) throw tooLarge;
  const rateLimit = deps.config.voice.maxEnrolmentsPerHour;
  await assertEnrolmentAllowed(deps.db, userId, rateLimit);
  // An enrolment holds one of the user's upload slots (shared with call uploads) from its first
  // byte to its answer: its decoding and embedding run in this process (the embedding in a worker
  // thread), so enrolments sent at once by one user would take the CPU from every other user.
  const { uploads } = deps.config;
  const slot = await claimUploadSlot(deps.db, userId, { maxInFlight: uploads.maxInFlight, holdSeconds: uploads.timeoutSeconds + DECODE_TIMEOUT_MS / 1000 + 120 });
  const sampleDir = `users/${userId}/voice-samples/${crypto.randomUUID()}`;
  try {
    const stored = await req.readSample((format) => `${sampleDir}/sample.${format}`, { maxBytes, tooLarge });
    if (!stored) throw errors.validation({ fields: [{ path: '/file', message: 'is required' }] }, 'The file part is missing.');
    observeUpload('voice_sample', stored.bytes);
    await recordEnrolmentAttempt(deps.db, userId, rateLimit);
    return await enrolVoice(deps, userId, stored.key);
  } finally {
    await deps.blobs.deletePrefix(sampleDir).catch(() => undefined);
    await slot.release();
  }
}

/** The profile's status as GET /api/users/me/voice-profile/status answers it; `provider` is today's embedder's. */
export async function voiceProfileStatus(db: Db, userId: string, provider: string) {
  const row = await voiceProfileSummary(db, userId);
  if (!row) return { status: 'MISSING' };
  // A profile made by another embedder (an older version, or another provider) is not comparable
  // with today's embeddings, so calls treat it as absent (voiceMatchStatus NO_PROFILE): say so.
  const status = row.status === 'ACTIVE' && row.provider !== provider ? 'REENROLLMENT_REQUIRED' : row.status;
  return { status, provider: row.provider, consentVersion: row.consentVersion, createdAt: row.createdAt.toISOString() };
}

/** Deletes the profile; deleting a missing one is not an error. */
export const deleteVoiceProfile = deleteVoiceProfileRow;

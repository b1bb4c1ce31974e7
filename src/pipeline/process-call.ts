// The processing job of one call: QUEUED → PROCESSING (decode) → TRANSCRIBING (recognition,
// diarization, voice matching, naming) → ANALYZING → COMPLETED, or FAILED with a stable reason.
//
// Every write is idempotent (artifacts are upserts; AI action items are merged in the completing
// transaction, keeping the user's edits), so a job that runs again after its worker died produces one result.
// A job for a call that is already terminal, or deleted, does nothing.
import fs from 'node:fs';
import { Readable } from 'node:stream';
import path from 'node:path';
import { sql } from 'kysely';
import type { AppContext } from '../context.js';
import { reachedTimeLimit, type CallJobContext, type CallJobData, type CallJobHandler } from '../store/queue.js';
import type { Pipeline } from './index.js';
import { PipelineError, type PipelineFailureReason } from './types.js';
import { transcribeCall } from './speech.js';
import { deserializeEmbedding } from './voice/embedder.js';
import { validateAnalysis } from './analysis/validate.js';
import { TRANSCRIPT_SCHEMA_VERSION, type Transcript } from '../domain/transcript.js';
import { analysisContextOf, storeAnalysis } from '../domain/call-results.js';
import { findCall, recordEvent } from '../domain/calls.js';
import { enqueueCallEvent } from '../domain/webhooks.js';
import { computeLimits, isFlagEnabled, minutesBeyondAllowance } from '../domain/usage.js';
import { getArtifact, saveArtifact } from '../store/repos/artifacts.js';
import type { Call, CallStatus } from '../store/schema.js';
import { makePrivateDir, waveformKey, type LocalBlobFile } from '../store/blobs.js';
import type { HoldStage } from '../config.js';
import { callJobTimeLimitSeconds } from '../domain/job-time-limit.js';
import { observeCallFailed, observeCallProcessed } from '../observability/metrics.js';

type Deps = AppContext & { pipeline: Pipeline };

class CallGone extends Error {}

export function createCallProcessor(deps: Deps): CallJobHandler {
  const { database, blobs, config, log } = deps;
  const db = database.db;

  async function setStatus(call: Call, status: CallStatus): Promise<void> {
    const r = await db
      .updateTable('calls')
      .set({ status, updatedAt: sql`now()` })
      .where('id', '=', call.id)
      .where('userId', '=', call.userId)
      .where('status', 'not in', ['COMPLETED', 'FAILED'])
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) === 0) throw new CallGone();
  }

  async function fail(call: Call, reason: PipelineFailureReason, detail: Record<string, unknown>): Promise<void> {
    await db.transaction().execute(async (trx) => {
      await trx
        .updateTable('calls')
        .set({ status: 'FAILED', errorReason: reason, updatedAt: sql`now()`, completedAt: sql`now()` })
        .where('id', '=', call.id)
        .where('userId', '=', call.userId)
        .execute();
      await recordEvent(trx, call.userId, call.id, 'PIPELINE', 'FAILED', { reason, ...detail });
      await enqueueCallEvent(trx, deps.queue, call.userId, { id: call.id, status: 'FAILED', errorReason: reason });
    });
  }

  /**
   * Crash tests only (config.worker.testHoldAt, refused outside SERVICE_ENV=test): at the chosen
   * point the job announces itself in DATA_DIR/held-<stage>-<callId> and never goes on, so the test can
   * SIGKILL the process exactly there.
   */
  async function holdFor(stage: HoldStage, call: Call): Promise<void> {
    if (config.worker.testHoldAt !== stage) return;
    await fs.promises.writeFile(path.join(config.dataDir, `held-${stage}-${call.id}`), call.id);
    await new Promise<never>(() => undefined);
  }

  function checkAbort(signal: AbortSignal) {
    if (signal.aborted) throw new PipelineError('internal_error', reachedTimeLimit(signal) ? 'processing reached the job time limit' : 'processing interrupted by shutdown', true);
  }

  /** Once the audio's length is known, the job's time limit follows it (see domain/job-time-limit.ts). */
  async function fitTimeLimit(call: Call, job: CallJobContext, audioSeconds: number): Promise<void> {
    const before = job.timeLimitSeconds();
    const after = await job.lowerTimeLimit(callJobTimeLimitSeconds(config.worker, audioSeconds));
    if (after < before) log.debug({ callId: call.id, audioSeconds: Math.round(audioSeconds), timeLimitSeconds: after }, 'job time limit fitted to the audio');
  }

  async function transcribe(call: Call, displayName: string | null, job: CallJobContext, timings: Record<string, number>): Promise<{ transcript: Transcript; durationSeconds: number }> {
    if (!call.audioKey || !(await blobs.exists(call.audioKey))) throw new PipelineError('audio_missing', 'the stored audio file is missing');
    const workDir = path.join(config.dataDir, 'work', `${call.id}-${job.jobId}`);
    // The decoded call is a recording too: the work folder is as private as the blobs.
    await makePrivateDir(path.dirname(workDir));
    await makePrivateDir(workDir);
    // On object storage this downloads the audio into the work directory; released (removed) below.
    let audioFile: LocalBlobFile | null = null;
    try {
      audioFile = await blobs.localFile(call.audioKey!, workDir);
      const profile = config.voice.enabled
        ? await db.selectFrom('voiceProfiles').select(['embedding', 'provider']).where('userId', '=', call.userId).where('status', '=', 'ACTIVE').executeTakeFirst()
        : undefined;
      // A profile made by another embedding provider is not comparable; it is treated as absent.
      const voiceProfile = profile && profile.provider === deps.pipeline.embedder.provider ? deserializeEmbedding(profile.embedding) : null;
      // Names the recogniser should be able to hear: this call's and the user's contacts'.
      const contacts = await db.selectFrom('contacts').select('name').where('userId', '=', call.userId).orderBy('updatedAt', 'desc').limit(200).execute();
      const vocabulary = [displayName, call.contactName, call.organization, ...contacts.map((c) => c.name)].filter((n): n is string => !!n);
      let lastPercent = -1;
      const speech = await transcribeCall(deps.pipeline, {
        callId: call.id,
        vocabulary,
        audioPath: audioFile.path,
        workDir,
        maxAudioSeconds: config.worker.maxAudioSeconds,
        signal: job.signal,
        voiceProfile,
        context: {
          userDisplayName: displayName,
          contactName: call.contactName,
          phoneNumber: call.phoneNumber,
          direction: call.direction === 'INCOMING' || call.direction === 'OUTGOING' ? call.direction : null,
          voiceEmbeddingEnabled: config.voice.enabled,
        },
        onProgress: async (stage, p) => {
          const percent = Math.floor((100 * p.doneSeconds) / Math.max(1e-9, p.totalSeconds));
          if (percent <= lastPercent) return;
          lastPercent = percent;
          await recordEvent(db, call.userId, call.id, 'TRANSCRIBE', 'PROGRESS', { percent, doneSeconds: Math.round(p.doneSeconds), totalSeconds: Math.round(p.totalSeconds) });
        },
        onStage: async (stage, info) => {
          if (stage === 'decoded') {
            await db.updateTable('calls').set({ durationSeconds: info.durationSeconds as number }).where('id', '=', call.id).execute();
            await fitTimeLimit(call, job, info.durationSeconds as number);
            await recordEvent(db, call.userId, call.id, 'DECODE', 'COMPLETED', info);
            await setStatus(call, 'TRANSCRIBING');
          } else {
            await recordEvent(db, call.userId, call.id, stage === 'transcribed' ? 'TRANSCRIBE' : 'DIARIZE', 'COMPLETED', info);
          }
          await holdFor(stage, call);
        },
      });
      const { transcript, audio } = speech;
      Object.assign(timings, speech.timings);
      await blobs.put(waveformKey(call.userId, call.id), Readable.from([Buffer.from(speech.peaks)]));
      await saveArtifact(db, call.userId, call.id, 'transcript', TRANSCRIPT_SCHEMA_VERSION, transcript);
      await recordEvent(db, call.userId, call.id, 'RESOLVE', 'COMPLETED', {
        warnings: transcript.speakerResolution.warnings,
        voiceMatchStatus: transcript.speakerResolution.voiceMatchStatus,
        segments: transcript.segments.length,
      });
      return { transcript, durationSeconds: Math.round(audio.durationSeconds) };
    } finally {
      await audioFile?.release();
      await fs.promises.rm(workDir, { recursive: true, force: true });
    }
  }

  async function run(call: Call, job: CallJobContext): Promise<void> {
    const started = Date.now();
    const timings: Record<string, number> = {};
    const time = async <T>(name: string, fn: () => Promise<T>): Promise<T> => {
      const t0 = Date.now();
      try {
        return await fn();
      } finally {
        timings[name] = Date.now() - t0;
      }
    };

    await db.updateTable('calls').set({ attempts: sql`attempts + 1` }).where('id', '=', call.id).execute();
    await setStatus(call, 'PROCESSING');
    await recordEvent(db, call.userId, call.id, 'PIPELINE', 'STARTED', { attempt: job.retryCount + 1 });
    const user = await db.selectFrom('users').select(['displayName']).where('id', '=', call.userId).executeTakeFirstOrThrow();
    // A retry after the transcript was stored (an analysis provider error, a crash while
    // analysing) goes straight to analysis instead of recognising the audio again.
    const stored = await getArtifact<Transcript>(db, call.userId, call.id, 'transcript');
    let transcript: Transcript;
    let durationSeconds: number;
    if (stored) {
      transcript = stored;
      durationSeconds = call.durationSeconds ?? stored.durationSeconds;
      await fitTimeLimit(call, job, stored.durationSeconds);
      await recordEvent(db, call.userId, call.id, 'TRANSCRIBE', 'REUSED', { segments: stored.segments.length });
    } else {
      ({ transcript, durationSeconds } = await transcribe(call, user.displayName, job, timings));
    }
    checkAbort(job.signal);

    const { analyzer } = deps.pipeline;
    await setStatus(call, 'ANALYZING');
    const fresh = (await findCall(db, call.userId, call.id)) ?? call;
    // Progress of an analysis in parts, written in order and finished before the result is stored.
    let reports = Promise.resolve();
    const onProgress = (p: { done: number; total: number }) => {
      const percent = Math.floor((100 * p.done) / Math.max(1, p.total));
      reports = reports.then(() => recordEvent(db, call.userId, call.id, 'ANALYZE', 'PROGRESS', { percent, parts: p.total - 1 })).catch(() => undefined);
    };
    const analysis = await time('analyze', async () => {
      try {
        return await analyzer.analyze(transcript, analysisContextOf(fresh, user), job.signal, onProgress);
      } finally {
        await reports;
      }
    });
    const checked = validateAnalysis(analysis);
    if (!checked.ok) throw new PipelineError('analysis_failed', `analysis failed validation: ${checked.errors.slice(0, 3).join('; ')}`);
    await holdFor('analyzed', call);

    const billing = await isFlagEnabled(db, 'billing_enabled');
    const limitsBefore = billing ? await computeLimits(db, config, call.userId, { excludeCallId: call.id }) : null;
    await db.transaction().execute(async (trx) => {
      const locked = await trx.selectFrom('calls').select('status').where('id', '=', call.id).where('userId', '=', call.userId).forUpdate().executeTakeFirst();
      if (!locked || locked.status === 'COMPLETED' || locked.status === 'FAILED') throw new CallGone();
      await storeAnalysis(trx, call.userId, call.id, checked.value);
      await trx.updateTable('calls').set({ status: 'COMPLETED', errorReason: null, completedAt: sql`now()`, updatedAt: sql`now()` }).where('id', '=', call.id).execute();
      await trx.updateTable('usageLedger').set({ durationSeconds }).where('callId', '=', call.id).execute();
      if (limitsBefore) {
        const extra = minutesBeyondAllowance(limitsBefore, Math.ceil(durationSeconds / 60));
        if (extra > 0) {
          await trx.updateTable('users').set({ topupMinutesBalance: sql`greatest(0, topup_minutes_balance - ${extra})` }).where('id', '=', call.userId).execute();
        }
      }
      await recordEvent(trx, call.userId, call.id, 'ANALYZE', 'COMPLETED', {
        provider: analyzer.provider,
        actionItems: checked.value.actionItems?.length ?? 0,
        ms: timings.analyze,
      });
      await recordEvent(trx, call.userId, call.id, 'PIPELINE', 'COMPLETED', { totalMs: Date.now() - started, timings, audioSeconds: durationSeconds });
      await enqueueCallEvent(trx, deps.queue, call.userId, { id: call.id, status: 'COMPLETED', errorReason: null });
      await holdFor('committing', call); // everything written, the commit not yet made
    });
    log.info({ callId: call.id, totalMs: Date.now() - started, timings, audioSeconds: durationSeconds }, 'call processed');
    observeCallProcessed(timings, Date.now() - started, durationSeconds);
  }

  return async (data: CallJobData, job: CallJobContext) => {
    const call = await findCall(db, data.userId, data.callId);
    if (!call || call.status === 'COMPLETED' || call.status === 'FAILED') return;
    try {
      await run(call, job);
    } catch (err) {
      if (err instanceof CallGone) return;
      const stillThere = await findCall(db, data.userId, data.callId);
      if (!stillThere || stillThere.status === 'COMPLETED' || stillThere.status === 'FAILED') return;
      // A job stopped at its time limit is retried like any retryable failure (the queue would
      // retry it at the limit anyway), whatever error the interrupted step raised; a shutdown
      // leaves the call to the next worker.
      const timedOut = reachedTimeLimit(job.signal);
      const pe = timedOut
        ? new PipelineError('internal_error', 'processing reached the job time limit', true)
        : err instanceof PipelineError
          ? err
          : new PipelineError('internal_error', (err as Error)?.message ?? 'unknown error', true);
      const lastAttempt = job.retryCount >= job.retryLimit;
      const shuttingDown = job.signal.aborted && !timedOut;
      if (timedOut) log.warn({ callId: call.id, timeLimitSeconds: job.timeLimitSeconds(), attempt: job.retryCount + 1 }, 'call processing reached the job time limit');
      if (pe.retryable && !lastAttempt && !shuttingDown) {
        await recordEvent(db, call.userId, call.id, 'PIPELINE', 'RETRY_SCHEDULED', { reason: pe.reason, attempt: job.retryCount + 1 });
        log.warn({ callId: call.id, reason: pe.reason, attempt: job.retryCount + 1 }, 'call processing failed; will retry');
        observeCallFailed('retry', pe.reason);
        throw pe;
      }
      if (shuttingDown) throw pe; // leave the call for the next worker
      log.warn({ callId: call.id, reason: pe.reason }, 'call processing failed');
      if (!(err instanceof PipelineError)) log.error({ err }, 'unexpected pipeline error');
      await fail(call, pe.reason, { attempt: job.retryCount + 1 });
      observeCallFailed('failed', pe.reason);
    }
  };
}

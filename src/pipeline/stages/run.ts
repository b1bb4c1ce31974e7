// The stage runner: runs the stage list (index.ts) for one call job. Each stage's state is kept in
// call_stages (src/store/repos/call-stages.ts): a stage that finished in an earlier attempt is not
// run again, its stored output stands in; the first unfinished stage runs, and each stage's output,
// its own writes (`save`), its state and its COMPLETED event are committed together.
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import type { Call, CallStatus } from '../../store/schema.js';
import type { CallJobContext } from '../../store/queue.js';
import { reachedTimeLimit } from '../../store/queue.js';
import { recordEvent } from '../../domain/calls.js';
import { callJobTimeLimitSeconds } from '../../domain/job-time-limit.js';
import { failCallStage, finishCallStage, listCallStages, reportCallStageProgress, startCallStage } from '../../store/repos/call-stages.js';
import { makePrivateDir, type LocalBlobFile } from '../../store/blobs.js';
import { decodeCallAudio } from '../speech.js';
import { PipelineError, type DecodedAudio } from '../types.js';
import { CallGone, type Deps, type Stage, type StageContext } from './stage.js';
import { STAGES, type StageName, type TimingName } from './index.js';
import { getArtifact } from '../../store/repos/artifacts.js';
import type { Transcript } from '../../domain/transcript.js';

/** The stages whose result is the stored transcript: the list up to `resolve`, which saves it. */
const SPEECH_STAGES = new Set<string>(STAGES.slice(0, STAGES.findIndex((s) => s.name === 'resolve') + 1).map((s) => s.name));

type AnyStage = Stage<StageName, unknown, string>;

export interface StageRunResult {
  timings: Partial<Record<TimingName, number>>;
  totalMs: number;
  audioSeconds: number;
}

export async function runStages(deps: Deps, call: Call, job: CallJobContext): Promise<StageRunResult> {
  const { database, blobs, config, log } = deps;
  const db = database.db;
  const startedAt = Date.now();
  const timings: Record<string, number> = {};
  const outputs = new Map<string, unknown>();
  let status: CallStatus = call.status;
  let running: AnyStage | null = null;

  async function setStatus(next: CallStatus): Promise<void> {
    const r = await db
      .updateTable('calls')
      .set({ status: next, updatedAt: sql`now()` })
      .where('id', '=', call.id)
      .where('userId', '=', call.userId)
      .where('status', 'not in', ['COMPLETED', 'FAILED'])
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) === 0) throw new CallGone();
    status = next;
  }

  function checkAbort() {
    if (job.signal.aborted) throw new PipelineError('internal_error', reachedTimeLimit(job.signal) ? 'processing reached the job time limit' : 'processing interrupted by shutdown', true);
  }

  // The decoded audio lives in the job's work folder, removed when the job ends; a resumed job
  // decodes again only if a stage still to run needs the audio.
  const workDir = path.join(config.dataDir, 'work', `${call.id}-${job.jobId}`);
  let audioFile: LocalBlobFile | null = null;
  let decoded: Promise<DecodedAudio> | null = null;
  async function decodeOnce(): Promise<DecodedAudio> {
    if (!call.audioKey || !(await blobs.exists(call.audioKey))) throw new PipelineError('audio_missing', 'the stored audio file is missing');
    // The decoded call is a recording too: the work folder is as private as the blobs.
    await makePrivateDir(path.dirname(workDir));
    await makePrivateDir(workDir);
    // On object storage this downloads the audio into the work directory.
    audioFile = await blobs.localFile(call.audioKey, workDir);
    return ctx.time('decode', () => decodeCallAudio({ audioPath: audioFile!.path, workDir, maxAudioSeconds: config.worker.maxAudioSeconds, signal: job.signal }));
  }

  await db.updateTable('calls').set({ attempts: sql`attempts + 1` }).where('id', '=', call.id).execute();
  await setStatus('PROCESSING');
  await recordEvent(db, call.userId, call.id, 'PIPELINE', 'STARTED', { attempt: job.retryCount + 1 });
  const user = await db.selectFrom('users').select(['displayName']).where('id', '=', call.userId).executeTakeFirstOrThrow();

  const ctx: StageContext = {
    deps,
    db,
    call,
    user,
    job,
    startedAt,
    timings,
    async time(name, fn) {
      const t0 = performance.now();
      try {
        return await fn();
      } finally {
        timings[name] = Math.round(performance.now() - t0);
      }
    },
    audio() {
      decoded ??= decodeOnce();
      return decoded;
    },
    output(stage) {
      if (!outputs.has(stage.name)) throw new Error(`stage ${stage.name} has no output yet`);
      return outputs.get(stage.name) as never;
    },
    event: (step, outcome, detail) => recordEvent(db, call.userId, call.id, step, outcome, detail ?? null),
    async progress(percent) {
      if (running) await reportCallStageProgress(db, call.userId, call.id, running.name, percent);
    },
    async fitTimeLimit(audioSeconds) {
      const before = job.timeLimitSeconds();
      const after = await job.lowerTimeLimit(callJobTimeLimitSeconds(config.worker, audioSeconds));
      if (after < before) log.debug({ callId: call.id, audioSeconds: Math.round(audioSeconds), timeLimitSeconds: after }, 'job time limit fitted to the audio');
    },
    /**
     * Crash tests only (config.worker.testHoldAt, refused outside SERVICE_ENV=test): at the chosen
     * point the job announces itself in DATA_DIR/held-<point>-<callId> and never goes on, so the
     * test can SIGKILL the process exactly there.
     */
    async holdFor(point) {
      if (config.worker.testHoldAt !== point) return;
      await fs.promises.writeFile(path.join(config.dataDir, `held-${point}-${call.id}`), call.id);
      await new Promise<never>(() => undefined);
    },
    checkAbort,
  };

  try {
    const state = new Map((await listCallStages(db, call.userId, call.id)).map((r) => [r.stage, r]));
    // A transcript stored without a finished `resolve` stage (a call whose job began before the
    // stage table existed, migration 010): the speech stages' result is that transcript, so the job
    // goes on at analysis, as jobs did before.
    const storedTranscript = state.get('resolve')?.outcome === 'COMPLETED' ? undefined : await getArtifact<Transcript>(db, call.userId, call.id, 'transcript');
    if (storedTranscript) {
      outputs.set('decode', { durationSeconds: call.durationSeconds ?? storedTranscript.durationSeconds, channels: 1 });
      outputs.set('resolve', storedTranscript);
      await ctx.fitTimeLimit(storedTranscript.durationSeconds);
      await ctx.event('TRANSCRIBE', 'REUSED', { segments: storedTranscript.segments.length });
    }
    for (const stage of STAGES as readonly AnyStage[]) {
      if (storedTranscript && SPEECH_STAGES.has(stage.name)) continue;
      const earlier = state.get(stage.name);
      if (earlier?.outcome === 'COMPLETED') {
        outputs.set(stage.name, earlier.output);
        await stage.reuse?.(ctx, earlier.output);
        continue;
      }
      checkAbort();
      if (status !== stage.status) await setStatus(stage.status);
      running = stage;
      await startCallStage(db, call.userId, call.id, stage.name);
      let result;
      try {
        result = await stage.run(ctx);
      } catch (err) {
        if (!(err instanceof CallGone)) {
          const reason = err instanceof PipelineError ? err.reason : 'internal_error';
          await failCallStage(db, call.userId, call.id, stage.name, { reason }).catch(() => undefined);
        }
        throw err;
      }
      outputs.set(stage.name, result.output);
      await db.transaction().execute(async (trx) => {
        await finishCallStage(trx, call.userId, call.id, stage.name, result.output, null);
        await stage.save?.(ctx, result.output, trx);
        if (stage.step && result.event) await recordEvent(trx, call.userId, call.id, stage.step, 'COMPLETED', result.event);
        if (stage.holdBeforeCommit) for (const point of stage.holds) await ctx.holdFor(point);
      });
      running = null;
      if (!stage.holdBeforeCommit) for (const point of stage.holds) await ctx.holdFor(point);
    }
  } finally {
    await (audioFile as LocalBlobFile | null)?.release();
    await fs.promises.rm(workDir, { recursive: true, force: true });
  }
  const audioSeconds = Math.round((outputs.get('decode') as { durationSeconds: number }).durationSeconds);
  return { timings: timings as Partial<Record<TimingName, number>>, totalMs: Date.now() - startedAt, audioSeconds };
}

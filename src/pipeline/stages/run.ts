// The stage runner: runs one job's part of the stage list (index.ts) for one call: the call job
// (CALL_QUEUE) the speech stages, the analysis job (ANALYSIS_QUEUE) analysis and completion. Each
// stage's state is kept in call_stages (src/store/repos/call-stages.ts): a stage that finished in
// an earlier attempt or job is not run again, its stored output stands in; the first unfinished
// stage runs, and each stage's output, its own writes (`save`), its state and its COMPLETED event
// are committed together. The transaction that finishes the call job's last stage also moves the
// call to ANALYZING and enqueues its analysis job, so a crash between the two jobs loses nothing.
import fs from 'node:fs';
import path from 'node:path';
import type { Call, CallStatus } from '../../store/schema.js';
import type { Tx } from '../../store/database.js';
import type { CallJobContext } from '../../store/queue.js';
import { reachedTimeLimit } from '../../store/queue.js';
import { recordEvent } from '../../domain/calls.js';
import { callJobTimeLimitSeconds } from '../../domain/job-time-limit.js';
import { failCallStage, finishCallStage, listCallStages, reportCallStageProgress, startCallStage } from '../../store/repos/call-stages.js';
import { countProcessingAttempt, setProcessingStatus } from '../../store/repos/calls.js';
import { getDisplayName } from '../../store/repos/users.js';
import { getArtifact } from '../../store/repos/artifacts.js';
import { makePrivateDir, type LocalBlobFile } from '../../store/blobs.js';
import type { Transcript } from '../../domain/transcript.js';
import { decodeCallAudio } from '../speech.js';
import { PipelineError, type DecodedAudio } from '../types.js';
import { CallGone, type Deps, type Stage, type StageContext, type StageJob } from './stage.js';
import { STAGES, stagesOf, type HoldPoint, type StageName, type StageStep, type TimingName } from './index.js';

/** The stages whose result is the stored transcript: the list up to `resolve`, which saves it. */
const SPEECH_STAGES = new Set<string>(STAGES.slice(0, STAGES.findIndex((s) => s.name === 'resolve') + 1).map((s) => s.name));

type AnyStage = Stage<StageName, unknown, HoldPoint, StageStep | null>;

/** What a stage's finished row keeps besides its output: its processing time and the timings measured in it. */
interface StageDetail {
  ms: number;
  timings: Record<string, number>;
}

export type StageRunResult =
  /** The job's stages all finished: for the analysis job, the call is COMPLETED. */
  | { kind: 'finished'; job: StageJob; timings: Partial<Record<TimingName, number>>; totalMs: number; audioSeconds: number }
  /** The call job found its stages already finished (an earlier attempt): it handed the call to the analysis job again. */
  | { kind: 'handed_over' }
  /** The analysis job found the speech stages unfinished: the call job hands the call over when they are. */
  | { kind: 'not_ready' };

export async function runStages(deps: Deps, call: Call, job: CallJobContext, part: StageJob): Promise<StageRunResult> {
  const { database, blobs, config, log } = deps;
  const db = database.db;
  const timings: Record<string, number> = {};
  const outputs = new Map<string, unknown>();
  /** Processing time by finished stage (this job's, and earlier ones' from their rows). */
  const stageMs = new Map<string, number>();
  let status: CallStatus = call.status;
  let running: { stage: AnyStage; startedAt: number } | null = null;
  const mine = stagesOf(part) as readonly AnyStage[];
  const lastOfCallJob = stagesOf('call').at(-1)!;

  async function setStatus(next: CallStatus, q: Tx | typeof db = db): Promise<void> {
    if (!(await setProcessingStatus(q, call.userId, call.id, next))) throw new CallGone();
    status = next;
  }

  /** The call goes to the analysis job: ANALYZING, its job enqueued, in the caller's transaction. */
  async function handOver(trx: Tx): Promise<void> {
    await setStatus(stagesOf('analysis')[0]!.status, trx);
    // The analysis job may take as long as this job may: its limit was fitted to the audio.
    await deps.queue.enqueueAnalysis(trx, { userId: call.userId, callId: call.id }, { timeLimitSeconds: job.timeLimitSeconds() });
  }

  function checkAbort() {
    if (job.signal.aborted) throw new PipelineError('internal_error', reachedTimeLimit(job.signal) ? 'processing reached the job time limit' : 'processing interrupted by shutdown', true);
  }

  /**
   * Crash tests only (config.worker.testHoldAt, refused outside SERVICE_ENV=test): at the chosen
   * point the job announces itself in DATA_DIR/held-<point>-<callId> and never goes on, so the
   * test can SIGKILL the process exactly there.
   */
  async function holdFor(point: HoldPoint): Promise<void> {
    if (config.worker.testHoldAt !== point) return;
    await fs.promises.writeFile(path.join(config.dataDir, `held-${point}-${call.id}`), call.id);
    await new Promise<never>(() => undefined);
  }

  const totalMs = () => [...stageMs.values()].reduce((a, b) => a + b, 0) + (running ? Date.now() - running.startedAt : 0);

  // What earlier attempts and jobs finished.
  const state = new Map((await listCallStages(db, call.userId, call.id)).map((r) => [r.stage, r]));
  // A transcript stored without a finished `resolve` stage (a call whose job began before the
  // stage table existed, migration 010): the speech stages' result is that transcript, so the call
  // goes on at analysis, as jobs did before.
  const storedTranscript = state.get('resolve')?.outcome === 'COMPLETED' ? undefined : await getArtifact<Transcript>(db, call.userId, call.id, 'transcript');
  if (storedTranscript) {
    outputs.set('decode', { durationSeconds: call.durationSeconds ?? storedTranscript.durationSeconds, channels: 1 });
    outputs.set('resolve', storedTranscript);
  }
  const finished = (s: AnyStage) => state.get(s.name)?.outcome === 'COMPLETED' || (storedTranscript !== undefined && SPEECH_STAGES.has(s.name));
  for (const s of STAGES as readonly AnyStage[]) {
    const row = state.get(s.name);
    if (row?.outcome !== 'COMPLETED') continue;
    outputs.set(s.name, row.output);
    const detail = row.detail as Partial<StageDetail> | null;
    if (typeof detail?.ms === 'number') stageMs.set(s.name, detail.ms);
    Object.assign(timings, detail?.timings ?? {});
  }

  const firstPending = mine.find((s) => !finished(s));
  if (part === 'analysis' && STAGES.slice(0, STAGES.indexOf(mine[0] as never)).some((s) => !finished(s as AnyStage))) return { kind: 'not_ready' };
  if (!firstPending) {
    if (part !== 'call') throw new CallGone(); // nothing left: the call completes with its last stage
    if (storedTranscript) await recordEvent(db, call.userId, call.id, 'TRANSCRIBE', 'REUSED', { segments: storedTranscript.segments.length });
    await db.transaction().execute(handOver);
    deps.queue.wakeAnalyses();
    return { kind: 'handed_over' };
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

  // calls.attempts counts the call's processing attempts: every run of its call job, and every
  // retry of its analysis job (whose first run goes on with the attempt that handed it over).
  if (part === 'call' || job.retryCount > 0) await countProcessingAttempt(db, call.userId, call.id);
  await setStatus(firstPending.status);
  // PIPELINE/STARTED marks a run of the call job, as before the analysis had a job of its own
  // (an analysis job's retry shows in calls.attempts and its RETRY_SCHEDULED event).
  if (part === 'call') await recordEvent(db, call.userId, call.id, 'PIPELINE', 'STARTED', { attempt: job.retryCount + 1 });
  const user = await getDisplayName(db, call.userId);

  const ctx: StageContext<StageName, StageStep> = {
    deps,
    db,
    call,
    user,
    job,
    timings,
    totalMs,
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
      if (running) await reportCallStageProgress(db, call.userId, call.id, running.stage.name, percent);
    },
    async fitTimeLimit(audioSeconds) {
      const before = job.timeLimitSeconds();
      const after = await job.lowerTimeLimit(callJobTimeLimitSeconds(config.worker, audioSeconds));
      if (after < before) log.debug({ callId: call.id, audioSeconds: Math.round(audioSeconds), timeLimitSeconds: after }, 'job time limit fitted to the audio');
    },
    checkAbort,
  };

  try {
    for (const stage of mine) {
      if (finished(stage)) {
        if (state.get(stage.name)?.outcome === 'COMPLETED') await stage.reuse?.(ctx, outputs.get(stage.name));
        continue;
      }
      checkAbort();
      if (status !== stage.status) await setStatus(stage.status);
      running = { stage, startedAt: Date.now() };
      const measuredBefore = { ...timings };
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
      const measured = Object.fromEntries(Object.entries(timings).filter(([k, v]) => measuredBefore[k] !== v));
      const detail: StageDetail = { ms: Date.now() - running.startedAt, timings: measured };
      await db.transaction().execute(async (trx) => {
        await finishCallStage(trx, call.userId, call.id, stage.name, result.output, { ...detail });
        await stage.save?.(ctx, result.output, trx);
        if (stage.step && result.event) await recordEvent(trx, call.userId, call.id, stage.step, 'COMPLETED', result.event);
        if (stage === lastOfCallJob) await handOver(trx);
        if (stage.holdBeforeCommit) for (const point of stage.holds) await holdFor(point);
      });
      stageMs.set(stage.name, detail.ms);
      running = null;
      if (stage === lastOfCallJob) deps.queue.wakeAnalyses();
      if (!stage.holdBeforeCommit) for (const point of stage.holds) await holdFor(point);
    }
  } finally {
    await (audioFile as LocalBlobFile | null)?.release();
    await fs.promises.rm(workDir, { recursive: true, force: true });
  }
  const audioSeconds = Math.round((outputs.get('decode') as { durationSeconds: number }).durationSeconds);
  return { kind: 'finished', job: part, timings: timings as Partial<Record<TimingName, number>>, totalMs: totalMs(), audioSeconds };
}

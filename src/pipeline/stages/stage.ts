// The interface every pipeline stage implements, and what the runner (run.ts) gives it. A stage
// loads its input (earlier stages' outputs, the call, the database), runs, and saves its output
// idempotently; the runner records the stage's state in call_stages, so a retried job resumes at
// the first stage that did not finish, reading the finished stages' stored outputs.
import type { AppContext } from '../../context.js';
import type { CallJobContext } from '../../store/queue.js';
import type { Call, CallStatus } from '../../store/schema.js';
import type { Db, Tx } from '../../store/database.js';
import type { Pipeline } from '../index.js';
import type { DecodedAudio } from '../types.js';
import type { ProgressStage } from '../../domain/calls.js';

export type Deps = AppContext & { pipeline: Pipeline };

/** A stage's event and state writes share its finishing transaction. */
export type StageTx = Tx;

/**
 * Which job runs a stage: the call job (CALL_QUEUE: the CPU-bound speech work) or the analysis
 * job (ANALYSIS_QUEUE: the LLM-bound work). The stages of one job are contiguous in the list; the
 * call job hands the call to the analysis job in the transaction that finishes its last stage.
 */
export type StageJob = 'call' | 'analysis';

/** Timings measured inside a stage besides the stage's own (speech detection, waveform peaks). */
export type SubTiming = 'vad' | 'peaks';

/** Outcomes of the processing events a stage records itself (its COMPLETED one is the runner's). */
export type StageEventOutcome = 'PROGRESS' | 'COMPLETED' | 'REUSED';

/**
 * What a stage's `run` sees. `Name` and `Step` are the stage's own: it times itself under its
 * name (or a SubTiming) and records events under its own step, so every timing name and event step
 * comes from the stage list (index.ts derives TimingName and StageStep from it).
 */
export interface StageContext<Name extends string = string, Step extends string | null = string | null> {
  readonly deps: Deps;
  readonly db: Db;
  readonly call: Call;
  readonly user: { displayName: string | null };
  readonly job: CallJobContext;
  /** Milliseconds by timing name (TimingName), reported in the PIPELINE COMPLETED event and the metrics. */
  readonly timings: Record<string, number>;
  time<T>(name: Name | SubTiming, fn: () => Promise<T>): Promise<T>;
  /** The processing time of the call's stages so far, across jobs and attempts (queue waits not counted). */
  totalMs(): number;
  /** The call's audio decoded into the job's work folder, at most once per job. */
  audio(): Promise<DecodedAudio>;
  /** The output of an earlier stage (made in this job, or stored by an earlier job or attempt). */
  output<O>(stage: Stage<string, O, string, string | null>): O;
  /** A processing event of the stage besides its COMPLETED one (progress, reuse). */
  event(step: NonNullable<Step>, outcome: StageEventOutcome, detail?: Record<string, unknown>): Promise<void>;
  /** The running stage's share done, 0..100 (call_stages.progress; GET /api/calls/{id} shows it). */
  progress(percent: number): Promise<void>;
  /** The job's time limit fitted to the audio's length (domain/job-time-limit.ts). */
  fitTimeLimit(audioSeconds: number): Promise<void>;
  checkAbort(): void;
}

/** The call became terminal (or was deleted) while the job ran: the job ends without a word. */
export class CallGone extends Error {}

export interface StageResult<O> {
  output: O;
  /** Detail of the stage's COMPLETED processing event (none: the stage records no such event). */
  event?: Record<string, unknown>;
}

export interface Stage<Name extends string, O, Hold extends string = never, Step extends string | null = string | null> {
  readonly name: Name;
  /** The job that runs the stage (StageJob). */
  readonly job: StageJob;
  /** The processing-event step of the stage's events (shown in the API); null: it records none. */
  readonly step: Step;
  /** The call's status while the stage runs (or waits to run). */
  readonly status: Exclude<CallStatus, 'QUEUED' | 'COMPLETED' | 'FAILED'>;
  /** What GET /api/calls/{id} reports as `progress.stage` while this stage is the next to finish. */
  readonly progress: ProgressStage;
  /** The stage's percent reads 0 until its first report (else null until a report, as before the stage table). */
  readonly percentFromZero?: boolean;
  /** Crash-test hold points of the stage, in order (TEST_HOLD_AT_STAGE): after it finished, or see holdBeforeCommit. */
  readonly holds: readonly Hold[];
  /** The holds come inside the finishing transaction: everything written, the commit not yet made. */
  readonly holdBeforeCommit?: boolean;
  /** Runs the stage: its input comes from `ctx` (earlier outputs, the call, the database). */
  run(ctx: StageContext<Name, Step>): Promise<StageResult<O>>;
  /**
   * Writes the stage's result where the service reads it (blobs, artifacts, the call row), in the
   * transaction that marks the stage finished; must be idempotent (a retry may write it again).
   */
  save?(ctx: StageContext<Name, Step>, output: O, trx: StageTx): Promise<void>;
  /** A retry of the stage's job found it finished: `output` is what it stored (e.g. fit the time limit, note the reuse). */
  reuse?(ctx: StageContext<Name, Step>, output: O): Promise<void>;
}

/** A stage with its name, hold points and event step kept as literal types (the list's vocabularies derive from them). */
export function defineStage<const Name extends string, O, const Hold extends string = never, const Step extends string | null = null>(
  stage: Stage<Name, O, Hold, Step>,
): Stage<Name, O, Hold, Step> {
  return stage;
}

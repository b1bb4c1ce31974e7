// The interface every pipeline stage implements, and what the runner (run.ts) gives it. A stage
// loads its input (earlier stages' outputs, the call, the database), runs, and saves its output
// idempotently; the runner records the stage's state in call_stages, so a retried job resumes at
// the first stage that did not finish, reading the finished stages' stored outputs.
import type { Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { CallJobContext } from '../../store/queue.js';
import type { Call, CallStatus, Database } from '../../store/schema.js';
import type { Db } from '../../store/database.js';
import type { Pipeline } from '../index.js';
import type { DecodedAudio } from '../types.js';
import type { ProgressStage } from '../../domain/calls.js';

export type Deps = AppContext & { pipeline: Pipeline };

/** A stage's event and state writes share its finishing transaction. */
export type StageTx = Transaction<Database>;


export interface StageContext {
  readonly deps: Deps;
  readonly db: Db;
  readonly call: Call;
  readonly user: { displayName: string | null };
  readonly job: CallJobContext;
  /** When the job started (Date.now()). */
  readonly startedAt: number;
  /** Milliseconds by timing name, reported in the PIPELINE COMPLETED event and the metrics. */
  /** Keys are TimingName (index.ts; not typed here: the list's types derive from the stages). */
  readonly timings: Record<string, number>;
  time<T>(name: string, fn: () => Promise<T>): Promise<T>;
  /** The call's audio decoded into the job's work folder, at most once per job. */
  audio(): Promise<DecodedAudio>;
  /** The output of an earlier stage (made in this job, or stored by an earlier attempt). */
  output<O>(stage: Stage<string, O, string>): O;
  /** A processing event outside the stage's own COMPLETED event (progress, reuse). */
  event(step: string, outcome: string, detail?: Record<string, unknown>): Promise<void>;
  /** The running stage's share done, 0..100 (call_stages.progress; GET /api/calls/{id} shows it). */
  progress(percent: number): Promise<void>;
  /** The job's time limit fitted to the audio's length (domain/job-time-limit.ts). */
  fitTimeLimit(audioSeconds: number): Promise<void>;
  /** Crash tests only: stops the job for good at this point (config.worker.testHoldAt). */
  holdFor(point: string): Promise<void>;
  checkAbort(): void;
}

/** The call became terminal (or was deleted) while the job ran: the job ends without a word. */
export class CallGone extends Error {}

export interface StageResult<O> {
  output: O;
  /** Detail of the stage's COMPLETED processing event (none when the stage has no event step). */
  event?: Record<string, unknown>;
}

export interface Stage<Name extends string, O, Hold extends string = never> {
  readonly name: Name;
  /** The processing-event step of the stage's events (shown in the API); null: it records none. */
  readonly step: string | null;
  /** The call's status while the stage runs. */
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
  run(ctx: StageContext): Promise<StageResult<O>>;
  /**
   * Writes the stage's result where the service reads it (blobs, artifacts, the call row), in the
   * transaction that marks the stage finished; must be idempotent (a retry may write it again).
   */
  save?(ctx: StageContext, output: O, trx: StageTx): Promise<void>;
  /** A retry found the stage finished: `output` is what it stored (e.g. fit the time limit, note the reuse). */
  reuse?(ctx: StageContext, output: O): Promise<void>;
}

/** A stage with its name and hold points kept as literal types (the list's vocabularies derive from them). */
export function defineStage<const Name extends string, O, const Hold extends string = never>(stage: Stage<Name, O, Hold>): Stage<Name, O, Hold> {
  return stage;
}

// The maintenance sweeps, listed once. Each runs as a scheduled job on the durable queue (one
// queue per sweep, policy `stately`, a cron schedule in pg-boss): whichever worker process takes
// the job runs it, and never two at once, however many API and worker processes share the
// database. Every process asks for one run at start (coalesced), as a process used to sweep at
// start, so what a crash left is cleaned soon after the restart.
//
// The work-file sweep is the exception, and stays a timer in each process (`startLocalSweeps`):
// it cleans `DATA_DIR/work`, the process's own scratch space, which another process (on another
// machine, with its own DATA_DIR) cannot see.
import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { Db } from './store/database.js';
import type { BlobStore } from './store/blobs.js';
import { STRANDED_CALLS_SWEEP_QUEUE, SWEEP_QUEUE, type JobQueue } from './store/queue.js';
import { sweepIdempotencyKeys } from './store/repos/idempotency-keys.js';
import { sweepOrphanCallFiles, sweepStrayVoiceSamples, sweepWorkFiles } from './store/sweeps.js';
import { sweepExpiredUploadSlots } from './domain/upload-slots.js';
import { sweepOldEnrolmentAttempts } from './domain/voice-enrolment.js';
import { failStrandedCalls } from './domain/stranded-calls.js';
import { BINDING_KEY, ensureBlobBinding } from './store/blob-binding.js';

export interface SweepDeps {
  db: Db;
  blobs: BlobStore;
  queue: JobQueue;
  log: Logger;
}

export interface ScheduledSweep {
  /** Its queue's name. */
  name: string;
  /** When it runs, as a cron expression in UTC. */
  cron: string;
  /** A run still going after this long is presumed dead (its worker died) and no longer blocks the next. */
  expireInSeconds: number;
  run(deps: SweepDeps): Promise<void>;
}

const warnFailed = (log: Logger, what: string) => (err: unknown) => {
  log.warn({ err: (err as Error).message }, `${what} failed`);
};

export const SCHEDULED_SWEEPS: readonly ScheduledSweep[] = [
  {
    // Expired idempotency keys, upload slots and voice enrolment attempts; blobs a crash left
    // half-written, or without a call; voice samples whose enrolment died. Hourly: nothing here
    // holds a user back.
    name: SWEEP_QUEUE,
    cron: '7 * * * *',
    expireInSeconds: 1800,
    async run({ db, blobs, log }) {
      await sweepIdempotencyKeys(db).catch(warnFailed(log, 'idempotency key sweep'));
      await sweepExpiredUploadSlots(db).catch(warnFailed(log, 'upload slot sweep'));
      await sweepOldEnrolmentAttempts(db).catch(warnFailed(log, 'voice enrolment attempt sweep'));
      await blobs.sweepIncomplete().catch(warnFailed(log, 'incomplete upload sweep'));
      await sweepStrayVoiceSamples(blobs).catch(warnFailed(log, 'voice sample sweep'));
      await sweepOrphanCallFiles(db, blobs, 3600_000, log).catch(warnFailed(log, 'orphan file sweep'));
    },
  },
  {
    // A call whose job the queue ended without the handler (expired on every attempt, a failure
    // that could not be recorded) would hold its active-call slot for ever: failed here, with its
    // call.failed webhook. Every five minutes, as such a call holds a user's slot meanwhile.
    name: STRANDED_CALLS_SWEEP_QUEUE,
    cron: '*/5 * * * *',
    expireInSeconds: 600,
    async run({ db, queue, log }) {
      const failed = await failStrandedCalls(db, queue, { graceSeconds: 60 }).catch((err) => {
        warnFailed(log, 'stranded call sweep')(err);
        return [];
      });
      if (failed.length) log.warn({ calls: failed }, 'calls whose processing job was gone failed as internal_error');
    },
  },
];

/**
 * Binds the blob store, declares every sweep's queue and schedule, works them when this process
 * runs workers, and asks for one run of each now.
 */
export async function scheduleSweeps(deps: SweepDeps, opts: { work: boolean }): Promise<void> {
  // Every process binds the blob store to its database at start (blob-binding.ts), whether or not
  // it runs the orphan sweep: a new store is bound while it is still empty, the safe case. Left to
  // a worker's first sweep, it might by then hold an orphan (a file whose call never committed),
  // and stay unbound. A store that cannot be bound is reported by the sweep, which deletes nothing.
  const binding = await ensureBlobBinding(deps.db, deps.blobs).catch(warnFailed(deps.log, 'blob store binding'));
  if (binding?.bound && binding.established) deps.log.info({ databaseId: binding.databaseId, how: binding.established, marker: BINDING_KEY }, 'blob store bound to this database');
  for (const sweep of SCHEDULED_SWEEPS) {
    await deps.queue.scheduleSweep(sweep.name, sweep.cron, { expireInSeconds: sweep.expireInSeconds });
    if (opts.work) await deps.queue.workSweep(sweep.name, () => sweep.run(deps));
    await deps.queue.requestSweep(sweep.name);
  }
}

/**
 * The per-process sweep of `DATA_DIR/work`: at start, then hourly. Returns the timer to clear at
 * stop. A work directory is its job's for as long as the job is live, however long that is.
 */
export function startLocalSweeps(config: Config, queue: JobQueue, log: Logger): NodeJS.Timeout {
  const sweep = () =>
    sweepWorkFiles(config.dataDir, config.worker.jobTimeoutSeconds * 1000, (jobId) => queue.callJobLive(jobId)).catch(warnFailed(log, 'work file sweep'));
  void sweep();
  return setInterval(sweep, 3600_000).unref();
}

/** Runs the named sweep in this process at once, outside the queue (tests). */
export async function runSweepNow(deps: SweepDeps, name: string): Promise<void> {
  const sweep = SCHEDULED_SWEEPS.find((s) => s.name === name);
  if (!sweep) throw new Error(`no sweep named ${name}`);
  await sweep.run(deps);
}

// The durable job queue (pg-boss) on the same PostgreSQL as the data. A call's processing job is
// enqueued inside the upload's transaction, so the call row and its job commit together; several
// service or worker processes may share the queue (pg-boss fetches with SKIP LOCKED).
//
// Each call job carries its own time limit (pg-boss `expireInSeconds`, set at enqueue): past it the
// queue presumes the worker dead and retries the job elsewhere. The worker holds itself to the same
// limit: a job still running shortly before it is aborted, so two workers never process one call
// at once. pg-boss 10 cannot extend a running job, so the limit is set high enough at enqueue and
// lowered (`lowerTimeLimit`) once the worker has measured the audio.
import { CompiledQuery, sql, type Kysely, type Transaction } from 'kysely';
import PgBoss from 'pg-boss';
import type pg from 'pg';
import type { Logger } from 'pino';
import type { Database } from './schema.js';

export const CALL_QUEUE = 'call-process';
/** Time left before a job's limit when its outcome has to be recorded (pg-boss gives up on the handler at the limit). */
const OUTCOME_MARGIN_MS = 2_000;
/**
 * The scheduled maintenance sweeps (src/maintenance.ts): each sweep is a queue of its own with a
 * cron schedule in pg-boss, so that one worker of all the processes sharing the database runs it
 * at a time, instead of a timer in every process.
 */
export const SWEEP_QUEUE = 'maintenance-sweep';
export const STRANDED_CALLS_SWEEP_QUEUE = 'maintenance-stranded-calls';
export const WEBHOOK_QUEUE = 'webhook-deliver';
/**
 * The analysis of a call's transcript: the first one (the pipeline's analysis stages, handed over
 * by the call job) and those of corrected transcripts (speaker corrections). Its own queue, apart
 * from the CPU-bound speech work of CALL_QUEUE. Policy `short`: at most one job per call waits (a
 * new request while one waits is that same job), one may run beside it.
 */
export const ANALYSIS_QUEUE = 'call-analyze';

export interface AnalysisJobData {
  callId: string;
  userId: string;
}

/** An analysis job runs under the same rules as a call job: its time limit, its signal. */
export type AnalysisJobContext = CallJobContext;

export type AnalysisJobHandler = (data: AnalysisJobData, ctx: AnalysisJobContext) => Promise<void>;

export interface WebhookJobData {
  deliveryId: string;
  userId: string;
}

export interface WebhookJobContext {
  /** 0 on the first attempt. */
  retryCount: number;
  retryLimit: number;
}

export type WebhookJobHandler = (data: WebhookJobData, ctx: WebhookJobContext) => Promise<void>;

export interface CallJobData {
  callId: string;
  userId: string;
  /** `process` runs the whole pipeline. */
  kind: 'process';
}

export interface CallJobContext {
  jobId: string;
  /** 0 on the first attempt. */
  retryCount: number;
  retryLimit: number;
  /**
   * Aborted when the process shuts down, or (reason: a JobTimeLimitReached) shortly before the
   * job's time limit; steps stop at the next safe point.
   */
  signal: AbortSignal;
  /** The job's time limit in seconds from its start, as it stands. */
  timeLimitSeconds(): number;
  /**
   * Lowers the job's time limit, in the queue too, so that a crash is recovered sooner; never
   * raises it, nor below the time already spent and a few seconds. Returns the limit in force.
   */
  lowerTimeLimit(seconds: number): Promise<number>;
}

/** The reason of a job's signal when it is aborted for reaching its time limit. */
export class JobTimeLimitReached extends Error {
  constructor(readonly limitSeconds: number) {
    super(`the job reached its time limit of ${limitSeconds} s`);
    this.name = 'JobTimeLimitReached';
  }
}

/** Whether a job's signal was aborted for its time limit (rather than a shutdown). */
export function reachedTimeLimit(signal: AbortSignal): boolean {
  return signal.aborted && signal.reason instanceof JobTimeLimitReached;
}

/**
 * How long before its limit a job is aborted: time to stop at a safe point and record the outcome
 * before the queue would hand the job to another worker.
 */
export function abortMarginSeconds(limitSeconds: number): number {
  return Math.min(60, Math.max(1, Math.floor(limitSeconds * 0.05)));
}

export type CallJobHandler = (data: CallJobData, ctx: CallJobContext) => Promise<void>;

export interface QueueOptions {
  retryLimit: number;
  /** Delay before the first retry; pg-boss doubles it for each further one (retryBackoff). */
  retryDelaySeconds?: number;
  /** The time limit of a call job enqueued without one of its own (the limit for the longest audio). */
  defaultCallJobSeconds: number;
  /** How often pg-boss looks for expired (abandoned) jobs; small values recover faster. */
  maintenanceIntervalSeconds?: number;
  pollingIntervalSeconds?: number;
  /** Webhook deliveries: retries with exponential backoff starting at retryDelaySeconds. */
  webhooks: { retryLimit: number; retryDelaySeconds: number; expireInSeconds: number };
  /** Analysis jobs: the time one may run before it is presumed dead and retried. */
  analysis?: { expireInSeconds: number };
  /**
   * This process is the only one that uses the database (the embedded PostgreSQL): jobs still
   * running at start were left by a process that is gone, and are retried at once.
   */
  soleProcess?: boolean;
}

export interface JobQueue {
  start(): Promise<void>;
  /**
   * Enqueues the processing of a call as part of the caller's transaction; `timeLimitSeconds`: how
   * long the job may run before it is presumed dead (default: QueueOptions.defaultCallJobSeconds).
   */
  enqueueCall(trx: Transaction<Database>, data: CallJobData, opts?: { timeLimitSeconds?: number }): Promise<void>;
  /**
   * Whether the call job is waiting, running or due for a retry (its work directory is in use or
   * will be); false once it is done, failed for good or gone.
   */
  callJobLive(jobId: string): Promise<boolean>;  // a call job's or an analysis job's id
  work(handler: CallJobHandler, concurrency: number): Promise<void>;
  /** Enqueues one webhook delivery as part of the caller's transaction. */
  enqueueWebhook(trx: Transaction<Database>, data: WebhookJobData): Promise<void>;
  workWebhooks(handler: WebhookJobHandler, concurrency: number): Promise<void>;
  /**
   * Enqueues the analysis of a call's stored transcript as part of the caller's transaction;
   * coalesced: while one waits for the call, the request is that job (false), else true.
   */
  enqueueAnalysis(trx: Transaction<Database>, data: AnalysisJobData, opts?: { timeLimitSeconds?: number }): Promise<boolean>;
  workAnalyses(handler: AnalysisJobHandler, concurrency: number): Promise<void>;
  /**
   * Declares a maintenance sweep: its queue (policy `stately`: across every process at most one
   * run waits and one runs; no retry, the next run is the retry) and its cron schedule (UTC),
   * which pg-boss fires once per due minute whichever process notices first.
   */
  scheduleSweep(name: string, cron: string, opts: { expireInSeconds: number }): Promise<void>;
  /** Asks for a run of the sweep now; coalesced with a run already waiting. */
  requestSweep(name: string): Promise<void>;
  /** This process runs the sweep's jobs (one at a time, and never beside another process's run). */
  workSweep(name: string, handler: () => Promise<void>): Promise<void>;
  /**
   * This process's analysis workers look for a job now rather than at their next poll: called
   * after a commit that enqueued one (the call job's hand-over), so analysis follows speech at once.
   */
  wakeAnalyses(): void;
  /** Stops taking jobs, waits up to `graceSeconds` for running ones, then aborts them. */
  stop(graceSeconds?: number): Promise<void>;
  /** Number of jobs of this process still running. */
  running(): number;
}

export function createJobQueue(connection: pg.PoolConfig, log: Logger, opts: QueueOptions): JobQueue {
  const boss = new PgBoss({
    ...(connection.connectionString
      ? { connectionString: connection.connectionString }
      : { host: connection.host, port: connection.port, user: connection.user, database: connection.database, password: connection.password as string | undefined }),
    max: 4,
    schema: 'pgboss',
    maintenanceIntervalSeconds: opts.maintenanceIntervalSeconds ?? 30,
    application_name: 'call-analysis-queue',
  });
  boss.on('error', (err) => log.warn({ err: err.message }, 'job queue error'));
  const abort = new AbortController();
  let started = false;
  let active = 0;

  const webhookQueue = opts.webhooks;
  let workingWebhooks = false;
  let workingAnalyses = false;
  const workingSweeps = new Set<string>();
  const analysisWorkers: string[] = [];

  // Processes starting together on a fresh database race to create a queue: PostgreSQL may abort
  // one as a deadlock while the other's creation is not yet committed, so a failed attempt is
  // retried (and then finds the queue) a few times before start fails.
  async function ensureQueue(name: string, queue: PgBoss.Queue) {
    for (let attempt = 1; ; attempt++) {
      try {
        if (await boss.getQueue(name)) await boss.updateQueue(name, queue);
        else await boss.createQueue(name, queue);
        return;
      } catch (err) {
        if (attempt >= 6) throw err;
        log.warn({ err: (err as Error).message, attempt, queue: name }, 'job queue setup raced another process; retrying');
        await new Promise((r) => setTimeout(r, 150 * attempt + Math.random() * 250));
      }
    }
  }

  /** pg-boss writes through the caller's transaction, so a job commits with the rows it is about. */
  function inTransaction(trx: Transaction<Database>): PgBoss.Db {
    return {
      async executeSql(text: string, values: unknown[]) {
        const result = await trx.executeQuery(CompiledQuery.raw(text, values));
        return { rows: result.rows as unknown[] };
      },
    };
  }

  /**
   * Runs one job of a queue with a time limit (call and analysis jobs): pg-boss fails the job in
   * this process after the limit it was fetched with, whatever the handler does, and its
   * maintenance after the limit stored on the job: both are anticipated by aborting the job's own
   * signal a margin before.
   */
  async function runTimed<D>(queueName: string, job: PgBoss.JobWithMetadata<D>, handler: (data: D, ctx: CallJobContext) => Promise<void>): Promise<void> {
    active++;
    const started = Date.now();
    let limit = Number(job.expireInSeconds);
    const jobAbort = new AbortController();
    const onShutdown = () => jobAbort.abort(abort.signal.reason);
    if (abort.signal.aborted) onShutdown();
    else abort.signal.addEventListener('abort', onShutdown, { once: true });
    let timer: NodeJS.Timeout | undefined;
    const arm = () => {
      clearTimeout(timer);
      const at = started + (limit - abortMarginSeconds(limit)) * 1000;
      const reached = limit;
      timer = setTimeout(() => jobAbort.abort(new JobTimeLimitReached(reached)), Math.max(0, at - Date.now()));
      timer.unref(); // a stopping process does not wait for it
    };
    arm();
    const lowerTimeLimit = async (seconds: number) => {
      const elapsed = (Date.now() - started) / 1000;
      // Never so low that the job would be aborted at once for time it has already spent.
      const target = Math.max(Math.ceil(seconds), Math.ceil(elapsed + abortMarginSeconds(seconds)) + 5);
      if (target >= limit || jobAbort.signal.aborted) return limit;
      await boss
        .getDb()
        .executeSql(`UPDATE pgboss.job SET expire_in = $1::int * interval '1 second' WHERE name = $2 AND id = $3 AND state = 'active'`, [target, queueName, job.id]);
      limit = target;
      arm();
      return limit;
    };
    try {
      await recordOutcome(queueName, job.id, () => started + limit * 1000, () =>
        handler(job.data, {
          jobId: job.id,
          retryCount: job.retryCount,
          retryLimit: job.retryLimit,
          signal: jobAbort.signal,
          timeLimitSeconds: () => limit,
          lowerTimeLimit,
        }),
      );
    } finally {
      clearTimeout(timer);
      abort.signal.removeEventListener('abort', onShutdown);
      active--;
    }
  }

  /**
   * Runs a job's handler and records its outcome before pg-boss does. pg-boss 10 records the
   * outcome of a worker's job without awaiting it: with the database away at that moment the
   * rejection is unhandled (it ends the process) and the job stays active until it expires, so a
   * call would wait out its whole time limit. Recorded here, retried until the database answers
   * (up to `deadline()`, the job's limit as it stands then, after which pg-boss's expiry retries
   * the job anyway), the outcome survives
   * an outage; the record pg-boss makes afterwards finds the job no longer active and changes
   * nothing. Never throws: a handler's failure is recorded as the job's failure (and retried by
   * the queue's retry policy).
   */
  async function recordOutcome(queueName: string, jobId: string, deadline: () => number, run: () => Promise<void>): Promise<void> {
    let failure: { error: unknown } | null = null;
    try {
      await run();
    } catch (error) {
      failure = { error };
    }
    for (let attempt = 0; ; attempt++) {
      try {
        if (failure) await boss.fail(queueName, jobId, failure.error as object);
        else await boss.complete(queueName, jobId);
        return;
      } catch (err) {
        const pause = Math.min(5_000, 250 * 2 ** attempt);
        if (abort.signal.aborted || Date.now() + pause >= deadline() - OUTCOME_MARGIN_MS) {
          log.warn({ err: (err as Error).message, queue: queueName, jobId }, 'job outcome not recorded; the job is retried after its time limit');
          return;
        }
        await new Promise((r) => setTimeout(r, pause));
      }
    }
  }

  /**
   * A process that is the only one on its database (the embedded PostgreSQL: one service per
   * DATA_DIR, its socket inside it) knows at start that every running job belongs to a process
   * that is gone: it was killed, or the machine went down. pg-boss would wait out each job's time
   * limit (30 minutes and more for a call) before it retries the job; made due now, the queue's next
   * maintenance retries it, and the call resumes within seconds of the restart. Runs before this
   * process takes any job. Processes sharing an external database cannot tell a dead worker from a
   * live one this way, and wait for the limit.
   */
  async function handBackOrphanedJobs(): Promise<void> {
    const { rows } = await boss
      .getDb()
      .executeSql(`UPDATE pgboss.job SET started_on = now() - expire_in - interval '1 second' WHERE state = 'active' RETURNING name`, []);
    if (rows.length > 0) log.warn({ jobs: rows.length, queues: [...new Set((rows as Array<{ name: string }>).map((r) => r.name))] }, 'jobs of a previous process were still running; handed back to the queue for a retry');
  }

  return {
    async start() {
      await boss.start();
      started = true;
      await ensureQueue(CALL_QUEUE, {
        name: CALL_QUEUE,
        retryLimit: opts.retryLimit,
        retryDelay: opts.retryDelaySeconds ?? 5,
        retryBackoff: true,
        expireInSeconds: opts.defaultCallJobSeconds,
        retentionDays: 7,
      });
      await ensureQueue(WEBHOOK_QUEUE, {
        name: WEBHOOK_QUEUE,
        retryLimit: webhookQueue.retryLimit,
        retryDelay: webhookQueue.retryDelaySeconds,
        retryBackoff: true,
        expireInSeconds: webhookQueue.expireInSeconds,
        retentionDays: 7,
      });
      await ensureQueue(ANALYSIS_QUEUE, {
        name: ANALYSIS_QUEUE,
        policy: 'short',
        retryLimit: opts.retryLimit,
        retryDelay: opts.retryDelaySeconds ?? 5,
        retryBackoff: true,
        expireInSeconds: opts.analysis?.expireInSeconds ?? 1800,
        retentionDays: 7,
      });
      if (opts.soleProcess) await handBackOrphanedJobs();
    },

    async enqueueAnalysis(trx, data, options) {
      // singletonKey with the `short` policy: the unique index on waiting jobs makes a second
      // request for the call a no-op (send answers null) while the first has not started.
      const expireInSeconds = options?.timeLimitSeconds === undefined ? undefined : Math.max(1, Math.ceil(options.timeLimitSeconds));
      const id = await boss.send(ANALYSIS_QUEUE, data, { db: inTransaction(trx), singletonKey: data.callId, ...(expireInSeconds ? { expireInSeconds } : {}) });
      return id !== null;
    },

    async workAnalyses(handler, concurrency) {
      workingAnalyses = true;
      for (let i = 0; i < concurrency; i++) {
        const id = await boss.work<AnalysisJobData>(ANALYSIS_QUEUE, { batchSize: 1, includeMetadata: true, pollingIntervalSeconds: opts.pollingIntervalSeconds ?? 1 }, async ([job]) => {
          await runTimed(ANALYSIS_QUEUE, job, handler);
        });
        analysisWorkers.push(id);
      }
    },

    async scheduleSweep(name, cron, options) {
      await ensureQueue(name, { name, policy: 'stately', retryLimit: 0, expireInSeconds: options.expireInSeconds, retentionDays: 1 });
      await boss.schedule(name, cron, {}, { tz: 'UTC' });
    },

    async requestSweep(name) {
      // The stately policy makes a request while one run waits a no-op (send answers null).
      await boss.send(name, {});
    },

    async workSweep(name, handler) {
      workingSweeps.add(name);
      await boss.work(name, { batchSize: 1, includeMetadata: true, pollingIntervalSeconds: opts.pollingIntervalSeconds ?? 2 }, async ([job]) => {
        active++;
        try {
          const deadline = Date.now() + Number(job.expireInSeconds) * 1000;
          await recordOutcome(name, job.id, () => deadline, handler);
        } finally {
          active--;
        }
      });
    },

    wakeAnalyses() {
      if (started) for (const id of analysisWorkers) boss.notifyWorker(id);
    },

    async enqueueCall(trx, data, options) {
      // singletonKey: one live job per call even when an upload is retried or a job re-sent.
      const expireInSeconds = Math.max(1, Math.ceil(options?.timeLimitSeconds ?? opts.defaultCallJobSeconds));
      await boss.send(CALL_QUEUE, data, { db: inTransaction(trx), singletonKey: data.callId, expireInSeconds });
    },

    async callJobLive(jobId) {
      // Work folders are named by the job's id, whichever of the two queues ran it.
      const job = (await boss.getJobById(CALL_QUEUE, jobId)) ?? (await boss.getJobById(ANALYSIS_QUEUE, jobId));
      return job !== null && (job.state === 'created' || job.state === 'retry' || job.state === 'active');
    },

    async enqueueWebhook(trx, data) {
      await boss.send(WEBHOOK_QUEUE, data, { db: inTransaction(trx), singletonKey: data.deliveryId });
    },

    async workWebhooks(handler, concurrency) {
      workingWebhooks = true;
      for (let i = 0; i < concurrency; i++) {
        await boss.work<WebhookJobData>(WEBHOOK_QUEUE, { batchSize: 1, includeMetadata: true, pollingIntervalSeconds: opts.pollingIntervalSeconds ?? 1 }, async ([job]) => {
          active++;
          try {
            const deadline = Date.now() + Number(job.expireInSeconds) * 1000;
            await recordOutcome(WEBHOOK_QUEUE, job.id, () => deadline, () => handler(job.data, { retryCount: job.retryCount, retryLimit: job.retryLimit }));
          } finally {
            active--;
          }
        });
      }
    },

    async work(handler, concurrency) {
      for (let i = 0; i < concurrency; i++) {
        await boss.work<CallJobData>(CALL_QUEUE, { batchSize: 1, includeMetadata: true, pollingIntervalSeconds: opts.pollingIntervalSeconds ?? 1 }, async ([job]) => {
          await runTimed(CALL_QUEUE, job, handler);
        });
      }
    },

    async stop(graceSeconds = 30) {
      if (!started) return;
      started = false;
      await boss.offWork(CALL_QUEUE).catch(() => undefined);
      if (workingWebhooks) await boss.offWork(WEBHOOK_QUEUE).catch(() => undefined);
      if (workingAnalyses) await boss.offWork(ANALYSIS_QUEUE).catch(() => undefined);
      for (const name of workingSweeps) await boss.offWork(name).catch(() => undefined);
      const deadline = Date.now() + graceSeconds * 1000;
      while (active > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
      if (active > 0) {
        abort.abort();
        const hard = Date.now() + 10_000;
        while (active > 0 && Date.now() < hard) await new Promise((r) => setTimeout(r, 200));
      }
      await boss.stop({ graceful: true, wait: true, timeout: 5000 }).catch((err) => log.warn({ err: (err as Error).message }, 'job queue did not stop cleanly'));
    },

    running() {
      return active;
    },
  };
}

/**
 * Jobs per queue and state that are waiting or running, with the age of the oldest of each, for
 * the metrics (read at scrape time; pg-boss keeps its jobs in pgboss.job).
 */
export async function readQueueBacklog(db: Kysely<Database>): Promise<Array<{ queue: string; state: string; jobs: number; oldestSeconds: number }>> {
  const r = await sql<{ queue: string; state: string; jobs: number; oldestSeconds: number }>`
    SELECT name AS queue, state::text AS state, count(*)::int AS jobs,
           coalesce(extract(epoch FROM now() - min(created_on)), 0)::float8 AS oldest_seconds
    FROM pgboss.job
    WHERE state IN ('created', 'retry', 'active')
    GROUP BY name, state`.execute(db);
  return r.rows;
}

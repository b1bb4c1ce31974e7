// Assembles the service from configuration: storage, queue, pipeline, HTTP server and workers.
// main.ts runs it as a process; tests start it in-process with their own configuration.
import type { FastifyInstance } from 'fastify';
import pino, { type Logger } from 'pino';
import type { Config } from './config.js';
import { openDatabase, type DatabaseHandle } from './store/database.js';
import { openBlobStore } from './store/blobs.js';
import { createJobQueue, type JobQueue } from './store/queue.js';
import { buildServer } from './http/server.js';
import { buildOpsServer } from './http/ops-server.js';
import { createIdentityVerifier } from './http/identity.js';
import { runSweepNow, scheduleSweeps, startLocalSweeps } from './maintenance.js';
import { bindAddressWarning } from './http/bind-address.js';
import type { AppContext } from './context.js';
import { createPipeline, type Pipeline } from './pipeline/index.js';
import { createCallProcessor } from './pipeline/process-call.js';
import { createAnalysisProcessor } from './pipeline/analyze-call.js';
import { createWebhookDeliverer } from './domain/webhook-delivery.js';
import { maxJobTimeLimitSeconds } from './domain/job-time-limit.js';
import { instrumentPipeline } from './pipeline/instrument.js';

export interface Service {
  config: Config;
  ctx: AppContext;
  database: DatabaseHandle;
  queue: JobQueue;
  pipeline: Pipeline;
  server: FastifyInstance | null;
  /** The bound address when HTTP is served. */
  url: string | null;
  /** Runs one scheduled sweep (src/maintenance.ts) here and now, outside the queue: for tests. */
  runSweep(name: string): Promise<void>;
  stop(): Promise<void>;
}

export interface StartOptions {
  http?: boolean;
  workers?: boolean;
  log?: Logger;
  /** Overrides of pipeline components (benchmarks, tests of failure paths). */
  pipeline?: Partial<Pipeline>;
  queue?: { maintenanceIntervalSeconds?: number; pollingIntervalSeconds?: number };
  listen?: boolean;
}

export function createLogger(config: Config): Logger {
  return pino({
    level: config.logLevel,
    base: { service: 'call-analysis' },
    redact: { paths: ['*.authorization', '*.email', '*.displayName', '*.text', '*.password', '*.apiKey', '*.token'], censor: '[redacted]' },
  });
}

export async function startService(config: Config, opts: StartOptions = {}): Promise<Service> {
  const log = opts.log ?? createLogger(config);
  const database = await openDatabase(config, log);
  let blobs;
  try {
    blobs = await openBlobStore(config);
  } catch (err) {
    await database.close();
    throw err;
  }
  const queue = createJobQueue(database.connection, log.child({ component: 'queue' }), {
    retryLimit: config.worker.retryLimit,
    retryDelaySeconds: config.worker.retryDelaySeconds,
    defaultCallJobSeconds: maxJobTimeLimitSeconds(config.worker),
    maintenanceIntervalSeconds: opts.queue?.maintenanceIntervalSeconds ?? config.worker.maintenanceIntervalSeconds,
    pollingIntervalSeconds: opts.queue?.pollingIntervalSeconds,
    webhooks: {
      retryLimit: config.webhooks.retryLimit,
      retryDelaySeconds: config.webhooks.retryDelaySeconds,
      // A delivery attempt is bounded by its timeout; the margin covers the database writes.
      expireInSeconds: Math.ceil(config.webhooks.timeoutMs / 1000) + 60,
    },
    analysis: { expireInSeconds: config.worker.jobTimeoutSeconds },
    // The embedded database is this process's alone (one service per DATA_DIR, enforced at start).
    soleProcess: database.embedded !== null,
  });
  let server: FastifyInstance | null = null;
  const timers: NodeJS.Timeout[] = [];
  try {
    await queue.start();
    const pipeline = instrumentPipeline({ ...(await createPipeline(config, log.child({ component: 'pipeline' }))), ...opts.pipeline });
    const ctx: AppContext = {
      config,
      database,
      blobs,
      queue,
      identity: createIdentityVerifier(config),
      log,
      analyzer: pipeline.analyzer,
      embedder: pipeline.embedder,
    };

    if (opts.workers ?? config.worker.enabled) {
      const processor = createCallProcessor({ ...ctx, pipeline });
      await queue.work(processor, config.worker.concurrency);
      const deliverer = createWebhookDeliverer(database.db, log.child({ component: 'webhooks' }), {
        timeoutMs: config.webhooks.timeoutMs,
        allowPrivateNetworks: config.webhooks.allowPrivateNetworks,
      });
      await queue.workWebhooks(deliverer, 2);
      // Analyses (a call's first, handed over by its call job, and those of corrected
      // transcripts), apart from the speech work of call jobs.
      await queue.workAnalyses(createAnalysisProcessor({ ...ctx, pipeline }), config.worker.concurrency);
    }

    // The shared sweeps are scheduled jobs, run by one worker at a time across processes; the
    // work-file sweep cleans this process's own DATA_DIR and so runs here (src/maintenance.ts).
    const sweepDeps = { db: database.db, blobs, queue, log: log.child({ component: 'maintenance' }) };
    await scheduleSweeps(sweepDeps, { work: opts.workers ?? config.worker.enabled });
    timers.push(startLocalSweeps(config, queue, sweepDeps.log));

    let url: string | null = null;
    if (opts.http ?? true) {
      server = await buildServer(ctx);
      if (opts.listen ?? true) {
        url = await server.listen({ port: config.port, host: config.host });
        const warning = bindAddressWarning(config);
        if (warning) log.warn({ host: config.host, serviceEnv: config.serviceEnv }, warning);
      }
      else await server.ready();
    } else if (config.metrics.enabled && (opts.listen ?? true)) {
      // A worker-only process: /metrics and health on PORT, so its job metrics can be scraped.
      server = await buildOpsServer(ctx);
      url = await server.listen({ port: config.port, host: config.host });
    }

    return {
      config,
      ctx,
      database,
      queue,
      pipeline,
      server,
      url,
      runSweep: (name) => runSweepNow(sweepDeps, name),
      async stop() {
        for (const t of timers) clearInterval(t);
        // Order matters: stop taking requests, let running jobs reach a safe point, close storage.
        await server?.close();
        await queue.stop(config.serviceEnv === 'test' ? 5 : 30);
        await pipeline.analyzer.close?.();
        await pipeline.diarizer.close?.();
        await pipeline.embedder.close?.();
        await database.close();
      },
    };
  } catch (err) {
    for (const t of timers) clearInterval(t);
    await server?.close().catch(() => undefined);
    await queue.stop(0).catch(() => undefined);
    await database.close();
    throw err;
  }
}

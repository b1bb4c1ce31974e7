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
import { sweepIdempotencyKeys } from './http/plugins/idempotency.js';
import { sweepOrphanCallFiles, sweepStrayVoiceSamples, sweepWorkFiles } from './store/sweeps.js';
import { sweepExpiredUploadSlots } from './domain/upload-slots.js';
import { failStrandedCalls } from './domain/stranded-calls.js';
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

    const sweep = async () => {
      await sweepIdempotencyKeys(database.db).catch(() => undefined);
      await sweepExpiredUploadSlots(database.db).catch(() => undefined);
      await blobs.sweepIncomplete().catch((err) => log.warn({ err: (err as Error).message }, 'incomplete upload sweep failed'));
      await sweepStrayVoiceSamples(blobs).catch((err) => log.warn({ err: (err as Error).message }, 'voice sample sweep failed'));
      await sweepOrphanCallFiles(database.db, blobs, 3600_000, log).catch((err) => log.warn({ err: (err as Error).message }, 'orphan file sweep failed'));
      // A work directory is its job's for as long as the job is live, however long that is.
      await sweepWorkFiles(config.dataDir, config.worker.jobTimeoutSeconds * 1000, (jobId) => queue.callJobLive(jobId)).catch((err) => log.warn({ err: (err as Error).message }, 'work file sweep failed'));
    };
    void sweep();
    timers.push(setInterval(sweep, 3600_000).unref());
    // A call whose job the queue ended without the handler (expired on every attempt, a failure
    // that could not be recorded) would hold its active-call slot for ever: failed here, with
    // its call.failed webhook. Every few minutes, as such a call holds a user's slot meanwhile.
    const reconcile = async () => {
      const failed = await failStrandedCalls(database.db, queue, { graceSeconds: 60 }).catch((err) => {
        log.warn({ err: (err as Error).message }, 'stranded call sweep failed');
        return [];
      });
      if (failed.length) log.warn({ calls: failed }, 'calls whose processing job was gone failed as internal_error');
    };
    void reconcile();
    timers.push(setInterval(reconcile, 300_000).unref());

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
      async stop() {
        for (const t of timers) clearInterval(t);
        // Order matters: stop taking requests, let running jobs reach a safe point, close storage.
        await server?.close();
        await queue.stop(config.serviceEnv === 'test' ? 5 : 30);
        await pipeline.analyzer.close?.();
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

// Every Prometheus metric of the service, in one registry (prom-client), and the small recording
// functions the rest of the code calls. GET /metrics renders the registry (src/http/plugins/metrics.ts);
// the names are documented in docs/deployment.md.
//
// Labels are closed sets chosen by the code (route patterns, stage and provider names, outcomes,
// status codes): never a user id, a call id, a name, an email, a URL or any transcript text, so a
// scrape never carries per-user data and the number of series stays bounded.
//
// Metrics are process-wide, as Prometheus expects: several services started in one process (tests)
// share them.
import client from 'prom-client';
import type { TimingName } from '../pipeline/stages/index.js';

export const registry = new client.Registry();

const SECONDS_BUCKETS_HTTP = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const SECONDS_BUCKETS_STAGE = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200];
const REAL_TIME_FACTOR_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 0.75, 1, 1.5, 2, 4, 8];
const SIZE_BUCKETS = [64 * 1024, 256 * 1024, 1024 ** 2, 4 * 1024 ** 2, 16 * 1024 ** 2, 64 * 1024 ** 2, 256 * 1024 ** 2, 1024 ** 3];

export const httpRequestDuration = new client.Histogram({
  name: 'cas_http_request_duration_seconds',
  help: 'HTTP requests by method, route pattern (never the raw URL) and status code, with their latency; _count is the number of requests.',
  labelNames: ['method', 'route', 'status_code'] as const,
  buckets: SECONDS_BUCKETS_HTTP,
  registers: [registry],
});

export const uploadSize = new client.Histogram({
  name: 'cas_upload_size_bytes',
  help: 'Sizes of accepted uploads (kind: call audio or voice_sample); _sum is the bytes received.',
  labelNames: ['kind'] as const,
  buckets: SIZE_BUCKETS,
  registers: [registry],
});

export const stageDuration = new client.Histogram({
  name: 'cas_pipeline_stage_duration_seconds',
  help: 'Processing time of each pipeline stage of a completed call (decode, vad, transcribe, diarize, voice, analyze) and of the whole job (total).',
  labelNames: ['stage'] as const,
  buckets: SECONDS_BUCKETS_STAGE,
  registers: [registry],
});

export const stageRealTimeFactor = new client.Histogram({
  name: 'cas_pipeline_real_time_factor',
  help: "Processing seconds per second of the call's audio, per stage and for the whole job (total); below 1 is faster than real time.",
  labelNames: ['stage'] as const,
  buckets: REAL_TIME_FACTOR_BUCKETS,
  registers: [registry],
});

export const processedAudio = new client.Counter({
  name: 'cas_pipeline_audio_seconds_total',
  help: 'Seconds of call audio processed to completion.',
  registers: [registry],
});

export const callOutcomes = new client.Counter({
  name: 'cas_pipeline_calls_total',
  help: 'Processing jobs by outcome: completed, failed (for good, with its stable errorReason) or retry (a retryable failure, the job will run again).',
  labelNames: ['outcome', 'reason'] as const,
  registers: [registry],
});

export const providerRequests = new client.Counter({
  name: 'cas_provider_requests_total',
  help: 'Requests of the pipeline to a provider component (kind: transcription, diarization, analysis, voice_embedding), one per call and stage or voice sample.',
  labelNames: ['kind', 'provider'] as const,
  registers: [registry],
});

export const providerErrors = new client.Counter({
  name: 'cas_provider_errors_total',
  help: 'Provider requests that failed (after the provider adapter’s own retries).',
  labelNames: ['kind', 'provider'] as const,
  registers: [registry],
});

export const providerDuration = new client.Histogram({
  name: 'cas_provider_request_duration_seconds',
  help: 'Duration of provider requests, failed ones included.',
  labelNames: ['kind', 'provider'] as const,
  buckets: SECONDS_BUCKETS_STAGE,
  registers: [registry],
});

export const webhookDeliveries = new client.Counter({
  name: 'cas_webhook_deliveries_total',
  help: 'Webhook delivery attempts by outcome: delivered, retrying (failed, will be tried again) or failed (failed for good).',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

export const queueJobs = new client.Gauge({
  name: 'cas_queue_jobs',
  help: 'Jobs in each queue by state at scrape time: created (waiting), retry (waiting for a retry) or active (running).',
  labelNames: ['queue', 'state'] as const,
  registers: [registry],
});

export const queueOldestJobAge = new client.Gauge({
  name: 'cas_queue_oldest_waiting_job_age_seconds',
  help: 'Age of the oldest job of each queue that waits to run (created or retry), 0 when none waits.',
  labelNames: ['queue'] as const,
  registers: [registry],
});

export const queueStatsUp = new client.Gauge({
  name: 'cas_queue_stats_up',
  help: '1 when the queue figures of this scrape could be read from the database, 0 otherwise.',
  registers: [registry],
});

let defaultMetrics = false;
/** Process metrics (CPU, memory, event loop lag, handles, GC), prefixed `cas_process_`/`cas_nodejs_`. Idempotent. */
export function collectProcessMetrics(): void {
  if (defaultMetrics) return;
  defaultMetrics = true;
  client.collectDefaultMetrics({ register: registry, prefix: 'cas_' });
}

// ---- Queue figures, read from the database when scraped --------------------------------------

export interface QueueBacklogRow {
  queue: string;
  state: string;
  jobs: number;
  /** Seconds since the oldest job of this queue and state was created. */
  oldestSeconds: number;
}

const QUEUE_STATES = ['created', 'retry', 'active'] as const;
let backlogSource: { queues: readonly string[]; read: () => Promise<QueueBacklogRow[]> } | null = null;

/** The service that serves /metrics tells where its queue figures come from (the last one wins). */
export function setQueueBacklogSource(source: typeof backlogSource): void {
  backlogSource = source;
}

/** Reads the queue figures into the gauges; called before each scrape. */
export async function refreshQueueMetrics(): Promise<void> {
  const source = backlogSource;
  if (!source) return;
  let rows: QueueBacklogRow[];
  try {
    rows = await source.read();
  } catch {
    queueStatsUp.set(0);
    return;
  }
  queueStatsUp.set(1);
  queueJobs.reset();
  queueOldestJobAge.reset();
  for (const queue of source.queues) {
    for (const state of QUEUE_STATES) queueJobs.set({ queue, state }, 0);
    queueOldestJobAge.set({ queue }, 0);
  }
  const oldest = new Map<string, number>();
  for (const r of rows) {
    if (!source.queues.includes(r.queue)) continue;
    queueJobs.set({ queue: r.queue, state: r.state }, r.jobs);
    if (r.state !== 'active') oldest.set(r.queue, Math.max(oldest.get(r.queue) ?? 0, r.oldestSeconds));
  }
  for (const [queue, seconds] of oldest) queueOldestJobAge.set({ queue }, seconds);
}

// ---- Recording helpers -------------------------------------------------------------------------

const STAGE_NAME = /^[a-z_]{1,32}$/;

/**
 * A completed call's stage timings (milliseconds by stage name, as the pipeline records them in
 * its PIPELINE COMPLETED event), its total time and its audio length.
 */
export function observeCallProcessed(timingsMs: Partial<Record<TimingName, number>>, totalMs: number, audioSeconds: number): void {
  const audio = audioSeconds > 0 ? audioSeconds : 0;
  const observe = (stage: string, ms: number) => {
    if (!STAGE_NAME.test(stage) || !Number.isFinite(ms) || ms < 0) return;
    stageDuration.observe({ stage }, ms / 1000);
    if (audio > 0) stageRealTimeFactor.observe({ stage }, ms / 1000 / audio);
  };
  for (const [stage, ms] of Object.entries(timingsMs)) if (ms !== undefined) observe(stage, ms);
  observe('total', totalMs);
  processedAudio.inc(audio);
  callOutcomes.inc({ outcome: 'completed', reason: '' });
}

/** A job that failed: for good (`failed`) or to be retried (`retry`); `reason` is a stable errorReason. */
export function observeCallFailed(outcome: 'failed' | 'retry', reason: string): void {
  callOutcomes.inc({ outcome, reason: STAGE_NAME.test(reason) ? reason : 'other' });
}

export function observeWebhookDelivery(outcome: 'delivered' | 'retrying' | 'failed'): void {
  webhookDeliveries.inc({ outcome });
}

export function observeUpload(kind: 'call' | 'voice_sample', bytes: number): void {
  uploadSize.observe({ kind }, bytes);
}

export type ProviderKind = 'transcription' | 'diarization' | 'analysis' | 'voice_embedding';

/**
 * The component with `method` counted and timed as provider requests of `kind`, labelled with the
 * component's `provider` name. Every other property reaches the component unchanged.
 */
export function instrumentProvider<T extends { readonly provider: string }>(component: T, kind: ProviderKind, method: keyof T & string): T {
  const original = component[method];
  if (typeof original !== 'function') return component;
  const wrapped = async function (this: unknown, ...args: unknown[]) {
    const labels = { kind, provider: String(component.provider).slice(0, 64) };
    providerRequests.inc(labels);
    const end = providerDuration.startTimer(labels);
    try {
      return await (original as (...a: unknown[]) => Promise<unknown>).apply(component, args);
    } catch (err) {
      providerErrors.inc(labels);
      throw err;
    } finally {
      end();
    }
  };
  return new Proxy(component, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      // A method replaced after wrapping (tests put a cache in front of the recogniser, calling the
      // method they read before) is used as set: it reaches the counted original through that call.
      if (prop === method && value === original) return wrapped;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

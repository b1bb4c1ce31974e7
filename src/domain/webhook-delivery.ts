// The webhook delivery job: one signed POST per attempt, the outcome appended to the delivery log.
// A failed attempt (non-2xx, timeout, network error) throws, so the durable queue retries it with
// exponential backoff; the last failure marks the delivery FAILED. A delivery whose row is gone
// (the endpoint was deleted) is dropped without a request.
//
// Requests carry the Standard Webhooks headers: webhook-id (the delivery id, the same on every
// retry, for de-duplication), webhook-timestamp (seconds, of this attempt) and webhook-signature.
// Redirects are never followed (a 3xx is a failed attempt), so a redirect cannot lead to a private
// address; outside development the host's addresses are all checked before connecting.
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { Logger } from 'pino';
import type { Db } from '../store/database.js';
import { deliveryToSend, recordDeliveryAttempt } from '../store/repos/webhooks.js';
import type { WebhookJobHandler } from '../store/queue.js';
import type { WebhookAttempt } from '../store/schema.js';
import { signWebhook } from './webhooks.js';
import { BlockedAddressError, isPublicAddress, publicOnlyLookup } from './network-guard.js';
import { observeWebhookDelivery } from '../observability/metrics.js';

export interface DeliveryOptions {
  timeoutMs: number;
  allowPrivateNetworks: boolean;
  userAgent?: string;
}

interface AttemptResult {
  statusCode: number | null;
  error: string | null;
  /** A refused address is not retried: the answer would be the same. */
  permanent: boolean;
}

const MAX_RESPONSE_BYTES = 64 * 1024;

export function postSigned(url: string, headers: Record<string, string>, body: string, opts: DeliveryOptions): Promise<AttemptResult> {
  return new Promise((resolve) => {
    const u = new URL(url);
    const host = u.hostname.replace(/^\[|\]$/g, '');
    if (!opts.allowPrivateNetworks && net.isIP(host) !== 0 && !isPublicAddress(host)) {
      resolve({ statusCode: null, error: 'blocked_address', permanent: true });
      return;
    }
    const client = u.protocol === 'https:' ? https : http;
    let settled = false;
    const done = (r: AttemptResult) => {
      if (!settled) {
        settled = true;
        resolve(r);
      }
    };
    const req = client.request(
      u,
      {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'user-agent': opts.userAgent ?? 'call-analysis-webhooks/1' },
        timeout: opts.timeoutMs,
        ...(opts.allowPrivateNetworks ? {} : { lookup: publicOnlyLookup as never }),
      },
      (res) => {
        // The body is read (bounded) only to free the connection; it is never stored.
        let seen = 0;
        res.on('data', (chunk: Buffer) => {
          seen += chunk.length;
          if (seen > MAX_RESPONSE_BYTES) res.destroy();
        });
        const status = res.statusCode ?? 0;
        const finish = () => done({ statusCode: status, error: status >= 200 && status < 300 ? null : `http_${status}`, permanent: false });
        res.on('end', finish);
        res.on('close', finish);
        res.on('error', finish);
      },
    );
    // The whole attempt, not only idle time, is bounded.
    const timer = setTimeout(() => req.destroy(new Error('timeout')), opts.timeoutMs);
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (err) => {
      if (err instanceof BlockedAddressError) done({ statusCode: null, error: 'blocked_address', permanent: true });
      else if (err.message === 'timeout') done({ statusCode: null, error: 'timeout', permanent: false });
      else done({ statusCode: null, error: 'network_error', permanent: false });
    });
    req.on('close', () => clearTimeout(timer));
    req.end(body);
  });
}

export class DeliveryFailed extends Error {
  constructor(readonly reason: string) {
    super(`webhook delivery failed: ${reason}`);
  }
}

export function createWebhookDeliverer(db: Db, log: Logger, opts: DeliveryOptions): WebhookJobHandler {
  return async (data, job) => {
    const row = await deliveryToSend(db, data.userId, data.deliveryId);
    if (!row || row.status !== 'PENDING') return;

    const timestamp = Math.floor(Date.now() / 1000);
    const headers = {
      'webhook-id': row.id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signWebhook(row.secret, row.id, timestamp, row.payload),
    };
    const started = Date.now();
    const result = await postSigned(row.url, headers, row.payload, opts);
    const attempt: WebhookAttempt = { at: new Date(started).toISOString(), statusCode: result.statusCode, error: result.error, durationMs: Date.now() - started };
    const ok = result.error === null;
    const last = result.permanent || job.retryCount >= job.retryLimit;
    await recordDeliveryAttempt(db, data.userId, row.id, attempt, ok ? 'SUCCEEDED' : last ? 'FAILED' : 'PENDING');
    observeWebhookDelivery(ok ? 'delivered' : last ? 'failed' : 'retrying');
    if (ok) return;
    // The URL and any response body stay out of the log: they may identify the user.
    log.warn({ deliveryId: row.id, reason: result.error, attempt: job.retryCount + 1, final: last }, 'webhook delivery attempt failed');
    if (!last) throw new DeliveryFailed(result.error ?? 'unknown');
  };
}

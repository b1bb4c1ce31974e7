// GET /metrics (Prometheus text format) and the HTTP request metrics, registered only when
// METRICS_ENABLED is true: otherwise /metrics is an unknown route (404) and requests are not timed.
// With METRICS_TOKEN set the scrape needs `Authorization: Bearer <METRICS_TOKEN>` (compared in
// constant time); production refuses to start with metrics enabled and no token (config.ts).
import crypto from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { ErrorCode, ServiceError } from '../../domain/errors.js';
import { CALL_QUEUE, WEBHOOK_QUEUE, readQueueBacklog } from '../../store/queue.js';
import { collectProcessMetrics, httpRequestDuration, refreshQueueMetrics, registry, setQueueBacklogSource } from '../../observability/metrics.js';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

function tokenMatches(header: string | undefined, token: string): boolean {
  const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  if (!match) return false;
  // Hashing first gives equal-length buffers, so the comparison time does not depend on the input.
  const a = crypto.createHash('sha256').update(match[1]).digest();
  const b = crypto.createHash('sha256').update(token).digest();
  return crypto.timingSafeEqual(a, b);
}

export function registerMetrics(app: FastifyInstance, ctx: AppContext): void {
  if (!ctx.config.metrics.enabled) return;
  collectProcessMetrics();
  setQueueBacklogSource({ queues: [CALL_QUEUE, WEBHOOK_QUEUE], read: () => readQueueBacklog(ctx.database.requestDb) });

  // Callback-style like the server's other global hooks (no promise per request). The route label
  // is the matched route's pattern (`/api/calls/:id`), never the URL: ids and queries stay out.
  app.addHook('onResponse', (req, reply, done) => {
    const route = req.routeOptions.url ?? 'unmatched';
    httpRequestDuration.observe(
      { method: METHODS.has(req.method) ? req.method : 'OTHER', route, status_code: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
    done();
  });

  const token = ctx.config.metrics.token;
  app.get('/metrics', { schema: { hide: true } }, async (req, reply) => {
    if (token !== null) {
      if (!req.headers.authorization) throw new ServiceError(ErrorCode.AuthMissing);
      if (!tokenMatches(req.headers.authorization, token)) throw new ServiceError(ErrorCode.AuthInvalid);
    }
    await refreshQueueMetrics();
    return reply.header('content-type', registry.contentType).header('cache-control', 'no-store').send(await registry.metrics());
  });
}

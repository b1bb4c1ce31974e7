// The small HTTP server of a worker-only process with METRICS_ENABLED: /metrics and the health
// routes (/health/live, /health/ready, /api/health) on PORT, nothing of the API. Without it the
// pipeline, provider and webhook metrics, which are recorded where jobs run, could not be scraped
// in the scalable topology (API processes with WORKER_ENABLED=false, workers with --worker-only).
import Fastify, { type FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { registerErrorHandling } from './plugins/errors.js';
import { registerMetrics } from './plugins/metrics.js';
import { ErrorBody } from './schemas.js';
import healthRoutes from './routes/health.js';

export async function buildOpsServer(ctx: AppContext): Promise<FastifyInstance> {
  const app = Fastify({ loggerInstance: ctx.log.child({ component: 'http-ops' }), disableRequestLogging: true }) as unknown as FastifyInstance;
  registerErrorHandling(app);
  app.addSchema(ErrorBody);
  registerMetrics(app, ctx);
  await app.register(async (scope) => healthRoutes(scope, ctx));
  return app;
}

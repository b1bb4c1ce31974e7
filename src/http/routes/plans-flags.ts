// The plan catalog and the feature flags, open to any authenticated user.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { errorResponses } from '../schemas.js';
import { listFlags } from '../../store/repos/flags.js';

const PlanCatalog = Type.Object({
  free: Type.Object({ minutesPerMonth: Type.Integer(), transcriptsPerDay: Type.Integer() }),
  pro: Type.Object({ priceCents: Type.Integer(), minutesPerMonth: Type.Integer(), overageRatePerMinute: Type.Number() }),
  topups: Type.Array(Type.Object({ sku: Type.String(), minutesGranted: Type.Integer(), transcriptsGranted: Type.Integer(), priceCents: Type.Integer() })),
});

export default async function planAndFlagRoutes(app: FastifyInstance, ctx: AppContext) {
  app.get(
    '/api/plans',
    { schema: { tags: ['Plans'], summary: 'The plan catalog (values from configuration: PLAN_* variables)', response: { 200: PlanCatalog, ...errorResponses(401) } } },
    async () => ctx.config.plans,
  );

  app.get(
    '/api/feature-flags',
    {
      schema: {
        tags: ['Feature flags'],
        summary: 'Runtime feature flags',
        response: { 200: Type.Object({ flags: Type.Record(Type.String(), Type.Boolean()) }), ...errorResponses(401) },
      },
    },
    async () => {
      const rows = await listFlags(ctx.database.requestDb);
      return { flags: Object.fromEntries(rows.map((r) => [r.flagKey, r.enabled])) };
    },
  );
}

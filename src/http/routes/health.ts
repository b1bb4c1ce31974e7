// Liveness with a database check; no authentication.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';

const Health = Type.Object({ status: Type.Union([Type.Literal('UP'), Type.Literal('DOWN')]), database: Type.Union([Type.Literal('UP'), Type.Literal('DOWN')]) });

export default async function healthRoutes(app: FastifyInstance, ctx: AppContext) {
  app.get(
    '/api/health',
    {
      schema: {
        tags: ['Health'],
        summary: 'Liveness; 503 while the database is unreachable',
        security: [],
        response: { 200: Health, 503: Health },
      },
    },
    async (_req, reply) => {
      const up = await ctx.database.ping();
      return reply.status(up ? 200 : 503).send({ status: up ? 'UP' : 'DOWN', database: up ? 'UP' : 'DOWN' });
    },
  );
}

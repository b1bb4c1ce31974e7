// Aggregated sentiment and tone over the caller's calls.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { errorResponses } from '../schemas.js';
import { DEFAULT_VIBE_DAYS, MAX_VIBE_DAYS, vibeReport } from '../../domain/analytics.js';

const tags = ['Analytics'];

const Distribution = Type.Record(Type.String(), Type.Integer(), { description: 'Value to number of calls.' });

const VibeSchema = Type.Object({
  sentimentDistribution: Distribution,
  userSentimentDistribution: Distribution,
  contactSentimentDistribution: Distribution,
  sentimentTrend: Type.Array(
    Type.Object({
      week: Type.String({ description: 'The Monday (UTC) of the ISO week, YYYY-MM-DD.' }),
      counts: Distribution,
    }),
    { description: 'Counts of sentiment.overall per ISO week, oldest week first; weeks without any such call are left out.' },
  ),
  toneProfile: Type.Object({ formality: Distribution, energy: Distribution, pace: Distribution }),
});

export default async function analyticsRoutes(app: FastifyInstance, ctx: AppContext) {
  app.get(
    '/api/analytics/vibe',
    {
      schema: {
        tags,
        summary: 'Sentiment and tone distributions and the weekly sentiment trend',
        description:
          'Aggregated from the stored analyses of the caller\'s calls created in the last `days` days (by the call\'s createdAt, the server time of the upload, because recordedAt is optional client metadata). sentimentDistribution counts sentiment.overall, userSentimentDistribution sentiment.userSentiment.overall, contactSentimentDistribution sentiment.contactSentiment.overall; toneProfile counts tone.formality, tone.energy and tone.pace. A call without a value (still processing, or an older analysis shape without it) is left out of that distribution only. No model call is made.',
        querystring: Type.Object({
          days: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_VIBE_DAYS, default: DEFAULT_VIBE_DAYS, description: 'Look-back window in days.' })),
        }),
        response: { 200: VibeSchema, ...errorResponses(400, 401) },
      },
    },
    async (req) => vibeReport(ctx.database.db, req.user.id, (req.query as { days?: number }).days ?? DEFAULT_VIBE_DAYS),
  );
}

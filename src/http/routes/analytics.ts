// Aggregated sentiment and tone over the caller's calls.
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { errorResponses } from '../schemas.js';
import { DEFAULT_VIBE_DAYS, MAX_VIBE_DAYS, vibeReport } from '../../domain/analytics.js';

const tags = ['Analytics'];

const Avg = Type.Union([Type.Number(), Type.Null()]);
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
  conversationMetrics: Type.Object(
    {
      callCount: Type.Integer({ description: 'Calls in the window whose analysis holds conversationMetrics.' }),
      averageDurationSeconds: Avg,
      averageTurnCount: Avg,
      averageInterruptionCount: Avg,
      averageSilenceShare: Avg,
      averageResponseLatencySeconds: Avg,
      averageLongestMonologueSeconds: Avg,
      byRole: Type.Record(
        Type.String(),
        Type.Object({
          callCount: Type.Integer(),
          averageTalkShare: Avg,
          averageTalkSeconds: Avg,
          averageWordsPerMinute: Avg,
          averageInterruptionCount: Avg,
          averageResponseLatencySeconds: Avg,
        }),
        { description: 'Keyed by speaker role (USER, CONTACT, UNKNOWN); a role appears when at least one call has a party with it. Per call, the parties of one role are added up first.' },
      ),
    },
    {
      description:
        'Means over the calls of the window of their analysis\'s conversationMetrics (measured from the transcript timing, see the Analysis schema). Analyses made before conversation metrics existed are left out; averages are null when no call counts. Rounded to 0.001.',
    },
  ),
});

export default async function analyticsRoutes(scope: FastifyInstance, ctx: AppContext) {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
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
    async (req) => vibeReport(ctx.database.requestDb, req.user.id, req.query.days ?? DEFAULT_VIBE_DAYS),
  );
}

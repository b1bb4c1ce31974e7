// Full-text search over the caller's calls. A static path: Fastify's router prefers it to the
// parametric /api/calls/:id whatever the registration order.
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { errors } from '../../domain/errors.js';
import { DateTime, Nullable, Uuid, errorResponses, LiteralUnion } from '../schemas.js';
import { CallStatusSchema } from './call-schemas.js';
import {
  HIGHLIGHT_START,
  HIGHLIGHT_STOP,
  SEARCH_DEFAULT_LIMIT,
  SEARCH_MAX_LIMIT,
  SEARCH_MAX_SEGMENTS_PER_HIT,
  SEGMENT_MATCHES,
  decodeSearchCursor,
  encodeSearchCursor,
  searchCalls,
} from '../../domain/search.js';

const SearchSegmentSchema = Type.Object({
  segmentId: Type.String({ description: 'The transcript segment id (seg_NNNN).' }),
  startSeconds: Type.Number(),
  endSeconds: Type.Number(),
  speakerId: Nullable(Type.String()),
  speakerDisplayName: Nullable(Type.String()),
  role: Nullable(Type.String()),
});

const SearchHitSchema = Type.Object({
  callId: Uuid,
  title: Nullable(Type.String()),
  contactName: Nullable(Type.String()),
  status: CallStatusSchema,
  createdAt: DateTime,
  durationSeconds: Nullable(Type.Integer()),
  rank: Type.Number({ description: 'ts_rank_cd of the call\'s weighted document (for a query of more than three words, of its words OR-ed); higher is better. Comparable within one result list only.' }),
  snippet: Type.String({
    description: `Fragments of the matching text (ts_headline), joined by " … ", matched words wrapped in ${HIGHLIGHT_START}…${HIGHLIGHT_STOP}. Fragments are chosen by the whole query when it has at most three words, otherwise by any of its words (the cost of ranking and highlighting a long query grows steeply with its length). Safe to insert as HTML: all other text is HTML-escaped (\`&amp;\` \`&lt;\` \`&gt;\` \`&quot;\` \`&#39;\`), so the only markup is these markers, balanced and never nested; user text that looks like markup (including a literal \`<mark>\`) arrives escaped. For plain text, remove the markers and unescape those five entities.`,
  }),
  matchingSegmentCount: Type.Integer({ description: 'How many transcript segments are listed in `segments` before the cut to the first ones.' }),
  segmentMatch: LiteralUnion(SEGMENT_MATCHES, {
    description: '`all_terms`: each listed segment matches the whole query on its own. `some_terms`: no segment does (the words are spread over several segments, or only the title, notes, summary or action items match), so the segments holding some of the query\'s words are listed. `none`: no segment holds any of them.',
  }),
  segments: Type.Array(SearchSegmentSchema, {
    description: `The first ${SEARCH_MAX_SEGMENTS_PER_HIT} matching transcript segments in spoken order (see segmentMatch).`,
  }),
});

export default async function searchRoutes(scope: FastifyInstance, ctx: AppContext) {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/api/calls/search',
    {
      schema: {
        tags: ['Calls'],
        summary: 'Full-text search over the caller\'s calls',
        description:
          'Searches the title, contact name, summaries, notes, transcript text and action items of the caller\'s calls (any status) with PostgreSQL full-text search (English stemming). `q` uses web-search syntax: words (all must occur), "quoted phrases", `or`, and `-word` to exclude. ' +
          'Hits are ordered by rank (title and contact name weigh most, then summaries and action items, then notes, then transcript text), then newest first. A query of stop words only matches nothing. ' +
          '`nextCursor` is present when more hits follow; it is valid for the same `q` only (another `q` answers 400). The index changes in the same transaction as the call, so results are current.',
        querystring: Type.Object({
          q: Type.String({ minLength: 1, maxLength: 500, pattern: '\\S', description: 'The search text (web-search syntax).' }),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: SEARCH_MAX_LIMIT, default: SEARCH_DEFAULT_LIMIT })),
          cursor: Type.Optional(Type.String({ maxLength: 200 })),
        }),
        response: { 200: Type.Object({ items: Type.Array(SearchHitSchema), nextCursor: Type.Optional(Type.String()) }), ...errorResponses(400, 401) },
      },
    },
    async (req) => {
      const { q, limit = SEARCH_DEFAULT_LIMIT, cursor } = req.query;
      let offset = 0;
      if (cursor !== undefined) {
        const decoded = decodeSearchCursor(cursor, q);
        if (decoded === null) throw errors.validation({ fields: [{ path: '/querystring/cursor', message: 'is not a cursor of this search' }] });
        offset = decoded;
      }
      const { items, nextOffset } = await searchCalls(ctx.database.requestDb, req.user.id, { q, limit, offset });
      return nextOffset === null ? { items } : { items, nextCursor: encodeSearchCursor(nextOffset, q) };
    },
  );
}

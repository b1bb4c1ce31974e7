// The analysis of a completed call, and re-analysis (non-production only).
//
// Stored analyses are served exactly as stored, legacy schemaVersion 1 and 2 shapes included: the
// response schema documents the shape, but the route serialises with JSON.stringify so that no
// field is dropped or coerced by a schema-driven serialiser.
//
// Re-analysis runs the analysis stage (src/domain/reanalysis.ts) within the request: the model
// outside any transaction (it can take long and must not hold locks) and off the event loop, then
// the artifact, the merged action items and the call's title/summary in one transaction, so a
// failure at any point leaves the previous analysis and items untouched.
import { Type, type Static } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { errors } from '../../domain/errors.js';
import { IdParams, errorResponses } from '../schemas.js';
import { CallDetailSchema } from './call-schemas.js';
import { Analysis } from '../../domain/analysis.js';
import { reanalyzeCall } from '../../domain/reanalyze-call.js';
import { callDetailOf, findCall } from '../../domain/calls.js';
import { getArtifact } from '../../store/repos/artifacts.js';

const tags = ['Calls'];

const LegacyAnalysis = Type.Object(
  { schemaVersion: Type.Optional(Type.Integer({ description: '1 or 2, or absent on the oldest rows' })) },
  { additionalProperties: true, description: 'An analysis stored in a legacy shape (schemaVersion 1 or 2), served unchanged.' },
);

const StoredAnalysis = Type.Union([Analysis, LegacyAnalysis]);

export default async function analysisRoutes(scope: FastifyInstance, ctx: AppContext) {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const db = ctx.database.requestDb;

  app.get(
    '/api/calls/:id/analysis',
    {
      schema: {
        tags,
        summary: 'The structured analysis of a completed call',
        description:
          'The stored artifact as it was produced: schemaVersion 3 for current analyses; artifacts of versions 1 and 2 keep their original shape, so read schemaVersion first. 404 when the call is missing or foreign or has no analysis yet; 422 call_not_completed before completion.',
        params: IdParams,
        response: { 200: StoredAnalysis, ...errorResponses(400, 401, 404, 422) },
      },
      serializerCompiler: () => (data) => JSON.stringify(data),
    },
    async (req) => {
      const call = await findCall(db, req.user.id, req.params.id);
      if (!call) throw errors.callNotFound();
      if (call.status !== 'COMPLETED') throw errors.callNotCompleted(call.status);
      // The stored artifact as produced (a current or a legacy shape); the serializer sends it as it is.
      const analysis = await getArtifact<Static<typeof StoredAnalysis>>(db, req.user.id, call.id, 'analysis');
      if (analysis === undefined) throw errors.callNotFound();
      return analysis;
    },
  );

  // Not registered in production: there the path answers the same 404 as any unknown route.
  if (ctx.config.isProduction) return;

  app.post(
    '/api/calls/:id/reanalyze',
    {
      schema: {
        tags,
        summary: 'Re-run the analysis from the stored transcript (non-production only)',
        description:
          'Runs the language-model analysis again on the stored normalised transcript (no new transcription), overwrites the analysis artifact, re-applies the action items and refreshes the suggested title and the summary unless the user edited it. All writes happen in one transaction after the model has answered, so a failure leaves the previous analysis and items intact. Action items: where the specification says the AI items are deleted and re-inserted, the user\'s work is kept instead: an AI item the user edited (PUT /api/action-items/{id} or a status change) keeps the user\'s title, description, due date, priority and status and its id (its owner, citations and excerpt follow the new analysis when it finds the item again); an AI item the user deleted does not come back; an AI item found again unchanged (same content fingerprint: title, description, due date, priority, intent, cited segments, owner speaker id) keeps its row and id; only the other AI items are replaced; MANUAL items are kept. The same applies when speaker corrections or a retried processing job store an analysis. The analyzer never runs on the service\'s event loop (the embedded analyzer runs in a worker thread). A pending analysis of a speaker correction is answered by this one (analysisPending is cleared). Not available in production (404). 404 call_not_found when the call is missing, foreign or has no stored transcript; 409 call_not_reanalyzable with details.status when the call is not COMPLETED; 503 service_unavailable when the analysis provider is unavailable or the transcript kept changing under concurrent corrections.',
        params: IdParams,
        response: { 200: CallDetailSchema, ...errorResponses(400, 401, 404, 409, 500, 503) },
      },
    },
    async (req) => callDetailOf(await reanalyzeCall({ db, analyzer: ctx.analyzer, log: req.log }, req.user.id, req.params.id)),
  );
}

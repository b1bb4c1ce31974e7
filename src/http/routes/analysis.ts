// The analysis of a completed call, and re-analysis (non-production only).
//
// Stored analyses are served exactly as stored, legacy schemaVersion 1 and 2 shapes included: the
// response schema documents the shape, but the route serialises with JSON.stringify so that no
// field is dropped or coerced by a schema-driven serialiser.
//
// Re-analysis runs the model outside any transaction (it can take long and must not hold locks),
// then writes the artifact, the AI action items and the call's title/summary in one transaction,
// so a failure at any point leaves the previous analysis and items untouched.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { ErrorCode, errors } from '../../domain/errors.js';
import { Uuid, errorResponses } from '../schemas.js';
import { CallDetailSchema } from './call-schemas.js';
import { Analysis } from '../../domain/analysis.js';
import { storeAnalysis } from '../../domain/call-results.js';
import { analyzeAgain } from '../../domain/reanalysis.js';
import { callDetailOf, findCall } from '../../domain/calls.js';
import type { Transcript } from '../../domain/transcript.js';
import { getArtifact } from '../../store/repos/artifacts.js';

const tags = ['Calls'];
const Params = Type.Object({ id: Uuid });

const LegacyAnalysis = Type.Object(
  { schemaVersion: Type.Optional(Type.Integer({ description: '1 or 2, or absent on the oldest rows' })) },
  { additionalProperties: true, description: 'An analysis stored in a legacy shape (schemaVersion 1 or 2), served unchanged.' },
);

export default async function analysisRoutes(app: FastifyInstance, ctx: AppContext) {
  const db = ctx.database.db;

  app.get(
    '/api/calls/:id/analysis',
    {
      schema: {
        tags,
        summary: 'The structured analysis of a completed call',
        description:
          'The stored artifact as it was produced: schemaVersion 3 for current analyses; artifacts of versions 1 and 2 keep their original shape, so read schemaVersion first. 404 when the call is missing or foreign or has no analysis yet; 422 call_not_completed before completion.',
        params: Params,
        response: { 200: Type.Union([Analysis, LegacyAnalysis]), ...errorResponses(400, 401, 404, 422) },
      },
      serializerCompiler: () => (data) => JSON.stringify(data),
    },
    async (req) => {
      const call = await findCall(db, req.user.id, (req.params as { id: string }).id);
      if (!call) throw errors.callNotFound();
      if (call.status !== 'COMPLETED') throw errors.callNotCompleted(call.status);
      const analysis = await getArtifact(db, req.user.id, call.id, 'analysis');
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
          'Runs the language-model analysis again on the stored normalised transcript (no new transcription), overwrites the analysis artifact, deletes the call\'s AI action items and inserts the new ones (MANUAL items are kept), and refreshes the suggested title and the summary unless the user edited it. All writes happen in one transaction after the model has answered, so a failure leaves the previous analysis and items intact. Not available in production (404). 404 call_not_found when the call is missing, foreign or has no stored transcript; 409 call_not_reanalyzable with details.status when the call is not COMPLETED.',
        params: Params,
        response: { 200: CallDetailSchema, ...errorResponses(400, 401, 404, 409, 500, 503) },
      },
    },
    async (req) => {
      const userId = req.user.id;
      const callId = (req.params as { id: string }).id;
      const call = await findCall(db, userId, callId);
      if (!call) throw errors.callNotFound();
      if (call.status !== 'COMPLETED') throw errors.of(ErrorCode.CallNotReanalyzable, { status: call.status });
      const transcript = await getArtifact<Transcript>(db, userId, callId, 'transcript');
      if (!transcript) throw errors.callNotFound();

      const analysis = await analyzeAgain(ctx.analyzer, transcript, call, req.user.row, req.log);

      const updated = await db.transaction().execute(async (trx) => {
        // The call may have been deleted or reprocessed while the model ran.
        const current = await trx.selectFrom('calls').select('status').where('userId', '=', userId).where('id', '=', callId).forUpdate().executeTakeFirst();
        if (!current) throw errors.callNotFound();
        if (current.status !== 'COMPLETED') throw errors.of(ErrorCode.CallNotReanalyzable, { status: current.status });
        await storeAnalysis(trx, userId, callId, analysis);
        return findCall(trx, userId, callId);
      });
      if (!updated) throw errors.callNotFound();
      return callDetailOf(updated);
    },
  );
}

// Manual speaker corrections of a completed call (every environment).
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { correctSpeakers } from '../../domain/speaker-corrections.js';
import { SpeakerRole, Transcript } from '../../domain/transcript.js';
import { Uuid, errorResponses } from '../schemas.js';

const SpeakerId = Type.String({ pattern: '^spk_[0-9]+$' });
// One line per segment in cleanText: a name holds no line breaks or other control characters.
const DisplayName = Type.String({ minLength: 1, maxLength: 100, pattern: '^[^\\u0000-\\u001F\\u007F]*$' });

const Operation = Type.Union([
  Type.Object({ type: Type.Literal('SWAP_SPEAKERS') }, { additionalProperties: false, description: 'Exchange the identities (label, displayName, role) of the two speakers.' }),
  Type.Object({ type: Type.Literal('RENAME_SPEAKER'), speakerId: SpeakerId, displayName: DisplayName }, { additionalProperties: false, description: 'Set label and displayName of one speaker.' }),
  Type.Object({ type: Type.Literal('SET_ROLE'), speakerId: SpeakerId, role: SpeakerRole }, { additionalProperties: false, description: 'Set the role of one speaker; the speaker that held USER or CONTACT gets the opposite role.' }),
  Type.Object(
    { type: Type.Literal('MOVE_SEGMENT'), segmentId: Type.String({ pattern: '^seg_[0-9]{4,}$' }), speakerId: Type.Optional(SpeakerId) },
    { additionalProperties: false, description: 'Attribute one segment to another speaker: speakerId, or by default the other of two speakers (a new speaker when the transcript has one).' },
  ),
]);

export default async function speakerRoutes(scope: FastifyInstance, ctx: AppContext) {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  app.patch(
    '/api/calls/:id/speakers',
    {
      schema: {
        tags: ['Calls'],
        summary: 'Correct the speakers of a completed call\'s transcript',
        description:
          'Applies the operations in order, all or nothing: SWAP_SPEAKERS, RENAME_SPEAKER, SET_ROLE, MOVE_SEGMENT. Corrected speakers get labelSource MANUAL and confidence HIGH; segments and cleanText follow. The corrected transcript is stored and returned at once; the analysis of the corrected transcript follows in the background, on the analysis job queue (never within this request): until it is stored, the call detail carries `analysisPending: true` and GET /api/calls/{id}/analysis serves the previous analysis. Requests that follow each other quickly are coalesced: at most one analysis per call waits, and it always reads the latest transcript; an analysis made from a transcript that was corrected again meanwhile is dropped, never stored over a newer one. The analysis replaces the analysis artifact, the suggested title and the unedited summary, and merges the AI action items the way re-analysis does (items the user edited or deleted are kept as the user left them, unchanged items keep their ids; MANUAL items are kept). A provider outage is retried by the queue; when the analysis fails for good the previous analysis stays, `analysisPending` is cleared and an ANALYZE/FAILED processing event is recorded. Available in every environment. Corrections are kept by later re-analysis. Who changed what (user id, operation, speaker and segment ids, roles; no names) is recorded in the call\'s processing events. Response: the corrected transcript. 400 validation_failed for a malformed operation or an unknown speakerId/segmentId (details.fields names it); 404 call_not_found when the call is missing, foreign or has no transcript; 422 call_not_completed before completion; 422 speaker_correction_not_applicable (details.operation, details.reason) for SWAP_SPEAKERS on a transcript without exactly two speakers; 503 service_unavailable when the transcript kept changing under concurrent corrections.',
        params: Type.Object({ id: Uuid }),
        body: Type.Object({ operations: Type.Array(Operation, { minItems: 1, maxItems: 100 }) }, { additionalProperties: false }),
        response: { 200: Transcript, ...errorResponses(400, 401, 404, 422, 500, 503) },
      },
    },
    async (req) => {
      const { operations } = req.body;
      return correctSpeakers({ db: ctx.database.requestDb, queue: ctx.queue }, req.user.row, req.params.id, operations);
    },
  );
}

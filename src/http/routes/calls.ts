// Calls: list, status polling, detail, edits, transcript (and its export) and deletion.
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { errors } from '../../domain/errors.js';
import { errorResponses, Uuid, LiteralUnion } from '../schemas.js';
import { CallDetailSchema, CallIdParams, CallListItemSchema, CallStatusSchema } from './call-schemas.js';
import contentDisposition from 'content-disposition';
import { isUuid } from '../../domain/ids.js';
import { callDetailOf, CallListReader, callProgress, CallStatusReader, decodeCursor, effectiveTitle, findCall, updateCallFields } from '../../domain/calls.js';
import { deleteCallAndFiles } from '../../domain/call-deletion.js';
import { Transcript } from '../../domain/transcript.js';
import { EXPORT_CONTENT_TYPES, EXPORT_FORMATS, asciiFileName, exportFileName, exportTranscript, exportableSegments } from '../../domain/transcript-export.js';
import { getArtifact, getArtifactJson } from '../../store/repos/artifacts.js';

const tags = ['Calls'];
const MAX_STATUS_IDS = 100;
const MAX_BULK_DELETE = 100;

export default async function callRoutes(scope: FastifyInstance, ctx: AppContext) {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const db = ctx.database.requestDb;
  const pool = ctx.database.requestPool;

  const statuses = new CallStatusReader(pool);
  const lists = new CallListReader(pool);
  const deleteCall = (userId: string, callId: string) => deleteCallAndFiles(ctx, userId, callId);

  app.get(
    '/api/calls',
    {
      schema: {
        tags,
        summary: 'The caller\'s calls, newest first',
        querystring: Type.Object({
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
          cursor: Type.Optional(Type.String({ maxLength: 200 })),
          status: Type.Optional(CallStatusSchema),
        }),
        response: { 200: Type.Object({ items: Type.Array(CallListItemSchema), nextCursor: Type.Optional(Type.String()) }), ...errorResponses(400, 401) },
      },
      config: { cachedUser: true },
    },
    async (req) => {
      const q = req.query;
      const cursor = q.cursor ? decodeCursor(q.cursor) : null;
      if (q.cursor && !cursor) throw errors.validation({ fields: [{ path: '/querystring/cursor', message: 'is not a cursor of this list' }] });
      return lists.read(req.user.id, { limit: q.limit ?? 50, cursor, status: q.status });
    },
  );

  app.get(
    '/api/calls/status',
    {
      schema: {
        tags,
        summary: 'Statuses of several calls (poll every 3 to 5 seconds)',
        description: `At most ${MAX_STATUS_IDS} comma-separated ids. Unknown, malformed and foreign ids are left out of items. Ids match in any letter case and come back in lower case, as the service hands them out. The ids may also come as repeated parameters (\`ids=a&ids=b\`, as Retrofit sends a list) or \`ids[]=a&ids[]=b\` (Alamofire's default); they are joined as if comma-separated.`,
        querystring: Type.Object({ ids: Type.String({ maxLength: 100 * 40 }) }),
        response: { 200: Type.Object({ items: Type.Array(Type.Object({ callId: Uuid, status: CallStatusSchema })) }), ...errorResponses(400, 401) },
      },
      config: { cachedUser: true },
      // HTTP client libraries encode a list parameter as repeated keys, with or without brackets;
      // both mean the same ids as the comma-separated form the spec describes.
      preValidation: (req, _reply, done) => {
        const q: Record<string, unknown> = req.query;
        if (Array.isArray(q.ids) || q['ids[]'] !== undefined) {
          q.ids = [q.ids, q['ids[]']].flat().filter((v): v is string => typeof v === 'string').join(',');
          delete q['ids[]'];
        }
        done();
      },
    },
    async (req) => {
      const ids = [...new Set(req.query.ids.split(',').map((s) => s.trim()).filter(Boolean))];
      if (ids.length > MAX_STATUS_IDS) throw errors.validation({ fields: [{ path: '/querystring/ids', message: `at most ${MAX_STATUS_IDS} ids` }] });
      // Lower case: PostgreSQL answers with lower-case ids, and those are the ids the service hands out.
      const asked = [...new Set(ids.filter((id) => isUuid(id)).map((id) => id.toLowerCase()))];
      return { items: await statuses.read(req.user.id, asked) };
    },
  );

  app.get(
    '/api/calls/:id',
    { schema: { tags, summary: 'Call detail (no transcript, no analysis)', params: CallIdParams, response: { 200: CallDetailSchema, ...errorResponses(401, 404) } }, config: { cachedUser: true } },
    async (req) => {
      const call = await findCall(db, req.user.id, req.params.id);
      if (!call) throw errors.callNotFound();
      const progress = await callProgress(db, req.user.id, call);
      return progress ? { ...callDetailOf(call), progress } : callDetailOf(call);
    },
  );

  app.patch(
    '/api/calls/:id',
    {
      schema: {
        tags,
        summary: 'Edit title, summary or notes',
        description: 'An omitted field stays unchanged; an empty string clears it (a cleared title falls back to the upload title or the suggested one).',
        params: CallIdParams,
        body: Type.Object(
          {
            title: Type.Optional(Type.String({ maxLength: 500 })),
            summary: Type.Optional(Type.String({ maxLength: 2000 })),
            notes: Type.Optional(Type.String({ maxLength: 20000 })),
          },
          { additionalProperties: false },
        ),
        response: { 200: CallDetailSchema, ...errorResponses(400, 401, 404) },
      },
    },
    async (req) => {
      const call = await updateCallFields(db, req.user.id, req.params.id, req.body);
      if (!call) throw errors.callNotFound();
      return callDetailOf(call);
    },
  );

  app.get(
    '/api/calls/:id/transcript',
    {
      schema: {
        tags,
        summary: 'The speaker-attributed transcript of a completed call, as JSON or exported as WebVTT, SubRip or plain text',
        description:
          'Without `format` (or `format=json`) the stored transcript JSON, unchanged. The other formats are downloads (`Content-Disposition: attachment`, the call\'s title as the file name, with an RFC 5987 `filename*` when it is not ASCII), UTF-8, one cue per segment in order:\n' +
          '- `vtt` (`text/vtt`): a WebVTT file; each cue\'s identifier is the segment id and its text carries a voice tag, `<v Speaker Name>text</v>` (cue text escaped as WebVTT requires).\n' +
          '- `srt` (`application/x-subrip`): SubRip; cues numbered from 1, `Speaker Name: text`.\n' +
          '- `txt` (`text/plain`): the cleanText line format, `[MM:SS - MM:SS] Speaker Name: text`, one line per segment.\n' +
          'Cue times are `HH:MM:SS.mmm` (SubRip `HH:MM:SS,mmm`), so calls past one hour keep counting hours. Line breaks inside a segment become spaces; a cue never ends before it starts.',
        params: CallIdParams,
        querystring: Type.Object({
          format: Type.Optional(LiteralUnion(EXPORT_FORMATS, { default: 'json', description: 'json (default), vtt, srt or txt.' })),
        }),
        response: {
          200: {
            description: 'The transcript in the requested format.',
            content: {
              'application/json': { schema: Transcript },
              'text/vtt': { schema: Type.String() },
              'application/x-subrip': { schema: Type.String() },
              'text/plain': { schema: Type.String() },
            },
          },
          ...errorResponses(400, 401, 404, 422),
        },
      },
      // Stored transcripts are served exactly as stored: the JSON text comes from the database and
      // goes out unparsed (a transcript is tens of kilobytes; parsing and serialising it again was
      // most of this route's time).
      serializerCompiler: () => (data) => (typeof data === 'string' ? data : JSON.stringify(data)),
      // Export downloads are links in the console: the media session cookie is accepted here.
      config: { cachedUser: true, mediaSession: true },
    },
    async (req, reply) => {
      const call = await findCall(db, req.user.id, req.params.id);
      if (!call) throw errors.callNotFound();
      if (call.status !== 'COMPLETED') throw errors.callNotCompleted(call.status);
      const format = req.query.format ?? 'json';
      if (format === 'json') {
        const transcript = await getArtifactJson(db, req.user.id, call.id, 'transcript');
        if (!transcript) throw errors.callNotFound();
        return reply.type('application/json; charset=utf-8').send(transcript);
      }
      const transcript = await getArtifact(db, req.user.id, call.id, 'transcript');
      if (!transcript) throw errors.callNotFound();
      const fileName = exportFileName(effectiveTitle(call), call.id, format);
      return reply
        .header('content-type', EXPORT_CONTENT_TYPES[format])
        .header('content-disposition', contentDisposition.create(fileName, { fallback: asciiFileName(fileName) }))
        .send(exportTranscript(format, exportableSegments(transcript)));
    },
  );

  app.delete(
    '/api/calls/:id',
    { schema: { tags, summary: 'Delete a call, its files, artifacts and action items (irreversible)', params: CallIdParams, response: { 204: Type.Null(), ...errorResponses(401, 404) } } },
    async (req, reply) => {
      if (!(await deleteCall(req.user.id, req.params.id))) throw errors.callNotFound();
      return reply.status(204).send(null);
    },
  );

  app.delete(
    '/api/calls',
    {
      schema: {
        tags,
        summary: 'Delete several calls',
        description: `At most ${MAX_BULK_DELETE} ids. Unknown or foreign ids count as missing; failed entries are {callId, reason}.`,
        body: Type.Object({ callIds: Type.Array(Type.String(), { maxItems: MAX_BULK_DELETE }) }),
        response: {
          200: Type.Object({ deleted: Type.Integer(), missing: Type.Integer(), failed: Type.Array(Type.Object({ callId: Type.String(), reason: Type.String() })) }),
          ...errorResponses(400, 401),
        },
      },
    },
    async (req) => {
      const ids = [...new Set(req.body.callIds)];
      let deleted = 0;
      let missing = 0;
      const failed: Array<{ callId: string; reason: string }> = [];
      for (const id of ids) {
        if (!isUuid(id)) {
          missing++;
          continue;
        }
        try {
          if (await deleteCall(req.user.id, id)) deleted++;
          else missing++;
        } catch (err) {
          req.log.warn({ err: (err as Error).message }, 'bulk delete entry failed');
          failed.push({ callId: id, reason: 'delete_failed' });
        }
      }
      return { deleted, missing, failed };
    },
  );

}

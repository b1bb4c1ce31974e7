// What a browser's media elements read: the call's original audio with range requests, the
// waveform drawn from peaks stored at decoding, and the media session (a cookie) that lets an
// <audio> element, which cannot send an Authorization header, read them.
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { ErrorCode, errors, ServiceError } from '../../domain/errors.js';
import { findCall } from '../../domain/calls.js';
import { resolveRange } from '../../domain/byte-range.js';
import { MEDIA_COOKIE, MEDIA_SESSION_SECONDS, mediaCookieHeader, type MediaSessions } from '../../domain/media-session.js';
import { DEFAULT_WAVEFORM_POINTS, MAX_WAVEFORM_POINTS, waveformOf } from '../../domain/waveform.js';
import { waveformKey } from '../../store/blobs.js';
import { CallIdParams } from './call-schemas.js';
import { DateTime, errorResponses } from '../schemas.js';

const tags = ['Media'];

/** Content types of the stored upload formats (src/pipeline/audio/sniff.ts names them). */
const AUDIO_TYPES: Record<string, string> = {
  m4a: 'audio/mp4',
  mp4: 'audio/mp4',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  aac: 'audio/aac',
  ogg: 'audio/ogg',
  opus: 'audio/ogg',
  flac: 'audio/flac',
  webm: 'audio/webm',
};

async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

export default async function mediaRoutes(scope: FastifyInstance, ctx: AppContext & { mediaSessions: MediaSessions }) {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const db = ctx.database.requestDb;

  app.get(
    '/api/calls/:id/audio',
    {
      schema: {
        tags,
        summary: 'The call\'s original recording, with range requests',
        description:
          'The uploaded file as stored, with its content type (`audio/mp4`, `audio/mpeg`, `audio/wav`, ...). `Accept-Ranges: bytes`: a single `Range: bytes=a-b` (or `a-`, or `-n`) answers 206 with `Content-Range`; a range that starts past the end answers 416 with `Content-Range: bytes */size`; several ranges are answered with the whole file (200). The file is streamed from the disk or the bucket, never held in memory. Accepts the media session cookie (`POST /api/session`) instead of the Authorization header, so an `<audio>` element can play it.',
        params: CallIdParams,
        response: {
          200: { description: 'The whole recording.', content: { 'audio/*': { schema: Type.String({ format: 'binary' }) } } },
          206: { description: 'The requested bytes.', content: { 'audio/*': { schema: Type.String({ format: 'binary' }) } } },
          ...errorResponses(401, 404, 416),
        },
      },
      config: { mediaSession: true },
    },
    async (req, reply) => {
      const call = await findCall(db, req.user.id, req.params.id);
      if (!call?.audioKey) throw errors.callNotFound();
      const size = await ctx.blobs.size(call.audioKey);
      if (size === null) throw errors.callNotFound();
      const answer = resolveRange(req.headers['if-range'] ? undefined : req.headers.range, size);
      reply
        .header('accept-ranges', 'bytes')
        .header('content-type', AUDIO_TYPES[call.audioFormat ?? ''] ?? 'application/octet-stream')
        // The stored file never changes; private: it is one user's recording.
        .header('cache-control', 'private, max-age=3600')
        .header('x-content-type-options', 'nosniff');
      if (answer.kind === 'unsatisfiable') {
        reply.header('content-range', `bytes */${size}`);
        throw new ServiceError(ErrorCode.RangeNotSatisfiable);
      }
      const range = answer.kind === 'partial' ? answer.range : undefined;
      const stream = await ctx.blobs.read(call.audioKey, range);
      if (!stream) throw errors.callNotFound();
      if (range) reply.status(206).header('content-range', `bytes ${range.start}-${range.end}/${size}`);
      reply.header('content-length', range ? range.end - range.start + 1 : size);
      return reply.send(stream as never);
    },
  );

  app.get(
    '/api/calls/:id/waveform',
    {
      schema: {
        tags,
        summary: 'Waveform peaks of the call, for drawing it without decoding the audio',
        description: `Computed once when the call is decoded (50 peaks a second), answered reduced to \`points\` values (default ${DEFAULT_WAVEFORM_POINTS}, at most ${MAX_WAVEFORM_POINTS}), each the largest absolute amplitude of its stretch on a 0-1 scale. 404 \`waveform_not_found\` until the call is decoded, and for calls decoded before the service computed waveforms. Accepts the media session cookie.`,
        params: CallIdParams,
        querystring: Type.Object({ points: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_WAVEFORM_POINTS, default: DEFAULT_WAVEFORM_POINTS })) }),
        response: {
          200: Type.Object({ durationSeconds: Type.Number(), pointsPerSecond: Type.Number(), peaks: Type.Array(Type.Number({ minimum: 0, maximum: 1 })) }),
          ...errorResponses(400, 401, 404),
        },
      },
      config: { mediaSession: true },
    },
    async (req, reply) => {
      const call = await findCall(db, req.user.id, req.params.id);
      if (!call) throw errors.callNotFound();
      const stream = await ctx.blobs.read(waveformKey(call.userId, call.id));
      if (!stream) throw new ServiceError(ErrorCode.WaveformNotFound);
      reply.header('cache-control', 'private, max-age=3600');
      return waveformOf(new Uint8Array(await readAll(stream)), req.query.points ?? DEFAULT_WAVEFORM_POINTS);
    },
  );

  app.post(
    '/api/session',
    {
      schema: {
        tags,
        summary: 'Start a media session (a cookie for <audio>, waveform and downloads)',
        description: `Exchanges the request's own authentication (bearer token, or the service API key) for a cookie \`${MEDIA_COOKIE}\` signed by the service: HttpOnly, SameSite=Strict, Path=/api, Secure over https, valid ${MEDIA_SESSION_SECONDS / 60} minutes. Only the read routes that say so accept it (the call's audio, waveform and transcript export); every other route still needs the Authorization header, so the cookie cannot be used to change anything. Call it again before \`expiresAt\` to extend the session.`,
        response: { 200: Type.Object({ expiresAt: DateTime }), ...errorResponses(401) },
      },
    },
    async (req, reply) => {
      const { token, expiresAt } = await ctx.mediaSessions.issue(req.user.id, req.user.row.mediaSessionGeneration);
      reply.header('set-cookie', mediaCookieHeader(token, req.protocol === 'https'));
      return { expiresAt: expiresAt.toISOString() };
    },
  );

  app.delete(
    '/api/session',
    {
      schema: {
        tags,
        summary: 'End the media session (clears the cookie)',
        description: 'Clears the cookie and ends every media session of the user issued before this call, in every browser: a copy of an earlier cookie is refused from now on (401).',
        response: { 204: Type.Null(), ...errorResponses(401) },
      },
    },
    async (req, reply) => {
      await ctx.mediaSessions.endAll(req.user.id);
      reply.header('set-cookie', mediaCookieHeader('', req.protocol === 'https'));
      return reply.status(204).send(null);
    },
  );
}

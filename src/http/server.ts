// The HTTP server: Fastify with TypeBox route schemas (validation, serialisation and the OpenAPI
// document come from the same schemas), one error handler, authentication, and one file per
// route group.
import crypto from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import multipart from '@fastify/multipart';
import swagger from '@fastify/swagger';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../context.js';
import { registerErrorHandling } from './plugins/errors.js';
import { registerAuth } from './plugins/auth.js';
import { registerIdempotency } from './plugins/idempotency.js';
import { registerJsonBodyParser } from './plugins/json-body.js';
import { registerTextInputGuard } from './plugins/text-input.js';
import { registerMetrics } from './plugins/metrics.js';
import { answerClientError, answerFrameworkError } from './plugins/errors.js';
import { ErrorBody } from './schemas.js';
import { ErrorCode, ServiceError } from '../domain/errors.js';
import { validatorCompiler } from './validation.js';
import { openApiDescription } from './openapi-description.js';
import healthRoutes from './routes/health.js';
import userRoutes from './routes/users.js';
import planAndFlagRoutes from './routes/plans-flags.js';
import adminRoutes from './routes/admin.js';
import callRoutes from './routes/calls.js';
import uploadRoutes from './routes/upload.js';
import actionItemRoutes from './routes/action-items.js';
import contactRoutes from './routes/contacts.js';
import analyticsRoutes from './routes/analytics.js';
import analysisRoutes from './routes/analysis.js';
import voiceProfileRoutes from './routes/voice-profile.js';
import webhookRoutes from './routes/webhooks.js';
import speakerRoutes from './routes/speakers.js';
import searchRoutes from './routes/search.js';
import mediaRoutes from './routes/media.js';
import { registerConsole } from './console.js';
import { MediaSessions } from '../domain/media-session.js';

const MULTIPART_BODIES: Record<string, object> = {
  '/api/calls/analyze': Type.Object({
    file: Type.String({ format: 'binary', description: 'The recording: m4a, mp3, wav, aac or ogg (content is sniffed).' }),
    metadata: Type.Optional(
      Type.Object(
        {
          title: Type.Optional(Type.String()),
          contactName: Type.Optional(Type.String()),
          contactId: Type.Optional(Type.String()),
          phoneNumber: Type.Optional(Type.String()),
          organization: Type.Optional(Type.String()),
          direction: Type.Optional(Type.Union([Type.Literal('INCOMING'), Type.Literal('OUTGOING')])),
          recordedAt: Type.Optional(Type.String({ format: 'date-time' })),
          durationSeconds: Type.Optional(Type.Integer({ minimum: 0 })),
        },
        { description: 'The metadata envelope, a JSON part (sent as a field or as an application/json file part).' },
      ),
    ),
    title: Type.Optional(Type.String({ description: 'Convenience for clients that send no envelope.' })),
  }, { required: ['file'] }),
  '/api/users/me/voice-profile': Type.Object({ file: Type.String({ format: 'binary', description: 'The voice sample: wav, mp3 or m4a.' }) }),
};

/** Request headers and fields that must never reach the logs. */
const REDACT = ['req.headers.authorization', 'req.headers["x-service-api-key"]', 'req.headers.cookie'];

/**
 * Fastify's request log line without the query string: queries carry personal data (search terms
 * of GET /api/calls/search, the admin user search by email).
 */
function requestForLog(req: { method?: string; url?: string; host?: string; ip?: string; socket?: { remotePort?: number } }) {
  return { method: req.method, url: req.url?.split('?')[0], host: req.host, remoteAddress: req.ip, remotePort: req.socket?.remotePort };
}

export async function buildServer(ctx: AppContext): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: ctx.log.child({ component: 'http' }, { redact: REDACT, serializers: { req: requestForLog } }),
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.-]{1,64}$/.test(given) ? given : crypto.randomUUID();
    },
    requestIdHeader: false,
    bodyLimit: 1024 * 1024,
    // A socket silent both ways this long is closed; it is longer than the upload idle limit, so an
    // idle upload is answered 408 by its handler first (src/http/upload-body-guard.ts).
    connectionTimeout: Math.max(ctx.config.httpIdleTimeoutSeconds, ctx.config.uploads.idleTimeoutSeconds + 30) * 1000,
    // Node's limit on receiving a whole request (checked every 30 s): a backstop behind the upload
    // handler's own total limit, which answers first.
    requestTimeout: (ctx.config.uploads.timeoutSeconds + 60) * 1000,
    trustProxy: true,
    // Path parameters up to 1024 characters reach authentication and validation like any other
    // malformed id (400 validation_failed); a longer one is 414 uri_too_long with the error body.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 1024 },
    // Errors raised before routing (a path that is not valid percent-encoding, an over-long
    // parameter) and at the socket (unparsable request, headers too large) answer the error body too.
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
    // The pino instance's type differs from Fastify's base logger type only nominally.
  }) as unknown as FastifyInstance;

  // Global hooks on the request path are callback-style: an async hook costs a promise and a
  // microtask on every request, which shows at polling rates (bench/http.ts).
  app.addHook('onSend', (req, reply, payload, done) => {
    reply.header('x-request-id', req.id);
    done(null, payload);
  });

  app.setValidatorCompiler(validatorCompiler);
  registerErrorHandling(app);
  app.addSchema(ErrorBody);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Call Analysis Service', version: '1.0.0', description: openApiDescription(ctx.config) },
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Identity-provider ID token (RS256).' },
          apiKey: { type: 'apiKey', in: 'header', name: 'X-Service-Api-Key', description: 'Required on every /api/** route except /api/health when SERVICE_API_KEY is set.' },
        },
      },
      security: [{ bearerAuth: [] }],
    },
    // Multipart bodies are streamed by the handlers, not validated by a schema; describe them here.
    transform: ({ schema, url }) => {
      const parts = MULTIPART_BODIES[url];
      return { schema: parts ? ({ ...schema, body: parts } as typeof schema) : schema, url };
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
  });

  await app.register(multipart, {
    limits: { fileSize: ctx.config.limits.maxFileSize, files: 3, fields: 10, fieldSize: 64 * 1024, parts: 12, headerPairs: 100 },
  });

  registerJsonBodyParser(app);
  const mediaSessions = new MediaSessions(ctx.database.requestDb);
  registerAuth(app, ctx, mediaSessions);
  // An unknown route answers 404 right after authentication, before its body is parsed, so a
  // malformed body or content type gets the same answer as any other request to it. Admin routes
  // answer non-admins from the same point (see routes/admin.ts), which keeps them indistinguishable.
  app.addHook('onRequest', (req, _reply, done) => {
    done(req.is404 ? new ServiceError(ErrorCode.NotFound) : undefined);
  });
  registerTextInputGuard(app);
  registerIdempotency(app, ctx);
  registerMetrics(app, ctx);

  const routes = [healthRoutes, userRoutes, planAndFlagRoutes, callRoutes, uploadRoutes, actionItemRoutes, contactRoutes, analyticsRoutes, analysisRoutes, voiceProfileRoutes, webhookRoutes, speakerRoutes, searchRoutes];
  for (const r of routes) await app.register(async (scope) => r(scope, ctx));
  await app.register(async (scope) => mediaRoutes(scope, { ...ctx, mediaSessions }));
  await app.register(async (scope) => adminRoutes(scope, ctx));

  if (ctx.config.consoleEnabled) await registerConsole(app, ctx);

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  const { default: apiReference } = await import('@scalar/fastify-api-reference');
  await app.register(apiReference, { routePrefix: '/docs', configuration: { url: '/openapi.json', title: 'Call Analysis Service' } } as never);

  return app;
}

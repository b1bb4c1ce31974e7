// Webhook endpoints of the caller and their delivery log.
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { ErrorCode, errors } from '../../domain/errors.js';
import { DateTime, Nullable, Uuid, errorResponses, LiteralUnion } from '../schemas.js';
import {
  WEBHOOK_EVENTS,
  createEndpoint,
  decodeDeliveryCursor,
  deleteEndpoint,
  endpointView,
  findEndpoint,
  listDeliveries,
  listEndpoints,
} from '../../domain/webhooks.js';

const tags = ['Webhooks'];
const Params = Type.Object({ id: Uuid });
const EventName = LiteralUnion(WEBHOOK_EVENTS);

const EndpointSchema = Type.Object({
  id: Uuid,
  url: Type.String(),
  events: Type.Array(EventName),
  description: Nullable(Type.String()),
  createdAt: DateTime,
});

const CreatedEndpointSchema = Type.Object({
  ...EndpointSchema.properties,
  secret: Type.String({ description: 'whsec_<base64>: the signing secret, shown only in this response.' }),
});

const AttemptSchema = Type.Object({
  at: DateTime,
  statusCode: Nullable(Type.Integer({ description: 'HTTP status of the receiver; null when no response arrived.' })),
  error: Nullable(Type.String({ description: 'null on success; otherwise http_<status>, timeout, network_error or blocked_address.' })),
  durationMs: Type.Integer(),
});

const DeliverySchema = Type.Object({
  id: Uuid,
  event: EventName,
  callId: Nullable(Uuid),
  status: Type.Union([Type.Literal('PENDING'), Type.Literal('SUCCEEDED'), Type.Literal('FAILED')]),
  attempts: Type.Array(AttemptSchema),
  createdAt: DateTime,
  updatedAt: DateTime,
  deliveredAt: Nullable(DateTime),
});

const SIGNING = `Each delivery is a POST with a JSON body \`{type, timestamp, data: {callId, status, errorReason, links: {call, transcript?, analysis?}}}\` (links are paths on this service) and the Standard Webhooks headers: \`webhook-id\` (the delivery id, unchanged on retries: use it to de-duplicate), \`webhook-timestamp\` (Unix seconds of the attempt) and \`webhook-signature\` = \`v1,\` + base64(HMAC-SHA256(key, "<webhook-id>.<webhook-timestamp>.<body>")), where key is the base64-decoded part of the secret after \`whsec_\`. Any Standard Webhooks library verifies it.`;

function withoutSecret(body: unknown): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return body;
  const { secret: _secret, ...rest } = body as Record<string, unknown>;
  return rest;
}

function isCreatedEndpoint(body: unknown): body is { id: string } {
  return !!body && typeof body === 'object' && typeof (body as { id?: unknown }).id === 'string' && 'url' in body;
}

export default async function webhookRoutes(scope: FastifyInstance, ctx: AppContext) {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const db = ctx.database.requestDb;
  const rules = { allowPrivateNetworks: ctx.config.webhooks.allowPrivateNetworks, maxEndpointsPerUser: ctx.config.webhooks.maxEndpointsPerUser };

  app.post(
    '/api/webhooks',
    {
      schema: {
        tags,
        summary: 'Register a webhook endpoint for call.completed and/or call.failed',
        description: `The URL must be https; plain http only to a loopback host in development. Outside development, URLs to private, loopback or link-local addresses are refused (and names are resolved and every address checked again at each delivery). The response carries the signing secret, which is never shown again (except to a retry with the same \`Idempotency-Key\` within 24 h: the stored response is kept without the secret, which a replay reads back from the endpoint; a replay after the endpoint was deleted answers 404 webhook_not_found). At most ${rules.maxEndpointsPerUser} endpoints per user (422 webhook_limit_reached). ${SIGNING}`,
        body: Type.Object(
          {
            url: Type.String({ minLength: 1, maxLength: 2048 }),
            events: Type.Array(EventName, { minItems: 1, maxItems: WEBHOOK_EVENTS.length, uniqueItems: true }),
            description: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
          },
          { additionalProperties: false },
        ),
        response: { 201: CreatedEndpointSchema, ...errorResponses(400, 401, 404, 422) },
      },
      config: {
        // The idempotency record keeps the response without the secret; a replay reads it from the endpoint's row.
        idempotentResponse: {
          store: (body) => withoutSecret(body),
          replay: async (userId, stored) => {
            if (!isCreatedEndpoint(stored)) return stored;
            const endpoint = await findEndpoint(db, userId, stored.id);
            if (!endpoint) throw errors.of(ErrorCode.WebhookNotFound);
            return { ...stored, secret: endpoint.secret };
          },
        },
      },
    },
    async (req, reply) => {
      const body = req.body;
      const created = await createEndpoint(db, req.user.id, body, rules);
      return reply.code(201).send(created);
    },
  );

  app.get(
    '/api/webhooks',
    {
      schema: {
        tags,
        summary: 'The caller\'s webhook endpoints, oldest first (secrets are not returned)',
        description: 'All endpoints in one page (their number is small and bounded), so nextCursor never appears.',
        response: { 200: Type.Object({ items: Type.Array(EndpointSchema), nextCursor: Type.Optional(Type.String()) }), ...errorResponses(401) },
      },
    },
    async (req) => ({ items: await listEndpoints(db, req.user.id) }),
  );

  app.get(
    '/api/webhooks/:id',
    {
      schema: { tags, summary: 'One webhook endpoint', params: Params, response: { 200: EndpointSchema, ...errorResponses(400, 401, 404) } },
    },
    async (req) => {
      const e = await findEndpoint(db, req.user.id, req.params.id);
      if (!e) throw errors.of(ErrorCode.WebhookNotFound);
      return endpointView(e);
    },
  );

  app.delete(
    '/api/webhooks/:id',
    {
      schema: {
        tags,
        summary: 'Delete a webhook endpoint',
        description: 'Deletes the endpoint and its delivery log; deliveries not yet sent (including pending retries) are never sent. 204.',
        params: Params,
        response: { 204: Type.Null(), ...errorResponses(400, 401, 404) },
      },
    },
    async (req, reply) => {
      if (!(await deleteEndpoint(db, req.user.id, req.params.id))) throw errors.of(ErrorCode.WebhookNotFound);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/api/webhooks/:id/deliveries',
    {
      schema: {
        tags,
        summary: 'The delivery log of an endpoint, newest first',
        description: `Every delivery with its status (PENDING while attempts remain, SUCCEEDED, FAILED after the last retry) and each attempt's time, HTTP status and error. Failed attempts are retried with exponential backoff (${ctx.config.webhooks.retryLimit} retries, the first after about ${ctx.config.webhooks.retryDelaySeconds} s). Response bodies of the receiver are not stored.`,
        params: Params,
        querystring: Type.Object({
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
          cursor: Type.Optional(Type.String({ maxLength: 200 })),
        }),
        response: { 200: Type.Object({ items: Type.Array(DeliverySchema), nextCursor: Type.Optional(Type.String()) }), ...errorResponses(400, 401, 404) },
      },
    },
    async (req) => {
      const id = req.params.id;
      const q = req.query;
      if (!(await findEndpoint(db, req.user.id, id))) throw errors.of(ErrorCode.WebhookNotFound);
      const cursor = q.cursor ? decodeDeliveryCursor(q.cursor) : null;
      if (q.cursor && !cursor) throw errors.validation({ fields: [{ path: '/querystring/cursor', message: 'is not a cursor of this list' }] });
      return listDeliveries(db, req.user.id, id, { limit: q.limit ?? 50, cursor });
    },
  );
}

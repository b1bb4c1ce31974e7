// Idempotency-Key support for every mutating /api/** request.
//
// The first request with a key claims it (state IN_PROGRESS); its response is stored per user and
// key for 24 hours and replayed on a retry (header `Idempotent-Replayed: true`). A retry while the
// first is still running answers 409; the same key with a different request (method, path or JSON
// body) answers 422. Responses that describe a passing condition are not stored, so a retry can
// succeed later: 5xx, 409 and 429 release the key. A claim left by a process that died is taken
// over after CLAIM_STALE_SECONDS.
//
// Uploads are multipart streams whose bytes are not hashed; for them the key identifies the upload
// (the call row also records the key, so even a crash between commit and reply yields one call).
//
// A route whose response carries a secret (POST /api/webhooks: the signing secret) declares
// `config.idempotentResponse`: the record keeps the body with the secret removed, and a replay
// puts it back from where it lives (the webhook row), so the idempotency table never holds a
// secret in clear.
import crypto from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { ErrorCode, ServiceError } from '../../domain/errors.js';
import { claimKey, completeKey, releaseKey } from '../../store/repos/idempotency-keys.js';

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const RETENTION_HOURS = 24;
const CLAIM_STALE_SECONDS = 600;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** How a route's response is kept in the idempotency record and rebuilt on replay. */
export interface IdempotentResponse {
  /** The body as stored: without anything that must not rest in the idempotency table. */
  store(body: unknown, status: number): unknown;
  /** The stored body as a replay answers it; may throw a ServiceError (answered instead). */
  replay(userId: string, stored: unknown, status: number): Promise<unknown>;
}

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyKey?: string;
    idempotencyClaimed?: boolean;
  }
  interface FastifyContextConfig {
    /** The route's response holds a secret: see IdempotentResponse. */
    idempotentResponse?: IdempotentResponse;
  }
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

function requestHash(req: FastifyRequest): string {
  const path = req.url.split('?')[0];
  const isJson = typeof req.body === 'object' && req.body !== null && !req.isMultipart();
  const body = isJson ? canonical(req.body) : '';
  return crypto.createHash('sha256').update(`${req.method}\n${path}\n${req.url.split('?')[1] ?? ''}\n${body}`).digest('hex');
}

// Expired records are removed by the maintenance sweep (sweepIdempotencyKeys, src/store/repos/idempotency-keys.ts).

export function registerIdempotency(app: FastifyInstance, ctx: AppContext): void {
  const db = ctx.database.requestDb;

  // preValidation (not preHandler): a request that fails schema validation is answered and stored
  // like one that fails in its handler, so every 4xx of a key is replayed the same way.
  const preValidation = async (req: FastifyRequest, reply: FastifyReply) => {
    if (!MUTATING.has(req.method) || !req.user) return;
    const header = req.headers['idempotency-key'];
    if (header === undefined) return;
    const key = Array.isArray(header) ? header[0] : header;
    if (!KEY_PATTERN.test(key)) throw new ServiceError(ErrorCode.ValidationFailed, { fields: [{ path: '/headers/idempotency-key', message: 'must be 1 to 255 visible ASCII characters' }] });
    const hash = requestHash(req);
    const result = await claimKey(db, req.user.id, key, hash, CLAIM_STALE_SECONDS);
    if (result.claimed) {
      req.idempotencyKey = key;
      req.idempotencyClaimed = true;
      return;
    }
    const existing = result.existing;
    if (!existing) throw new ServiceError(ErrorCode.IdempotencyInProgress);
    if (existing.requestHash !== hash) throw new ServiceError(ErrorCode.IdempotencyKeyReused);
    if (existing.state === 'IN_PROGRESS') throw new ServiceError(ErrorCode.IdempotencyInProgress);
    const shaped = req.routeOptions.config.idempotentResponse;
    const stored = existing.responseBody;
    const body = shaped && stored !== null && stored !== undefined ? await shaped.replay(req.user.id, stored, existing.responseStatus ?? 200) : stored;
    reply.header('idempotent-replayed', 'true');
    if (body === null || body === undefined) return reply.status(existing.responseStatus ?? 204).send();
    return reply.status(existing.responseStatus ?? 200).type('application/json; charset=utf-8').send(JSON.stringify(body));
  };

  const onSend = async (req: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    if (!req.idempotencyClaimed || !req.idempotencyKey) return payload;
    req.idempotencyClaimed = false;
    const status = reply.statusCode;
    const release = status >= 500 || status === 409 || status === 429;
    try {
      if (release) {
        await releaseKey(db, req.user.id, req.idempotencyKey);
      } else {
        let body: unknown = null;
        if (typeof payload === 'string' && payload.length > 0) {
          try {
            body = JSON.parse(payload);
          } catch {
            body = null;
          }
        }
        const shaped = req.routeOptions.config.idempotentResponse;
        if (shaped && body !== null) body = shaped.store(body, status);
        await completeKey(db, req.user.id, req.idempotencyKey, status, body, RETENTION_HOURS);
      }
    } catch (err) {
      req.log.warn({ err: (err as Error).message }, 'idempotency record not updated');
    }
    return payload;
  };

  // A request that ended without a response (client gone, crash in a stream) releases its claim.
  const onResponse = async (req: FastifyRequest) => {
    if (!req.idempotencyClaimed || !req.idempotencyKey) return;
    await releaseKey(db, req.user.id, req.idempotencyKey, { onlyInProgress: true }).catch(() => undefined);
  };

  // The hooks go on the routes of mutating methods only (as route-level hooks, which run after the
  // global ones of the same kind, where these ran before): a GET never carries a key, and three
  // idle async hooks on every poll cost a promise each (bench/http.ts).
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!methods.some((m) => MUTATING.has(m))) return;
    route.preValidation = [...asArray(route.preValidation), preValidation] as typeof route.preValidation;
    route.onSend = [...asArray(route.onSend), onSend] as typeof route.onSend;
    route.onResponse = [...asArray(route.onResponse), onResponse] as typeof route.onResponse;
  });
}

function asArray<T>(hooks: T | T[] | undefined): T[] {
  return hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks];
}

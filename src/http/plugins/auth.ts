// Authentication of every /api/** request except /api/health: the optional service API key
// (constant-time comparison), then the caller's identity from the ID token, or the fixed local
// user when no identity provider is configured (development shortcut).
import crypto from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ErrorCode, ServiceError } from '../../domain/errors.js';
import { IdentityError } from '../identity.js';
import { findOrCreateUser } from '../../store/repos/users.js';
import { userCacheOf } from '../user-cache.js';
import type { AppContext } from '../../context.js';

const PUBLIC_PATHS = new Set(['/api/health']);

function sameSecret(given: string, expected: string): boolean {
  // Hashing first gives equal-length buffers, so the comparison time does not depend on the input.
  const a = crypto.createHash('sha256').update(given).digest();
  const b = crypto.createHash('sha256').update(expected).digest();
  return crypto.timingSafeEqual(a, b);
}

export function isAdminEmail(ctx: AppContext, email: string | null): boolean {
  return !!email && ctx.config.adminEmails.includes(email.toLowerCase());
}

export function registerAuth(app: FastifyInstance, ctx: AppContext): void {
  app.decorateRequest('user', null as never);
  const cache = userCacheOf(ctx);

  app.addHook('onRequest', async (request: FastifyRequest) => {
    // Decide on the route the router matched, not on the raw URL: the router percent-decodes and
    // ignores a trailing slash, so `/%61pi/users/me` reaches /api/users/me and `/api/health/`
    // reaches /api/health. Unknown routes fall back to the raw path.
    const path = request.routeOptions.url ?? request.url.split('?')[0];
    if (!path.startsWith('/api/') || PUBLIC_PATHS.has(path)) return;

    if (ctx.config.apiKey) {
      const given = request.headers['x-service-api-key'];
      if (typeof given !== 'string' || !sameSecret(given, ctx.config.apiKey)) throw new ServiceError(ErrorCode.ApiKeyInvalid);
    }

    let claims;
    if (!ctx.identity) {
      const { email, name, externalId } = ctx.config.localUser;
      claims = { externalUserId: externalId, email, name, picture: null };
    } else {
      const header = request.headers.authorization;
      if (!header) throw new ServiceError(ErrorCode.AuthMissing);
      const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
      if (!match) throw new ServiceError(ErrorCode.AuthInvalid);
      try {
        claims = await ctx.identity.verify(match[1]);
      } catch (err) {
        if (err instanceof IdentityError && err.kind === 'disabled') throw new ServiceError(ErrorCode.AuthDisabled);
        throw new ServiceError(ErrorCode.AuthInvalid);
      }
    }
    let row = request.routeOptions.config.cachedUser ? cache.get(claims.externalUserId) : undefined;
    if (!row) {
      row = await findOrCreateUser(ctx.database.db, claims);
      cache.put(row);
    }
    // An email the provider says is unverified never grants admin access.
    const isAdmin = claims.emailVerified !== false && isAdminEmail(ctx, row.email);
    request.user = { id: row.id, externalUserId: row.externalUserId, email: row.email, isAdmin, row };
  });
}

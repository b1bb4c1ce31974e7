// Authentication of every /api/** request except /api/health: the optional service API key
// (constant-time comparison), then the caller's identity from the ID token, or the fixed local
// user when no identity provider is configured (development shortcut).
import crypto from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ErrorCode, ServiceError } from '../../domain/errors.js';
import { IdentityError } from '../identity.js';
import { findOrCreateUser, type IdentityClaims } from '../../store/repos/users.js';
import type { User } from '../../store/schema.js';
import { userCacheOf } from '../user-cache.js';
import type { AppContext } from '../../context.js';
import { getUser } from '../../store/repos/users.js';
import { mediaTokenOf, type MediaSessions } from '../../domain/media-session.js';
import { localShortcutAllowed } from '../local-shortcut.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A read route that also accepts the media session cookie (src/domain/media-session.ts). */
    mediaSession?: boolean;
  }
}

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

export function registerAuth(app: FastifyInstance, ctx: AppContext, mediaSessions?: MediaSessions): void {
  app.decorateRequest('user', null as never);
  const cache = userCacheOf(ctx);

  // Clients poll status and lists every few seconds with the same token: when the verified token
  // and the user row are both cached, authentication finishes synchronously (no promise, no
  // microtask), which is most requests at polling rates. Otherwise it awaits the verifier and the
  // user lookup. The hook is callback-style so the synchronous path stays synchronous.
  const attach = (request: FastifyRequest, claims: IdentityClaims, row: User) => {
    // Admin needs an email the provider vouches for: a token that says the email is unverified,
    // or says nothing about it (providers that let a user type any address), never grants it.
    // The address is the token's own: email_verified speaks of it, not of the one the account row
    // kept from an earlier token (a token without an email leaves the row's address in place).
    const isAdmin = claims.emailVerified === true && isAdminEmail(ctx, claims.email);
    request.user = { id: row.id, externalUserId: row.externalUserId, email: row.email, isAdmin, row };
  };
  const withUser = async (request: FastifyRequest, claims: IdentityClaims) => {
    const row = await findOrCreateUser(ctx.database.requestDb, claims);
    cache.put(row);
    attach(request, claims, row);
  };
  const verifyThenAttach = async (request: FastifyRequest, token: string) => {
    let claims: IdentityClaims;
    try {
      claims = await ctx.identity!.verify(token);
    } catch (err) {
      if (err instanceof IdentityError && err.kind === 'disabled') throw new ServiceError(ErrorCode.AuthDisabled);
      throw new ServiceError(ErrorCode.AuthInvalid);
    }
    const row = request.routeOptions.config.cachedUser ? cache.get(claims.externalUserId) : undefined;
    if (row) attach(request, claims, row);
    else await withUser(request, claims);
  };

  // A media element's request: no Authorization header, the cookie the page obtained with one.
  // It stands for the bearer token and the API key alike, on the routes that accept it only.
  const attachMediaSession = async (request: FastifyRequest, token: string) => {
    const session = await mediaSessions!.verify(token);
    const row = session ? await getUser(ctx.database.requestDb, session.userId) : undefined;
    // A cookie of an ended session (DELETE /api/session since it was issued) is refused.
    if (!row || row.mediaSessionGeneration !== session!.generation) throw new ServiceError(ErrorCode.AuthInvalid);
    request.user = { id: row.id, externalUserId: row.externalUserId, email: row.email, isAdmin: false, row };
  };

  /** Undefined when the request was authenticated synchronously; a promise otherwise. */
  const authenticate = (request: FastifyRequest): Promise<void> | undefined => {
    // Decide on the route the router matched, not on the raw URL: the router percent-decodes and
    // ignores a trailing slash, so `/%61pi/users/me` reaches /api/users/me and `/api/health/`
    // reaches /api/health. Unknown routes fall back to the raw path.
    // routeOptions is a getter that builds a fresh object: read it once.
    const route = request.routeOptions;
    const path = route.url ?? request.url.split('?')[0];
    if (!path.startsWith('/api/') || PUBLIC_PATHS.has(path)) return undefined;

    if (mediaSessions && route.config.mediaSession && (request.method === 'GET' || request.method === 'HEAD') && !request.headers.authorization && request.headers.cookie) {
      const token = mediaTokenOf(request.headers.cookie);
      if (token) return attachMediaSession(request, token);
    }

    if (ctx.config.apiKey) {
      const given = request.headers['x-service-api-key'];
      if (typeof given !== 'string' || !sameSecret(given, ctx.config.apiKey)) throw new ServiceError(ErrorCode.ApiKeyInvalid);
    }

    let claims: IdentityClaims | undefined;
    if (!ctx.identity) {
      // Without an API key the local user needs no credential: another site's page in the
      // developer's browser must not get it (src/http/local-shortcut.ts).
      if (!ctx.config.apiKey && !localShortcutAllowed(request.headers)) throw new ServiceError(ErrorCode.AuthMissing);
      const { email, name, externalId } = ctx.config.localUser;
      // The local user's email is the operator's own configuration, so it counts as verified.
      claims = { externalUserId: externalId, email, name, picture: null, emailVerified: true };
    } else {
      const header = request.headers.authorization;
      if (!header) throw new ServiceError(ErrorCode.AuthMissing);
      const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
      if (!match) throw new ServiceError(ErrorCode.AuthInvalid);
      claims = ctx.identity.verifiedClaims?.(match[1]);
      if (!claims) return verifyThenAttach(request, match[1]);
    }
    const row = route.config.cachedUser ? cache.get(claims.externalUserId) : undefined;
    if (!row) return withUser(request, claims);
    attach(request, claims, row);
    return undefined;
  };

  app.addHook('onRequest', (request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void) => {
    let pending: Promise<void> | undefined;
    try {
      pending = authenticate(request);
    } catch (err) {
      done(err as Error);
      return;
    }
    if (pending) pending.then(() => done(), done);
    else done();
  });
}

// Verification of identity-provider ID tokens. Two implementations behind one interface:
//  - JwksIdentityVerifier: jose against the provider's public key set (RS256 only, audience,
//    issuer, expiry with a small tolerance, non-empty subject). The key set is cached and refetched
//    when a token names an unknown `kid`.
//  - AdminSdkIdentityVerifier: the provider's admin SDK (firebase-admin), loaded only when
//    service-account credentials are configured; it honours revocation and disabled users.
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify, errors as joseErrors, type JWTPayload } from 'jose';
import type { Config } from '../config.js';
import type { IdentityClaims } from '../store/repos/users.js';

export class IdentityError extends Error {
  constructor(readonly kind: 'invalid' | 'disabled') {
    super(kind === 'disabled' ? 'identity disabled' : 'identity token invalid');
    this.name = 'IdentityError';
  }
}

export interface IdentityVerifier {
  verify(token: string): Promise<IdentityClaims>;
  /** The claims of a token that verified recently and is still accepted, without waiting; undefined otherwise (then call verify). */
  verifiedClaims?(token: string): IdentityClaims | undefined;
  /** Best-effort removal of the user at the provider on account deletion. */
  deleteUser?(externalUserId: string): Promise<void>;
}

function claimsOf(payload: JWTPayload): IdentityClaims {
  const sub = typeof payload.sub === 'string' && payload.sub ? payload.sub : typeof payload.user_id === 'string' ? payload.user_id : '';
  if (!sub) throw new IdentityError('invalid');
  const str = (v: unknown) => (typeof v === 'string' && v.trim() ? v : null);
  const verified = typeof payload.email_verified === 'boolean' ? payload.email_verified : null;
  return { externalUserId: sub, email: str(payload.email), name: str(payload.name), picture: str(payload.picture), emailVerified: verified };
}

/** How long a token that verified is accepted again without a new signature check (never past its expiry). */
const VERIFIED_TOKEN_TTL_MS = 60_000;
const VERIFIED_TOKEN_MAX = 10_000;

export class JwksIdentityVerifier implements IdentityVerifier {
  private readonly jwks: ReturnType<typeof createRemoteJWKSet>;
  // Clients poll with the same token every few seconds, and an RS256 check through WebCrypto was
  // most of a status poll's CPU (bench/http.ts). A token that verified stays valid until it
  // expires, so its claims are kept for a minute at most, and only while its key is still in the
  // key set last fetched (a retired key's tokens are refused as soon as the set is refetched).
  private readonly verified = new Map<string, { claims: IdentityClaims; until: number; kid: string | undefined }>();

  constructor(
    private readonly opts: {
      jwksUrl: string;
      audience: string;
      issuer: string;
      clockToleranceSeconds: number;
      /** The clock in ms (default Date.now): tests inject one to cross a token's expiry without waiting for it. */
      now?: () => number;
    },
  ) {
    // jose caches the key set and refetches (rate-limited by the cooldown) on an unknown kid.
    this.jwks = createRemoteJWKSet(new URL(opts.jwksUrl), { cooldownDuration: 30_000, cacheMaxAge: 6 * 3600_000, timeoutDuration: 5000 });
  }

  verifiedClaims(token: string): IdentityClaims | undefined {
    const hit = this.verified.get(token);
    if (!hit) return undefined;
    if (hit.until > this.now() && this.jwks.jwks()?.keys.some((k) => k.kid === hit.kid)) return hit.claims;
    this.verified.delete(token);
    return undefined;
  }

  private now(): number {
    return this.opts.now?.() ?? Date.now();
  }

  async verify(token: string): Promise<IdentityClaims> {
    const cached = this.verifiedClaims(token);
    if (cached) return cached;
    try {
      const { payload } = await jwtVerify(token, this.jwks, {
        algorithms: ['RS256'],
        audience: this.opts.audience,
        issuer: this.opts.issuer,
        clockTolerance: this.opts.clockToleranceSeconds,
        requiredClaims: ['exp', 'iat'],
        currentDate: new Date(this.now()),
      });
      if (typeof payload.iat === 'number' && payload.iat > this.now() / 1000 + this.opts.clockToleranceSeconds) throw new IdentityError('invalid');
      const claims = claimsOf(payload);
      const until = Math.min(this.now() + VERIFIED_TOKEN_TTL_MS, ((payload.exp as number) + this.opts.clockToleranceSeconds) * 1000);
      // Maps iterate in insertion order: the first key is the oldest entry.
      if (this.verified.size >= VERIFIED_TOKEN_MAX) this.verified.delete(this.verified.keys().next().value!);
      this.verified.set(token, { claims, until, kid: decodeProtectedHeader(token).kid });
      return claims;
    } catch (err) {
      if (err instanceof IdentityError) throw err;
      if (err instanceof joseErrors.JOSEError || err instanceof TypeError) throw new IdentityError('invalid');
      throw new IdentityError('invalid');
    }
  }
}

/** Minimal view of the firebase-admin auth API that we use. */
interface AdminAuth {
  verifyIdToken(token: string, checkRevoked?: boolean): Promise<Record<string, unknown>>;
  deleteUser(uid: string): Promise<void>;
}

export class AdminSdkIdentityVerifier implements IdentityVerifier {
  private auth: Promise<AdminAuth> | null = null;

  constructor(private readonly opts: { projectId: string; clientEmail: string; privateKey: string }) {}

  private load(): Promise<AdminAuth> {
    this.auth ??= (async () => {
      const app = await import('firebase-admin/app');
      const { getAuth } = await import('firebase-admin/auth');
      const name = `call-analysis-${this.opts.projectId}`;
      const existing = app.getApps().find((a) => a.name === name);
      const instance =
        existing ??
        app.initializeApp(
          { credential: app.cert({ projectId: this.opts.projectId, clientEmail: this.opts.clientEmail, privateKey: this.opts.privateKey }), projectId: this.opts.projectId },
          name,
        );
      return getAuth(instance) as unknown as AdminAuth;
    })();
    return this.auth;
  }

  async verify(token: string): Promise<IdentityClaims> {
    const auth = await this.load();
    try {
      const decoded = await auth.verifyIdToken(token, true);
      return claimsOf({ ...decoded, sub: (decoded.uid as string) ?? (decoded.sub as string) } as JWTPayload);
    } catch (err) {
      const code = (err as { code?: string }).code ?? '';
      if (code === 'auth/user-disabled') throw new IdentityError('disabled');
      throw new IdentityError('invalid');
    }
  }

  async deleteUser(externalUserId: string): Promise<void> {
    const auth = await this.load();
    await auth.deleteUser(externalUserId);
  }
}

/** The verifier the configuration asks for; null means the local development shortcut. */
export function createIdentityVerifier(config: Config): IdentityVerifier | null {
  const { projectId, issuer, jwksUrl, clientEmail, privateKey, clockToleranceSeconds } = config.auth;
  if (!projectId) return null;
  if (clientEmail && privateKey) return new AdminSdkIdentityVerifier({ projectId, clientEmail, privateKey });
  return new JwksIdentityVerifier({ jwksUrl, audience: projectId, issuer: issuer!, clockToleranceSeconds });
}

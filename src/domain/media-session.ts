// The browser's session for media: an <audio> element, a waveform fetch made by a library or a
// download link cannot send an Authorization header, so a page that is signed in (bearer token, or
// the operator's API key) exchanges it for a short-lived cookie that the service signs itself. The
// cookie is accepted only by read routes that ask for it (the call's audio, waveform and transcript
// export); every write still needs the header, so writes need no CSRF defence. The signing key is
// shared by every process through the database (service_secrets).
import { jwtVerify, SignJWT } from 'jose';
import type { Db } from '../store/database.js';
import { sharedSecret } from '../store/repos/service-secrets.js';

export const MEDIA_COOKIE = 'cas_media';
export const MEDIA_SESSION_SECONDS = 15 * 60;
const AUDIENCE = 'call-analysis-service/media';
const ISSUER = 'call-analysis-service';

/** The Set-Cookie value that stores (or, with an empty token, clears) the session. */
export function mediaCookieHeader(token: string, secure: boolean): string {
  const maxAge = token ? MEDIA_SESSION_SECONDS : 0;
  return `${MEDIA_COOKIE}=${token}; Max-Age=${maxAge}; Path=/api; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

/** The session token in a Cookie request header, if any. Tokens are base64url JWTs: no decoding. */
export function mediaTokenOf(cookieHeader: string): string | undefined {
  for (const part of cookieHeader.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === MEDIA_COOKIE) return part.slice(eq + 1).trim() || undefined;
  }
  return undefined;
}

export class MediaSessions {
  private key: Promise<Uint8Array> | undefined;

  constructor(private readonly db: Db) {}

  private signingKey(): Promise<Uint8Array> {
    this.key ??= sharedSecret(this.db, 'media-session').then((b) => new Uint8Array(b));
    // A failed lookup (database outage) is not kept: the next request tries again.
    this.key.catch(() => {
      this.key = undefined;
    });
    return this.key;
  }

  /** A signed session for the user, valid for MEDIA_SESSION_SECONDS. */
  async issue(userId: string, now = new Date()): Promise<{ token: string; expiresAt: Date }> {
    const iat = Math.floor(now.getTime() / 1000);
    const expiresAt = new Date((iat + MEDIA_SESSION_SECONDS) * 1000);
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(userId)
      .setAudience(AUDIENCE)
      .setIssuer(ISSUER)
      .setIssuedAt(iat)
      .setExpirationTime(iat + MEDIA_SESSION_SECONDS)
      .sign(await this.signingKey());
    return { token, expiresAt };
  }

  /** The user id the session was issued to, or null when it is not one of ours or has expired. */
  async verify(token: string): Promise<string | null> {
    try {
      const { payload } = await jwtVerify(token, await this.signingKey(), { algorithms: ['HS256'], audience: AUDIENCE, issuer: ISSUER });
      return typeof payload.sub === 'string' ? payload.sub : null;
    } catch {
      return null;
    }
  }
}

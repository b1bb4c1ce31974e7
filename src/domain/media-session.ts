// The browser's session for media: an <audio> element, a waveform fetch made by a library or a
// download link cannot send an Authorization header, so a page that is signed in (bearer token, or
// the operator's API key) exchanges it for a short-lived cookie that the service signs itself. The
// cookie is accepted only by read routes that ask for it (the call's audio, waveform and transcript
// export); every write still needs the header, so writes need no CSRF defence. The signing key is
// shared by every process through the database (service_secrets). Each cookie carries the user's
// media session generation (users.media_session_generation): ending the session moves the user to
// the next one, so a copy of an earlier cookie stops working at once, not when it expires.
import { jwtVerify, SignJWT } from 'jose';
import type { Db } from '../store/database.js';
import { sharedSecret } from '../store/repos/service-secrets.js';
import { endMediaSessions } from '../store/repos/users.js';

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

  /** A signed session for the user under their current generation, valid for MEDIA_SESSION_SECONDS. */
  async issue(userId: string, generation: number, now = new Date()): Promise<{ token: string; expiresAt: Date }> {
    const iat = Math.floor(now.getTime() / 1000);
    const expiresAt = new Date((iat + MEDIA_SESSION_SECONDS) * 1000);
    const token = await new SignJWT({ gen: generation })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(userId)
      .setAudience(AUDIENCE)
      .setIssuer(ISSUER)
      .setIssuedAt(iat)
      .setExpirationTime(iat + MEDIA_SESSION_SECONDS)
      .sign(await this.signingKey());
    return { token, expiresAt };
  }

  /**
   * The user id and generation the session was issued under, or null when it is not one of ours or
   * has expired. The caller compares the generation with the user's current one.
   */
  async verify(token: string): Promise<{ userId: string; generation: number } | null> {
    try {
      const { payload } = await jwtVerify(token, await this.signingKey(), { algorithms: ['HS256'], audience: AUDIENCE, issuer: ISSUER });
      if (typeof payload.sub !== 'string' || typeof payload.gen !== 'number') return null;
      return { userId: payload.sub, generation: payload.gen };
    } catch {
      return null;
    }
  }

  /** Ends every session issued to the user so far (sign out): their cookies are refused from now on. */
  async endAll(userId: string): Promise<void> {
    await endMediaSessions(this.db, userId);
  }
}

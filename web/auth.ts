// Signing in from the browser. Identity-provider mode speaks the provider's Identity Toolkit REST
// protocol (what its web SDK does underneath: password sign-in, then refresh-token exchange), so
// the page needs no SDK download and a local stand-in can answer in tests. The ID token lives in
// memory; the refresh token in localStorage, as the provider's SDK keeps it. The service API key
// (operator use) is kept in sessionStorage only: it leaves with the tab and is never in the page.
import { settings } from './settings.js';

const REFRESH_KEY = 'cas.refreshToken';
const API_KEY = 'cas.apiKey';

interface Session {
  idToken: string;
  expiresAt: number;
  email: string | null;
}

let session: Session | null = null;
const listeners = new Set<() => void>();

export function onAuthChange(fn: () => void): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}
function changed() {
  for (const fn of listeners) fn();
}

export function apiKey(): string | null {
  return sessionStorage.getItem(API_KEY);
}

export function setApiKey(key: string | null): void {
  if (key) sessionStorage.setItem(API_KEY, key);
  else sessionStorage.removeItem(API_KEY);
  changed();
}

/** Whether the page can call the API now (or after a token refresh). */
export function signedIn(): boolean {
  if (settings.apiKeyRequired && !apiKey()) return false;
  if (settings.mode !== 'identity-provider') return true;
  return !!session || !!localStorage.getItem(REFRESH_KEY);
}

export function signedInEmail(): string | null {
  return session?.email ?? null;
}

async function identityCall(url: string, body: Record<string, string>): Promise<Record<string, string>> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = await res.json().catch(() => ({}));
  if (!res.ok) {
    const code = (json as { error?: { message?: string } }).error?.message ?? `HTTP ${res.status}`;
    throw new Error(code === 'INVALID_LOGIN_CREDENTIALS' || code === 'INVALID_PASSWORD' || code === 'EMAIL_NOT_FOUND' ? 'Wrong e-mail or password.' : `Sign-in failed (${code}).`);
  }
  return json as Record<string, string>;
}

export async function signInWithPassword(email: string, password: string): Promise<void> {
  const idp = settings.identityProvider;
  if (!idp) throw new Error('No identity provider is configured for the console (IDP_WEB_API_KEY).');
  const r = await identityCall(`${idp.authUrl}/v1/accounts:signInWithPassword?key=${encodeURIComponent(idp.apiKey)}`, { email, password, returnSecureToken: 'true' });
  session = { idToken: r.idToken, expiresAt: Date.now() + Number(r.expiresIn ?? 3600) * 1000, email: r.email ?? email };
  localStorage.setItem(REFRESH_KEY, r.refreshToken);
  changed();
}

async function refresh(): Promise<void> {
  const idp = settings.identityProvider;
  const token = localStorage.getItem(REFRESH_KEY);
  if (!idp || !token) throw new Error('Not signed in.');
  const r = await identityCall(`${idp.tokenUrl}/v1/token?key=${encodeURIComponent(idp.apiKey)}`, { grant_type: 'refresh_token', refresh_token: token });
  session = { idToken: r.id_token, expiresAt: Date.now() + Number(r.expires_in ?? 3600) * 1000, email: session?.email ?? null };
  if (r.refresh_token) localStorage.setItem(REFRESH_KEY, r.refresh_token);
}

export async function signOut(): Promise<void> {
  session = null;
  localStorage.removeItem(REFRESH_KEY);
  setApiKey(null);
}

/** Headers that authenticate a request in the current mode (refreshing the ID token when due). */
export async function authHeaders(): Promise<Record<string, string>> {
  const headers: Record<string, string> = {};
  const key = apiKey();
  if (key) headers['x-service-api-key'] = key;
  if (settings.mode === 'identity-provider') {
    if (!session || session.expiresAt - Date.now() < 60_000) {
      try {
        await refresh();
      } catch {
        session = null;
        localStorage.removeItem(REFRESH_KEY);
        changed();
        throw new Error('Your session has ended: sign in again.');
      }
    }
    headers.authorization = `Bearer ${session!.idToken}`;
  }
  return headers;
}

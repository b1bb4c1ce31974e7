// The service's API from the page: JSON requests with the current authentication, the spec's error
// body turned into a readable message, uploads with progress, and the media session that lets
// <audio>, the waveform and download links through without an Authorization header.
import { authHeaders } from './auth.js';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

async function errorOf(res: Response): Promise<ApiError> {
  const body = (await res.json().catch(() => null)) as { error?: { code?: string; message?: string } } | null;
  return new ApiError(res.status, body?.error?.code ?? `http_${res.status}`, body?.error?.message ?? `The service answered ${res.status}.`);
}

export async function api<T = any>(method: string, path: string, body?: unknown): Promise<T> {
  const headers = await authHeaders();
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!res.ok) throw await errorOf(res);
  if (res.status === 204) return undefined as T;
  return (await res.json()) as T;
}

/** Multipart upload with progress (fetch cannot report upload progress; XMLHttpRequest can). */
export async function upload<T = any>(path: string, form: FormData, onProgress: (fraction: number) => void): Promise<T> {
  const headers = await authHeaders();
  return new Promise<T>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', path);
    for (const [k, v] of Object.entries(headers)) xhr.setRequestHeader(k, v);
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(e.loaded / e.total);
    };
    xhr.onload = () => {
      let body: any = null;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        /* not JSON */
      }
      if (xhr.status >= 200 && xhr.status < 300) resolve(body as T);
      else reject(new ApiError(xhr.status, body?.error?.code ?? `http_${xhr.status}`, body?.error?.message ?? `The service answered ${xhr.status}.`));
    };
    xhr.onerror = () => reject(new ApiError(0, 'network_error', 'The upload could not reach the service.'));
    xhr.send(form);
  });
}

let mediaSessionUntil = 0;
let mediaSessionPending: Promise<void> | null = null;

/** Makes sure the media session cookie is valid for a few more minutes. */
export function ensureMediaSession(): Promise<void> {
  if (Date.now() < mediaSessionUntil - 120_000) return Promise.resolve();
  mediaSessionPending ??= api<{ expiresAt: string }>('POST', '/api/session')
    .then((r) => {
      mediaSessionUntil = Date.parse(r.expiresAt);
    })
    .finally(() => {
      mediaSessionPending = null;
    });
  return mediaSessionPending;
}

export function formatClock(seconds: number): string {
  const t = Math.max(0, Math.floor(seconds));
  const h = Math.floor(t / 3600);
  const m = Math.floor((t % 3600) / 60);
  const s = t % 60;
  const pad = (n: number) => String(n).padStart(2, '0');
  return h > 0 ? `${h}:${pad(m)}:${pad(s)}` : `${m}:${pad(s)}`;
}

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '';
  return new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

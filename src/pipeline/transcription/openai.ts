// Adapter for any server speaking OpenAI's audio transcription protocol (OpenAI, Groq, speaches,
// LocalAI, ...). Only the common subset is relied on: verbose_json with word timestamps where the
// server has them, segment timestamps otherwise, plain text as a last resort.
//
// Calls are sent compressed (FLAC by default) and, when longer than one request may carry, in
// parts cut at pauses (chunks.ts) that run a few at a time, each with its own retries.
import { openAsBlob } from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { PipelineError, type Recognition, type RecognizedWord, type Transcriber, type TranscriptionInput } from '../types.js';
import { formatClock } from '../../domain/transcript.js';
import { CHUNK_FORMATS, encodeChunk, mapBounded, mergeChunkWords, planChunks, type CallChunk, type ChunkAudioFormat } from './chunks.js';

export interface OpenAiTranscriptionConfig {
  /** Server root, e.g. `https://api.openai.com` or `http://localhost:8000`; a trailing `/v1` is tolerated. */
  baseUrl: string;
  apiKey?: string;
  /** e.g. `whisper-1`, `whisper-large-v3`, `Systran/faster-whisper-small`. */
  model: string;
  timeoutMs: number;
  /** ISO-639-1 hint sent to the server; when absent the server detects the language. */
  language?: string;
  /** Label reported as the transcription provider (default `openai-compatible`). */
  providerName?: string;
  /** Encoding of the audio sent (default `flac`: lossless, about half the size of WAV). */
  audioFormat?: ChunkAudioFormat;
  /** Largest file per request in bytes (default 24 000 000, under the 25 MB of OpenAI and Groq). */
  maxRequestBytes?: number;
  /** Longest audio per request in seconds (default 600); longer calls go in parts. */
  maxChunkSeconds?: number;
  /** Audio of the neighbouring part sent on each side of a cut, in seconds (default 1). */
  chunkOverlapSeconds?: number;
  /** Parts in flight at once (default 3). */
  concurrency?: number;
  /** Further attempts of a part after a transient failure (default 3). */
  chunkRetries?: number;
  /** First retry delay in ms, doubled per attempt (default 1000). */
  retryDelayMs?: number;
  /** ffmpeg binary for encoding (default `ffmpeg` from PATH). */
  ffmpegPath?: string;
}

export const OPENAI_TRANSCRIPTION_DEFAULTS = {
  audioFormat: 'flac' as ChunkAudioFormat,
  maxRequestBytes: 24_000_000,
  maxChunkSeconds: 600,
  chunkOverlapSeconds: 1,
  concurrency: 3,
  chunkRetries: 3,
  retryDelayMs: 1000,
};

/** Bodies beyond this are refused rather than buffered: a transcript of hours is far smaller. */
const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

/**
 * The longest wait a provider's Retry-After is followed for before a part's next attempt; a longer
 * one is cut to this (the part's retries, then the job's, go on from there).
 */
export const MAX_RETRY_AFTER_MS = 60_000;

/** A retryable answer of the provider that says when to come back (429 or 503 with Retry-After). */
class ProviderBusy extends PipelineError {
  constructor(
    message: string,
    readonly retryAfterMs: number,
  ) {
    super('transcription_provider_error', message, true);
  }
}

/**
 * The wait a provider asks for, in ms: `retry-after-ms` (OpenAI's own header) or the standard
 * `Retry-After`, in seconds or as an HTTP date; null when absent or unreadable.
 */
export function retryAfterMs(headers: Headers, now = Date.now()): number | null {
  const ms = Number(headers.get('retry-after-ms'));
  if (headers.has('retry-after-ms') && Number.isFinite(ms) && ms >= 0) return ms;
  const v = headers.get('retry-after')?.trim();
  if (!v) return null;
  if (/^\d+(\.\d+)?$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

// verbose_json reports the language by name ("english"); the transcript wants ISO codes.
const LANGUAGE_CODES: Record<string, string> = {
  english: 'en', german: 'de', french: 'fr', spanish: 'es', italian: 'it', portuguese: 'pt', dutch: 'nl',
  polish: 'pl', russian: 'ru', ukrainian: 'uk', turkish: 'tr', swedish: 'sv', danish: 'da', norwegian: 'no',
  finnish: 'fi', czech: 'cs', greek: 'el', hungarian: 'hu', romanian: 'ro', japanese: 'ja', chinese: 'zh',
  korean: 'ko', arabic: 'ar', hebrew: 'he', hindi: 'hi', vietnamese: 'vi', indonesian: 'id', thai: 'th',
  catalan: 'ca', malay: 'ms',
};

export function languageCode(lang: unknown, fallback: string): string {
  if (typeof lang !== 'string' || !lang.trim()) return fallback;
  const l = lang.trim().toLowerCase();
  if (LANGUAGE_CODES[l]) return LANGUAGE_CODES[l];
  return /^[a-z]{2,3}([-_][a-z0-9]+)?$/.test(l) ? l.split(/[-_]/)[0] : fallback;
}

function transcriptionUrl(baseUrl: string): string {
  const root = baseUrl.replace(/\/+$/, '');
  return /\/v1$/.test(root) ? `${root}/audio/transcriptions` : `${root}/v1/audio/transcriptions`;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const clamp01 = (v: number) => Math.min(1, Math.max(0, v));

interface RawWord {
  word?: unknown;
  text?: unknown;
  start?: unknown;
  end?: unknown;
  probability?: unknown;
  confidence?: unknown;
}
interface RawSegment {
  start?: unknown;
  end?: unknown;
  text?: unknown;
  words?: unknown;
}

function mapWord(w: RawWord): RecognizedWord | null {
  const text = typeof w.word === 'string' ? w.word : typeof w.text === 'string' ? w.text : null;
  const start = num(w.start);
  const end = num(w.end);
  if (text === null || start === null || end === null) return null;
  const word = text.trim();
  if (!word) return null;
  const p = num(w.probability) ?? num(w.confidence);
  return { word, start, end: Math.max(start, end), confidence: p === null ? 1 : clamp01(p) };
}

/** Spreads the words of `text` over [start, end] in proportion to their length. */
export function spreadText(text: string, start: number, end: number): RecognizedWord[] {
  const tokens = text.split(/\s+/).filter(Boolean);
  if (!tokens.length) return [];
  const span = Math.max(0, end - start);
  const weights = tokens.map((t) => t.length + 1);
  const total = weights.reduce((a, b) => a + b, 0);
  const out: RecognizedWord[] = [];
  let acc = 0;
  for (let i = 0; i < tokens.length; i++) {
    const s = start + (span * acc) / total;
    acc += weights[i];
    out.push({ word: tokens[i], start: s, end: start + (span * acc) / total, confidence: 1 });
  }
  return out;
}

/** Words from a verbose_json body: `words[]`, else words nested in segments, else segment text spread over segment times. */
export function wordsFromVerboseJson(body: unknown, durationSeconds: number): RecognizedWord[] {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new Error('response is not a JSON object');
  const b = body as { words?: unknown; segments?: unknown; text?: unknown };
  if (b.words !== undefined && b.words !== null && !Array.isArray(b.words)) throw new Error('words is not an array');
  if (b.segments !== undefined && b.segments !== null && !Array.isArray(b.segments)) throw new Error('segments is not an array');
  const words = Array.isArray(b.words) ? b.words : [];
  const segments = (Array.isArray(b.segments) ? b.segments : []) as RawSegment[];

  let out: RecognizedWord[] = [];
  if (words.length) {
    out = words.map((w) => mapWord(w as RawWord)).filter((w): w is RecognizedWord => w !== null);
  } else if (segments.some((s) => Array.isArray(s?.words) && s.words.length)) {
    out = segments.flatMap((s) => (Array.isArray(s?.words) ? s.words : []).map((w) => mapWord(w as RawWord)).filter((w): w is RecognizedWord => w !== null));
  } else if (segments.length) {
    for (const s of segments) {
      const start = num(s?.start);
      const end = num(s?.end);
      if (start === null || end === null || typeof s.text !== 'string') throw new Error('segment without start, end or text');
      out.push(...spreadText(s.text, start, end));
    }
  } else if (typeof b.text === 'string') {
    // A server that ignored verbose_json: no timing at all, so the whole call is one span.
    out = spreadText(b.text, 0, durationSeconds);
  } else {
    throw new Error('response has neither words, segments nor text');
  }
  // Every word unusable means a dialect this adapter does not speak; do not report it as silence.
  if (words.length && !out.length) throw new Error('words lack text or timestamps');
  out.sort((x, y) => x.start - y.start);
  return out;
}

async function readBounded(res: Response, limit: number): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel();
      throw new Error('response too large');
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export class OpenAiTranscriber implements Transcriber {
  readonly provider: string;
  readonly model: string;
  private readonly url: string;

  constructor(private readonly cfg: OpenAiTranscriptionConfig) {
    if (!cfg.baseUrl) throw new Error('OpenAI-compatible transcription needs a baseUrl');
    if (!cfg.model) throw new Error('OpenAI-compatible transcription needs a model');
    this.provider = cfg.providerName ?? 'openai-compatible';
    this.model = cfg.model;
    this.url = transcriptionUrl(cfg.baseUrl);
  }

  async transcribe(input: TranscriptionInput): Promise<Recognition> {
    const d = OPENAI_TRANSCRIPTION_DEFAULTS;
    const format = this.cfg.audioFormat ?? d.audioFormat;
    const maxBytes = this.cfg.maxRequestBytes ?? d.maxRequestBytes;
    // A part never exceeds what the format can produce within the byte limit (5 % for headers).
    const bySize = Math.floor((0.95 * maxBytes) / CHUNK_FORMATS[format].maxBytesPerSecond);
    const maxChunkSeconds = Math.min(this.cfg.maxChunkSeconds ?? d.maxChunkSeconds, bySize);
    const overlap = Math.min(this.cfg.chunkOverlapSeconds ?? d.chunkOverlapSeconds, maxChunkSeconds / 8);
    const chunks = await planChunks(input.wavPath, input.durationSeconds, { maxChunkSeconds, overlapSeconds: overlap });
    const dir = await fsp.mkdtemp(path.join(path.dirname(input.wavPath), 'parts-'));
    // One part failing for good stops the others: their answers could no longer be used.
    const stop = new AbortController();
    const signal = input.signal ? AbortSignal.any([input.signal, stop.signal]) : stop.signal;
    let done = 0;
    try {
      const results = await mapBounded(chunks, Math.max(1, this.cfg.concurrency ?? d.concurrency), async (chunk) => {
        try {
          const r = await this.transcribeChunk(input.wavPath, chunk, chunks.length, dir, format, maxBytes, signal);
          done += chunk.end - chunk.start;
          input.onProgress?.({ doneSeconds: Math.min(done, input.durationSeconds), totalSeconds: input.durationSeconds });
          return r;
        } catch (err) {
          stop.abort();
          throw err;
        }
      });
      const words = mergeChunkWords(chunks, results.map((r) => r.words));
      const language = this.cfg.language ?? mostCommon(results.map((r) => r.language)) ?? 'en';
      return { words, language, provider: this.provider, model: this.model };
    } finally {
      await fsp.rm(dir, { recursive: true, force: true });
    }
  }

  /** One part: encode, send, retry transient failures with backoff; the final error names the part. */
  private async transcribeChunk(
    wavPath: string,
    chunk: CallChunk,
    count: number,
    dir: string,
    format: ChunkAudioFormat,
    maxBytes: number,
    signal: AbortSignal,
  ): Promise<{ words: RecognizedWord[]; language: string | null }> {
    const f = CHUNK_FORMATS[format];
    const file = path.join(dir, `part-${String(chunk.index).padStart(3, '0')}.${f.extension}`);
    const size = await encodeChunk(wavPath, chunk, file, format, { timeoutMs: 5 * 60_000, signal, ffmpegPath: this.cfg.ffmpegPath });
    const which = count > 1 ? ` part ${chunk.index + 1} of ${count} (${formatClock(chunk.start)}-${formatClock(chunk.end)})` : '';
    if (size > maxBytes) throw new PipelineError('transcription_failed', `audio${which} encodes to more than the request limit of ${maxBytes} bytes`);
    const retries = Math.max(0, this.cfg.chunkRetries ?? OPENAI_TRANSCRIPTION_DEFAULTS.chunkRetries);
    const baseDelay = this.cfg.retryDelayMs ?? OPENAI_TRANSCRIPTION_DEFAULTS.retryDelayMs;
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          return await this.request(file, f.mime, chunk.sendEnd - chunk.sendStart, signal);
        } catch (err) {
          const pe = err instanceof PipelineError ? err : new PipelineError('transcription_provider_error', 'transcription provider: unexpected error', true);
          if (signal.aborted) throw pe;
          if (!pe.retryable || attempt >= retries) {
            // After its own retries a part has had its chances: the call fails rather than being redone whole.
            const detail = pe.message.replace(/^transcription provider: /, '');
            const tries = attempt + 1;
            throw new PipelineError(pe.reason, `transcription provider:${which} ${tries > 1 ? `failed after ${tries} attempts: ` : ''}${detail}`, pe.retryable && retries === 0);
          }
          // The provider's own Retry-After, when it gives one, beats the backoff (never shorter).
          const backoff = baseDelay * 2 ** attempt * (0.75 + Math.random() * 0.5);
          const asked = pe instanceof ProviderBusy ? Math.min(pe.retryAfterMs, MAX_RETRY_AFTER_MS) : 0;
          await sleep(Math.max(backoff, asked), undefined, { signal }).catch(() => undefined);
          if (signal.aborted) throw pe;
        }
      }
    } finally {
      await fsp.rm(file, { force: true });
    }
  }

  /** One HTTP request with one audio file. */
  private async request(file: string, mime: string, durationSeconds: number, outer: AbortSignal): Promise<{ words: RecognizedWord[]; language: string | null }> {
    const form = new FormData();
    const blob = await openAsBlob(file, { type: mime });
    form.append('file', blob, path.basename(file));
    form.append('model', this.cfg.model);
    form.append('response_format', 'verbose_json');
    form.append('timestamp_granularities[]', 'word');
    form.append('timestamp_granularities[]', 'segment');
    if (this.cfg.language) form.append('language', this.cfg.language);

    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.cfg.apiKey) headers.authorization = `Bearer ${this.cfg.apiKey}`;

    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), this.cfg.timeoutMs);
    const signal = AbortSignal.any([outer, timeout.signal]);
    const fail = (msg: string, retryable: boolean) => new PipelineError('transcription_provider_error', `transcription provider: ${msg}`, retryable);

    try {
      let res: Response;
      try {
        res = await fetch(this.url, { method: 'POST', body: form, headers, signal });
      } catch {
        if (timeout.signal.aborted) throw fail(`no answer within ${this.cfg.timeoutMs} ms`, true);
        if (outer.aborted) throw fail('request aborted', true);
        // The cause can quote the URL; the host is configuration, but keep messages uniform.
        throw fail('network error', true);
      }
      let text: string;
      try {
        text = await readBounded(res, MAX_RESPONSE_BYTES);
      } catch (err) {
        if (timeout.signal.aborted) throw fail(`no complete answer within ${this.cfg.timeoutMs} ms`, true);
        if ((err as Error).message === 'response too large') throw fail('response too large', false);
        throw fail('connection lost while reading the answer', true);
      }
      if (!res.ok) {
        const retryable = res.status === 429 || res.status === 408 || res.status >= 500;
        const wait = retryable ? retryAfterMs(res.headers) : null;
        if (wait !== null) throw new ProviderBusy(`transcription provider: HTTP ${res.status}${errorCode(text)}`, wait);
        throw fail(`HTTP ${res.status}${errorCode(text)}`, retryable);
      }
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        throw fail('malformed response (not JSON)', false);
      }
      let words: RecognizedWord[];
      try {
        words = wordsFromVerboseJson(body, durationSeconds);
      } catch (err) {
        throw fail(`malformed response (${(err as Error).message})`, false);
      }
      const lang = (body as { language?: unknown }).language;
      return { words, language: typeof lang === 'string' && lang.trim() ? languageCode(lang, 'en') : null };
    } finally {
      clearTimeout(timer);
    }
  }
}

/** The provider's machine-readable error code, if any; free-text messages are left out on purpose. */
function errorCode(text: string): string {
  try {
    const e = (JSON.parse(text) as { error?: { code?: unknown; type?: unknown } }).error;
    const code = typeof e?.code === 'string' ? e.code : typeof e?.type === 'string' ? e.type : null;
    return code && /^[\w.-]{1,64}$/.test(code) ? ` (${code})` : '';
  } catch {
    return '';
  }
}

function mostCommon(values: Array<string | null>): string | null {
  const counts = new Map<string, number>();
  for (const v of values) if (v) counts.set(v, (counts.get(v) ?? 0) + 1);
  let best: string | null = null;
  for (const [v, n] of counts) if (best === null || n > counts.get(best)!) best = v;
  return best;
}

// The one download of an operator's model file (the whisper.cpp ggml model, the ONNX speaker
// embedding model), fetched once from a configured URL when the file is missing. A download must
// never leave a half-written file where the model belongs, nor hold the service's start for ever.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';

export interface ModelDownloadOptions {
  /** What is downloaded, as messages and log lines name it ("whisper model"). */
  what: string;
  /** The largest file accepted, bytes: a declared larger one is refused before any byte is stored. */
  maxBytes: number;
  /** Expected hex sha256; a file with another hash is removed. */
  sha256?: string;
  /** Connect timeout, ms (default 15 000). */
  connectTimeoutMs?: number;
  /** A transfer that receives nothing for this long is abandoned, ms (default 60 000). */
  idleTimeoutMs?: number;
  /** Progress every 10 % of a declared size, start and end: a subset of pino's API. */
  log?: { info(obj: object, msg?: string): void };
  /** The caller's error for every failure (the provider's own "unavailable" error). */
  fail(message: string): Error;
}

/**
 * Ends a download's temporary file and removes it. The stream opens its file asynchronously: removed
 * before that open completes (a download refused at its first chunk), the file was created after the
 * removal and left behind, so the removal waits for the stream to close.
 */
async function closeAndRemove(out: fs.WriteStream, tmp: string): Promise<void> {
  if (!out.closed) await new Promise<void>((resolve) => out.once('close', () => resolve()).destroy());
  await fsp.rm(tmp, { force: true });
}

/**
 * Downloads `url` to `dest` through a temporary file beside it (renamed into place only when
 * complete and, with a sha256, verified), refusing more than the size limit. Without network access
 * it fails within the connect timeout. Messages name neither the URL (it may carry a token) nor
 * the local path.
 */
export async function downloadModelFile(url: string, dest: string, opts: ModelDownloadOptions): Promise<void> {
  const { what, maxBytes, fail } = opts;
  await fsp.mkdir(path.dirname(dest), { recursive: true });
  // One controller for the whole transfer: first the connect timeout, then an idle timeout that
  // every received chunk re-arms, so a stalled server cannot hold the service's start for ever.
  const abort = new AbortController();
  let timer = setTimeout(() => abort.abort(), opts.connectTimeoutMs ?? 15_000);
  const rearm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => abort.abort(), opts.idleTimeoutMs ?? 60_000);
  };
  let res: Response;
  try {
    res = await fetch(url, { signal: abort.signal, redirect: 'follow' });
  } catch (err) {
    clearTimeout(timer);
    const cause = (err as { cause?: { code?: string } }).cause?.code ?? (abort.signal.aborted ? 'timeout' : 'network error');
    throw fail(`${what} download failed (${cause}); place the model file at the configured path or check network access`);
  }
  rearm();
  if (!res.ok || !res.body) {
    clearTimeout(timer);
    await res.body?.cancel().catch(() => undefined);
    throw fail(`${what} download failed (HTTP ${res.status})`);
  }
  const declared = Number(res.headers.get('content-length')) || 0;
  if (declared > maxBytes) {
    clearTimeout(timer);
    await res.body.cancel().catch(() => undefined);
    throw fail(`${what} download refused: ${declared} bytes is over the ${maxBytes}-byte limit`);
  }
  opts.log?.info({ bytes: declared || null }, `downloading ${what}`);
  const tmp = `${dest}.download-${process.pid}`;
  const hash = createHash('sha256');
  const out = fs.createWriteStream(tmp);
  let received = 0;
  let nextReport = 0.1;
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      rearm();
      received += chunk.byteLength;
      if (received > maxBytes) throw new Error(`over the ${maxBytes}-byte limit`);
      hash.update(chunk);
      if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', r));
      if (declared && received / declared >= nextReport) {
        opts.log?.info({ percent: Math.floor((received / declared) * 100) }, `${what} download progress`);
        while (received / declared >= nextReport) nextReport += 0.1;
      }
    }
    await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  } catch (err) {
    await closeAndRemove(out, tmp);
    throw fail(`${what} download interrupted (${abort.signal.aborted ? 'no data for too long' : (err as Error).message})`);
  } finally {
    clearTimeout(timer);
  }
  const digest = hash.digest('hex');
  if (opts.sha256 && digest !== opts.sha256.toLowerCase()) {
    await fsp.rm(tmp, { force: true });
    throw fail(`${what} download has sha256 ${digest}, expected ${opts.sha256.toLowerCase()}`);
  }
  await fsp.rename(tmp, dest);
  opts.log?.info({ bytes: received }, `${what} downloaded`);
}

// Streams one multipart audio part into the blob store: the first bytes are sniffed before
// anything is written (415 when they are not an accepted audio format), the size limit is enforced
// while streaming (413, and the partial file is removed), and memory stays flat.
import { Readable } from 'node:stream';
import type { MultipartFile } from '@fastify/multipart';
import { ErrorCode, ServiceError } from '../domain/errors.js';
import type { BlobStore } from '../store/blobs.js';
import { acceptAudioUpload, SNIFF_BYTES, sniffBytesWanted, type AudioFormat } from '../pipeline/audio/sniff.js';

/** The leading bytes the sniffer wants (more than SNIFF_BYTES only behind an ID3 tag, bounded by MAX_SNIFF_BYTES). */
async function readHead(stream: AsyncIterable<Buffer>): Promise<{ head: Buffer; rest: AsyncIterator<Buffer>; done: boolean }> {
  const it = stream[Symbol.asyncIterator]();
  const chunks: Buffer[] = [];
  let size = 0;
  let done = false;
  let wanted = SNIFF_BYTES;
  while (size < wanted) {
    const next = await it.next();
    if (next.done) {
      done = true;
      break;
    }
    chunks.push(next.value);
    size += next.value.length;
    if (size >= wanted) wanted = sniffBytesWanted(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
  }
  return { head: Buffer.concat(chunks), rest: it, done };
}

/**
 * File-system errors that mean the storage, not the request, failed: full, read-only, not
 * permitted, out of quota or failing. They answer 503 storage_unavailable (retry later) instead
 * of 500, and never name a path.
 */
const STORAGE_FAULTS = new Set(['ENOSPC', 'EROFS', 'EACCES', 'EPERM', 'EDQUOT', 'EIO', 'EMFILE', 'ENFILE']);

function isStorageFault(err: unknown): boolean {
  const e = err as { code?: unknown; syscall?: unknown } | null;
  // ENOENT on creating the file or its folders: the storage root itself is gone or unmounted.
  if (e?.code === 'ENOENT' && (e.syscall === 'mkdir' || e.syscall === 'open')) return true;
  return STORAGE_FAULTS.has(String(e?.code ?? ''));
}

export interface StoredAudio {
  format: AudioFormat;
  bytes: number;
  key: string;
}

export async function storeAudioPart(
  part: MultipartFile,
  blobs: BlobStore,
  keyFor: (format: AudioFormat) => string,
  opts: { allowed: readonly AudioFormat[]; tooLarge?: ServiceError },
): Promise<StoredAudio> {
  const tooLarge = opts.tooLarge ?? new ServiceError(ErrorCode.PayloadTooLarge);
  let head: Buffer;
  let rest: AsyncIterator<Buffer>;
  let done: boolean;
  try {
    ({ head, rest, done } = await readHead(part.file));
  } catch (err) {
    if ((err as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge;
    throw err;
  }
  const format = acceptAudioUpload({ filename: part.filename, mimetype: part.mimetype, head }, opts.allowed);
  if (!format) {
    part.file.resume(); // drain, so the client gets the answer instead of a reset
    throw new ServiceError(ErrorCode.UnsupportedMediaType, { accepted: [...opts.allowed] });
  }
  const key = keyFor(format);
  const source = Readable.from(
    (async function* () {
      yield head;
      if (done) return;
      for (;;) {
        const next = await rest.next();
        if (next.done) return;
        yield next.value;
      }
    })(),
  );
  try {
    const { bytes } = await blobs.put(key, source);
    if (part.file.truncated) {
      await blobs.delete(key);
      throw tooLarge;
    }
    return { format, bytes, key };
  } catch (err) {
    if ((err as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge;
    if (isStorageFault(err)) {
      // The store failed part-way (or before reading at all: mkdir on a read-only disk). Drain the
      // rest of the part through the iterator already attached to it (resume() has no effect on a
      // stream being iterated), so the request ends with the answer instead of stalling.
      if (!done) {
        try {
          while (!(await rest.next()).done);
        } catch {
          /* the part ended badly; the answer stays the storage fault */
        }
      }
      throw new ServiceError(ErrorCode.StorageUnavailable);
    }
    throw err;
  }
}

// Audio and other large files behind a small interface with two implementations: the filesystem
// (DATA_DIR/blobs, the embedded default) and S3-compatible object storage (src/store/s3-blobs.ts,
// BLOB_STORE=s3), which lets API and worker processes on different machines share nothing but
// PostgreSQL and the bucket. The filesystem store writes to a temporary name first and renames it
// into place, so a reader never sees a partial file and a crash leaves only temporary files (swept).
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import crypto from 'node:crypto';
import type { Config } from '../config.js';

/** A blob as a file on this machine, for tools such as ffmpeg that read files. */
export interface LocalBlobFile {
  path: string;
  /** Removes the local copy when one was made (object storage); the blob itself stays. */
  release(): Promise<void>;
}

export interface BlobStore {
  readonly kind: 'fs' | 's3';
  /** Streams `source` to `key`. Rejects with the source's error (and leaves nothing) when the stream fails. */
  put(key: string, source: Readable): Promise<{ bytes: number }>;
  /**
   * The blob as a local file: the stored file itself on the filesystem store, a download into
   * `workDir` on object storage. Call `release()` when done with it.
   */
  localFile(key: string, workDir: string): Promise<LocalBlobFile>;
  exists(key: string): Promise<boolean>;
  /** The blob's size in bytes, or null when it does not exist. */
  size(key: string): Promise<number | null>;
  /**
   * Streams bytes `start` to `end` (inclusive) of a blob, or all of it without a range, without
   * holding it in memory (range requests of the call's audio). Null when it does not exist.
   */
  read(key: string, range?: ByteRange): Promise<Readable | null>;
  delete(key: string): Promise<void>;
  /** Deletes every blob under a prefix (a user's folder on account deletion). */
  deletePrefix(prefix: string): Promise<void>;
  list(prefix: string): Promise<string[]>;
  /** Milliseconds since the blob was last written, or null when it does not exist. */
  ageMs(key: string): Promise<number | null>;
  /** Removes what interrupted uploads left behind (partial files, unfinished multipart uploads) older than `olderThanMs`. */
  sweepIncomplete(olderThanMs?: number): Promise<number>;
}

/** An inclusive byte range, as HTTP ranges are written. */
export interface ByteRange {
  start: number;
  end: number;
}

const KEY = /^[a-zA-Z0-9][a-zA-Z0-9._/-]*$/;

/**
 * Recordings are readable by the service's account only: folders 0700, files 0600 (a umask can
 * only narrow these). DATA_DIR itself stays enterable, since the embedded PostgreSQL runs as its own
 * system user below it; nothing of that user needs the blobs or work folders.
 */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Creates `dir` (and any missing parents) for this account only, and closes `dir` itself when it
 * existed with wider modes (installs from before the modes were set).
 */
export async function makePrivateDir(dir: string): Promise<void> {
  await fs.promises.mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const st = await fs.promises.stat(dir);
  // Best effort: a folder this account may not chmod (another owner, a read-only mount) is used as it is.
  if ((st.mode & 0o777) !== PRIVATE_DIR_MODE) await fs.promises.chmod(dir, PRIVATE_DIR_MODE).catch(() => undefined);
}

function closeSync(dir: string): void {
  try {
    if ((fs.statSync(dir).mode & 0o777) !== PRIVATE_DIR_MODE) fs.chmodSync(dir, PRIVATE_DIR_MODE);
  } catch {
    // Another owner or a read-only mount: the store still works (and says so on its first write).
  }
}

export class FileBlobStore implements BlobStore {
  readonly kind = 'fs' as const;
  readonly root: string;

  constructor(dataDir: string) {
    this.root = path.join(dataDir, 'blobs');
    fs.mkdirSync(this.root, { recursive: true, mode: PRIVATE_DIR_MODE });
    // An existing install's blobs folder (0755 before) is closed at start: with the root 0700, no
    // other account reaches any file below it, whatever modes older files and folders kept.
    closeSync(this.root);
  }

  private resolve(key: string): string {
    if (!KEY.test(key) || key.includes('..')) throw new Error('invalid blob key');
    return path.join(this.root, key);
  }

  async put(key: string, source: Readable): Promise<{ bytes: number }> {
    const target = this.resolve(key);
    await fs.promises.mkdir(path.dirname(target), { recursive: true, mode: PRIVATE_DIR_MODE });
    const tmp = `${target}.${crypto.randomBytes(6).toString('hex')}.partial`;
    let bytes = 0;
    source.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
    });
    try {
      await pipeline(source, fs.createWriteStream(tmp, { flags: 'wx', mode: PRIVATE_FILE_MODE }));
      await fs.promises.rename(tmp, target);
    } catch (err) {
      await fs.promises.rm(tmp, { force: true });
      throw err;
    }
    return { bytes };
  }

  localPath(key: string): string {
    return this.resolve(key);
  }

  async localFile(key: string): Promise<LocalBlobFile> {
    return { path: this.resolve(key), release: async () => undefined };
  }

  async exists(key: string): Promise<boolean> {
    return fs.promises.access(this.resolve(key)).then(
      () => true,
      () => false,
    );
  }

  async size(key: string): Promise<number | null> {
    const st = await fs.promises.stat(this.resolve(key)).catch(() => null);
    return st?.isFile() ? st.size : null;
  }

  async read(key: string, range?: ByteRange): Promise<Readable | null> {
    let handle: fs.promises.FileHandle;
    try {
      handle = await fs.promises.open(this.resolve(key), 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    return handle.createReadStream(range ? { start: range.start, end: range.end } : {});
  }

  async delete(key: string): Promise<void> {
    await fs.promises.rm(this.resolve(key), { force: true });
  }

  async deletePrefix(prefix: string): Promise<void> {
    await fs.promises.rm(this.resolve(prefix), { recursive: true, force: true });
  }

  async list(prefix: string): Promise<string[]> {
    const dir = prefix === '' ? this.root : this.resolve(prefix);
    const out: string[] = [];
    const walk = async (d: string) => {
      let entries: fs.Dirent[];
      try {
        entries = await fs.promises.readdir(d, { withFileTypes: true });
      } catch {
        return;
      }
      for (const e of entries) {
        const p = path.join(d, e.name);
        if (e.isDirectory()) await walk(p);
        else out.push(path.relative(this.root, p));
      }
    };
    await walk(dir);
    return out.sort();
  }

  async ageMs(key: string): Promise<number | null> {
    const st = await fs.promises.stat(this.resolve(key)).catch(() => null);
    return st ? Date.now() - st.mtimeMs : null;
  }

  /** Removes temporary files older than an hour left by a crash mid-upload. */
  async sweepIncomplete(olderThanMs = 3600_000): Promise<number> {
    let removed = 0;
    for (const key of await this.list('')) {
      if (!key.endsWith('.partial')) continue;
      const p = path.join(this.root, key);
      const st = await fs.promises.stat(p).catch(() => null);
      if (st && Date.now() - st.mtimeMs > olderThanMs) {
        await fs.promises.rm(p, { force: true });
        removed++;
      }
    }
    return removed;
  }
}

export function audioKey(userId: string, callId: string, format: string): string {
  return `users/${userId}/calls/${callId}/audio.${format}`;
}

/** Every file of one call (its audio, anything a later stage stores beside it). */
export function callPrefix(userId: string, callId: string): string {
  return `users/${userId}/calls/${callId}`;
}

/** The call's waveform peaks (src/domain/waveform.ts), stored beside its audio when it is decoded. */
export function waveformKey(userId: string, callId: string): string {
  return `${callPrefix(userId, callId)}/waveform.peaks`;
}

export function userPrefix(userId: string): string {
  return `users/${userId}`;
}

/** The blob store the configuration names; object storage is checked to be reachable first. */
export async function openBlobStore(config: Config): Promise<BlobStore> {
  if (config.blobStore.kind === 'fs') return new FileBlobStore(config.dataDir);
  const { S3BlobStore } = await import('./s3-blobs.js');
  const store = new S3BlobStore(config.blobStore.s3);
  await store.verify();
  return store;
}

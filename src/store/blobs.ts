// Audio and other large files behind a small interface; the filesystem implementation keeps them
// under DATA_DIR/blobs. Writes go to a temporary name first and are renamed into place, so a
// reader never sees a partial file and a crash leaves only temporary files (swept at start).
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import crypto from 'node:crypto';

export interface BlobStore {
  /** Streams `source` to `key`. Rejects (and leaves nothing) when the stream fails. */
  put(key: string, source: Readable): Promise<{ bytes: number }>;
  /** A local file path for tools such as ffmpeg that read files. */
  localPath(key: string): string;
  exists(key: string): Promise<boolean>;
  delete(key: string): Promise<void>;
  /** Deletes every blob under a prefix (a user's folder on account deletion). */
  deletePrefix(prefix: string): Promise<void>;
  list(prefix: string): Promise<string[]>;
  /** Milliseconds since the blob was last written, or null when it does not exist. */
  ageMs(key: string): Promise<number | null>;
}

const KEY = /^[a-zA-Z0-9][a-zA-Z0-9._/-]*$/;

export class FileBlobStore implements BlobStore {
  readonly root: string;

  constructor(dataDir: string) {
    this.root = path.join(dataDir, 'blobs');
    fs.mkdirSync(this.root, { recursive: true });
  }

  private resolve(key: string): string {
    if (!KEY.test(key) || key.includes('..')) throw new Error('invalid blob key');
    return path.join(this.root, key);
  }

  async put(key: string, source: Readable): Promise<{ bytes: number }> {
    const target = this.resolve(key);
    await fs.promises.mkdir(path.dirname(target), { recursive: true });
    const tmp = `${target}.${crypto.randomBytes(6).toString('hex')}.partial`;
    let bytes = 0;
    source.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
    });
    try {
      await pipeline(source, fs.createWriteStream(tmp, { flags: 'wx' }));
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

  async exists(key: string): Promise<boolean> {
    return fs.promises.access(this.resolve(key)).then(
      () => true,
      () => false,
    );
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
  async sweepPartials(olderThanMs = 3600_000): Promise<number> {
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

export function userPrefix(userId: string): string {
  return `users/${userId}`;
}

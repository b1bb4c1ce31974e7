// The blob store on S3-compatible object storage (AWS S3, Cloudflare R2, MinIO, Google Cloud
// Storage interoperability) through the AWS SDK v3. Credentials: AWS_ACCESS_KEY_ID and
// AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN) when set, otherwise the SDK's standard chain
// (AWS_PROFILE, web identity, container and instance roles).
//
// Uploads stream through a multipart upload: at most `queueSize` parts of `partSize` bytes are in
// memory, never the whole file, and S3 makes the object visible only when the upload completes,
// so a client that goes away mid-upload leaves no partial object (the unfinished multipart upload
// is aborted, or swept later when aborting fails).
import fs from 'node:fs';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { S3Settings } from '../config.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, type BlobStore, type ByteRange, type LocalBlobFile } from './blobs.js';

const KEY = /^[a-zA-Z0-9][a-zA-Z0-9._/-]*$/;
const PART_SIZE = 5 * 1024 * 1024; // the S3 minimum; with QUEUE_SIZE parts in flight ≈ 10 MB per upload
const QUEUE_SIZE = 2;
const DELETE_BATCH = 1000; // DeleteObjects' limit

/** Object storage could not be reached or refused the operation; the request may be retried later. */
export class BlobStoreUnavailableError extends Error {
  readonly code = 'BLOB_STORE_UNAVAILABLE';
  constructor(operation: string, cause: unknown) {
    super(`object storage ${operation} failed: ${describe(cause)}`);
    this.name = 'BlobStoreUnavailableError';
  }
}

function describe(err: unknown): string {
  if (err instanceof S3ServiceException) return `${err.name} (HTTP ${err.$metadata?.httpStatusCode ?? '?'})`;
  const e = err as { code?: string; name?: string; message?: string } | null;
  return e?.code ?? e?.name ?? 'unknown error';
}

function isNotFound(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } } | null;
  return e?.name === 'NotFound' || e?.name === 'NoSuchKey' || e?.$metadata?.httpStatusCode === 404;
}

export class S3BlobStore implements BlobStore {
  readonly kind = 's3' as const;
  readonly bucket: string;
  readonly client: S3Client;

  constructor(settings: S3Settings, client?: S3Client) {
    this.bucket = settings.bucket;
    this.client =
      client ??
      new S3Client({
        region: settings.region,
        endpoint: settings.endpoint ?? undefined,
        forcePathStyle: settings.forcePathStyle,
        credentials: settings.credentials ?? undefined,
        // Checksums only where the API requires them: several S3-compatible services (and older
        // MinIO, R2 and GCS releases) reject the SDK's default streaming CRC trailers.
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
        requestHandler: { connectionTimeout: 5_000, requestTimeout: 120_000 },
        maxAttempts: 3,
      });
  }

  private check(key: string): string {
    if (!KEY.test(key) || key.includes('..')) throw new Error('invalid blob key');
    return key;
  }

  /** Fails (naming no secret) when the bucket cannot be listed with the configured credentials. */
  async verify(): Promise<void> {
    try {
      await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, MaxKeys: 1 }));
    } catch (err) {
      throw new Error(`Object storage is not usable: listing S3_BUCKET failed with ${describe(err)}. Check S3_BUCKET, S3_ENDPOINT, S3_REGION, S3_FORCE_PATH_STYLE and the AWS credentials.`);
    }
  }

  async put(key: string, source: Readable): Promise<{ bytes: number }> {
    this.check(key);
    let bytes = 0;
    const body = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        bytes += chunk.length;
        done(null, chunk);
      },
    });
    // The source's own error (a client that went away, a size limit) is what the caller sees,
    // not the upload's reaction to it.
    let sourceError: unknown = null;
    const piped = pipeline(source, body).catch((err) => {
      sourceError = err;
    });
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: key, Body: body },
      partSize: PART_SIZE,
      queueSize: QUEUE_SIZE,
      leavePartsOnError: false,
    });
    try {
      await upload.done();
      await piped;
      if (sourceError) throw sourceError;
    } catch (err) {
      await piped;
      if (sourceError) {
        // An upload small enough for one PutObject may have completed before the error surfaced.
        await this.delete(key).catch(() => undefined);
        throw sourceError;
      }
      throw new BlobStoreUnavailableError('upload', err);
    }
    return { bytes };
  }

  async localFile(key: string, workDir: string): Promise<LocalBlobFile> {
    this.check(key);
    await fs.promises.mkdir(workDir, { recursive: true, mode: PRIVATE_DIR_MODE });
    const target = path.join(workDir, `blob-${path.basename(key)}`);
    try {
      const res = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      await pipeline(res.Body as Readable, fs.createWriteStream(target, { mode: PRIVATE_FILE_MODE }));
    } catch (err) {
      await fs.promises.rm(target, { force: true });
      if (isNotFound(err)) throw Object.assign(new Error('blob not found'), { code: 'ENOENT' });
      throw new BlobStoreUnavailableError('download', err);
    }
    return { path: target, release: () => fs.promises.rm(target, { force: true }) };
  }

  private async head(key: string): Promise<Date | null> {
    try {
      const res = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.check(key) }));
      return res.LastModified ?? new Date();
    } catch (err) {
      if (isNotFound(err)) return null;
      throw new BlobStoreUnavailableError('head', err);
    }
  }

  async exists(key: string): Promise<boolean> {
    return (await this.head(key)) !== null;
  }

  async size(key: string): Promise<number | null> {
    try {
      const res = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.check(key) }));
      return res.ContentLength ?? 0;
    } catch (err) {
      if (isNotFound(err)) return null;
      throw new BlobStoreUnavailableError('head', err);
    }
  }

  async read(key: string, range?: ByteRange): Promise<Readable | null> {
    try {
      const res = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: this.check(key), Range: range ? `bytes=${range.start}-${range.end}` : undefined }),
      );
      return res.Body as Readable;
    } catch (err) {
      if (isNotFound(err)) return null;
      throw new BlobStoreUnavailableError('download', err);
    }
  }

  async ageMs(key: string): Promise<number | null> {
    const modified = await this.head(key);
    return modified ? Math.max(0, Date.now() - modified.getTime()) : null;
  }

  async delete(key: string): Promise<void> {
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.check(key) }));
    } catch (err) {
      if (!isNotFound(err)) throw new BlobStoreUnavailableError('delete', err);
    }
  }

  /** Keys under `prefix/` (a folder, as on the filesystem); every key for ''. */
  async list(prefix: string): Promise<string[]> {
    const Prefix = prefix === '' ? undefined : `${this.check(prefix).replace(/\/+$/, '')}/`;
    const keys: string[] = [];
    let ContinuationToken: string | undefined;
    try {
      do {
        const res = await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix, ContinuationToken }));
        for (const o of res.Contents ?? []) if (o.Key) keys.push(o.Key);
        ContinuationToken = res.IsTruncated ? res.NextContinuationToken : undefined;
      } while (ContinuationToken);
    } catch (err) {
      throw new BlobStoreUnavailableError('list', err);
    }
    return keys.sort();
  }

  /**
   * Deletes every object under the folder `prefix`. Rejects when any object was not deleted; the
   * ones that were stay deleted, and what remains of a deleted call is removed by the orphan sweep.
   */
  async deletePrefix(prefix: string): Promise<void> {
    const keys = await this.list(prefix);
    let failed = 0;
    for (let i = 0; i < keys.length; i += DELETE_BATCH) {
      const batch = keys.slice(i, i + DELETE_BATCH);
      try {
        const res = await this.client.send(
          new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } }),
        );
        failed += res.Errors?.length ?? 0;
      } catch (err) {
        throw new BlobStoreUnavailableError('delete', err);
      }
    }
    if (failed > 0) throw new BlobStoreUnavailableError('delete', { code: `${failed} of ${keys.length} objects not deleted` });
  }

  /**
   * Aborts multipart uploads older than `olderThanMs` that a crashed process never finished or
   * aborted. Services without ListMultipartUploads (some emulators) are skipped: a bucket
   * lifecycle rule (AbortIncompleteMultipartUpload) does the same there.
   */
  async sweepIncomplete(olderThanMs = 3600_000): Promise<number> {
    let aborted = 0;
    let KeyMarker: string | undefined;
    let UploadIdMarker: string | undefined;
    try {
      for (;;) {
        const res = await this.client.send(new ListMultipartUploadsCommand({ Bucket: this.bucket, Prefix: 'users/', KeyMarker, UploadIdMarker }));
        for (const u of res.Uploads ?? []) {
          if (!u.Key || !u.UploadId || !u.Initiated || Date.now() - u.Initiated.getTime() < olderThanMs) continue;
          await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: u.Key, UploadId: u.UploadId }));
          aborted++;
        }
        if (!res.IsTruncated) break;
        KeyMarker = res.NextKeyMarker;
        UploadIdMarker = res.NextUploadIdMarker;
      }
    } catch (err) {
      const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
      if (e.name === 'NotImplemented' || e.$metadata?.httpStatusCode === 501) return aborted;
      throw new BlobStoreUnavailableError('multipart sweep', err);
    }
    return aborted;
  }
}

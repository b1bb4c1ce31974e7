// An S3-compatible bucket for tests: s3rver (an S3 protocol server from npm) on a loopback port, or
// the server named by TEST_S3_ENDPOINT (MinIO, or any S3-compatible service) with the standard AWS
// credential variables, where each test gets a bucket of its own and removes it afterwards.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CreateBucketCommand, DeleteBucketCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { S3BlobStore } from '../../src/store/s3-blobs.js';
import type { S3Settings } from '../../src/config.js';

// The SDK announces a future Node.js requirement on every process start; tests run on Node 20.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

export interface TestBucket {
  settings: S3Settings;
  /** Environment for a service process using this bucket (BLOB_STORE=s3 and credentials). */
  env: Record<string, string>;
  store: S3BlobStore;
  client: S3Client;
  /** Every key in the bucket under `prefix` (all keys by default). */
  keys(prefix?: string): Promise<string[]>;
  stop(): Promise<void>;
}

export async function startTestBucket(): Promise<TestBucket> {
  const bucket = `cas-test-${crypto.randomBytes(5).toString('hex')}`;
  const external = process.env.TEST_S3_ENDPOINT;
  let endpoint: string;
  let credentials: { accessKeyId: string; secretAccessKey: string };
  let stopServer = async () => undefined as void;
  if (external) {
    endpoint = external;
    const accessKeyId = process.env.AWS_ACCESS_KEY_ID;
    const secretAccessKey = process.env.AWS_SECRET_ACCESS_KEY;
    if (!accessKeyId || !secretAccessKey) throw new Error('TEST_S3_ENDPOINT needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY');
    credentials = { accessKeyId, secretAccessKey };
  } else {
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'cas-s3rver-'));
    const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory });
    const { port } = await server.run();
    endpoint = `http://127.0.0.1:${port}`;
    credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' }; // s3rver's fixed pair
    stopServer = async () => {
      await server.close();
      fs.rmSync(directory, { recursive: true, force: true });
    };
  }
  const settings: S3Settings = { bucket, endpoint, region: process.env.TEST_S3_REGION ?? 'us-east-1', forcePathStyle: true, credentials };
  const client = new S3Client({
    region: settings.region,
    endpoint,
    forcePathStyle: true,
    credentials,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  const store = new S3BlobStore(settings, client);
  const testBucket: TestBucket = {
    settings,
    env: {
      BLOB_STORE: 's3',
      S3_BUCKET: bucket,
      S3_ENDPOINT: endpoint,
      S3_REGION: settings.region,
      S3_FORCE_PATH_STYLE: 'true',
      AWS_ACCESS_KEY_ID: credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
    store,
    client,
    async keys(prefix = '') {
      const out: string[] = [];
      let ContinuationToken: string | undefined;
      do {
        const r = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix || undefined, ContinuationToken }));
        for (const o of r.Contents ?? []) out.push(o.Key!);
        ContinuationToken = r.IsTruncated ? r.NextContinuationToken : undefined;
      } while (ContinuationToken);
      return out.sort();
    },
    async stop() {
      try {
        await store.deletePrefix('users').catch(() => undefined);
        for (const k of await testBucket.keys()) await store.delete(k).catch(() => undefined);
        await client.send(new DeleteBucketCommand({ Bucket: bucket })).catch(() => undefined);
      } finally {
        client.destroy();
        await stopServer();
      }
    },
  };
  return testBucket;
}

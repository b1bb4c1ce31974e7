// Starts the real service in-process for integration tests: a temporary DATA_DIR, the embedded
// PostgreSQL or a fresh database on the external server, real HTTP on a loopback port, and helpers
// to call it and to sign ID tokens with a local key set.
import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { loadConfig } from '../../src/config.js';
import { startService, type Service, type StartOptions } from '../../src/app.js';
import { createJobQueue, type JobQueue } from '../../src/store/queue.js';
import pino from 'pino';

export type DbMode = 'embedded' | 'external';

export const EXTERNAL_ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

let externalChecked: boolean | null = null;
/** Whether the machine's external PostgreSQL answers (it does on dev machines and CI). */
export async function externalDbAvailable(): Promise<boolean> {
  if (externalChecked !== null) return externalChecked;
  const c = new pg.Client({ connectionString: EXTERNAL_ADMIN_URL, connectionTimeoutMillis: 3000 });
  try {
    await c.connect();
    await c.query('SELECT 1');
    externalChecked = true;
  } catch {
    externalChecked = false;
  } finally {
    await c.end().catch(() => undefined);
  }
  return externalChecked;
}

/** Creates an empty database on the external server and returns its URL and a dropper. */
export async function createExternalDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `cas_test_${crypto.randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: EXTERNAL_ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(EXTERNAL_ADMIN_URL);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: EXTERNAL_ADMIN_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
      await c.end();
    },
  };
}

export function tempDir(prefix = 'cas-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** A local identity provider: an RS256 key pair and a JWKS endpoint on loopback. */
export class TestIdp {
  readonly projectId = 'test-project';
  readonly issuer = `https://securetoken.google.com/test-project`;
  private server!: http.Server;
  jwksUrl = '';
  kid = 'key-1';
  private privateKey!: CryptoKey;
  private jwks: { keys: JWK[] } = { keys: [] };
  jwksRequests = 0;

  static async start(): Promise<TestIdp> {
    const idp = new TestIdp();
    await idp.rotate('key-1');
    idp.server = http.createServer((req, res) => {
      idp.jwksRequests++;
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'public, max-age=60' });
      res.end(JSON.stringify(idp.jwks));
    });
    await new Promise<void>((r) => idp.server.listen(0, '127.0.0.1', r));
    idp.jwksUrl = `http://127.0.0.1:${(idp.server.address() as { port: number }).port}/jwks`;
    return idp;
  }

  /** Replaces the signing key (new kid) and publishes only the new public key. */
  async rotate(kid: string): Promise<void> {
    const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
    this.privateKey = privateKey as CryptoKey;
    this.kid = kid;
    const jwk = await exportJWK(publicKey);
    this.jwks = { keys: [{ ...jwk, kid, alg: 'RS256', use: 'sig' }] };
  }

  async publicKeyPem(): Promise<string> {
    const jwk = this.jwks.keys[0];
    const key = crypto.createPublicKey({ key: jwk as Parameters<typeof crypto.createPublicKey>[0] extends infer K ? K extends { format: 'jwk'; key: infer J } ? J : never : never, format: 'jwk' });
    return key.export({ type: 'spki', format: 'pem' }).toString();
  }

  env(): Record<string, string> {
    return { IDP_PROJECT_ID: this.projectId, IDP_ISSUER: this.issuer, IDP_JWKS_URL: this.jwksUrl };
  }

  async token(
    claims: { sub?: string; email?: string; name?: string; [k: string]: unknown } = {},
    opts: { expiresIn?: string | number; audience?: string; issuer?: string; kid?: string; iat?: number } = {},
  ): Promise<string> {
    const { sub = `user-${crypto.randomBytes(4).toString('hex')}`, ...rest } = claims;
    let jwt = new SignJWT({ ...rest })
      .setProtectedHeader({ alg: 'RS256', kid: opts.kid ?? this.kid, typ: 'JWT' })
      .setSubject(sub)
      .setAudience(opts.audience ?? this.projectId)
      .setIssuer(opts.issuer ?? this.issuer)
      .setExpirationTime(opts.expiresIn ?? '1h');
    jwt = opts.iat !== undefined ? jwt.setIssuedAt(opts.iat) : jwt.setIssuedAt();
    return jwt.sign(this.privateKey);
  }

  async stop(): Promise<void> {
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

export interface TestResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface TestService {
  url: string;
  service: Service;
  dataDir: string;
  request<T = any>(method: string, p: string, opts?: { body?: unknown; token?: string; headers?: Record<string, string>; form?: FormData }): Promise<TestResponse<T>>;
  stop(): Promise<void>;
}

export interface TestServiceOptions extends StartOptions {
  db?: DbMode;
  env?: Record<string, string>;
  dataDir?: string;
}

const TEMPLATE_ROOT = path.join(path.dirname(new URL(import.meta.url).pathname), '../../.cache/pg-template');

/**
 * An embedded PostgreSQL data directory with the schema (ours and pg-boss's) already in place,
 * made once and copied into each test's DATA_DIR: initdb and migrations dominate a test service's
 * start. Keyed by the migrations' content so a schema change makes a new template.
 */
async function embeddedTemplate(): Promise<string> {
  const migrations = path.join(path.dirname(new URL(import.meta.url).pathname), '../../src/store/migrations');
  const hash = crypto.createHash('sha256');
  for (const f of fs.readdirSync(migrations).sort()) hash.update(fs.readFileSync(path.join(migrations, f)));
  const dir = path.join(TEMPLATE_ROOT, hash.digest('hex').slice(0, 16));
  if (fs.existsSync(path.join(dir, 'postgres', 'PG_VERSION'))) return dir;
  fs.mkdirSync(TEMPLATE_ROOT, { recursive: true });
  const building = fs.mkdtempSync(path.join(TEMPLATE_ROOT, 'building-'));
  const config = loadConfig({ DATA_DIR: building, SERVICE_ENV: 'test', WORKER_ENABLED: 'false' });
  const service = await startService(config, { http: false, workers: false, log: pino({ level: 'silent' }) });
  await service.stop();
  for (const f of ['service.lock', 'blobs']) fs.rmSync(path.join(building, f), { recursive: true, force: true });
  try {
    fs.renameSync(building, dir);
  } catch {
    // Another test process built it first.
    fs.rmSync(building, { recursive: true, force: true });
  }
  return dir;
}

/** Starts the service with test defaults; the database is fresh for each call. */
export async function startTestService(opts: TestServiceOptions = {}): Promise<TestService> {
  const dataDir = opts.dataDir ?? tempDir();
  if (opts.db !== 'external' && !opts.dataDir) {
    // cp -a keeps the postgres user's ownership and the 0700 mode the server insists on.
    execFileSync('cp', ['-a', path.join(await embeddedTemplate(), 'postgres'), path.join(dataDir, 'postgres')]);
  }
  let dropDb: (() => Promise<void>) | null = null;
  const env: Record<string, string> = {
    SERVICE_ENV: 'test',
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    WORKER_ENABLED: 'false',
    ...opts.env,
  };
  if (opts.db === 'external') {
    const ext = await createExternalDatabase();
    env.DATABASE_URL = ext.url;
    dropDb = ext.drop;
  }
  const config = loadConfig(env);
  const service = await startService(config, {
    log: pino({ level: env.LOG_LEVEL }),
    queue: { pollingIntervalSeconds: 0.5, maintenanceIntervalSeconds: 5, ...opts.queue },
    ...opts,
  });
  const url = service.url!;
  return {
    url,
    service,
    dataDir,
    async request(method, p, o = {}) {
      const headers: Record<string, string> = { ...o.headers };
      if (o.token) headers.authorization = `Bearer ${o.token}`;
      let body: FormData | string | undefined;
      if (o.form) body = o.form;
      else if (o.body !== undefined) {
        headers['content-type'] ??= 'application/json';
        body = typeof o.body === 'string' ? o.body : JSON.stringify(o.body);
      }
      const sent = Date.now();
      // A failure below HTTP (a reset connection) says nothing of the request on its own: the
      // route and how long it had been running tell an idle-limit answer from a crash or a race.
      const res = await fetch(`${url}${p}`, { method, headers, body }).catch((err: Error) => {
        throw new Error(`${method} ${p.split('?')[0]} failed after ${Date.now() - sent} ms: ${err.message} (${(err.cause as Error | undefined)?.message ?? 'no cause'})`, { cause: err });
      });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        /* not JSON */
      }
      return { status: res.status, headers: res.headers, body: parsed as any, text };
    },
    async stop() {
      await service.stop();
      if (dropDb) await dropDb();
      if (!opts.dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The database modes to run a suite against: embedded always, external when reachable. */
export async function dbModes(): Promise<DbMode[]> {
  if (await externalDbAvailable()) return ['embedded', 'external'];
  // CI machines run PostgreSQL; a silent skip there would hide half the suite.
  if (process.env.CI) throw new Error(`the external PostgreSQL at ${EXTERNAL_ADMIN_URL} does not answer`);
  return ['embedded'];
}

/** Multipart form with an audio file and optional metadata as a JSON file part (browsers' FormData with a Blob); test/http/upload-wire.test.ts sends the other forms clients use. */
export function uploadForm(filePath: string, metadata?: unknown, extra: Record<string, string> = {}, fileName?: string, mime?: string): FormData {
  const form = new FormData();
  if (metadata !== undefined) form.append('metadata', new Blob([typeof metadata === 'string' ? metadata : JSON.stringify(metadata)], { type: 'application/json' }), 'metadata.json');
  for (const [k, v] of Object.entries(extra)) form.append(k, v);
  const data = fs.readFileSync(filePath);
  form.append('file', new Blob([data], { type: mime ?? 'application/octet-stream' }), fileName ?? path.basename(filePath));
  return form;
}

/**
 * Polls a call until it reaches a terminal status, however long the machine takes: no wall-clock
 * deadline of its own. The service's stage limits end every call (COMPLETED or FAILED), and the
 * test runner's timeout catches a hang; a fixed wait here only measured how busy the machine was.
 */
export async function waitForCallSettled(t: TestService, callId: string, token?: string): Promise<string> {
  for (;;) {
    const r = await t.request('GET', `/api/calls/${callId}`, { token });
    if (r.status === 200 && (r.body.status === 'COMPLETED' || r.body.status === 'FAILED')) return r.body.status;
    if (r.status !== 200) throw new Error(`call ${callId}: status ${r.status} while waiting`);
    await new Promise((res) => setTimeout(res, 500));
  }
}

/**
 * Polls a call until it reaches a terminal status; like waitForCallSettled, no wall-clock deadline
 * of its own (a deadline here failed tests on a loaded machine while the call was still progressing;
 * the service's job limits end every call and the test runner's timeout catches a hang).
 */
export async function waitForCall(t: TestService, callId: string, token?: string): Promise<string> {
  return waitForCallSettled(t, callId, token);
}

/**
 * A started job queue of its own on the service's database: another worker process, as far as
 * the queue can tell (no retries, short polling). The caller stops it.
 */
export async function anotherQueue(service: Service): Promise<JobQueue> {
  const queue = createJobQueue(service.database.connection, pino({ level: 'silent' }), {
    retryLimit: 0,
    defaultCallJobSeconds: 3600,
    webhooks: { retryLimit: 0, retryDelaySeconds: 1, expireInSeconds: 60 },
    pollingIntervalSeconds: 0.5,
  });
  await queue.start();
  return queue;
}

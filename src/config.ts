// One typed configuration module: every environment variable of the runtime contract plus the
// provider variables this implementation adds, validated at start. A bad value stops the process
// with a message that names the variable (never its value: it may be a secret).
import path from 'node:path';
import { HOLD_POINTS, type HoldPoint } from './pipeline/stages/index.js';

export class ConfigError extends Error {
  constructor(readonly variable: string, problem: string) {
    super(`Invalid configuration: ${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}

export interface PlanCatalog {
  free: { minutesPerMonth: number; transcriptsPerDay: number };
  pro: { priceCents: number; minutesPerMonth: number; overageRatePerMinute: number };
  topups: Array<{ sku: string; minutesGranted: number; transcriptsGranted: number; priceCents: number }>;
}

export interface S3Settings {
  bucket: string;
  /** Null for AWS S3 itself; the URL of any S3-compatible service otherwise. */
  endpoint: string | null;
  region: string;
  /** `https://endpoint/bucket/key` instead of `https://bucket.endpoint/key` (MinIO and most self-hosted servers). */
  forcePathStyle: boolean;
  /** From AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY/AWS_SESSION_TOKEN; null: the SDK's default chain (profile, instance or task role). */
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string } | null;
}

/** Points of processing where a crash test can hold a job (see worker.testHoldAt): the stages' hold points, in order. */
export const HOLD_STAGES: readonly HoldPoint[] = HOLD_POINTS;
export type HoldStage = HoldPoint;

function holdStage(env: Record<string, string | undefined>, serviceEnv: string): HoldStage | null {
  const v = env.TEST_HOLD_AT_STAGE?.trim();
  if (!v) return null;
  if (serviceEnv !== 'test') throw new ConfigError('TEST_HOLD_AT_STAGE', 'is a test-only setting and is refused unless SERVICE_ENV=test');
  if (!(HOLD_STAGES as readonly string[]).includes(v)) throw new ConfigError('TEST_HOLD_AT_STAGE', `must be one of ${HOLD_STAGES.join(', ')}`);
  return v as HoldStage;
}

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | null;
  /**
   * DATABASE_REQUEST_STATEMENT_TIMEOUT_MS: PostgreSQL cancels a statement of an HTTP request
   * handler running longer than this (503 service_unavailable); 0: no limit. Jobs, sweeps,
   * migrations and account deletion have none.
   */
  databaseRequestStatementTimeoutMs: number;
  /** Where audio is stored: DATA_DIR/blobs (one machine) or an S3-compatible bucket (many). */
  blobStore: { kind: 'fs' } | { kind: 's3'; s3: S3Settings };
  serviceEnv: 'development' | 'production' | 'test';
  isProduction: boolean;
  auth: {
    projectId: string | null;
    issuer: string | null;
    jwksUrl: string;
    clientEmail: string | null;
    privateKey: string | null;
    /** Seconds of clock skew tolerated on exp/iat/nbf. */
    clockToleranceSeconds: number;
  };
  apiKey: string | null;
  /**
   * The identity provider's public web configuration, for the console's sign-in (Identity Toolkit
   * REST protocol): IDP_WEB_API_KEY, and the endpoints (overridable for a local stand-in).
   */
  consoleIdentity: { apiKey: string; authUrl: string; tokenUrl: string } | null;
  /** CONSOLE_ENABLED: serve the web console at `/`. */
  consoleEnabled: boolean;
  adminEmails: string[];
  localUser: { email: string; name: string; externalId: string };
  limits: {
    maxFileSize: number;
    maxUploadsPerHour: number;
    maxConcurrentActiveCalls: number;
    maxMonthlyUploadBytes: number;
  };
  /** Uploads while their body arrives (src/domain/upload-slots.ts, src/http/upload-body-guard.ts). */
  uploads: {
    /** Uploads whose body is still arriving, per user, across all processes. */
    maxInFlight: number;
    /** An upload body that sends no byte for this long is cut (408). */
    idleTimeoutSeconds: number;
    /** An upload body not received in full within this long is cut (408). */
    timeoutSeconds: number;
  };
  /** A socket with no traffic either way for this long is closed (Fastify's connectionTimeout). */
  httpIdleTimeoutSeconds: number;
  voice: {
    enabled: boolean;
    consentVersion: string;
    sampleMinSeconds: number;
    sampleMaxSeconds: number;
    sampleMaxSizeMb: number;
    /**
     * Samples of one user that may reach decoding in a rolling hour (each an ffmpeg decode and about
     * a second of embedding CPU in the API process), counted in the database across all processes.
     */
    maxEnrolmentsPerHour: number;
    provider: 'embedded' | 'embedded-fused' | 'embedded-stats' | 'embedded-lda' | 'onnx';
    modelPath: string | null;
    /** Downloaded once into DATA_DIR/models when the model file is missing (docs/voice-embedders.md). */
    modelUrl: string | null;
    /** Lower-case hex sha256 the model file must have. */
    modelSha256: string | null;
    modelDir: string;
    matchThreshold: number | null;
  };
  plans: PlanCatalog;
  worker: {
    /** Run pipeline jobs in this process (the default); `--worker-only` runs jobs without HTTP. */
    enabled: boolean;
    concurrency: number;
    /**
     * The least time a job may run before the queue presumes its worker dead and retries it; a
     * call's own limit grows with its audio (see src/domain/job-time-limit.ts).
     */
    jobTimeoutSeconds: number;
    /** Seconds a job may run per second of its call's audio (the per-call limit above the floor). */
    jobSecondsPerAudioSecond: number;
    retryLimit: number;
    /** Delay before the first retry of a failed or abandoned job; each further retry waits about twice as long. */
    retryDelaySeconds: number;
    /** How often the queue looks for jobs whose worker died (expired jobs) and retries them. */
    maintenanceIntervalSeconds: number;
    maxAudioSeconds: number;
    /**
     * Test-only (TEST_HOLD_AT_STAGE, refused unless SERVICE_ENV=test): the job stops for good at
     * this point, so a crash test can kill the process exactly there.
     */
    testHoldAt: HoldStage | null;
  };
  transcription: {
    provider: 'pocketsphinx' | 'openai' | 'whisper';
    openai: {
      baseUrl: string;
      apiKey: string | null;
      model: string;
      timeoutMs: number;
      audioFormat: 'flac' | 'mp3' | 'opus';
      maxRequestBytes: number;
      maxChunkSeconds: number;
      concurrency: number;
      chunkRetries: number;
      retryDelayMs: number;
    };
    whisper: { modelPath: string; modelUrl: string | null; modelSha256: string | null; language: string };
  };
  analysis: {
    provider: 'embedded' | 'openai';
    openai: { baseUrl: string; apiKey: string | null; model: string; timeoutMs: number; contextTokens: number };
  };
  webhooks: {
    /** Retries after the first attempt; pg-boss spaces them with exponential backoff from retryDelaySeconds. */
    retryLimit: number;
    retryDelaySeconds: number;
    timeoutMs: number;
    /** Plain http on loopback and private network addresses: development and test only by default. */
    allowPrivateNetworks: boolean;
    maxEndpointsPerUser: number;
  };
  logLevel: string;
  /** GET /metrics (Prometheus): off unless METRICS_ENABLED; METRICS_TOKEN, when set, is required as a bearer token (mandatory in production). */
  metrics: { enabled: boolean; token: string | null };
}

type Env = Record<string, string | undefined>;

function str(env: Env, name: string): string | null {
  const v = env[name];
  return v === undefined || v.trim() === '' ? null : v.trim();
}

function int(env: Env, name: string, def: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const v = str(env, name);
  if (v === null) return def;
  if (!/^-?\d+$/.test(v)) throw new ConfigError(name, 'must be an integer');
  const n = Number(v);
  if (n < min || n > max) throw new ConfigError(name, `must be between ${min} and ${max}`);
  return n;
}

function num(env: Env, name: string, def: number, min: number, max: number): number {
  const v = str(env, name);
  if (v === null) return def;
  const n = Number(v);
  if (!Number.isFinite(n) || n < min || n > max) throw new ConfigError(name, `must be a number between ${min} and ${max}`);
  return n;
}

function bool(env: Env, name: string, def: boolean): boolean {
  const v = str(env, name);
  if (v === null) return def;
  if (/^(true|1|yes|on)$/i.test(v)) return true;
  if (/^(false|0|no|off)$/i.test(v)) return false;
  throw new ConfigError(name, 'must be true or false');
}

function oneOf<T extends string>(env: Env, name: string, values: readonly T[], def: T): T {
  const v = str(env, name);
  if (v === null) return def;
  if (!(values as readonly string[]).includes(v)) throw new ConfigError(name, `must be one of ${values.join(', ')}`);
  return v as T;
}

function url(env: Env, name: string, def: string | null, protocols = ['http:', 'https:']): string | null {
  const v = str(env, name) ?? def;
  if (v === null) return null;
  try {
    const u = new URL(v);
    if (!protocols.includes(u.protocol)) throw new Error();
  } catch {
    throw new ConfigError(name, `must be a URL (${protocols.join(' or ')})`);
  }
  return v;
}

function sha256Hex(env: Env, name: string): string | null {
  const v = str(env, name);
  if (v === null) return null;
  if (!/^[0-9a-fA-F]{64}$/.test(v)) throw new ConfigError(name, 'must be a sha256 digest (64 hex digits)');
  return v.toLowerCase();
}

function awsCredentials(env: Env): S3Settings['credentials'] {
  const accessKeyId = str(env, 'AWS_ACCESS_KEY_ID');
  const secretAccessKey = str(env, 'AWS_SECRET_ACCESS_KEY');
  if (!accessKeyId && !secretAccessKey) return null;
  if (!accessKeyId || !secretAccessKey) throw new ConfigError(accessKeyId ? 'AWS_SECRET_ACCESS_KEY' : 'AWS_ACCESS_KEY_ID', 'must be set together with the other AWS key variable');
  const sessionToken = str(env, 'AWS_SESSION_TOKEN');
  return sessionToken ? { accessKeyId, secretAccessKey, sessionToken } : { accessKeyId, secretAccessKey };
}

function metricsSettings(env: Env, isProduction: boolean): Config['metrics'] {
  const enabled = bool(env, 'METRICS_ENABLED', false);
  const token = str(env, 'METRICS_TOKEN');
  if (token !== null && token.length < 16) throw new ConfigError('METRICS_TOKEN', 'must be at least 16 characters');
  if (enabled && isProduction && token === null) {
    throw new ConfigError('METRICS_TOKEN', 'is required when METRICS_ENABLED=true and SERVICE_ENV=production (the scrape endpoint is not left open)');
  }
  return { enabled, token };
}

export function loadConfig(env: Env = process.env): Config {
  const serviceEnv = oneOf(env, 'SERVICE_ENV', ['development', 'production', 'test'] as const, 'development');
  const isProduction = serviceEnv === 'production';
  const projectId = str(env, 'IDP_PROJECT_ID');
  if (isProduction && !projectId) {
    throw new ConfigError('IDP_PROJECT_ID', 'is required when SERVICE_ENV=production (the local development user is never used in production)');
  }
  const privateKey = str(env, 'IDP_PRIVATE_KEY');
  const clientEmail = str(env, 'IDP_CLIENT_EMAIL');
  if (Boolean(privateKey) !== Boolean(clientEmail)) {
    throw new ConfigError(privateKey ? 'IDP_CLIENT_EMAIL' : 'IDP_PRIVATE_KEY', 'must be set together with the other service-account variable');
  }
  const dataDir = path.resolve(str(env, 'DATA_DIR') ?? './data');
  const voiceMin = int(env, 'SERVICE_VOICE_SAMPLE_MIN_SECONDS', 5, 1, 3600);
  const voiceMax = int(env, 'SERVICE_VOICE_SAMPLE_MAX_SECONDS', 120, 1, 3600);
  if (voiceMax < voiceMin) throw new ConfigError('SERVICE_VOICE_SAMPLE_MAX_SECONDS', 'must not be below SERVICE_VOICE_SAMPLE_MIN_SECONDS');
  const threshold = str(env, 'VOICE_MATCH_THRESHOLD');
  const blobKind = oneOf(env, 'BLOB_STORE', ['fs', 's3'] as const, 'fs');
  let blobStore: Config['blobStore'] = { kind: 'fs' };
  if (blobKind === 's3') {
    const bucket = str(env, 'S3_BUCKET');
    if (!bucket) throw new ConfigError('S3_BUCKET', 'is required when BLOB_STORE=s3');
    if (!/^[a-z0-9][a-z0-9._-]{1,61}[a-z0-9]$/.test(bucket)) throw new ConfigError('S3_BUCKET', 'must be a bucket name (3 to 63 lowercase letters, digits, dots, hyphens and underscores)');
    blobStore = {
      kind: 's3',
      s3: {
        bucket,
        endpoint: url(env, 'S3_ENDPOINT', null),
        // Credentials and the region follow the AWS SDK's standard variables when S3_REGION is unset.
        region: str(env, 'S3_REGION') ?? str(env, 'AWS_REGION') ?? str(env, 'AWS_DEFAULT_REGION') ?? 'us-east-1',
        forcePathStyle: bool(env, 'S3_FORCE_PATH_STYLE', false),
        credentials: awsCredentials(env),
      },
    };
  }

  return {
    port: int(env, 'PORT', 8080, 0, 65535),
    host: str(env, 'HOST') ?? '0.0.0.0',
    dataDir,
    databaseUrl: url(env, 'DATABASE_URL', null, ['postgres:', 'postgresql:']),
    databaseRequestStatementTimeoutMs: int(env, 'DATABASE_REQUEST_STATEMENT_TIMEOUT_MS', 30_000, 0, 3_600_000),
    blobStore,
    serviceEnv,
    isProduction,
    auth: {
      projectId,
      issuer: str(env, 'IDP_ISSUER') ?? (projectId ? `https://securetoken.google.com/${projectId}` : null),
      jwksUrl: url(env, 'IDP_JWKS_URL', 'https://www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com')!,
      clientEmail,
      privateKey: privateKey?.replace(/\\n/g, '\n') ?? null,
      clockToleranceSeconds: int(env, 'IDP_CLOCK_TOLERANCE_SECONDS', 30, 0, 300),
    },
    apiKey: str(env, 'SERVICE_API_KEY'),
    consoleIdentity: str(env, 'IDP_WEB_API_KEY')
      ? {
          apiKey: str(env, 'IDP_WEB_API_KEY')!,
          authUrl: url(env, 'IDP_WEB_AUTH_URL', 'https://identitytoolkit.googleapis.com')!,
          tokenUrl: url(env, 'IDP_WEB_TOKEN_URL', 'https://securetoken.googleapis.com')!,
        }
      : null,
    consoleEnabled: bool(env, 'CONSOLE_ENABLED', true),
    adminEmails: (str(env, 'SERVICE_ADMIN_ALLOWED_EMAILS') ?? '')
      .split(',')
      .map((e) => e.trim().toLowerCase())
      .filter(Boolean),
    localUser: {
      email: str(env, 'SERVICE_LOCAL_USER_EMAIL') ?? 'local@localhost',
      name: str(env, 'SERVICE_LOCAL_USER_NAME') ?? 'Local User',
      externalId: 'local-user',
    },
    limits: {
      maxFileSize: int(env, 'MAX_FILE_SIZE', 52428800, 1),
      maxUploadsPerHour: int(env, 'SERVICE_MAX_UPLOADS_PER_HOUR', 30, 0),
      maxConcurrentActiveCalls: int(env, 'SERVICE_MAX_CONCURRENT_ACTIVE_CALLS', 5, 0),
      maxMonthlyUploadBytes: int(env, 'SERVICE_MAX_MONTHLY_UPLOAD_BYTES', 2147483648, 0),
    },
    uploads: {
      maxInFlight: int(env, 'SERVICE_MAX_UPLOADS_IN_FLIGHT', 3, 1, 1000),
      idleTimeoutSeconds: int(env, 'UPLOAD_IDLE_TIMEOUT_SECONDS', 30, 1, 3600),
      timeoutSeconds: int(env, 'UPLOAD_TIMEOUT_SECONDS', 900, 5, 24 * 3600),
    },
    httpIdleTimeoutSeconds: int(env, 'HTTP_IDLE_TIMEOUT_SECONDS', 120, 5, 3600),
    voice: {
      enabled: bool(env, 'SERVICE_VOICE_EMBEDDING_ENABLED', true),
      consentVersion: str(env, 'SERVICE_VOICE_CONSENT_VERSION') ?? 'v1',
      sampleMinSeconds: voiceMin,
      sampleMaxSeconds: voiceMax,
      sampleMaxSizeMb: int(env, 'SERVICE_VOICE_SAMPLE_MAX_SIZE_MB', 10, 1, 1024),
      maxEnrolmentsPerHour: int(env, 'SERVICE_MAX_VOICE_ENROLMENTS_PER_HOUR', 10, 1, 100_000),
      provider: oneOf(env, 'VOICE_EMBEDDING_PROVIDER', ['embedded', 'embedded-fused', 'embedded-stats', 'embedded-lda', 'onnx'] as const, 'embedded'),
      modelPath: str(env, 'VOICE_EMBEDDING_MODEL_PATH'),
      modelUrl: url(env, 'VOICE_EMBEDDING_MODEL_URL', null),
      modelSha256: sha256Hex(env, 'VOICE_EMBEDDING_MODEL_SHA256'),
      modelDir: path.join(dataDir, 'models'),
      matchThreshold: threshold === null ? null : num(env, 'VOICE_MATCH_THRESHOLD', 0, 0, 1),
    },
    plans: {
      free: {
        minutesPerMonth: int(env, 'PLAN_FREE_MINUTES_PER_MONTH', 60, 0),
        transcriptsPerDay: int(env, 'PLAN_FREE_TRANSCRIPTS_PER_DAY', 5, 0),
      },
      pro: {
        priceCents: int(env, 'PLAN_PRO_PRICE_CENTS', 999, 0),
        minutesPerMonth: int(env, 'PLAN_PRO_MINUTES_PER_MONTH', 1200, 0),
        overageRatePerMinute: num(env, 'PLAN_PRO_OVERAGE_RATE_PER_MINUTE', 0.05, 0, 1000),
      },
      topups: [
        { sku: 'topup_60_minutes', minutesGranted: 60, transcriptsGranted: 0, priceCents: 299 },
        { sku: 'topup_300_minutes', minutesGranted: 300, transcriptsGranted: 0, priceCents: 999 },
        { sku: 'topup_10_transcripts', minutesGranted: 0, transcriptsGranted: 10, priceCents: 199 },
      ],
    },
    worker: {
      enabled: bool(env, 'WORKER_ENABLED', true),
      concurrency: int(env, 'WORKER_CONCURRENCY', 1, 1, 64),
      jobTimeoutSeconds: int(env, 'WORKER_JOB_TIMEOUT_SECONDS', 1800, 5),
      jobSecondsPerAudioSecond: num(env, 'WORKER_JOB_SECONDS_PER_AUDIO_SECOND', 1, 0.05, 100),
      retryLimit: int(env, 'WORKER_RETRY_LIMIT', 3, 0, 20),
      retryDelaySeconds: int(env, 'WORKER_RETRY_DELAY_SECONDS', 5, 1, 3600),
      maintenanceIntervalSeconds: int(env, 'WORKER_MAINTENANCE_INTERVAL_SECONDS', 30, 1, 3600),
      maxAudioSeconds: int(env, 'MAX_AUDIO_SECONDS', 4 * 3600, 1),
      testHoldAt: holdStage(env, serviceEnv),
    },
    transcription: {
      provider: oneOf(env, 'TRANSCRIPTION_PROVIDER', ['pocketsphinx', 'openai', 'whisper'] as const, 'pocketsphinx'),
      openai: {
        baseUrl: url(env, 'TRANSCRIPTION_OPENAI_BASE_URL', 'https://api.openai.com')!,
        apiKey: str(env, 'TRANSCRIPTION_OPENAI_API_KEY'),
        model: str(env, 'TRANSCRIPTION_OPENAI_MODEL') ?? 'whisper-1',
        timeoutMs: int(env, 'TRANSCRIPTION_OPENAI_TIMEOUT_MS', 300000, 1000),
        audioFormat: oneOf(env, 'TRANSCRIPTION_OPENAI_AUDIO_FORMAT', ['flac', 'mp3', 'opus'] as const, 'flac'),
        maxRequestBytes: int(env, 'TRANSCRIPTION_OPENAI_MAX_REQUEST_BYTES', 24_000_000, 100_000),
        maxChunkSeconds: int(env, 'TRANSCRIPTION_OPENAI_MAX_CHUNK_SECONDS', 600, 30, 24 * 3600),
        concurrency: int(env, 'TRANSCRIPTION_OPENAI_CONCURRENCY', 3, 1, 32),
        chunkRetries: int(env, 'TRANSCRIPTION_OPENAI_CHUNK_RETRIES', 3, 0, 10),
        retryDelayMs: int(env, 'TRANSCRIPTION_OPENAI_RETRY_DELAY_MS', 1000, 0, 600_000),
      },
      whisper: {
        modelPath: path.resolve(str(env, 'WHISPER_MODEL_PATH') ?? path.join(dataDir, 'models', 'ggml-base.en.bin')),
        modelUrl: url(env, 'WHISPER_MODEL_URL', null),
        modelSha256: str(env, 'WHISPER_MODEL_SHA256'),
        language: str(env, 'WHISPER_LANGUAGE') ?? 'en',
      },
    },
    analysis: {
      provider: oneOf(env, 'ANALYSIS_PROVIDER', ['embedded', 'openai'] as const, 'embedded'),
      openai: {
        baseUrl: url(env, 'ANALYSIS_OPENAI_BASE_URL', 'https://api.openai.com')!,
        apiKey: str(env, 'ANALYSIS_OPENAI_API_KEY'),
        model: str(env, 'ANALYSIS_OPENAI_MODEL') ?? 'gpt-4o-mini',
        timeoutMs: int(env, 'ANALYSIS_OPENAI_TIMEOUT_MS', 120000, 1000),
        contextTokens: int(env, 'ANALYSIS_OPENAI_CONTEXT_TOKENS', 32768, 4096, 10_000_000),
      },
    },
    webhooks: {
      retryLimit: int(env, 'WEBHOOK_RETRY_LIMIT', 8, 0, 20),
      retryDelaySeconds: int(env, 'WEBHOOK_RETRY_DELAY_SECONDS', 30, 1, 3600),
      timeoutMs: int(env, 'WEBHOOK_TIMEOUT_MS', 10000, 100, 60000),
      allowPrivateNetworks: bool(env, 'WEBHOOK_ALLOW_PRIVATE_NETWORKS', serviceEnv !== 'production'),
      maxEndpointsPerUser: int(env, 'WEBHOOK_MAX_ENDPOINTS_PER_USER', 10, 1, 100),
    },
    logLevel: str(env, 'LOG_LEVEL') ?? (serviceEnv === 'test' ? 'warn' : 'info'),
    metrics: metricsSettings(env, isProduction),
  };
}

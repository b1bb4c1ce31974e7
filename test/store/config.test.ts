// The typed configuration: every variable of the runtime contract with its default, and bad values
// rejected with a ConfigError that names the variable but never echoes the value (it may be a secret).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { ConfigError, loadConfig } from '../../src/config.js';

/** Asserts that `env` is refused with a ConfigError naming `variable` and not containing `secret`. */
function assertRefused(env: Record<string, string>, variable: string, secret: string) {
  let caught: unknown;
  try {
    loadConfig(env);
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof ConfigError, `${variable}: expected a ConfigError, got ${String(caught)}`);
  assert.equal(caught.variable, variable);
  assert.match(caught.message, new RegExp(`\\b${variable}\\b`));
  assert.ok(!caught.message.includes(secret), `${variable}: the message must not echo the value`);
}

describe('configuration', () => {
  test('defaults of every runtime-contract variable', () => {
    const c = loadConfig({});
    assert.equal(c.port, 8080);
    assert.equal(c.host, '0.0.0.0');
    assert.equal(c.dataDir, path.resolve('./data'));
    assert.equal(c.databaseUrl, null);
    assert.equal(c.serviceEnv, 'development');
    assert.equal(c.isProduction, false);
    assert.equal(c.auth.projectId, null);
    assert.equal(c.auth.issuer, null);
    assert.equal(c.auth.jwksUrl, 'https://www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com');
    assert.equal(c.auth.clientEmail, null);
    assert.equal(c.auth.privateKey, null);
    assert.equal(c.auth.clockToleranceSeconds, 30);
    assert.equal(c.apiKey, null);
    assert.deepEqual(c.adminEmails, []);
    assert.equal(c.localUser.email, 'local@localhost');
    assert.equal(c.localUser.name, 'Local User');
    assert.equal(c.limits.maxFileSize, 52428800);
    assert.equal(c.limits.maxUploadsPerHour, 30);
    assert.equal(c.limits.maxConcurrentActiveCalls, 5);
    assert.equal(c.limits.maxMonthlyUploadBytes, 2147483648);
    assert.equal(c.voice.enabled, true);
    assert.equal(c.voice.consentVersion, 'v1');
    assert.equal(c.voice.sampleMinSeconds, 5);
    assert.equal(c.voice.sampleMaxSeconds, 120);
    assert.equal(c.voice.sampleMaxSizeMb, 10);
  });

  test('blank values count as unset', () => {
    const c = loadConfig({ PORT: '', HOST: '  ', IDP_PROJECT_ID: ' ', SERVICE_API_KEY: '', MAX_FILE_SIZE: '' });
    assert.equal(c.port, 8080);
    assert.equal(c.host, '0.0.0.0');
    assert.equal(c.auth.projectId, null);
    assert.equal(c.apiKey, null);
    assert.equal(c.limits.maxFileSize, 52428800);
  });

  test('every runtime-contract variable is read', () => {
    const c = loadConfig({
      PORT: '9090',
      HOST: '127.0.0.1',
      DATA_DIR: '/tmp/cas-config-test',
      DATABASE_URL: 'postgres://u@db.example:5433/x',
      SERVICE_ENV: 'production',
      IDP_PROJECT_ID: 'proj-1',
      IDP_CLIENT_EMAIL: 'svc@proj-1.example',
      IDP_PRIVATE_KEY: '-----BEGIN PRIVATE KEY-----\\nAAAA\\n-----END PRIVATE KEY-----',
      SERVICE_API_KEY: 'k-123',
      SERVICE_ADMIN_ALLOWED_EMAILS: ' Admin@Example.test, ops@example.test ,,',
      SERVICE_LOCAL_USER_EMAIL: 'me@dev.test',
      SERVICE_LOCAL_USER_NAME: 'Dev Person',
      MAX_FILE_SIZE: '1000',
      SERVICE_MAX_UPLOADS_PER_HOUR: '7',
      SERVICE_MAX_CONCURRENT_ACTIVE_CALLS: '2',
      SERVICE_MAX_MONTHLY_UPLOAD_BYTES: '123456',
      SERVICE_VOICE_EMBEDDING_ENABLED: 'false',
      SERVICE_VOICE_CONSENT_VERSION: 'v7',
      SERVICE_VOICE_SAMPLE_MIN_SECONDS: '3',
      SERVICE_VOICE_SAMPLE_MAX_SECONDS: '30',
      SERVICE_VOICE_SAMPLE_MAX_SIZE_MB: '4',
    });
    assert.equal(c.port, 9090);
    assert.equal(c.host, '127.0.0.1');
    assert.equal(c.dataDir, '/tmp/cas-config-test');
    assert.equal(c.databaseUrl, 'postgres://u@db.example:5433/x');
    assert.equal(c.isProduction, true);
    assert.equal(c.auth.projectId, 'proj-1');
    assert.equal(c.auth.issuer, 'https://securetoken.google.com/proj-1', 'IDP_ISSUER defaults from the project id');
    assert.equal(c.auth.clientEmail, 'svc@proj-1.example');
    assert.equal(c.auth.privateKey, '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----', 'escaped newlines of the PEM are restored');
    assert.equal(c.apiKey, 'k-123');
    assert.deepEqual(c.adminEmails, ['admin@example.test', 'ops@example.test']);
    assert.deepEqual({ email: c.localUser.email, name: c.localUser.name }, { email: 'me@dev.test', name: 'Dev Person' });
    assert.deepEqual(c.limits, { maxFileSize: 1000, maxUploadsPerHour: 7, maxConcurrentActiveCalls: 2, maxMonthlyUploadBytes: 123456 });
    assert.equal(c.voice.enabled, false);
    assert.equal(c.voice.consentVersion, 'v7');
    assert.deepEqual([c.voice.sampleMinSeconds, c.voice.sampleMaxSeconds, c.voice.sampleMaxSizeMb], [3, 30, 4]);

    const withIssuer = loadConfig({ IDP_PROJECT_ID: 'p', IDP_ISSUER: 'https://issuer.example/p', IDP_JWKS_URL: 'http://127.0.0.1:1/jwks' });
    assert.equal(withIssuer.auth.issuer, 'https://issuer.example/p');
    assert.equal(withIssuer.auth.jwksUrl, 'http://127.0.0.1:1/jwks');
  });

  test('booleans accept the usual spellings', () => {
    for (const v of ['true', 'TRUE', '1', 'yes', 'on']) assert.equal(loadConfig({ SERVICE_VOICE_EMBEDDING_ENABLED: v }).voice.enabled, true, v);
    for (const v of ['false', 'False', '0', 'no', 'off']) assert.equal(loadConfig({ SERVICE_VOICE_EMBEDDING_ENABLED: v }).voice.enabled, false, v);
  });

  test('a bad value throws a ConfigError naming the variable, not the value', () => {
    assertRefused({ PORT: 'abc' }, 'PORT', 'abc');
    assertRefused({ PORT: '70000' }, 'PORT', '70000');
    assertRefused({ PORT: '80.5' }, 'PORT', '80.5');
    assertRefused({ MAX_FILE_SIZE: '-1' }, 'MAX_FILE_SIZE', '-1');
    assertRefused({ MAX_FILE_SIZE: '-987654321' }, 'MAX_FILE_SIZE', '987654321');
    assertRefused({ MAX_FILE_SIZE: '0' }, 'MAX_FILE_SIZE', 'FILE_SIZE 0');
    assertRefused({ SERVICE_VOICE_EMBEDDING_ENABLED: 'maybe' }, 'SERVICE_VOICE_EMBEDDING_ENABLED', 'maybe');
    assertRefused({ SERVICE_MAX_UPLOADS_PER_HOUR: 'lots' }, 'SERVICE_MAX_UPLOADS_PER_HOUR', 'lots');
    assertRefused({ SERVICE_MAX_CONCURRENT_ACTIVE_CALLS: '-3' }, 'SERVICE_MAX_CONCURRENT_ACTIVE_CALLS', '-3');
    assertRefused({ SERVICE_MAX_MONTHLY_UPLOAD_BYTES: '1e9' }, 'SERVICE_MAX_MONTHLY_UPLOAD_BYTES', '1e9');
    assertRefused({ SERVICE_ENV: 'staging' }, 'SERVICE_ENV', 'staging');
    assertRefused({ DATABASE_URL: 'mysql://user:hunter2@db.example/x' }, 'DATABASE_URL', 'hunter2');
    assertRefused({ DATABASE_URL: 'not a url s3cr3t' }, 'DATABASE_URL', 's3cr3t');
    assertRefused({ IDP_PROJECT_ID: 'p', IDP_JWKS_URL: 'ftp://keys.example/zzz-secret' }, 'IDP_JWKS_URL', 'zzz-secret');
    assertRefused({ SERVICE_VOICE_SAMPLE_MIN_SECONDS: '0' }, 'SERVICE_VOICE_SAMPLE_MIN_SECONDS', 'SECONDS 0');
    assertRefused({ SERVICE_VOICE_SAMPLE_MIN_SECONDS: '60', SERVICE_VOICE_SAMPLE_MAX_SECONDS: '30' }, 'SERVICE_VOICE_SAMPLE_MAX_SECONDS', '30 ');
    assertRefused({ SERVICE_VOICE_SAMPLE_MAX_SIZE_MB: 'ten' }, 'SERVICE_VOICE_SAMPLE_MAX_SIZE_MB', 'ten');
  });

  test('service-account credentials must come as a pair; the key is never echoed', () => {
    assertRefused({ IDP_PROJECT_ID: 'p', IDP_PRIVATE_KEY: 'PRIVATE-KEY-MATERIAL' }, 'IDP_CLIENT_EMAIL', 'PRIVATE-KEY-MATERIAL');
    assertRefused({ IDP_PROJECT_ID: 'p', IDP_CLIENT_EMAIL: 'svc@p.example' }, 'IDP_PRIVATE_KEY', 'svc@p.example');
  });

  test('production without IDP_PROJECT_ID is refused (the local user is never used in production)', () => {
    assertRefused({ SERVICE_ENV: 'production', SERVICE_API_KEY: 'api-key-xyz' }, 'IDP_PROJECT_ID', 'api-key-xyz');
    assert.doesNotThrow(() => loadConfig({ SERVICE_ENV: 'production', IDP_PROJECT_ID: 'p' }));
    // development and test fall back to the local shortcut
    assert.equal(loadConfig({ SERVICE_ENV: 'test' }).auth.projectId, null);
  });

  test('blob store: the filesystem by default; S3 settings validated, credentials as a pair and never echoed', () => {
    assert.deepEqual(loadConfig({}).blobStore, { kind: 'fs' });
    const s3 = loadConfig({ BLOB_STORE: 's3', S3_BUCKET: 'call-audio', S3_ENDPOINT: 'http://127.0.0.1:9000', S3_FORCE_PATH_STYLE: 'true', AWS_ACCESS_KEY_ID: 'AKID', AWS_SECRET_ACCESS_KEY: 'shh' }).blobStore;
    assert.deepEqual(s3, {
      kind: 's3',
      s3: { bucket: 'call-audio', endpoint: 'http://127.0.0.1:9000', region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'AKID', secretAccessKey: 'shh' } },
    });
    const aws = loadConfig({ BLOB_STORE: 's3', S3_BUCKET: 'call-audio', AWS_REGION: 'eu-west-1' }).blobStore;
    assert.ok(aws.kind === 's3' && aws.s3.region === 'eu-west-1' && aws.s3.endpoint === null && aws.s3.forcePathStyle === false && aws.s3.credentials === null, 'AWS S3 itself, the SDK credential chain');
    assert.equal((loadConfig({ BLOB_STORE: 's3', S3_BUCKET: 'call-audio', AWS_REGION: 'eu-west-1', S3_REGION: 'auto' }).blobStore as { s3: { region: string } }).s3.region, 'auto');
    assertRefused({ BLOB_STORE: 'nfs' }, 'BLOB_STORE', 'nfs');
    assertRefused({ BLOB_STORE: 's3' }, 'S3_BUCKET', 'undefined');
    assertRefused({ BLOB_STORE: 's3', S3_BUCKET: 'Bad Bucket!' }, 'S3_BUCKET', 'Bad Bucket!');
    assertRefused({ BLOB_STORE: 's3', S3_BUCKET: 'ok-bucket', S3_ENDPOINT: 'minio:9000/zz-secret' }, 'S3_ENDPOINT', 'zz-secret');
    assertRefused({ BLOB_STORE: 's3', S3_BUCKET: 'ok-bucket', S3_FORCE_PATH_STYLE: 'sometimes' }, 'S3_FORCE_PATH_STYLE', 'sometimes');
    assertRefused({ BLOB_STORE: 's3', S3_BUCKET: 'ok-bucket', AWS_SECRET_ACCESS_KEY: 'very-secret-key' }, 'AWS_ACCESS_KEY_ID', 'very-secret-key');
    assertRefused({ BLOB_STORE: 's3', S3_BUCKET: 'ok-bucket', AWS_ACCESS_KEY_ID: 'AKIDONLY' }, 'AWS_SECRET_ACCESS_KEY', 'AKIDONLY');
  });

  test('uploads in flight and upload time limits: defaults, values, bad values refused', () => {
    const d = loadConfig({});
    assert.deepEqual(d.uploads, { maxInFlight: 3, idleTimeoutSeconds: 30, timeoutSeconds: 900 });
    assert.equal(d.httpIdleTimeoutSeconds, 120);
    const c = loadConfig({ SERVICE_MAX_UPLOADS_IN_FLIGHT: '5', UPLOAD_IDLE_TIMEOUT_SECONDS: '10', UPLOAD_TIMEOUT_SECONDS: '60', HTTP_IDLE_TIMEOUT_SECONDS: '30' });
    assert.deepEqual(c.uploads, { maxInFlight: 5, idleTimeoutSeconds: 10, timeoutSeconds: 60 });
    assert.equal(c.httpIdleTimeoutSeconds, 30);
    // 0 would mean no cap and no limit: refused, as the old unlimited behaviour is the finding.
    for (const variable of ['SERVICE_MAX_UPLOADS_IN_FLIGHT', 'UPLOAD_IDLE_TIMEOUT_SECONDS', 'UPLOAD_TIMEOUT_SECONDS']) {
      assert.throws(() => loadConfig({ [variable]: '0' }), (err) => err instanceof ConfigError && err.variable === variable);
    }
    assertRefused({ SERVICE_MAX_UPLOADS_IN_FLIGHT: '-3' }, 'SERVICE_MAX_UPLOADS_IN_FLIGHT', '-3');
    assertRefused({ UPLOAD_TIMEOUT_SECONDS: 'never' }, 'UPLOAD_TIMEOUT_SECONDS', 'never');
    assertRefused({ HTTP_IDLE_TIMEOUT_SECONDS: '1' }, 'HTTP_IDLE_TIMEOUT_SECONDS', '1');
  });
});

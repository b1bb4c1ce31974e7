// Authentication against the real service: ID tokens from a local identity provider (RS256, JWKS),
// the service API key, the local development shortcut and the production start-up guard.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateKeyPair, SignJWT } from 'jose';
import { ConfigError, loadConfig } from '../../src/config.js';
import { dbModes, startTestService, tempDir, TestIdp, type TestResponse, type TestService } from '../support/service.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const b64url = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');
const nowSeconds = () => Math.floor(Date.now() / 1000);

/** The error body is exactly {error: {code, message}}: no details, no stack, nothing else. */
function assertError(r: TestResponse, status: number, code: string) {
  assert.equal(r.status, status, r.text);
  assert.deepEqual(Object.keys(r.body), ['error']);
  assert.deepEqual(Object.keys(r.body.error).sort(), ['code', 'message']);
  assert.equal(r.body.error.code, code);
  assert.equal(typeof r.body.error.message, 'string');
  assert.ok(r.body.error.message.length > 0);
  assert.doesNotMatch(r.text, /stack|at .*\.(ts|js):\d+|node_modules/i);
  assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
}

/** Runs `fn` while this process's Date.now() runs `ms` ahead (to let jose's JWKS cooldown pass). */
async function withClockAhead<T>(ms: number, fn: () => Promise<T>): Promise<T> {
  const real = Date.now;
  Date.now = () => real.call(Date) + ms;
  try {
    return await fn();
  } finally {
    Date.now = real;
  }
}

/** Environment of a child process without any of the service's variables of this machine. */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(IDP_|SERVICE_|DATABASE_URL$|PORT$|HOST$|DATA_DIR$|TEST_)/.test(k)) continue;
    env[k] = v;
  }
  return { ...env, ...extra };
}

function runMain(env: NodeJS.ProcessEnv, timeoutMs = 60_000): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.on('data', (d) => (stdout += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`main did not exit within ${timeoutMs} ms`));
    }, timeoutMs);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stderr, stdout });
    });
  });
}

for (const mode of await dbModes()) {
  describe(`ID-token authentication (${mode} database)`, () => {
    let t: TestService;
    let idp: TestIdp;

    before(async () => {
      idp = await TestIdp.start();
      t = await startTestService({ db: mode, env: idp.env() });
    });

    after(async () => {
      await t?.stop();
      await idp?.stop();
    });

    const me = (token?: string, headers?: Record<string, string>) => t.request('GET', '/api/users/me', { token, headers });
    const userRow = (externalUserId: string) =>
      t.service.ctx.database.db.selectFrom('users').selectAll().where('externalUserId', '=', externalUserId).executeTakeFirst();

    test('no Authorization header: 401 auth_missing, on known and unknown /api routes', async () => {
      assertError(await me(), 401, 'auth_missing');
      assertError(await t.request('GET', '/api/calls'), 401, 'auth_missing');
      assertError(await t.request('PATCH', '/api/users/me', { body: { displayName: 'x' } }), 401, 'auth_missing');
      assertError(await t.request('GET', '/api/nope'), 401, 'auth_missing');
      assertError(await t.request('GET', '/api/admin/feature-flags'), 401, 'auth_missing');
    });

    test('other spellings of a route need the token too (percent-encoding, trailing slash)', async () => {
      for (const p of ['/%61pi/users/me', '/api/%75sers/me', '/api/users/me/', '/%61pi/admin/users', '/%61pi/feature-flags']) {
        assertError(await t.request('GET', p), 401, 'auth_missing');
      }
      const token = await idp.token({ sub: 'auth-encoded', email: 'enc@example.test' });
      const r = await t.request('GET', '/%61pi/users/me', { token });
      assert.equal(r.status, 200);
      assert.equal(r.body.externalUserId, 'auth-encoded');
    });

    test('malformed Authorization header: 401 auth_invalid', async () => {
      for (const authorization of ['Basic dXNlcjpwYXNz', 'Bearer', 'Bearer a b', 'Bearer not-a-jwt', 'Bearer a.b.c', 'Token abc']) {
        assertError(await me(undefined, { authorization }), 401, 'auth_invalid');
      }
    });

    test('valid token: 200, the user row is created from the claims with lastLoginAt', async () => {
      const before = Date.now();
      const token = await idp.token({ sub: 'auth-valid-1', email: 'valid@example.test', name: 'Val Id', picture: 'https://img.example/v.png' });
      const r = await me(token);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.externalUserId, 'auth-valid-1');
      assert.equal(r.body.email, 'valid@example.test');
      assert.equal(r.body.displayName, 'Val Id');
      assert.equal(r.body.photoUrl, 'https://img.example/v.png');
      const row = await userRow('auth-valid-1');
      assert.ok(row, 'user row created');
      assert.equal(row.id, r.body.id);
      assert.ok(row.lastLoginAt instanceof Date);
      assert.ok(Math.abs(row.lastLoginAt.getTime() - before) < 60_000, 'lastLoginAt is now');
      assert.equal(r.body.lastLoginAt, row.lastLoginAt.toISOString());

      // the same subject again: the same row, no duplicate; a lower-case "bearer" scheme works too
      const again = await me(undefined, { authorization: `bearer ${token}` });
      assert.equal(again.status, 200);
      assert.equal(again.body.id, r.body.id);
      const n = await t.service.ctx.database.db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).where('externalUserId', '=', 'auth-valid-1').executeTakeFirstOrThrow();
      assert.equal(Number(n.n), 1);
    });

    test('expiry: beyond the 30 s tolerance 401 auth_invalid, within it accepted', async () => {
      const now = nowSeconds();
      const expired = await idp.token({ sub: 'auth-exp-1' }, { expiresIn: now - 60, iat: now - 3600 });
      assertError(await me(expired), 401, 'auth_invalid');
      assert.equal(await userRow('auth-exp-1'), undefined, 'no user row for a rejected token');

      const justExpired = await idp.token({ sub: 'auth-exp-2' }, { expiresIn: now - 10, iat: now - 3600 });
      assert.equal((await me(justExpired)).status, 200);
    });

    test('issued in the future beyond the tolerance: 401', async () => {
      const token = await idp.token({ sub: 'auth-future' }, { iat: nowSeconds() + 600, expiresIn: nowSeconds() + 4200 });
      assertError(await me(token), 401, 'auth_invalid');
      const nbf = await idp.token({ sub: 'auth-nbf', nbf: nowSeconds() + 600 });
      assertError(await me(nbf), 401, 'auth_invalid');
    });

    test('wrong audience or wrong issuer: 401 auth_invalid', async () => {
      assertError(await me(await idp.token({ sub: 'auth-aud' }, { audience: 'other-project' })), 401, 'auth_invalid');
      assertError(await me(await idp.token({ sub: 'auth-iss' }, { issuer: 'https://securetoken.google.com/other-project' })), 401, 'auth_invalid');
      assertError(await me(await idp.token({ sub: 'auth-iss2' }, { issuer: 'https://evil.example/test-project' })), 401, 'auth_invalid');
    });

    test('a key outside the key set: unknown kid and a known kid with a foreign key are 401; no refetch storm', async () => {
      // a token that passes first so the key set is cached
      assert.equal((await me(await idp.token({ sub: 'auth-cache' }))).status, 200);
      const { privateKey } = await generateKeyPair('RS256');
      const claims = { email: 'x@example.test' };
      const sign = (kid: string) =>
        new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' }).setSubject('auth-rogue').setAudience(idp.projectId).setIssuer(idp.issuer).setIssuedAt().setExpirationTime('1h').sign(privateKey);
      const before = idp.jwksRequests;
      assertError(await me(await sign('rogue-kid')), 401, 'auth_invalid');
      assert.ok(idp.jwksRequests <= before + 1, 'at most one refetch for an unknown kid');
      const fetches = idp.jwksRequests;
      assertError(await me(await sign('rogue-kid-2')), 401, 'auth_invalid');
      assertError(await me(await sign('rogue-kid-3')), 401, 'auth_invalid');
      assertError(await me(await sign(idp.kid)), 401, 'auth_invalid');
      // Within the 30 s cooldown after a fetch, more unknown kids do not make the service refetch.
      assert.equal(idp.jwksRequests, fetches);
      assert.equal(await userRow('auth-rogue'), undefined);
    });

    test('alg none: 401 auth_invalid', async () => {
      const now = nowSeconds();
      const payload = { sub: 'auth-none', aud: idp.projectId, iss: idp.issuer, iat: now, exp: now + 3600 };
      for (const header of [{ alg: 'none', typ: 'JWT' }, { alg: 'none', kid: idp.kid }, { alg: 'NONE', kid: idp.kid }]) {
        const token = `${b64url(header)}.${b64url(payload)}.`;
        assertError(await me(token), 401, 'auth_invalid');
      }
      assert.equal(await userRow('auth-none'), undefined);
    });

    test('HS256 signed with the RSA public key as HMAC secret (algorithm confusion): 401', async () => {
      const pem = await idp.publicKeyPem();
      for (const secret of [pem, pem.trim()]) {
        const token = await new SignJWT({ email: 'confused@example.test' })
          .setProtectedHeader({ alg: 'HS256', kid: idp.kid, typ: 'JWT' })
          .setSubject('auth-hs256')
          .setAudience(idp.projectId)
          .setIssuer(idp.issuer)
          .setIssuedAt()
          .setExpirationTime('1h')
          .sign(new TextEncoder().encode(secret));
        assertError(await me(token), 401, 'auth_invalid');
      }
      assert.equal(await userRow('auth-hs256'), undefined);
    });

    test('a tampered payload (valid signature of another payload): 401', async () => {
      const token = await idp.token({ sub: 'auth-tamper', email: 't@example.test' });
      const [h, , s] = token.split('.');
      const forged = `${h}.${b64url({ sub: 'someone-else', aud: idp.projectId, iss: idp.issuer, iat: nowSeconds(), exp: nowSeconds() + 3600 })}.${s}`;
      assertError(await me(forged), 401, 'auth_invalid');
    });

    test('subject: empty sub is 401; user_id is the external id when sub is empty or absent', async () => {
      assertError(await me(await idp.token({ sub: '' })), 401, 'auth_invalid');

      const emptySubWithUserId = await idp.token({ sub: '', user_id: 'auth-uid-1', email: 'uid1@example.test' });
      const r1 = await me(emptySubWithUserId);
      assert.equal(r1.status, 200, r1.text);
      assert.equal(r1.body.externalUserId, 'auth-uid-1');

      // No sub claim at all (jose does not require one): the user_id claim identifies the user.
      const key = (idp as unknown as { privateKey: CryptoKey }).privateKey;
      const noSub = await new SignJWT({ user_id: 'auth-uid-2', email: 'uid2@example.test' })
        .setProtectedHeader({ alg: 'RS256', kid: idp.kid, typ: 'JWT' })
        .setAudience(idp.projectId)
        .setIssuer(idp.issuer)
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(key);
      const r2 = await me(noSub);
      assert.equal(r2.status, 200, r2.text);
      assert.equal(r2.body.externalUserId, 'auth-uid-2');

      // Neither sub nor user_id: 401.
      const anonymous = await new SignJWT({ email: 'anon@example.test' })
        .setProtectedHeader({ alg: 'RS256', kid: idp.kid, typ: 'JWT' })
        .setAudience(idp.projectId)
        .setIssuer(idp.issuer)
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(key);
      assertError(await me(anonymous), 401, 'auth_invalid');
      // A non-string sub is refused too.
      const numericSub = await new SignJWT({ sub: 12345 as unknown as string })
        .setProtectedHeader({ alg: 'RS256', kid: idp.kid, typ: 'JWT' })
        .setAudience(idp.projectId)
        .setIssuer(idp.issuer)
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(key);
      assertError(await me(numericSub), 401, 'auth_invalid');
    });

    test('/api/health and non-/api routes need no token', async () => {
      assert.equal((await t.request('GET', '/api/health')).status, 200);
      assert.equal((await t.request('GET', '/api/health/')).status, 200);
      assert.equal((await t.request('GET', '/openapi.json')).status, 200);
    });

    // Last: it replaces the provider's key.
    test('key rotation: a token with a new kid is accepted once the key set is refetched', async () => {
      const oldToken = await idp.token({ sub: 'auth-rot-old' });
      assert.equal((await me(oldToken)).status, 200);
      await idp.rotate('key-2');
      const newToken = await idp.token({ sub: 'auth-rot-new', email: 'rot@example.test' });
      const fetches = idp.jwksRequests;
      // jose rate-limits refetches on an unknown kid to one per 30 s (cooldown); step past it.
      const r = await withClockAhead(31_000, () => me(newToken));
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.externalUserId, 'auth-rot-new');
      assert.equal(idp.jwksRequests, fetches + 1, 'the key set was fetched again');
      // the refreshed set holds only the new key; another request with it needs no fetch
      assert.equal((await me(await idp.token({ sub: 'auth-rot-new' }))).status, 200);
      assert.equal(idp.jwksRequests, fetches + 1);
      // a token of the retired key is refused now
      assertError(await me(oldToken), 401, 'auth_invalid');
    });
  });

  describe(`service API key and local shortcut (${mode} database)`, () => {
    let t: TestService;
    const KEY = 'test-service-api-key-0123456789';

    before(async () => {
      t = await startTestService({
        db: mode,
        env: { SERVICE_API_KEY: KEY, SERVICE_LOCAL_USER_EMAIL: 'dev@local.test', SERVICE_LOCAL_USER_NAME: 'Dev Local' },
      });
    });

    after(async () => {
      await t?.stop();
    });

    const userCount = async () => Number((await t.service.ctx.database.db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);

    test('missing or wrong X-Service-Api-Key: 401 api_key_invalid', async () => {
      const usersBefore = await userCount();
      assertError(await t.request('GET', '/api/users/me'), 401, 'api_key_invalid');
      assertError(await t.request('GET', '/api/users/me', { headers: { 'x-service-api-key': 'wrong' } }), 401, 'api_key_invalid');
      assertError(await t.request('GET', '/api/users/me', { headers: { 'x-service-api-key': `${KEY}x` } }), 401, 'api_key_invalid');
      assertError(await t.request('GET', '/api/users/me', { headers: { 'x-service-api-key': KEY.slice(0, -1) } }), 401, 'api_key_invalid');
      assertError(await t.request('GET', '/api/users/me', { headers: { 'x-service-api-key': '' } }), 401, 'api_key_invalid');
      assertError(await t.request('PATCH', '/api/users/me', { body: { displayName: 'x' }, headers: { authorization: `Bearer ${KEY}` } }), 401, 'api_key_invalid');
      assertError(await t.request('GET', '/api/nope'), 401, 'api_key_invalid');
      for (const p of ['/%61pi/users/me', '/api/users/me/', '/%61pi/admin/users', '/%61pi/plans']) assertError(await t.request('GET', p), 401, 'api_key_invalid');
      // the rejected requests created no user (not even the local one)
      assert.equal(await userCount(), usersBefore);
      assert.equal(await t.service.ctx.database.db.selectFrom('users').select('id').where('externalUserId', '=', 'local-user').executeTakeFirst(), undefined);
    });

    test('the right key passes; /api/health is exempt', async () => {
      const r = await t.request('GET', '/api/users/me', { headers: { 'x-service-api-key': KEY } });
      assert.equal(r.status, 200, r.text);
      const h = await t.request('GET', '/api/health');
      assert.equal(h.status, 200);
      const h2 = await t.request('GET', '/api/health?probe=1', { headers: { 'x-service-api-key': 'wrong' } });
      assert.equal(h2.status, 200);
      assert.equal((await t.request('GET', '/api/health/')).status, 200);
    });

    test('local shortcut: every request is the configured local user, whatever token it carries', async () => {
      const headers = { 'x-service-api-key': KEY };
      const a = await t.request('GET', '/api/users/me', { headers });
      const b = await t.request('GET', '/api/users/me', { headers: { ...headers, authorization: 'Bearer whatever.not.checked' } });
      assert.equal(a.status, 200);
      assert.equal(b.status, 200);
      assert.equal(a.body.id, b.body.id);
      assert.equal(a.body.email, 'dev@local.test');
      assert.equal(a.body.displayName, 'Dev Local');
      const rows = await t.service.ctx.database.db.selectFrom('users').select(['id', 'email']).where('externalUserId', '=', 'local-user').execute();
      assert.deepEqual(rows, [{ id: a.body.id, email: 'dev@local.test' }]);
    });
  });
}

describe('local shortcut with defaults and the production guard', () => {
  test('without IDP and API key, the default local user answers', async () => {
    const t = await startTestService({ db: (await dbModes()).includes('external') ? 'external' : 'embedded' });
    try {
      const r = await t.request('GET', '/api/users/me');
      assert.equal(r.status, 200);
      assert.equal(r.body.email, 'local@localhost');
      assert.equal(r.body.displayName, 'Local User');
      assert.equal(r.body.externalUserId, 'local-user');
    } finally {
      await t.stop();
    }
  });

  test('loadConfig in production without IDP_PROJECT_ID throws a ConfigError naming it', () => {
    assert.throws(
      () => loadConfig({ SERVICE_ENV: 'production' }),
      (err: unknown) => err instanceof ConfigError && err.variable === 'IDP_PROJECT_ID' && /IDP_PROJECT_ID/.test(err.message),
    );
  });

  test('main exits non-zero with a clear message in production without IDP_PROJECT_ID', async () => {
    const dataDir = tempDir('cas-prod-');
    try {
      const r = await runMain(cleanEnv({ SERVICE_ENV: 'production', DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent' }));
      assert.notEqual(r.code, 0);
      assert.equal(r.signal, null);
      assert.match(r.stderr, /IDP_PROJECT_ID/);
      assert.doesNotMatch(r.stderr, /\n\s+at /, 'a message, not a stack trace');
      // it stopped before touching the data directory
      assert.deepEqual(fs.readdirSync(dataDir), []);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

// The admin surface, the feature flags and the plan catalog against the real service on both
// databases. Non-admins must not be able to tell the admin routes from unknown routes.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { sql } from 'kysely';
import { dbModes, type TestResponse } from '../support/service.js';
import { withIdpService } from '../support/two-users.js';
import { LIMIT_FIELDS } from '../support/spec-fields.js';

const SUMMARY_FIELDS = ['accountStatus', 'accountStatusReason', 'createdAt', 'displayName', 'email', 'id', 'lastLoginAt', 'plan', 'topupMinutesBalance', 'topupTranscriptsBalance'];
const PAGE_FIELDS = ['content', 'empty', 'first', 'last', 'number', 'numberOfElements', 'pageable', 'size', 'sort', 'totalElements', 'totalPages'];
const AUDIT_FIELDS = ['action', 'actorEmail', 'createdAt', 'details', 'id', 'targetId', 'targetType'];
const ISO_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const ADMIN_EMAIL = 'root@admin.example.test';

/** Status, body and content type: what a client can observe of an answer (besides the request id). */
const observable = (r: TestResponse) => ({ status: r.status, body: r.body, type: r.headers.get('content-type') });

for (const mode of await dbModes()) {
  describe(`admin (${mode} database)`, () => {
    let admin: string;
    let user: string;
    let userId: string;

    const t = withIdpService(mode, { env: { SERVICE_ADMIN_ALLOWED_EMAILS: 'ROOT@admin.example.test' } });
    before(async () => {
      admin = await t.idp.token({ sub: 'admin-1', email: ADMIN_EMAIL, name: 'Root', email_verified: true });
      user = await t.idp.token({ sub: 'admin-plain-user', email: 'Plain.User@Example.test', name: 'Plain User' });
      userId = await t.userIdOf(user);
      assert.equal((await t.request('GET', '/api/users/me', { token: admin })).body.isAdmin, true);
    });

    const db = () => t.service.ctx.database.db;
    const auditCount = async () => Number((await db().selectFrom('auditLog').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);

    test('an allow-listed email the provider marks unverified is not an admin', async () => {
      const unverified = await t.idp.token({ sub: 'admin-unverified', email: ADMIN_EMAIL, name: 'Impostor', email_verified: false });
      assert.equal((await t.request('GET', '/api/users/me', { token: unverified })).body.isAdmin, false);
      assert.equal((await t.request('GET', '/api/admin/users', { token: unverified })).status, 404);
      const verified = await t.idp.token({ sub: 'admin-verified', email: ADMIN_EMAIL, name: 'Root 2', email_verified: true });
      assert.equal((await t.request('GET', '/api/admin/users', { token: verified })).status, 200);
    });

    test('an allow-listed email in a token without the email_verified claim is not an admin', async () => {
      // A provider (or a custom-token flow) that says nothing about the email has not verified it:
      // whoever typed the admin's address at sign-up must not get the admin surface.
      const silent = await t.idp.token({ sub: 'admin-no-claim', email: ADMIN_EMAIL, name: 'Impostor 2' });
      assert.equal((await t.request('GET', '/api/users/me', { token: silent })).body.isAdmin, false);
      assert.equal((await t.request('GET', '/api/admin/users', { token: silent })).status, 404);
      assert.equal((await t.request('PATCH', '/api/admin/feature-flags/billing_enabled', { token: silent, body: { enabled: true } })).status, 404);
      const notBoolean = await t.idp.token({ sub: 'admin-string-claim', email: ADMIN_EMAIL, name: 'Impostor 3', email_verified: 'true' });
      assert.equal((await t.request('GET', '/api/admin/users', { token: notBoolean })).status, 404);
    });

    test('email_verified vouches for the email in the same token, not for an address stored from an earlier one', async () => {
      // Signed up with the admin's address, unverified: the account row keeps that address.
      const first = await t.idp.token({ sub: 'admin-stale-row', email: ADMIN_EMAIL, name: 'Impostor 4', email_verified: false });
      assert.equal((await t.request('GET', '/api/admin/users', { token: first })).status, 404);
      // A later token that names no email but says email_verified: true verified nothing of that address.
      const later = await t.idp.token({ sub: 'admin-stale-row', name: 'Impostor 4', email_verified: true });
      assert.equal((await t.request('GET', '/api/users/me', { token: later })).body.isAdmin, false);
      assert.equal((await t.request('GET', '/api/admin/users', { token: later })).status, 404);
    });

    test('a non-admin gets exactly the answer of an unknown route on every admin route, whatever the body', async () => {
      const unknownAdmin = observable(await t.request('GET', '/api/admin/does-not-exist', { token: user }));
      const unknown = observable(await t.request('GET', '/api/nope', { token: user }));
      assert.equal(unknown.status, 404);
      assert.deepEqual(unknownAdmin, unknown);

      const flagsBefore = await db().selectFrom('featureFlags').selectAll().orderBy('flagKey').execute();
      const auditBefore = await auditCount();
      const someone = crypto.randomUUID();
      const probes: Array<{ method: string; path: string; body?: unknown; headers?: Record<string, string> }> = [
        { method: 'GET', path: '/api/admin/feature-flags' },
        { method: 'PATCH', path: '/api/admin/feature-flags/billing_enabled', body: { enabled: true } },
        { method: 'PATCH', path: '/api/admin/feature-flags/billing_enabled', body: { enabled: 'yes please' } },
        { method: 'PATCH', path: '/api/admin/feature-flags/billing_enabled', body: '{"enabled": tru' },
        { method: 'PATCH', path: '/api/admin/feature-flags/billing_enabled', body: '' },
        { method: 'PATCH', path: '/api/admin/feature-flags/no-such-flag', body: { enabled: true } },
        { method: 'GET', path: '/api/admin/users' },
        { method: 'GET', path: '/api/admin/users?page=-1&size=abc&search=x' },
        { method: 'POST', path: `/api/admin/users/${userId}/grant-credits`, body: { minutes: 100 } },
        { method: 'POST', path: `/api/admin/users/${userId}/grant-credits`, body: {} },
        { method: 'POST', path: `/api/admin/users/not-a-uuid/grant-credits`, body: { minutes: 1 } },
        { method: 'POST', path: `/api/admin/users/${someone}/grant-credits`, body: '[[[' },
        { method: 'PATCH', path: `/api/admin/users/${userId}/status`, body: { status: 'SUSPENDED', reason: 'x' } },
        { method: 'PATCH', path: `/api/admin/users/${userId}/status`, body: { status: 'NOPE' } },
        { method: 'PATCH', path: `/api/admin/users/${userId}/plan`, body: { plan: 'PRO' } },
        { method: 'PATCH', path: `/api/admin/users/${userId}/plan`, body: 'not json at all' },
        { method: 'PATCH', path: `/api/admin/users/${userId}/plan`, body: 'plan=PRO', headers: { 'content-type': 'application/x-www-form-urlencoded' } },
        { method: 'GET', path: '/api/admin/audit-log' },
        { method: 'GET', path: '/api/admin/audit-log?size=-5' },
        { method: 'DELETE', path: '/api/admin/feature-flags' },
        { method: 'GET', path: '/api/admin' },
        { method: 'GET', path: '/api/admin/' },
      ];
      for (const p of probes) {
        const got = observable(await t.request(p.method, p.path, { token: user, body: p.body, headers: p.headers }));
        // the same request on a path that does not exist at all
        const ref = observable(await t.request(p.method, `/api/nope/${p.path.slice('/api/admin'.length)}`.replace(/\/+/g, '/'), { token: user, body: p.body, headers: p.headers }));
        assert.deepEqual(got, unknown, `${p.method} ${p.path} ${JSON.stringify(p.body)}`);
        assert.deepEqual(ref, unknown, `reference ${p.method} ${p.path} ${JSON.stringify(p.body)}`);
      }
      // other spellings of the same routes (the router percent-decodes and ignores a trailing slash)
      for (const p of ['/api/%61dmin/users', '/%61pi/admin/users', '/%61pi/%61dmin/audit-log', '/api/admin/feature-flags/', '/api/admin/users?search=%25']) {
        assert.deepEqual(observable(await t.request('GET', p, { token: user })), unknown, p);
      }
      // and without any token they answer like an unknown route without a token
      const anonymousUnknown = observable(await t.request('GET', '/api/nope'));
      assert.equal(anonymousUnknown.status, 401);
      for (const p of ['/api/admin/users', '/%61pi/admin/users', '/api/%61dmin/audit-log', '/%61pi/admin/feature-flags']) {
        assert.deepEqual(observable(await t.request('GET', p)), anonymousUnknown, `anonymous ${p}`);
      }
      assert.deepEqual(await db().selectFrom('featureFlags').selectAll().orderBy('flagKey').execute(), flagsBefore, 'no flag changed');
      assert.equal(await auditCount(), auditBefore, 'no audit entry written');
      const row = await db().selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirstOrThrow();
      assert.deepEqual([row.plan, row.accountStatus, row.topupMinutesBalance], ['FREE', 'ACTIVE', 0]);
    });

    test('GET /api/feature-flags and GET /api/plans are open to any authenticated user', async () => {
      const f = await t.request('GET', '/api/feature-flags', { token: user });
      assert.equal(f.status, 200);
      assert.deepEqual(Object.keys(f.body), ['flags']);
      assert.equal(f.body.flags.billing_enabled, false);
      for (const v of Object.values(f.body.flags)) assert.equal(typeof v, 'boolean');

      const p = await t.request('GET', '/api/plans', { token: user });
      assert.equal(p.status, 200);
      assert.deepEqual(Object.keys(p.body).sort(), ['free', 'pro', 'topups']);
      assert.deepEqual(p.body.free, { minutesPerMonth: 60, transcriptsPerDay: 5 });
      assert.deepEqual(Object.keys(p.body.pro).sort(), ['minutesPerMonth', 'overageRatePerMinute', 'priceCents']);
      assert.equal(p.body.pro.overageRatePerMinute, 0.05);
      assert.ok(Array.isArray(p.body.topups) && p.body.topups.length > 0);
      for (const tp of p.body.topups) {
        assert.deepEqual(Object.keys(tp).sort(), ['minutesGranted', 'priceCents', 'sku', 'transcriptsGranted']);
        assert.equal(typeof tp.sku, 'string');
      }
      // the usage limits of an account on the service's default configuration
      const limits = await t.request('GET', '/api/users/me/limits', { token: user });
      assert.equal(limits.status, 200);
      assert.equal(limits.body.maxUploadsPerHour, 30);
      assert.equal(limits.body.maxConcurrentActiveCalls, 5);
      assert.equal(limits.body.maxMonthlyUploadBytes, 2147483648);
      assert.equal(limits.body.minutesLimit, p.body.free.minutesPerMonth);
      assert.equal(limits.body.dailyTranscriptLimit, p.body.free.transcriptsPerDay);
      assert.equal((await t.request('GET', '/api/plans')).status, 401);
      assert.equal((await t.request('GET', '/api/feature-flags')).status, 401);
    });

    test('admin: GET /api/admin/feature-flags lists the seeded flags as admin records', async () => {
      const r = await t.request('GET', '/api/admin/feature-flags', { token: admin });
      assert.equal(r.status, 200);
      assert.ok(Array.isArray(r.body));
      const billing = r.body.find((f: { flagKey: string }) => f.flagKey === 'billing_enabled');
      assert.deepEqual(billing, { flagKey: 'billing_enabled', enabled: false, updatedAt: null, updatedBy: null });
      for (const f of r.body) assert.deepEqual(Object.keys(f).sort(), ['enabled', 'flagKey', 'updatedAt', 'updatedBy']);
    });

    test('admin: PATCH a flag updates it with the admin email and writes FLAG_TOGGLE; unknown key 404', async () => {
      const before = Date.now();
      const r = await t.request('PATCH', '/api/admin/feature-flags/billing_enabled', { token: admin, body: { enabled: true } });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.flagKey, 'billing_enabled');
      assert.equal(r.body.enabled, true);
      assert.equal(r.body.updatedBy, ADMIN_EMAIL);
      assert.match(r.body.updatedAt, ISO_Z);
      assert.ok(Date.parse(r.body.updatedAt) >= before - 2000);
      assert.equal((await t.request('GET', '/api/feature-flags', { token: user })).body.flags.billing_enabled, true);

      const entry = (await t.request('GET', '/api/admin/audit-log?size=1', { token: admin })).body.content[0];
      assert.equal(entry.action, 'FLAG_TOGGLE');
      assert.equal(entry.targetType, 'feature_flag');
      assert.equal(entry.targetId, 'billing_enabled');
      assert.equal(entry.actorEmail, ADMIN_EMAIL);

      const auditBefore = await auditCount();
      const missing = await t.request('PATCH', '/api/admin/feature-flags/no_such_flag', { token: admin, body: { enabled: true } });
      assert.equal(missing.status, 404);
      assert.equal(missing.body.error.code, 'feature_flag_not_found');
      assert.equal(await db().selectFrom('featureFlags').select('flagKey').where('flagKey', '=', 'no_such_flag').executeTakeFirst(), undefined, 'flags are never created');
      for (const body of [{}, { enabled: 'yes' }, { enabled: null }, { enabled: 1 }, { enabled: [true] }]) {
        const bad = await t.request('PATCH', '/api/admin/feature-flags/billing_enabled', { token: admin, body });
        assert.equal(bad.status, 400, JSON.stringify(body));
        assert.equal(bad.body.error.code, 'validation_failed');
      }
      const malformed = await t.request('PATCH', '/api/admin/feature-flags/billing_enabled', { token: admin, body: '{"enabled": tru' });
      assert.equal(malformed.status, 400, 'an admin gets the real validation answer');
      assert.equal(malformed.body.error.code, 'validation_failed');
      assert.equal(await auditCount(), auditBefore, 'failed requests leave no audit entry');

      const off = await t.request('PATCH', '/api/admin/feature-flags/billing_enabled', { token: admin, body: { enabled: false } });
      assert.equal(off.body.enabled, false);
    });

    test('admin: users paging, clamping, search and every page-envelope field', async () => {
      const tag = crypto.randomBytes(3).toString('hex');
      for (let i = 0; i < 5; i++) {
        const token = await t.idp.token({ sub: `page-${tag}-${i}`, email: `Pager-${tag}-${i}@Example.test`, name: `Pager ${i}` });
        assert.equal((await t.request('GET', '/api/users/me', { token })).status, 200);
      }
      const total = Number((await db().selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);

      const all = await t.request('GET', '/api/admin/users', { token: admin });
      assert.equal(all.status, 200);
      assert.deepEqual(Object.keys(all.body).sort(), PAGE_FIELDS);
      assert.equal(all.body.number, 0);
      assert.equal(all.body.size, 50);
      assert.equal(all.body.totalElements, total);
      assert.equal(all.body.totalPages, 1);
      assert.equal(all.body.numberOfElements, total);
      assert.equal(all.body.content.length, total);
      assert.equal(all.body.first, true);
      assert.equal(all.body.last, true);
      assert.equal(all.body.empty, false);
      assert.deepEqual(all.body.pageable, { pageNumber: 0, pageSize: 50, offset: 0, paged: true, unpaged: false, sort: all.body.sort });
      assert.deepEqual(Object.keys(all.body.sort).sort(), ['empty', 'sorted', 'unsorted']);
      for (const u of all.body.content) {
        assert.deepEqual(Object.keys(u).sort(), SUMMARY_FIELDS);
        assert.match(u.createdAt, ISO_Z);
        assert.match(u.lastLoginAt, ISO_Z);
      }

      const clamped = await t.request('GET', '/api/admin/users?size=500', { token: admin });
      assert.equal(clamped.status, 200);
      assert.equal(clamped.body.size, 200);
      assert.equal(clamped.body.pageable.pageSize, 200);

      // search: case-insensitive substring of the email
      const s = await t.request('GET', `/api/admin/users?search=${encodeURIComponent(`pAgEr-${tag.toUpperCase()}`)}&size=2&page=1`, { token: admin });
      assert.equal(s.status, 200);
      assert.equal(s.body.totalElements, 5);
      assert.equal(s.body.totalPages, 3);
      assert.equal(s.body.number, 1);
      assert.equal(s.body.size, 2);
      assert.equal(s.body.numberOfElements, 2);
      assert.equal(s.body.first, false);
      assert.equal(s.body.last, false);
      assert.equal(s.body.empty, false);
      assert.equal(s.body.pageable.offset, 2);
      for (const u of s.body.content) assert.match(u.email, new RegExp(`^Pager-${tag}-\\d@Example\\.test$`));

      const lastPage = await t.request('GET', `/api/admin/users?search=pager-${tag}&size=2&page=2`, { token: admin });
      assert.equal(lastPage.body.numberOfElements, 1);
      assert.equal(lastPage.body.last, true);
      const beyond = await t.request('GET', `/api/admin/users?search=pager-${tag}&size=2&page=9`, { token: admin });
      assert.equal(beyond.body.empty, true);
      assert.deepEqual(beyond.body.content, []);

      // the three pages hold five different users
      const ids = new Set<string>();
      for (let page = 0; page < 3; page++) {
        for (const u of (await t.request('GET', `/api/admin/users?search=PAGER-${tag}&size=2&page=${page}`, { token: admin })).body.content) ids.add(u.id);
      }
      assert.equal(ids.size, 5);

      // LIKE wildcards in the search are literal characters
      for (const wild of ['%', '_', '\\']) {
        const w = await t.request('GET', `/api/admin/users?search=${encodeURIComponent(wild)}`, { token: admin });
        assert.equal(w.status, 200);
        assert.equal(w.body.totalElements, 0, `search ${wild}`);
      }
      const none = await t.request('GET', '/api/admin/users?search=zz-no-such-email', { token: admin });
      assert.equal(none.body.totalElements, 0);
      assert.equal(none.body.totalPages, 0);
      assert.equal(none.body.empty, true);
      assert.equal(none.body.first, true);
      assert.equal(none.body.last, true);

      for (const q of ['size=0', 'page=-1', 'size=abc']) {
        const bad = await t.request('GET', `/api/admin/users?${q}`, { token: admin });
        assert.equal(bad.status, 400, q);
        assert.equal(bad.body.error.code, 'validation_failed');
      }
    });

    test('admin: grant-credits adds to the balances and returns the limits shape', async () => {
      const path = `/api/admin/users/${userId}/grant-credits`;
      for (const body of [{}, { minutes: 0 }, { minutes: 0, transcripts: 0 }, { minutes: -5 }, { transcripts: -1, minutes: 0 }, { minutes: 1.5 }, { minutes: 'ten' }]) {
        const r = await t.request('POST', path, { token: admin, body });
        assert.equal(r.status, 400, JSON.stringify(body));
        assert.equal(r.body.error.code, 'validation_failed');
      }
      const r1 = await t.request('POST', path, { token: admin, body: { minutes: 30 } });
      assert.equal(r1.status, 200, r1.text);
      assert.deepEqual(Object.keys(r1.body).sort(), LIMIT_FIELDS);
      assert.equal(r1.body.topupMinutesBalance, 30);
      assert.equal(r1.body.topupTranscriptsBalance, 0);
      const r2 = await t.request('POST', path, { token: admin, body: { transcripts: 4, minutes: 0 } });
      assert.equal(r2.body.topupMinutesBalance, 30);
      assert.equal(r2.body.topupTranscriptsBalance, 4);
      const r3 = await t.request('POST', path, { token: admin, body: { minutes: 10, transcripts: 1 } });
      assert.equal(r3.body.topupMinutesBalance, 40);
      assert.equal(r3.body.topupTranscriptsBalance, 5);
      // it is the account's limits, as the account itself sees them
      assert.deepEqual((await t.request('GET', '/api/users/me/limits', { token: user })).body, r3.body);

      const log = (await t.request('GET', '/api/admin/audit-log?size=3', { token: admin })).body.content;
      assert.deepEqual(
        log.map((e: { action: string; targetType: string; targetId: string }) => [e.action, e.targetType, e.targetId]),
        [
          ['CREDIT_GRANT', 'user', userId],
          ['CREDIT_GRANT', 'user', userId],
          ['CREDIT_GRANT', 'user', userId],
        ],
      );

      const unknown = await t.request('POST', `/api/admin/users/${crypto.randomUUID()}/grant-credits`, { token: admin, body: { minutes: 5 } });
      assert.equal(unknown.status, 404);
      assert.equal(unknown.body.error.code, 'user_not_found');
      const badId = await t.request('POST', '/api/admin/users/not-a-uuid/grant-credits', { token: admin, body: { minutes: 5 } });
      assert.equal(badId.status, 400);
    });

    test('admin: status change with a reason is shown to the account; ACTIVE clears the reason', async () => {
      const path = `/api/admin/users/${userId}/status`;
      const r = await t.request('PATCH', path, { token: admin, body: { status: 'SUSPENDED', reason: 'Unusual upload volume' } });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(Object.keys(r.body).sort(), SUMMARY_FIELDS);
      assert.equal(r.body.id, userId);
      assert.equal(r.body.accountStatus, 'SUSPENDED');
      assert.equal(r.body.accountStatusReason, 'Unusual upload volume');
      const p = (await t.request('GET', '/api/users/me', { token: user })).body;
      assert.equal(p.accountStatus, 'SUSPENDED');
      assert.equal(p.accountStatusReason, 'Unusual upload volume');

      const d = await t.request('PATCH', path, { token: admin, body: { status: 'DISABLED', reason: 'Closed on request' } });
      assert.equal(d.body.accountStatus, 'DISABLED');
      assert.equal((await t.request('GET', '/api/users/me', { token: user })).body.accountStatusReason, 'Closed on request');

      const a = await t.request('PATCH', path, { token: admin, body: { status: 'ACTIVE', reason: 'ignored' } });
      assert.equal(a.status, 200);
      assert.equal(a.body.accountStatus, 'ACTIVE');
      assert.equal(a.body.accountStatusReason, null);
      const p2 = (await t.request('GET', '/api/users/me', { token: user })).body;
      assert.equal(p2.accountStatus, 'ACTIVE');
      assert.equal(p2.accountStatusReason, null);

      for (const body of [{}, { status: 'BANNED' }, { status: 'suspended' }, { reason: 'x' }]) {
        const bad = await t.request('PATCH', path, { token: admin, body });
        assert.equal(bad.status, 400, JSON.stringify(body));
      }
      const unknown = await t.request('PATCH', `/api/admin/users/${crypto.randomUUID()}/status`, { token: admin, body: { status: 'ACTIVE' } });
      assert.equal(unknown.status, 404);

      const log = (await t.request('GET', '/api/admin/audit-log?size=3', { token: admin })).body.content;
      assert.deepEqual(
        log.map((e: { action: string; targetId: string }) => [e.action, e.targetId]),
        [
          ['ACCOUNT_STATUS_CHANGE', userId],
          ['ACCOUNT_STATUS_CHANGE', userId],
          ['ACCOUNT_STATUS_CHANGE', userId],
        ],
      );
      assert.match(log[0].details, /ACTIVE/);
      assert.match(log[2].details, /SUSPENDED/);
    });

    test('admin: plan change to FREE or PRO; other values 400', async () => {
      const path = `/api/admin/users/${userId}/plan`;
      const pro = await t.request('PATCH', path, { token: admin, body: { plan: 'PRO' } });
      assert.equal(pro.status, 200, pro.text);
      assert.deepEqual(Object.keys(pro.body).sort(), SUMMARY_FIELDS);
      assert.equal(pro.body.plan, 'PRO');
      assert.equal((await t.request('GET', '/api/users/me', { token: user })).body.plan, 'PRO');
      assert.equal((await t.request('GET', '/api/users/me/limits', { token: user })).body.transcriptsToday, null);
      for (const body of [{ plan: 'ENTERPRISE' }, { plan: 'pro' }, { plan: null }, {}]) {
        const bad = await t.request('PATCH', path, { token: admin, body });
        assert.equal(bad.status, 400, JSON.stringify(body));
        assert.equal(bad.body.error.code, 'validation_failed');
      }
      const free = await t.request('PATCH', path, { token: admin, body: { plan: 'FREE' } });
      assert.equal(free.body.plan, 'FREE');
      const unknown = await t.request('PATCH', `/api/admin/users/${crypto.randomUUID()}/plan`, { token: admin, body: { plan: 'PRO' } });
      assert.equal(unknown.status, 404);
      assert.equal(unknown.body.error.code, 'user_not_found');
    });

    test('admin: the audit log is most recent first, paged, with every field', async () => {
      // a fresh, known sequence on top of what the earlier tests wrote
      await t.request('PATCH', '/api/admin/feature-flags/billing_enabled', { token: admin, body: { enabled: true } });
      await t.request('POST', `/api/admin/users/${userId}/grant-credits`, { token: admin, body: { minutes: 1 } });
      await t.request('PATCH', `/api/admin/users/${userId}/plan`, { token: admin, body: { plan: 'PRO' } });
      await t.request('PATCH', `/api/admin/users/${userId}/status`, { token: admin, body: { status: 'ACTIVE' } });
      await t.request('PATCH', '/api/admin/feature-flags/billing_enabled', { token: admin, body: { enabled: false } });

      const total = await auditCount();
      const r = await t.request('GET', '/api/admin/audit-log', { token: admin });
      assert.equal(r.status, 200);
      assert.deepEqual(Object.keys(r.body).sort(), PAGE_FIELDS);
      assert.equal(r.body.size, 50);
      assert.equal(r.body.totalElements, total);
      const entries = r.body.content;
      assert.deepEqual(
        entries.slice(0, 5).map((e: { action: string; targetType: string; targetId: string }) => [e.action, e.targetType, e.targetId]),
        [
          ['FLAG_TOGGLE', 'feature_flag', 'billing_enabled'],
          ['ACCOUNT_STATUS_CHANGE', 'user', userId],
          ['PLAN_CHANGE', 'user', userId],
          ['CREDIT_GRANT', 'user', userId],
          ['FLAG_TOGGLE', 'feature_flag', 'billing_enabled'],
        ],
      );
      for (const e of entries) {
        assert.deepEqual(Object.keys(e).sort(), AUDIT_FIELDS);
        assert.match(e.id, /^[0-9a-f-]{36}$/);
        assert.equal(e.actorEmail, ADMIN_EMAIL);
        assert.match(e.createdAt, ISO_Z);
        assert.equal(typeof e.details, 'string');
      }
      for (let i = 1; i < entries.length; i++) assert.ok(Date.parse(entries[i - 1].createdAt) >= Date.parse(entries[i].createdAt), 'most recent first');

      const p1 = await t.request('GET', '/api/admin/audit-log?size=2&page=1', { token: admin });
      assert.deepEqual(
        p1.body.content.map((e: { id: string }) => e.id),
        entries.slice(2, 4).map((e: { id: string }) => e.id),
      );
      assert.equal(p1.body.totalPages, Math.ceil(total / 2));
      assert.equal((await t.request('GET', '/api/admin/audit-log?size=1000', { token: admin })).body.size, 200);
    });

    test('the audit log is append-only at the database level', async () => {
      assert.ok((await auditCount()) > 0);
      await assert.rejects(sql`UPDATE audit_log SET details = 'rewritten'`.execute(db()), /append-only/);
      await assert.rejects(sql`DELETE FROM audit_log`.execute(db()), /append-only/);
      await assert.rejects(db().updateTable('auditLog').set({ actorEmail: 'someone@else.test' }).execute(), /append-only/);
      const rewritten = await db().selectFrom('auditLog').select('id').where('details', '=', 'rewritten').execute();
      assert.deepEqual(rewritten, []);
    });
  });
}

// /api/admin/**: feature flags, accounts, credits, plan and the audit log. A caller who is not on
// the admin allowlist gets exactly the answer of an unknown route, so the surface stays hidden.
// Each mutation and its audit entry commit in one transaction.
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { errors } from '../../domain/errors.js';
import { allFlags, auditLogPage, changeAccountStatus, changePlan, grantCredits, listAccounts, toggleFlag } from '../../domain/admin.js';
import { AdminUserSummary, DateTime, Nullable, PageEnvelope, PageQuery, UsageLimitsSchema, Uuid, errorResponses, pageOf } from '../schemas.js';
import { adminSummaryOf } from '../../domain/account.js';
import { computeLimits } from '../../domain/usage.js';
import { userCacheOf } from '../user-cache.js';

const tags = ['Admin'];
const MAX_PAGE_SIZE = 200;

const AdminFlag = Type.Object({ flagKey: Type.String(), enabled: Type.Boolean(), updatedAt: Nullable(DateTime), updatedBy: Nullable(Type.String()) });
const AuditEntrySchema = Type.Object({
  id: Uuid,
  actorEmail: Type.String(),
  action: Type.Union([Type.Literal('FLAG_TOGGLE'), Type.Literal('CREDIT_GRANT'), Type.Literal('ACCOUNT_STATUS_CHANGE'), Type.Literal('PLAN_CHANGE')]),
  targetType: Type.Union([Type.Literal('feature_flag'), Type.Literal('user')]),
  targetId: Type.String(),
  details: Type.String(),
  createdAt: DateTime,
});
const UserIdParams = Type.Object({ userId: Uuid });

function paging(q: { page?: number; size?: number }) {
  const page = q.page ?? 0;
  const size = Math.min(q.size ?? 50, MAX_PAGE_SIZE);
  return { page, size, offset: page * size };
}

export default async function adminRoutes(scope: FastifyInstance, ctx: AppContext) {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const db = ctx.database.requestDb;

  // Non-admins get the same 404 body as an unknown route (see the not-found handler). The check
  // runs at onRequest (after authentication), before the body is parsed or validated, so neither
  // a malformed body nor an unsupported content type reveals the route with a 400 or 415.
  // The hook belongs to this plugin's scope, so it runs for the admin routes only, whatever the
  // spelling of the URL (the raw URL may be percent-encoded).
  app.addHook('onRequest', async (req: FastifyRequest) => {
    if (!req.user?.isAdmin) throw errors.notFound();
  });

  const actor = (req: FastifyRequest) => req.user.email ?? req.user.externalUserId;

  app.get('/api/admin/feature-flags', { schema: { tags, summary: 'All feature flags', response: { 200: Type.Array(AdminFlag), ...errorResponses(404) } } }, async () => {
    return allFlags(db);
  });

  app.patch(
    '/api/admin/feature-flags/:key',
    {
      schema: {
        tags,
        summary: 'Toggle a seeded feature flag (flags are never created here)',
        params: Type.Object({ key: Type.String({ minLength: 1, maxLength: 100 }) }),
        body: Type.Object({ enabled: Type.Boolean() }),
        response: { 200: AdminFlag, ...errorResponses(400, 404) },
      },
    },
    async (req) => toggleFlag(db, actor(req), req.params.key, req.body.enabled),
  );

  app.get(
    '/api/admin/users',
    {
      schema: {
        tags,
        summary: 'Accounts, paged; search is a case-insensitive substring of the email',
        querystring: Type.Intersect([PageQuery, Type.Object({ search: Type.Optional(Type.String({ maxLength: 320 })) })]),
        response: { 200: PageEnvelope(AdminUserSummary), ...errorResponses(400, 404) },
      },
    },
    async (req) => {
      const { page, size, offset } = paging(req.query);
      const { total, rows } = await listAccounts(db, { search: req.query.search, limit: size, offset });
      return pageOf(rows.map(adminSummaryOf), total, page, size);
    },
  );

  app.post(
    '/api/admin/users/:userId/grant-credits',
    {
      schema: {
        tags,
        summary: 'Grant top-up credit (no payment check)',
        description: 'At least one of minutes and transcripts must be positive; 0 or omitted leaves that balance untouched.',
        params: UserIdParams,
        body: Type.Object({ minutes: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })), transcripts: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })) }),
        response: { 200: UsageLimitsSchema, ...errorResponses(400, 404) },
      },
    },
    async (req) => {
      const { userId } = req.params;
      const { minutes = 0, transcripts = 0 } = req.body;
      if (minutes <= 0 && transcripts <= 0) throw errors.validation({ fields: [{ path: '/body', message: 'minutes or transcripts must be positive' }] });
      await grantCredits(db, actor(req), userId, minutes, transcripts);
      userCacheOf(ctx).forget(userId);
      return computeLimits(db, ctx.config, userId);
    },
  );

  app.patch(
    '/api/admin/users/:userId/status',
    {
      schema: {
        tags,
        summary: 'Set the account status; the reason is shown to the account on blocked uploads',
        params: UserIdParams,
        body: Type.Object({
          status: Type.Union([Type.Literal('ACTIVE'), Type.Literal('SUSPENDED'), Type.Literal('DISABLED')]),
          reason: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
        }),
        response: { 200: AdminUserSummary, ...errorResponses(400, 404) },
      },
    },
    async (req) => {
      const user = await changeAccountStatus(db, actor(req), req.params.userId, req.body.status, req.body.reason);
      userCacheOf(ctx).forget(user.id);
      return adminSummaryOf(user);
    },
  );

  app.patch(
    '/api/admin/users/:userId/plan',
    {
      schema: {
        tags,
        summary: 'Change the plan (no payment flow)',
        params: UserIdParams,
        body: Type.Object({ plan: Type.Union([Type.Literal('FREE'), Type.Literal('PRO')]) }),
        response: { 200: AdminUserSummary, ...errorResponses(400, 404) },
      },
    },
    async (req) => {
      const user = await changePlan(db, actor(req), req.params.userId, req.body.plan);
      userCacheOf(ctx).forget(user.id);
      return adminSummaryOf(user);
    },
  );

  app.get(
    '/api/admin/audit-log',
    {
      schema: { tags, summary: 'The audit log, most recent first', querystring: PageQuery, response: { 200: PageEnvelope(AuditEntrySchema), ...errorResponses(400, 404) } },
    },
    async (req) => {
      const { page, size, offset } = paging(req.query);
      const { total, rows } = await auditLogPage(db, { limit: size, offset });
      return pageOf(
        rows.map((r) => ({ ...r, createdAt: r.createdAt.toISOString() })),
        total,
        page,
        size,
      );
    },
  );
}

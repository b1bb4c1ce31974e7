// /api/users/me: profile, consent, limits, statistics and account deletion.
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { errorResponses, UsageLimitsSchema, UserProfile } from '../schemas.js';
import { computeStats, profileOf } from '../../domain/account.js';
import { computeLimits } from '../../domain/usage.js';
import { deleteAccount } from '../../domain/account-deletion.js';
import { updateConsent, updateDisplayName } from '../../store/repos/users.js';
import { errors } from '../../domain/errors.js';
import { userCacheOf } from '../user-cache.js';

const tags = ['Users'];
const VersionString = Type.String({ minLength: 1, maxLength: 64 });

export default async function userRoutes(scope: FastifyInstance, ctx: AppContext) {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  app.get('/api/users/me', { schema: { tags, summary: 'The caller\'s profile', response: { 200: UserProfile, ...errorResponses(401) } } }, async (req) => {
    return profileOf(req.user.row, req.user.isAdmin);
  });

  app.patch(
    '/api/users/me',
    {
      schema: {
        tags,
        summary: 'Change the display name (used to recognise the user in transcripts)',
        body: Type.Object({ displayName: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false }),
        response: { 200: UserProfile, ...errorResponses(400, 401) },
      },
    },
    async (req) => {
      const { displayName } = req.body;
      const trimmed = displayName.trim();
      if (!trimmed) throw errors.validation({ fields: [{ path: '/body/displayName', message: 'must not be blank' }] });
      const user = await updateDisplayName(ctx.database.requestDb, req.user.id, trimmed);
      return profileOf(user, req.user.isAdmin);
    },
  );

  app.patch(
    '/api/users/me/consent',
    {
      schema: {
        tags,
        summary: 'Record accepted consent versions',
        description:
          'Send only the versions the user just accepted. The server stamps each acceptance time itself; a client-supplied time is ignored. Omitted fields stay unchanged; marketingOptIn is independent and unversioned.',
        body: Type.Object(
          {
            privacyPolicyVersion: Type.Optional(VersionString),
            termsVersion: Type.Optional(VersionString),
            callRecordingDisclaimerVersion: Type.Optional(VersionString),
            marketingOptIn: Type.Optional(Type.Boolean()),
          },
          // Unknown keys such as client timestamps are dropped, not rejected.
          { additionalProperties: true },
        ),
        response: { 200: UserProfile, ...errorResponses(400, 401) },
      },
    },
    async (req) => {
      const b = req.body;
      const user = await updateConsent(ctx.database.requestDb, req.user.id, {
        privacyPolicyVersion: b.privacyPolicyVersion,
        termsVersion: b.termsVersion,
        callRecordingDisclaimerVersion: b.callRecordingDisclaimerVersion,
        marketingOptIn: b.marketingOptIn,
      });
      return profileOf(user, req.user.isAdmin);
    },
  );

  app.get(
    '/api/users/me/limits',
    {
      schema: {
        tags,
        summary: 'Usage limits and current usage',
        description: 'Always real numbers, whether or not billing_enabled is on; the flag gates enforcement only.',
        response: { 200: UsageLimitsSchema, ...errorResponses(401) },
      },
    },
    async (req) => computeLimits(ctx.database.requestDb, ctx.config, req.user.id),
  );

  app.get(
    '/api/users/me/stats',
    {
      schema: {
        tags,
        summary: 'User statistics',
        description:
          'callsThisWeek counts calls created since Monday 00:00 UTC. openActionItems counts OPEN and IN_PROGRESS items; overdueActionItems those of them with a due date before today (UTC); completedActionItems DONE items.',
        response: {
          200: Type.Object({
            totalCalls: Type.Integer(),
            callsThisWeek: Type.Integer(),
            openActionItems: Type.Integer(),
            overdueActionItems: Type.Integer(),
            completedActionItems: Type.Integer(),
            averageCallDurationSeconds: Type.Integer(),
          }),
          ...errorResponses(401),
        },
      },
    },
    async (req) => computeStats(ctx.database.requestDb, req.user.id),
  );

  app.delete(
    '/api/users/me',
    {
      schema: {
        tags,
        summary: 'Delete the account and everything it owns (irreversible)',
        response: { 204: Type.Null(), ...errorResponses(401) },
      },
    },
    async (req, reply) => {
      await deleteAccount(ctx, req.user.id, req.user.externalUserId);
      userCacheOf(ctx).forget(req.user.id);
      return reply.status(204).send(null);
    },
  );

}

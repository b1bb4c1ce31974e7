// Account deletion: stored files first (so a failure leaves the rows and the user can retry), then
// every row (one DELETE; all user tables cascade), then the identity-provider user, best effort.
import type { AppContext } from '../context.js';
import { userPrefix } from '../store/blobs.js';
import { deleteUserRow } from '../store/repos/users.js';

export async function deleteAccount(ctx: Pick<AppContext, 'database' | 'blobs' | 'identity' | 'log'>, userId: string, externalUserId: string): Promise<void> {
  await ctx.blobs.deletePrefix(userPrefix(userId));
  await deleteUserRow(ctx.database.db, userId);
  if (ctx.identity?.deleteUser) {
    try {
      await ctx.identity.deleteUser(externalUserId);
    } catch (err) {
      ctx.log.warn({ err: (err as Error).message }, 'identity-provider user not deleted (best effort)');
    }
  }
}

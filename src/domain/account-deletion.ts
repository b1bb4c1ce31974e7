// Account deletion: stored files first (so a failure leaves the rows and the user can retry), then
// every row (one DELETE; all user tables cascade), then the identity-provider user, best effort.
import type { AppContext } from '../context.js';
import { userPrefix } from '../store/blobs.js';
import { deleteUserRow } from '../store/repos/users.js';

export async function deleteAccount(ctx: Pick<AppContext, 'database' | 'blobs' | 'identity' | 'log'>, userId: string, externalUserId: string): Promise<void> {
  await ctx.blobs.deletePrefix(userPrefix(userId));
  // The pool without the request handlers' statement time limit: the cascade over every row of a
  // user with many calls may run long, and cutting it would only make the client retry it.
  await deleteUserRow(ctx.database.db, userId);
  if (ctx.identity?.deleteUser) {
    try {
      await ctx.identity.deleteUser(externalUserId);
    } catch (err) {
      ctx.log.warn({ err: (err as Error).message }, 'identity-provider user not deleted (best effort)');
    }
  }
}

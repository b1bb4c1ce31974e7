// A short-lived cache of the user row behind an external id, used by authentication on the
// read-only routes that clients poll (status, list, transcript, action items): on those the user
// lookup was half the database work of a request. Only routes that ask for it with
// `config: { cachedUser: true }` use it, and such routes read nothing of the user but the id, so a
// row up to TTL_MS old cannot change an answer: a user deleted in another process still reads
// only rows scoped to an id that owns nothing. Every other route looks the user up afresh (and
// refreshes the entry). In this process, account deletion and admin changes forget the entry.
import type { AppContext } from '../context.js';
import type { User } from '../store/schema.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Authentication may use a user row cached for a few seconds (read-only routes that need only the id). */
    cachedUser?: boolean;
  }
}

const TTL_MS = 10_000;
const MAX_ENTRIES = 10_000;

export class UserLookupCache {
  private readonly byExternalId = new Map<string, { row: User; expires: number }>();

  get(externalUserId: string): User | undefined {
    const e = this.byExternalId.get(externalUserId);
    if (!e) return undefined;
    if (e.expires <= Date.now()) {
      this.byExternalId.delete(externalUserId);
      return undefined;
    }
    return e.row;
  }

  put(row: User): void {
    this.byExternalId.delete(row.externalUserId);
    // Maps iterate in insertion order, so the first key is the oldest entry.
    if (this.byExternalId.size >= MAX_ENTRIES) this.byExternalId.delete(this.byExternalId.keys().next().value!);
    this.byExternalId.set(row.externalUserId, { row, expires: Date.now() + TTL_MS });
  }

  /** Forgets a user by internal id (account deletion, admin changes). */
  forget(userId: string): void {
    for (const [key, e] of this.byExternalId) if (e.row.id === userId) this.byExternalId.delete(key);
  }
}

const caches = new WeakMap<AppContext, UserLookupCache>();

/** The cache of one running service (tests run several services in one process). */
export function userCacheOf(ctx: AppContext): UserLookupCache {
  let c = caches.get(ctx);
  if (!c) caches.set(ctx, (c = new UserLookupCache()));
  return c;
}

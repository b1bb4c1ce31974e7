// Feature flags (global, not per user).
import { sql } from 'kysely';
import type { Db } from '../database.js';
import type { Executor } from './executor.js';

export async function isFlagEnabled(db: Db, key: string): Promise<boolean> {
  const row = await db.selectFrom('featureFlags').select('enabled').where('flagKey', '=', key).executeTakeFirst();
  return row?.enabled ?? false;
}

/** Every flag, by key. */
export async function listFlags(db: Executor) {
  return db.selectFrom('featureFlags').selectAll().orderBy('flagKey').execute();
}

/** Sets a flag; undefined when no such flag exists. */
export async function setFlag(db: Executor, key: string, enabled: boolean, updatedBy: string | null) {
  return db.updateTable('featureFlags').set({ enabled, updatedAt: sql`now()`, updatedBy }).where('flagKey', '=', key).returningAll().executeTakeFirst();
}

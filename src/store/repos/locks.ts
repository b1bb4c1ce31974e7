// Transaction-scoped advisory locks: serialise writers of the same logical key (one user's
// uploads, one user's contact name) until the transaction ends.
import { sql, type Transaction } from 'kysely';
import type { Database } from '../schema.js';

export async function lockKeyForTransaction(trx: Transaction<Database>, key: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtext(${key}))`.execute(trx);
}

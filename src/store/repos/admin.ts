// The admin surface's statements: accounts across users (admins only), and the audit log.
import { sql, type Transaction } from 'kysely';
import type { Db } from '../database.js';
import type { AuditEntry, Database, Plan, User } from '../schema.js';

type Trx = Transaction<Database>;

export async function insertAudit(trx: Trx, entry: Omit<AuditEntry, 'id' | 'createdAt'>): Promise<void> {
  await trx.insertInto('auditLog').values(entry).execute();
}

/** A page of accounts, newest first; `search` is a case-insensitive substring of the email. */
export async function listAccounts(db: Db, opts: { search?: string; limit: number; offset: number }): Promise<{ total: number; rows: User[] }> {
  let base = db.selectFrom('users');
  if (opts.search) {
    const pattern = `%${opts.search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    base = base.where(sql<boolean>`lower(email) LIKE ${pattern}`);
  }
  const [{ total }] = await base.select(sql<number>`count(*)::int`.as('total')).execute();
  const rows = await base.selectAll().orderBy('createdAt', 'desc').orderBy('id').limit(opts.limit).offset(opts.offset).execute();
  return { total, rows };
}

/** Adds top-up credit; false when there is no such user. */
export async function addCredits(trx: Trx, userId: string, minutes: number, transcripts: number): Promise<boolean> {
  const updated = await trx
    .updateTable('users')
    .set((eb) => ({ topupMinutesBalance: eb('topupMinutesBalance', '+', minutes), topupTranscriptsBalance: eb('topupTranscriptsBalance', '+', transcripts) }))
    .where('id', '=', userId)
    .returning('id')
    .executeTakeFirst();
  return updated !== undefined;
}

export async function setAccountStatus(trx: Trx, userId: string, status: User['accountStatus'], reason: string | null): Promise<User | undefined> {
  return trx.updateTable('users').set({ accountStatus: status, accountStatusReason: reason }).where('id', '=', userId).returningAll().executeTakeFirst();
}

export async function setPlan(trx: Trx, userId: string, plan: Plan): Promise<User | undefined> {
  return trx.updateTable('users').set({ plan }).where('id', '=', userId).returningAll().executeTakeFirst();
}

/** A page of the audit log, most recent first. */
export async function auditLogPage(db: Db, opts: { limit: number; offset: number }): Promise<{ total: number; rows: AuditEntry[] }> {
  const [{ total }] = await db.selectFrom('auditLog').select(sql<number>`count(*)::int`.as('total')).execute();
  const rows = await db.selectFrom('auditLog').selectAll().orderBy('createdAt', 'desc').orderBy('id', 'desc').limit(opts.limit).offset(opts.offset).execute();
  return { total, rows };
}

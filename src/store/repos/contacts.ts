// Contact rows. Every statement takes the owner id.
import { sql } from 'kysely';
import type { Contact } from '../schema.js';
import type { Executor } from './executor.js';

export interface ContactFields {
  name: string;
  phoneNumber: string | null;
  email: string | null;
  notes: string | null;
}

/** A page of contacts in (lower(name), name, id) order after the keyset cursor, with one row more. */
export async function listContactsPage(db: Executor, userId: string, limit: number, cursor: { name: string; id: string } | null): Promise<Contact[]> {
  let q = db.selectFrom('contacts').selectAll().where('userId', '=', userId);
  if (cursor) {
    const { name, id } = cursor;
    q = q.where(sql<boolean>`(lower(name), name, id) > (lower(${name}::text), ${name}::text, ${id}::uuid)`);
  }
  return q
    .orderBy(sql`lower(name)`)
    .orderBy('name')
    .orderBy('id')
    .limit(limit + 1)
    .execute();
}

export async function findContact(db: Executor, userId: string, id: string): Promise<Contact | undefined> {
  return db.selectFrom('contacts').selectAll().where('userId', '=', userId).where('id', '=', id).executeTakeFirst();
}

/** The contact's id when the owner has it, held FOR SHARE (a concurrent delete waits for the caller's transaction). */
export async function shareContactId(db: Executor, userId: string, id: string): Promise<string | undefined> {
  return (await db.selectFrom('contacts').select('id').where('userId', '=', userId).where('id', '=', id).forShare().executeTakeFirst())?.id;
}

export async function insertContact(db: Executor, userId: string, v: ContactFields): Promise<Contact> {
  return db.insertInto('contacts').values({ userId, ...v }).returningAll().executeTakeFirstOrThrow();
}

export async function updateContact(db: Executor, userId: string, id: string, v: ContactFields): Promise<Contact | undefined> {
  return db
    .updateTable('contacts')
    .set({ ...v, updatedAt: sql`now()` })
    .where('userId', '=', userId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export async function deleteContactRow(db: Executor, userId: string, id: string): Promise<boolean> {
  const res = await db.deleteFrom('contacts').where('userId', '=', userId).where('id', '=', id).executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}

/** The user's oldest contact with this name, compared case-insensitively. */
export async function findContactIdByName(db: Executor, userId: string, name: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('contacts')
    .select('id')
    .where('userId', '=', userId)
    .where(sql<boolean>`lower(name) = ${name.toLowerCase()}`)
    .orderBy('createdAt', 'asc')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  return row?.id;
}

export async function insertContactId(db: Executor, userId: string, v: ContactFields): Promise<string> {
  const created = await db
    .insertInto('contacts')
    .values({ userId, ...v, updatedAt: new Date() })
    .returning('id')
    .executeTakeFirstOrThrow();
  return created.id;
}

/** The names of the user's most recently changed contacts (the recogniser's vocabulary hints). */
export async function recentContactNames(db: Executor, userId: string, limit: number): Promise<string[]> {
  const rows = await db.selectFrom('contacts').select('name').where('userId', '=', userId).orderBy('updatedAt', 'desc').limit(limit).execute();
  return rows.map((r) => r.name);
}

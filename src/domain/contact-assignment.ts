// Contact auto-assignment at upload, in the spec's order: a call that already has a contact link
// keeps it; no contact name, no assignment; otherwise the user's contact with the same name
// (case-insensitive) is linked, or a new one is created from the name and phone number. Matching
// is by name only, never by phone number.
import { sql, type Transaction } from 'kysely';
import type { Database } from '../store/schema.js';

export async function autoAssignContact(
  trx: Transaction<Database>,
  userId: string,
  call: { serviceContactId: string | null; contactName: string | null; phoneNumber: string | null },
): Promise<string | null> {
  if (call.serviceContactId) return call.serviceContactId;
  const name = call.contactName?.trim();
  if (!name) return null;
  // Two concurrent uploads with the same new name must create one contact, not two.
  await sql`SELECT pg_advisory_xact_lock(hashtext(${`contact:${userId}:${name.toLowerCase()}`}))`.execute(trx);
  const existing = await trx
    .selectFrom('contacts')
    .select('id')
    .where('userId', '=', userId)
    .where(sql<boolean>`lower(name) = ${name.toLowerCase()}`)
    .orderBy('createdAt', 'asc')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  if (existing) return existing.id;
  const created = await trx
    .insertInto('contacts')
    .values({ userId, name, phoneNumber: call.phoneNumber?.trim() || null, email: null, notes: null, updatedAt: new Date() })
    .returning('id')
    .executeTakeFirstOrThrow();
  return created.id;
}

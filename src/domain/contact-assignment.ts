// Contact auto-assignment at upload, in the spec's order: a call that already has a contact link
// keeps it; no contact name, no assignment; otherwise the user's contact with the same name
// (case-insensitive) is linked, or a new one is created from the name and phone number. Matching
// is by name only, never by phone number.
import type { Tx } from '../store/database.js';
import { findContactIdByName, insertContactId } from '../store/repos/contacts.js';
import { lockKeyForTransaction } from '../store/repos/locks.js';

export async function autoAssignContact(
  trx: Tx,
  userId: string,
  call: { serviceContactId: string | null; contactName: string | null; phoneNumber: string | null },
): Promise<string | null> {
  if (call.serviceContactId) return call.serviceContactId;
  const name = call.contactName?.trim();
  if (!name) return null;
  // Two concurrent uploads with the same new name must create one contact, not two.
  await lockKeyForTransaction(trx, `contact:${userId}:${name.toLowerCase()}`);
  const existing = await findContactIdByName(trx, userId, name);
  if (existing) return existing;
  return insertContactId(trx, userId, { name, phoneNumber: call.phoneNumber?.trim() || null, email: null, notes: null });
}

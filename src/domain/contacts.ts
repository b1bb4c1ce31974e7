// The user's address book. Every function takes the owner id first; a foreign contact behaves
// exactly like a missing one. Deleting a contact keeps its calls: the foreign key
// calls.service_contact_id is ON DELETE SET NULL, so the link is cleared by the database itself.
import type { Db } from '../store/database.js';
import * as contacts from '../store/repos/contacts.js';
import { setCallContact } from '../store/repos/calls.js';
import type { Call, Contact } from '../store/schema.js';
import { errors } from './errors.js';
import { findCall } from './calls.js';
import { pageOf, type ArrayPage } from './array-list.js';
import { isUuid } from './ids.js';

export interface ContactView {
  id: string;
  name: string;
  phoneNumber: string | null;
  email: string | null;
  notes: string | null;
  createdAt: string;
  updatedAt: string;
}

export function contactOf(row: Contact): ContactView {
  return {
    id: row.id,
    name: row.name,
    phoneNumber: row.phoneNumber,
    email: row.email,
    notes: row.notes,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export interface ContactInput {
  name: string;
  phoneNumber?: string | null;
  email?: string | null;
  notes?: string | null;
}

// Deliberately simple: one @, no whitespace, a dot in the domain. Deliverability is not ours to judge.
const EMAIL_RE = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

/** Trims the fields; blank optional fields become null; throws validation_failed on bad input. */
function normalise(input: ContactInput): { name: string; phoneNumber: string | null; email: string | null; notes: string | null } {
  const name = input.name.trim();
  const fields: Array<{ path: string; message: string }> = [];
  if (!name) fields.push({ path: '/body/name', message: 'must not be blank' });
  const opt = (v: string | null | undefined) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);
  const email = opt(input.email);
  if (email !== null && !EMAIL_RE.test(email)) fields.push({ path: '/body/email', message: 'must be an email address' });
  if (fields.length > 0) throw errors.validation({ fields });
  // Notes keep their inner formatting; only surrounding whitespace is insignificant.
  return { name, phoneNumber: opt(input.phoneNumber), email, notes: opt(input.notes) };
}

/** The position after a listed contact: its name and id (lower(name) is derived from the name). */
export interface ContactCursor {
  name: string;
  id: string;
}

/** Longest name a cursor may carry: names are at most 200 characters as written; this leaves room. */
const CURSOR_NAME_MAX = 1000;

export function encodeContactCursor(c: ContactCursor): string {
  return Buffer.from(JSON.stringify([c.name, c.id])).toString('base64url');
}

/**
 * A cursor exactly as encodeContactCursor writes it, or null: anything else (another encoding of
 * the same bytes, a name PostgreSQL would reject such as one with NUL, an id that is not a UUID)
 * is refused here rather than failing in the database.
 */
export function decodeContactCursor(s: string): ContactCursor | null {
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(s, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (!Array.isArray(v) || v.length !== 2) return null;
  const [name, id] = v as unknown[];
  if (typeof name !== 'string' || typeof id !== 'string') return null;
  if (name.length === 0 || name.length > CURSOR_NAME_MAX || name.includes('\u0000') || /\p{Cs}/u.test(name) || !isUuid(id)) return null;
  if (encodeContactCursor({ name, id }) !== s) return null;
  return { name, id: id.toLowerCase() };
}

/**
 * One page of the user's contacts sorted by name, case-insensitively; ties by exact name then id
 * so the order is total and the keyset (lower(name), name, id) is exact. The index
 * contacts_user_name_keyset_idx (migration 006) holds that key, so a page is one index range scan.
 */
export async function listContacts(db: Db, userId: string, opts: { limit: number; cursor: ContactCursor | null }): Promise<ArrayPage<ContactView>> {
  const rows = await contacts.listContactsPage(db, userId, opts.limit, opts.cursor);
  return pageOf(rows, opts.limit, contactOf, (r) => encodeContactCursor({ name: r.name, id: r.id }));
}

export async function getContact(db: Db, userId: string, id: string): Promise<Contact> {
  const row = await contacts.findContact(db, userId, id);
  if (!row) throw errors.contactNotFound();
  return row;
}

export async function createContact(db: Db, userId: string, input: ContactInput): Promise<Contact> {
  const v = normalise(input);
  return contacts.insertContact(db, userId, v);
}

/** PUT: full replacement; an omitted or null optional field is cleared. */
export async function replaceContact(db: Db, userId: string, id: string, input: ContactInput): Promise<Contact> {
  const v = normalise(input);
  const row = await contacts.updateContact(db, userId, id, v);
  if (!row) throw errors.contactNotFound();
  return row;
}

export async function deleteContact(db: Db, userId: string, id: string): Promise<void> {
  if (!(await contacts.deleteContactRow(db, userId, id))) throw errors.contactNotFound();
}

/**
 * Links a call to one of the user's contacts, or unlinks it with null. Both must belong to the
 * user, else 404. The upload's legacy contactName/contactId are left as they are.
 */
export async function linkCallContact(db: Db, userId: string, callId: string, contactId: string | null): Promise<Call> {
  return db.transaction().execute(async (trx) => {
    // Checked before the contact so that a foreign call never reveals whether a contact id exists.
    const call = await findCall(trx, userId, callId);
    if (!call) throw errors.callNotFound();
    if (contactId !== null) {
      // FOR SHARE: a concurrent delete of the contact waits until the link is written (and then clears it).
      if (!(await contacts.shareContactId(trx, userId, contactId))) throw errors.contactNotFound();
    }
    const linked = await setCallContact(trx, userId, callId, contactId);
    if (!linked) throw errors.callNotFound();
    return linked;
  });
}

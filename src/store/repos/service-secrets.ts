// Named secrets shared by every process of one deployment (table service_secrets, migration 007).
import crypto from 'node:crypto';
import type { Db } from '../database.js';

/** The secret called `name`, made (32 random bytes) by the first process that asks for it. */
export async function sharedSecret(db: Db, name: string): Promise<Buffer> {
  await db.insertInto('serviceSecrets').values({ name, secret: crypto.randomBytes(32) }).onConflict((oc) => oc.column('name').doNothing()).execute();
  const row = await db.selectFrom('serviceSecrets').select('secret').where('name', '=', name).executeTakeFirstOrThrow();
  return row.secret;
}

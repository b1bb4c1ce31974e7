// User rows. Lookups by external id happen once per request in authentication.
import { sql } from 'kysely';
import type { Db } from '../database.js';
import type { User } from '../schema.js';
import type { Executor } from './executor.js';

export interface IdentityClaims {
  externalUserId: string;
  email: string | null;
  name: string | null;
  picture: string | null;
  /** The token's email_verified claim; null when the provider does not send one. */
  emailVerified?: boolean | null;
}

/** Finds or creates the user of a verified identity; refreshes lastLoginAt at most once a minute. */
export async function findOrCreateUser(db: Db, claims: IdentityClaims): Promise<User> {
  let user = await db.selectFrom('users').selectAll().where('externalUserId', '=', claims.externalUserId).executeTakeFirst();
  if (!user) {
    await db
      .insertInto('users')
      .values({
        externalUserId: claims.externalUserId,
        email: claims.email,
        displayName: claims.name,
        photoUrl: claims.picture,
        lastLoginAt: new Date(),
        privacyPolicyVersion: null,
        privacyPolicyAcceptedAt: null,
        termsVersion: null,
        termsAcceptedAt: null,
        callRecordingDisclaimerVersion: null,
        callRecordingDisclaimerAcceptedAt: null,
        marketingOptInAt: null,
        plansIntroShownAt: null,
        accountStatusReason: null,
      })
      .onConflict((oc) => oc.column('externalUserId').doNothing())
      .execute();
    user = await db.selectFrom('users').selectAll().where('externalUserId', '=', claims.externalUserId).executeTakeFirstOrThrow();
    return user;
  }
  if (Date.now() - user.lastLoginAt.getTime() > 60_000 || (claims.email && claims.email !== user.email)) {
    user = await db
      .updateTable('users')
      .set({
        lastLoginAt: sql`now()`,
        email: claims.email ?? user.email,
        photoUrl: claims.picture ?? user.photoUrl,
      })
      .where('id', '=', user.id)
      .returningAll()
      .executeTakeFirstOrThrow();
  }
  return user;
}

export async function getUser(db: Db, userId: string): Promise<User | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst();
}

/** Ends every media session cookie issued to the user so far; returns the new generation. */
export async function endMediaSessions(db: Db, userId: string): Promise<number> {
  const row = await db
    .updateTable('users')
    .set((eb) => ({ mediaSessionGeneration: eb('mediaSessionGeneration', '+', 1) }))
    .where('id', '=', userId)
    .returning('mediaSessionGeneration')
    .executeTakeFirst();
  return row?.mediaSessionGeneration ?? 0;
}

export async function updateDisplayName(db: Db, userId: string, displayName: string): Promise<User> {
  return db.updateTable('users').set({ displayName }).where('id', '=', userId).returningAll().executeTakeFirstOrThrow();
}

export interface ConsentUpdate {
  privacyPolicyVersion?: string;
  termsVersion?: string;
  callRecordingDisclaimerVersion?: string;
  marketingOptIn?: boolean;
}

/** Stamps acceptance times with the database clock; client-supplied times are never accepted. */
export async function updateConsent(db: Db, userId: string, c: ConsentUpdate): Promise<User> {
  const set: Record<string, unknown> = {};
  if (c.privacyPolicyVersion !== undefined) Object.assign(set, { privacyPolicyVersion: c.privacyPolicyVersion, privacyPolicyAcceptedAt: sql`now()` });
  if (c.termsVersion !== undefined) Object.assign(set, { termsVersion: c.termsVersion, termsAcceptedAt: sql`now()` });
  if (c.callRecordingDisclaimerVersion !== undefined)
    Object.assign(set, { callRecordingDisclaimerVersion: c.callRecordingDisclaimerVersion, callRecordingDisclaimerAcceptedAt: sql`now()` });
  if (c.marketingOptIn !== undefined) Object.assign(set, { marketingOptIn: c.marketingOptIn, marketingOptInAt: sql`now()` });
  if (Object.keys(set).length === 0) return (await getUser(db, userId))!;
  return db.updateTable('users').set(set).where('id', '=', userId).returningAll().executeTakeFirstOrThrow();
}

export async function deleteUserRow(db: Db, userId: string): Promise<void> {
  await db.deleteFrom('users').where('id', '=', userId).execute();
}

export async function getDisplayName(db: Executor, userId: string): Promise<Pick<User, 'displayName'>> {
  return db.selectFrom('users').select('displayName').where('id', '=', userId).executeTakeFirstOrThrow();
}

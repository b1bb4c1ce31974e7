// Voice profiles: one row per user, the opaque embedding never leaves the service.
import { sql, type Selectable } from 'kysely';
import type { Db } from '../database.js';
import type { VoiceProfilesTable } from '../schema.js';

type VoiceProfile = Selectable<VoiceProfilesTable>;

export interface VoiceProfileFields {
  provider: string;
  consentVersion: string;
  embedding: Buffer;
  sampleDurationSeconds: number;
}

/** Creates the user's profile or replaces it (createdAt then says when the current one was made). */
export async function upsertVoiceProfile(db: Db, userId: string, v: VoiceProfileFields): Promise<VoiceProfile> {
  return db
    .insertInto('voiceProfiles')
    .values({ userId, status: 'ACTIVE', ...v, updatedAt: new Date() })
    .onConflict((oc) => oc.column('userId').doUpdateSet({ status: 'ACTIVE', ...v, createdAt: sql`now()`, updatedAt: sql`now()` }))
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function voiceProfileSummary(db: Db, userId: string) {
  return db.selectFrom('voiceProfiles').select(['status', 'provider', 'consentVersion', 'createdAt']).where('userId', '=', userId).executeTakeFirst();
}

export async function deleteVoiceProfileRow(db: Db, userId: string): Promise<void> {
  await db.deleteFrom('voiceProfiles').where('userId', '=', userId).execute();
}

/** The user's active profile's embedding and the provider that made it, if any. */
export async function activeVoiceProfile(db: Db, userId: string): Promise<{ embedding: Buffer; provider: string } | undefined> {
  return db.selectFrom('voiceProfiles').select(['embedding', 'provider']).where('userId', '=', userId).where('status', '=', 'ACTIVE').executeTakeFirst();
}

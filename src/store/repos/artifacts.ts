// Call artifacts (transcript, analysis) as JSONB rows keyed by call and kind. Writes are upserts,
// so a job that runs again after a crash replaces rather than duplicates.
import { sql, type Transaction } from 'kysely';
import type { Db } from '../database.js';
import type { Database } from '../schema.js';

export type ArtifactKind = 'transcript' | 'analysis';

export async function saveArtifact(
  trx: Transaction<Database> | Db,
  userId: string,
  callId: string,
  kind: ArtifactKind,
  schemaVersion: number,
  body: unknown,
): Promise<void> {
  await trx
    .insertInto('callArtifacts')
    .values({ callId, userId, kind, schemaVersion, body: JSON.stringify(body) })
    .onConflict((oc) => oc.columns(['callId', 'kind']).doUpdateSet({ schemaVersion, body: JSON.stringify(body), createdAt: new Date() }))
    .execute();
}

export async function getArtifact<T = unknown>(db: Db | Transaction<Database>, userId: string, callId: string, kind: ArtifactKind): Promise<T | undefined> {
  const row = await db.selectFrom('callArtifacts').select('body').where('userId', '=', userId).where('callId', '=', callId).where('kind', '=', kind).executeTakeFirst();
  return row?.body as T | undefined;
}

/** The stored JSON text itself, for responses that send an artifact exactly as stored (no parse, no re-serialisation). */
export async function getArtifactJson(db: Db | Transaction<Database>, userId: string, callId: string, kind: ArtifactKind): Promise<string | undefined> {
  const row = await db
    .selectFrom('callArtifacts')
    .select(sql<string>`body::text`.as('json'))
    .where('userId', '=', userId)
    .where('callId', '=', callId)
    .where('kind', '=', kind)
    .executeTakeFirst();
  return row?.json;
}

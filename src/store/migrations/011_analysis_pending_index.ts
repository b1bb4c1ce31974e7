// The stranded-call sweep (domain/stranded-calls.ts) looks for completed calls whose requested
// analysis has no live job every few minutes: a partial index keeps that to the few calls with an
// analysis pending rather than a scan of every call.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX IF NOT EXISTS calls_analysis_pending_idx ON calls (id) WHERE analysis_requested_revision IS NOT NULL`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS calls_analysis_pending_idx`.execute(db);
}

// Two records that keep one misbehaving client or one misconfigured process from harming others.
//
// service_identity: one row with a random id made when the database is created (or upgraded to
// this migration). The blob store holds a marker naming the database it belongs to
// (src/store/blob-binding.ts); the orphan sweep deletes files only when the marker names this
// database, so a process started on an empty or wrong DATABASE_URL next to the shared bucket
// deletes nothing. A restored backup carries the row, and so stays bound to its bucket.
//
// uploads_in_flight: one row per upload whose body is still arriving, so the per-user cap on
// uploads in flight holds across every API process sharing the database. A row outlives a crashed
// process only until `expires_at` (the upload's own deadline and a margin), after which it no longer
// counts and is swept.
//
// calls_in_processing_idx: the few calls in a processing status, for the reconciliation sweep.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE service_identity (
      singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
      database_id uuid NOT NULL DEFAULT gen_random_uuid(),
      created_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`INSERT INTO service_identity DEFAULT VALUES`.execute(db);

  await sql`
    CREATE TABLE uploads_in_flight (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      started_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX uploads_in_flight_user_idx ON uploads_in_flight (user_id, expires_at)`.execute(db);

  // The calls in processing, for the sweep that fails calls whose job is gone
  // (src/domain/stranded-calls.ts): a few rows however many calls there are.
  await sql`CREATE INDEX calls_in_processing_idx ON calls (updated_at) WHERE status IN ('QUEUED', 'PROCESSING', 'TRANSCRIBING', 'ANALYZING')`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS calls_in_processing_idx`.execute(db);
  await sql`DROP TABLE IF EXISTS uploads_in_flight`.execute(db);
  await sql`DROP TABLE IF EXISTS service_identity`.execute(db);
}

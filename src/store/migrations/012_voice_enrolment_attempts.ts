// voice_enrolment_attempts: one row per voice sample that reached decoding (an ffmpeg decode and
// about a second of embedding CPU in the API process), so the per-user enrolment rate limit
// (SERVICE_MAX_VOICE_ENROLMENTS_PER_HOUR, src/domain/voice-enrolment.ts) holds across every API
// process sharing the database, as the upload guards do. Rows older than the window no longer
// count and are swept; the user's rows go with the account (ON DELETE CASCADE).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE voice_enrolment_attempts (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      attempted_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`CREATE INDEX voice_enrolment_attempts_user_idx ON voice_enrolment_attempts (user_id, attempted_at)`.execute(db);
  // The sweep deletes by age across all users.
  await sql`CREATE INDEX voice_enrolment_attempts_time_idx ON voice_enrolment_attempts (attempted_at)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS voice_enrolment_attempts`.execute(db);
}

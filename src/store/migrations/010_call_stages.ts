// Per-call stage state (issue 23): one row per call and pipeline stage (src/pipeline/stages/), kept
// by the stage runner. A stage whose outcome is COMPLETED is not run again when the job is retried;
// `output` holds what a later stage needs of it (the checked recognition, the diarization, the voice
// match, the validated analysis) so a retry does not recompute it. The running stage's progress
// (0..100, for stages that report it) is what GET /api/calls/{id} shows.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE call_stages (
      call_id uuid NOT NULL REFERENCES calls(id) ON DELETE CASCADE,
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      stage text NOT NULL,
      attempt integer NOT NULL DEFAULT 1,
      outcome text NOT NULL CHECK (outcome IN ('RUNNING', 'COMPLETED', 'FAILED')),
      started_at timestamptz NOT NULL DEFAULT now(),
      finished_at timestamptz,
      updated_at timestamptz NOT NULL DEFAULT now(),
      progress smallint,
      detail jsonb,
      output jsonb,
      PRIMARY KEY (call_id, stage)
    )`.execute(db);
  await sql`CREATE INDEX call_stages_user_idx ON call_stages (user_id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS call_stages`.execute(db);
}

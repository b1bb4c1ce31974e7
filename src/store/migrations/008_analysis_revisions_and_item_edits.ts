// Re-analysis that keeps the user's work, and analysis as a queued stage (issue 22).
//
// calls.transcript_revision counts the writes of a corrected transcript; an analysis is stored
// only if the revision it was made from is still the current one, so an older analysis never
// overwrites a newer one. calls.analysis_requested_revision is the revision waiting for its
// analysis (NULL when none is pending): the call detail's `analysisPending`.
//
// action_items.ai_fingerprint is the content fingerprint of the analysis item an AI row was made
// from (see src/domain/action-items.ts), so a re-analysis can recognise an unchanged item and keep
// its id; user_edited_at marks an item the user changed (PUT, status), which a re-analysis keeps.
// action_item_tombstones remembers the AI items the user deleted, so they do not come back; the
// row itself is deleted, so no read (lists, counts, analytics, search) needs to know.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE calls ADD COLUMN transcript_revision integer NOT NULL DEFAULT 0`.execute(db);
  await sql`ALTER TABLE calls ADD COLUMN analysis_requested_revision integer`.execute(db);
  await sql`ALTER TABLE action_items ADD COLUMN ai_fingerprint text`.execute(db);
  await sql`ALTER TABLE action_items ADD COLUMN user_edited_at timestamptz`.execute(db);
  await sql`
    CREATE TABLE action_item_tombstones (
      call_id uuid NOT NULL REFERENCES calls(id) ON DELETE CASCADE,
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      fingerprint text NOT NULL,
      source_key text,
      deleted_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (call_id, fingerprint)
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS action_item_tombstones`.execute(db);
  await sql`ALTER TABLE action_items DROP COLUMN IF EXISTS user_edited_at`.execute(db);
  await sql`ALTER TABLE action_items DROP COLUMN IF EXISTS ai_fingerprint`.execute(db);
  await sql`ALTER TABLE calls DROP COLUMN IF EXISTS analysis_requested_revision`.execute(db);
  await sql`ALTER TABLE calls DROP COLUMN IF EXISTS transcript_revision`.execute(db);
}

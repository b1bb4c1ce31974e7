// The call list filtered by status (GET /api/calls?status=...) walks one index in list order:
// with only (user_id, status) PostgreSQL fetched every call of that status and sorted them, which
// grows with the user's history (100,000 calls: a sort of ~95,000 rows per page). The new index
// has (user_id, status) as its prefix, so it also serves everything the old one did (counting a
// user's active calls, status lookups), and the old one goes.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX calls_user_status_created_idx ON calls (user_id, status, created_at DESC, id DESC)`.execute(db);
  await sql`DROP INDEX IF EXISTS calls_user_status_idx`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX IF NOT EXISTS calls_user_status_idx ON calls (user_id, status)`.execute(db);
  await sql`DROP INDEX IF EXISTS calls_user_status_created_idx`.execute(db);
}

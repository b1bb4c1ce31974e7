// The polled call list (GET /api/calls) reads its calls from the index alone.
//
// After 004 a page of 50 still cost PostgreSQL about four times a status poll (bench/http.ts):
// each listed call sat on its own heap page (a user's calls arrive over months, between everyone
// else's), so a page visited 51 heap pages. The list's index now carries every column of calls a
// list item shows (INCLUDE), so the page is an index-only scan once vacuum has marked the pages
// all-visible (recently changed calls still fall back to the heap, correctly). It replaces
// calls_user_created_idx, which had the same key and served the same queries.
//
// Keeping the action-item count on the call row instead of call_action_summaries would also
// spare the join, but the trigger on action_items would then lock the call row after the item
// row, the opposite order of re-analysis (call row, then its items): a user editing an item
// while the call is re-analysed could deadlock. The summary row has no such ordering.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE INDEX calls_user_created_list_idx ON calls (user_id, created_at DESC, id DESC)
    INCLUDE (title, upload_title, suggested_title, contact_name, direction, status, duration_seconds)`.execute(db);
  await sql`DROP INDEX IF EXISTS calls_user_created_idx`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX IF NOT EXISTS calls_user_created_idx ON calls (user_id, created_at DESC, id DESC)`.execute(db);
  await sql`DROP INDEX IF EXISTS calls_user_created_list_idx`.execute(db);
}

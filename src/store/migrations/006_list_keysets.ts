// Keyset paging of GET /api/contacts and GET /api/actions, and no webhook secret at rest in the
// idempotency table.
//
// Contacts are listed by (lower(name), name, id) and paged by a row comparison on the same three;
// with all three in the index after the owner, a page is one index range scan with no sort. It
// replaces contacts_user_name_idx (user_id, lower(name)), whose lookups (a contact by name, case-
// insensitively, at upload) the new index serves by its prefix.
//
// Action items are listed newest first, then in analysis order (created_at DESC, position, id);
// the index in that order replaces action_items_user_created_idx (user_id, created_at DESC), which
// left PostgreSQL sorting each run of equal created_at.
//
// Idempotency records of POST /api/webhooks stored before this version hold the endpoint's signing
// secret; it is removed (a replay reads it from the endpoint row now).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX contacts_user_name_keyset_idx ON contacts (user_id, lower(name), name, id)`.execute(db);
  await sql`DROP INDEX IF EXISTS contacts_user_name_idx`.execute(db);
  await sql`CREATE INDEX action_items_user_list_idx ON action_items (user_id, created_at DESC, position, id)`.execute(db);
  await sql`DROP INDEX IF EXISTS action_items_user_created_idx`.execute(db);
  await sql`
    UPDATE idempotency_keys SET response_body = response_body - 'secret'
    WHERE jsonb_typeof(response_body) = 'object' AND response_body ? 'secret' AND response_body ? 'url' AND response_body ? 'events'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX IF NOT EXISTS contacts_user_name_idx ON contacts (user_id, lower(name))`.execute(db);
  await sql`DROP INDEX IF EXISTS contacts_user_name_keyset_idx`.execute(db);
  await sql`CREATE INDEX IF NOT EXISTS action_items_user_created_idx ON action_items (user_id, created_at DESC)`.execute(db);
  await sql`DROP INDEX IF EXISTS action_items_user_list_idx`.execute(db);
}

// Indexes and a summary for the polled call list (GET /api/calls, bench/http.ts, bench/growth.ts).
//
// 1. The list filtered by status walks one index in list order: with only (user_id, status)
//    PostgreSQL fetched every call of that status and sorted them, which grows with the user's
//    history (100,000 calls: a sort of ~95,000 rows per page). The new index has (user_id, status)
//    as its prefix, so it serves everything the old one did, and the old one goes.
// 2. Each list item shows its call's action-item count and first open title. Computing them per
//    page (an aggregate with a sort over each call's items, 50 times) was most of PostgreSQL's
//    work for the list; call_action_summaries keeps them per call, maintained by a trigger on
//    action_items in the same transaction as the change, so the list joins one row per call by
//    primary key. Only calls that have or had items have a row; no row reads as 0 and null.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX calls_user_status_created_idx ON calls (user_id, status, created_at DESC, id DESC)`.execute(db);
  await sql`DROP INDEX IF EXISTS calls_user_status_idx`.execute(db);

  // No foreign key to calls: a trigger on calls removes the row with its call, and a foreign-key
  // check against a call being deleted in the same statement must not fail that delete.
  await sql`
    CREATE TABLE call_action_summaries (
      call_id uuid PRIMARY KEY,
      user_id uuid NOT NULL,
      item_count integer NOT NULL,
      first_open_title text
    )`.execute(db);

  // Recomputes one call's summary from its items (only items of the call's owner count, as in
  // the list before). The row is created, then locked, before counting: a transaction that waited
  // for the lock counts again with what the holder committed, so concurrent writers cannot leave
  // a stale count.
  await sql`
    CREATE FUNCTION call_action_summary_refresh(p_call uuid) RETURNS void LANGUAGE plpgsql AS $$
    DECLARE
      v_user uuid;
      v_count integer;
      v_first text;
    BEGIN
      SELECT user_id INTO v_user FROM calls WHERE id = p_call;
      IF NOT FOUND THEN
        DELETE FROM call_action_summaries WHERE call_id = p_call;
        RETURN;
      END IF;
      INSERT INTO call_action_summaries (call_id, user_id, item_count) VALUES (p_call, v_user, 0) ON CONFLICT (call_id) DO NOTHING;
      PERFORM 1 FROM call_action_summaries WHERE call_id = p_call FOR UPDATE;
      SELECT count(*)::int, (array_agg(a.title ORDER BY a.created_at, a.position) FILTER (WHERE a.status <> 'DISMISSED'))[1]
        INTO v_count, v_first
        FROM action_items a WHERE a.call_id = p_call AND a.user_id = v_user;
      UPDATE call_action_summaries SET user_id = v_user, item_count = v_count, first_open_title = v_first
        WHERE call_id = p_call AND (user_id, item_count, first_open_title) IS DISTINCT FROM (v_user, v_count, v_first);
    END $$`.execute(db);

  await sql`
    CREATE FUNCTION call_action_summary_on_item() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM call_action_summary_refresh(NEW.call_id);
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM call_action_summary_refresh(OLD.call_id);
      ELSE
        PERFORM call_action_summary_refresh(NEW.call_id);
        IF OLD.call_id IS DISTINCT FROM NEW.call_id THEN PERFORM call_action_summary_refresh(OLD.call_id); END IF;
      END IF;
      RETURN NULL;
    END $$`.execute(db);
  await sql`
    CREATE TRIGGER call_action_summary_item
    AFTER INSERT OR DELETE OR UPDATE OF call_id, user_id, title, status, created_at, position ON action_items
    FOR EACH ROW EXECUTE FUNCTION call_action_summary_on_item()`.execute(db);

  // A deleted call takes its summary along, whatever order cascades run in (deleting a user
  // cascades to its calls and to its action items separately).
  await sql`
    CREATE FUNCTION call_action_summary_on_call_delete() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN DELETE FROM call_action_summaries WHERE call_id = OLD.id; RETURN NULL; END $$`.execute(db);
  await sql`
    CREATE TRIGGER call_action_summary_call AFTER DELETE ON calls
    FOR EACH ROW EXECUTE FUNCTION call_action_summary_on_call_delete()`.execute(db);

  // Items that exist before this migration.
  await sql`
    INSERT INTO call_action_summaries (call_id, user_id, item_count, first_open_title)
    SELECT c.id, c.user_id, count(*)::int, (array_agg(a.title ORDER BY a.created_at, a.position) FILTER (WHERE a.status <> 'DISMISSED'))[1]
    FROM calls c JOIN action_items a ON a.call_id = c.id AND a.user_id = c.user_id
    GROUP BY c.id, c.user_id`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TRIGGER IF EXISTS call_action_summary_item ON action_items`.execute(db);
  await sql`DROP TRIGGER IF EXISTS call_action_summary_call ON calls`.execute(db);
  await sql`DROP FUNCTION IF EXISTS call_action_summary_on_call_delete()`.execute(db);
  await sql`DROP FUNCTION IF EXISTS call_action_summary_on_item()`.execute(db);
  await sql`DROP FUNCTION IF EXISTS call_action_summary_refresh(uuid)`.execute(db);
  await sql`DROP TABLE IF EXISTS call_action_summaries`.execute(db);
  await sql`CREATE INDEX IF NOT EXISTS calls_user_status_idx ON calls (user_id, status)`.execute(db);
  await sql`DROP INDEX IF EXISTS calls_user_status_created_idx`.execute(db);
}

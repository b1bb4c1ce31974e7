// Full-text search over a user's calls (GET /api/calls/search).
//
// One row per call in call_search: a weighted tsvector (GIN-indexed) and the plain text it was
// built from (for ts_headline snippets). The row is maintained by triggers, so it changes in the
// same transaction as whatever it is built from, whichever code path writes it: the pipeline's
// transcript and analysis artifacts, AI and manual action items, edits of title, summary and
// notes, contact assignment, and renames of an assigned contact. A deleted call takes its row
// with it (ON DELETE CASCADE).
//
// The triggers are deferred to commit (constraint triggers, INITIALLY DEFERRED): a transaction
// rebuilds each call's row once, from its final state, and takes the row's lock only at the very
// end, so it cannot deadlock with another transaction over the index (the completion step deleting
// AI action items while a user edits one would otherwise lock the two rows in opposite orders).
// The rebuild locks the row before reading, so of two transactions touching one call the later
// reads what the earlier committed. refreshed_xact marks the rows already rebuilt by the current
// transaction; later triggers of that transaction skip them.
//
// Weights: A title and contact name, B summaries and action items, C notes, D transcript text.
// Text search configuration 'english' (transcripts are English: language "en").
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE call_search (
      call_id uuid PRIMARY KEY REFERENCES calls(id) ON DELETE CASCADE,
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      document tsvector NOT NULL,
      content text NOT NULL,
      refreshed_xact xid8,
      updated_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`CREATE INDEX call_search_document_idx ON call_search USING gin (document)`.execute(db);
  await sql`CREATE INDEX call_search_user_idx ON call_search (user_id)`.execute(db);

  // Rebuilds one call's row from its current data; removes it when the call is gone.
  await sql`
    CREATE FUNCTION call_search_refresh(p_call uuid) RETURNS void LANGUAGE plpgsql AS $$
    DECLARE
      c record;
      v_title text;
      v_contact text;
      v_summary text;
      v_items text;
      v_notes text;
      v_transcript text;
    BEGIN
      PERFORM 1 FROM call_search WHERE call_id = p_call AND refreshed_xact = pg_current_xact_id();
      IF FOUND THEN RETURN; END IF;
      -- Lock first: the statements below then see what a transaction holding the lock committed.
      PERFORM 1 FROM call_search WHERE call_id = p_call FOR UPDATE;
      SELECT id, user_id, coalesce(title, upload_title, suggested_title) AS title, contact_name, summary, notes, service_contact_id
        INTO c FROM calls WHERE id = p_call;
      IF NOT FOUND THEN
        DELETE FROM call_search WHERE call_id = p_call;
        RETURN;
      END IF;
      v_title := coalesce(c.title, '');
      SELECT concat_ws(E'\n', c.contact_name, (SELECT k.name FROM contacts k WHERE k.id = c.service_contact_id AND k.user_id = c.user_id AND k.name IS DISTINCT FROM c.contact_name))
        INTO v_contact;
      SELECT concat_ws(E'\n', c.summary,
               CASE WHEN jsonb_typeof(a.body -> 'executiveSummary') = 'string' THEN a.body ->> 'executiveSummary' END)
        INTO v_summary
        FROM (SELECT 1) one LEFT JOIN call_artifacts a ON a.call_id = c.id AND a.user_id = c.user_id AND a.kind = 'analysis';
      SELECT coalesce(string_agg(concat_ws(' ', i.title, i.description), E'\n' ORDER BY i.created_at, i.position), '')
        INTO v_items FROM action_items i WHERE i.call_id = c.id AND i.user_id = c.user_id;
      v_notes := coalesce(c.notes, '');
      SELECT coalesce(string_agg(s.seg ->> 'text', E'\n' ORDER BY s.ord), '')
        INTO v_transcript
        FROM call_artifacts a
        CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(a.body -> 'segments') = 'array' THEN a.body -> 'segments' ELSE '[]'::jsonb END)
          WITH ORDINALITY AS s(seg, ord)
        WHERE a.call_id = c.id AND a.user_id = c.user_id AND a.kind = 'transcript';
      INSERT INTO call_search (call_id, user_id, document, content, refreshed_xact, updated_at)
      VALUES (
        c.id,
        c.user_id,
        setweight(to_tsvector('english', v_title), 'A')
          || setweight(to_tsvector('english', v_contact), 'A')
          || setweight(to_tsvector('english', v_summary), 'B')
          || setweight(to_tsvector('english', v_items), 'B')
          || setweight(to_tsvector('english', v_notes), 'C')
          || setweight(to_tsvector('english', v_transcript), 'D'),
        concat_ws(E'\n', nullif(v_title, ''), nullif(v_contact, ''), nullif(v_summary, ''), nullif(v_items, ''), nullif(v_notes, ''), nullif(v_transcript, '')),
        pg_current_xact_id(),
        now()
      )
      ON CONFLICT (call_id) DO UPDATE
        SET user_id = EXCLUDED.user_id, document = EXCLUDED.document, content = EXCLUDED.content, refreshed_xact = EXCLUDED.refreshed_xact, updated_at = now();
    END $$`.execute(db);

  await sql`
    CREATE FUNCTION call_search_on_call() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN PERFORM call_search_refresh(NEW.id); RETURN NULL; END $$`.execute(db);
  await sql`
    CREATE CONSTRAINT TRIGGER call_search_call
    AFTER INSERT OR UPDATE OF title, upload_title, suggested_title, contact_name, summary, notes, service_contact_id, user_id ON calls
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION call_search_on_call()`.execute(db);

  await sql`
    CREATE FUNCTION call_search_on_child() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'DELETE' THEN PERFORM call_search_refresh(OLD.call_id); ELSE PERFORM call_search_refresh(NEW.call_id); END IF;
      RETURN NULL;
    END $$`.execute(db);
  for (const table of ['call_artifacts', 'action_items']) {
    await sql`
      CREATE CONSTRAINT TRIGGER ${sql.raw(`call_search_${table}`)}
      AFTER INSERT OR UPDATE OR DELETE ON ${sql.table(table)}
      DEFERRABLE INITIALLY DEFERRED
      FOR EACH ROW EXECUTE FUNCTION call_search_on_child()`.execute(db);
  }

  // A renamed contact renames the calls it is assigned to.
  await sql`
    CREATE FUNCTION call_search_on_contact() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM call_search_refresh(c.id) FROM calls c WHERE c.service_contact_id = NEW.id AND c.user_id = NEW.user_id;
      RETURN NULL;
    END $$`.execute(db);
  await sql`
    CREATE CONSTRAINT TRIGGER call_search_contact AFTER UPDATE OF name ON contacts
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN (OLD.name IS DISTINCT FROM NEW.name) EXECUTE FUNCTION call_search_on_contact()`.execute(db);

  // Calls that exist before this migration.
  await sql`SELECT call_search_refresh(id) FROM calls`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TRIGGER IF EXISTS call_search_call ON calls`.execute(db);
  await sql`DROP TRIGGER IF EXISTS call_search_contact ON contacts`.execute(db);
  for (const table of ['call_artifacts', 'action_items']) await sql`DROP TRIGGER IF EXISTS ${sql.raw(`call_search_${table}`)} ON ${sql.table(table)}`.execute(db);
  await sql`DROP TABLE IF EXISTS call_search CASCADE`.execute(db);
  for (const fn of ['call_search_on_contact()', 'call_search_on_child()', 'call_search_on_call()', 'call_search_refresh(uuid)']) await sql`DROP FUNCTION IF EXISTS ${sql.raw(fn)}`.execute(db);
}

// The initial schema. Every user-owned table carries user_id and cascades from users, so that
// account deletion is one DELETE; artifacts live as JSONB so analytics aggregate in SQL.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE EXTENSION IF NOT EXISTS pgcrypto`.execute(db).catch(() => undefined);

  await sql`
    CREATE TABLE users (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      external_user_id text NOT NULL UNIQUE,
      email text,
      display_name text,
      photo_url text,
      created_at timestamptz NOT NULL DEFAULT now(),
      last_login_at timestamptz NOT NULL DEFAULT now(),
      privacy_policy_version text,
      privacy_policy_accepted_at timestamptz,
      terms_version text,
      terms_accepted_at timestamptz,
      call_recording_disclaimer_version text,
      call_recording_disclaimer_accepted_at timestamptz,
      marketing_opt_in boolean NOT NULL DEFAULT false,
      marketing_opt_in_at timestamptz,
      plan text NOT NULL DEFAULT 'FREE' CHECK (plan IN ('FREE', 'PRO')),
      plans_intro_shown_at timestamptz,
      account_status text NOT NULL DEFAULT 'ACTIVE' CHECK (account_status IN ('ACTIVE', 'SUSPENDED', 'DISABLED')),
      account_status_reason text,
      topup_minutes_balance integer NOT NULL DEFAULT 0,
      topup_transcripts_balance integer NOT NULL DEFAULT 0
    )`.execute(db);
  await sql`CREATE INDEX users_email_lower_idx ON users (lower(email))`.execute(db);

  await sql`
    CREATE TABLE contacts (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      name text NOT NULL,
      phone_number text,
      email text,
      notes text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`CREATE INDEX contacts_user_name_idx ON contacts (user_id, lower(name))`.execute(db);

  await sql`
    CREATE TABLE calls (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      status text NOT NULL DEFAULT 'QUEUED'
        CHECK (status IN ('QUEUED', 'PROCESSING', 'TRANSCRIBING', 'ANALYZING', 'COMPLETED', 'FAILED')),
      title text,
      upload_title text,
      suggested_title text,
      direction text,
      contact_name text,
      legacy_contact_id text,
      phone_number text,
      organization text,
      duration_seconds integer,
      recorded_at timestamptz,
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      completed_at timestamptz,
      error_reason text,
      summary text,
      summary_edited boolean NOT NULL DEFAULT false,
      notes text,
      service_contact_id uuid REFERENCES contacts(id) ON DELETE SET NULL,
      audio_key text,
      audio_format text,
      audio_bytes bigint NOT NULL DEFAULT 0,
      attempts integer NOT NULL DEFAULT 0,
      idempotency_key text
    )`.execute(db);
  await sql`CREATE UNIQUE INDEX calls_user_idempotency_idx ON calls (user_id, idempotency_key) WHERE idempotency_key IS NOT NULL`.execute(db);
  await sql`CREATE INDEX calls_user_created_idx ON calls (user_id, created_at DESC, id DESC)`.execute(db);
  await sql`CREATE INDEX calls_user_status_idx ON calls (user_id, status)`.execute(db);

  await sql`
    CREATE TABLE call_artifacts (
      call_id uuid NOT NULL REFERENCES calls(id) ON DELETE CASCADE,
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      kind text NOT NULL CHECK (kind IN ('transcript', 'analysis')),
      schema_version integer NOT NULL,
      body jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (call_id, kind)
    )`.execute(db);
  await sql`CREATE INDEX call_artifacts_user_idx ON call_artifacts (user_id, kind)`.execute(db);

  await sql`
    CREATE TABLE action_items (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      call_id uuid NOT NULL REFERENCES calls(id) ON DELETE CASCADE,
      title text NOT NULL,
      description text,
      due_date date,
      status text NOT NULL DEFAULT 'OPEN' CHECK (status IN ('OPEN', 'IN_PROGRESS', 'DONE', 'DISMISSED')),
      source_text text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      completed_at timestamptz,
      owner_speaker_id text,
      owner_speaker_label text,
      owner_display_name text,
      owner_role text,
      source_segment_ids jsonb NOT NULL DEFAULT '[]'::jsonb,
      intent text,
      intent_metadata jsonb,
      priority text CHECK (priority IN ('LOW', 'MEDIUM', 'HIGH')),
      source text CHECK (source IN ('AI', 'MANUAL')),
      position integer NOT NULL DEFAULT 0
    )`.execute(db);
  await sql`CREATE INDEX action_items_user_created_idx ON action_items (user_id, created_at DESC)`.execute(db);
  await sql`CREATE INDEX action_items_call_idx ON action_items (call_id, created_at)`.execute(db);

  await sql`
    CREATE TABLE processing_events (
      id bigserial PRIMARY KEY,
      call_id uuid NOT NULL REFERENCES calls(id) ON DELETE CASCADE,
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      step text NOT NULL,
      outcome text NOT NULL,
      detail jsonb,
      created_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`CREATE INDEX processing_events_call_idx ON processing_events (call_id, id)`.execute(db);

  await sql`
    CREATE TABLE voice_profiles (
      user_id uuid PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
      status text NOT NULL DEFAULT 'ACTIVE',
      provider text NOT NULL,
      consent_version text NOT NULL,
      embedding bytea NOT NULL,
      sample_duration_seconds integer NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);

  await sql`
    CREATE TABLE feature_flags (
      flag_key text PRIMARY KEY,
      enabled boolean NOT NULL DEFAULT false,
      updated_at timestamptz,
      updated_by text
    )`.execute(db);

  await sql`
    CREATE TABLE audit_log (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      actor_email text NOT NULL,
      action text NOT NULL CHECK (action IN ('FLAG_TOGGLE', 'CREDIT_GRANT', 'ACCOUNT_STATUS_CHANGE', 'PLAN_CHANGE')),
      target_type text NOT NULL CHECK (target_type IN ('feature_flag', 'user')),
      target_id text NOT NULL,
      details text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT clock_timestamp()
    )`.execute(db);
  await sql`CREATE INDEX audit_log_created_idx ON audit_log (created_at DESC, id DESC)`.execute(db);
  // Append-only: the table refuses updates and deletes at the database level.
  await sql`
    CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN RAISE EXCEPTION 'audit_log is append-only'; END $$`.execute(db);
  await sql`
    CREATE TRIGGER audit_log_no_change BEFORE UPDATE OR DELETE ON audit_log
    FOR EACH ROW EXECUTE FUNCTION audit_log_append_only()`.execute(db);

  // Usage counts uploads, not surviving calls: deleting a call must not hand its quota back.
  await sql`
    CREATE TABLE usage_ledger (
      id bigserial PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      call_id uuid REFERENCES calls(id) ON DELETE SET NULL,
      bytes bigint NOT NULL,
      duration_seconds integer,
      created_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`CREATE INDEX usage_ledger_user_created_idx ON usage_ledger (user_id, created_at)`.execute(db);
  await sql`CREATE UNIQUE INDEX usage_ledger_call_idx ON usage_ledger (call_id) WHERE call_id IS NOT NULL`.execute(db);

  await sql`
    CREATE TABLE idempotency_keys (
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      key text NOT NULL,
      request_hash text NOT NULL,
      state text NOT NULL CHECK (state IN ('IN_PROGRESS', 'DONE')),
      response_status integer,
      response_body jsonb,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      PRIMARY KEY (user_id, key)
    )`.execute(db);
  await sql`CREATE INDEX idempotency_keys_expires_idx ON idempotency_keys (expires_at)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ['usage_ledger', 'idempotency_keys', 'audit_log', 'feature_flags', 'voice_profiles', 'processing_events', 'action_items', 'call_artifacts', 'calls', 'contacts', 'users']) {
    await sql`DROP TABLE IF EXISTS ${sql.table(t)} CASCADE`.execute(db);
  }
  await sql`DROP FUNCTION IF EXISTS audit_log_append_only()`.execute(db);
}

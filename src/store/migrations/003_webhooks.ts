// Webhook endpoints and their delivery log. An endpoint's secret is needed in clear to sign every
// delivery, so it is stored as given out (once, at creation) and never returned again. Deliveries
// cascade from their endpoint: deleting an endpoint removes its pending deliveries, and a queued
// job whose delivery row is gone does nothing.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE webhook_endpoints (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      url text NOT NULL,
      events text[] NOT NULL,
      description text,
      secret text NOT NULL,
      created_at timestamptz(3) NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`CREATE INDEX webhook_endpoints_user_idx ON webhook_endpoints (user_id, created_at)`.execute(db);

  await sql`
    CREATE TABLE webhook_deliveries (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      endpoint_id uuid NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      call_id uuid,
      event text NOT NULL,
      payload text NOT NULL,
      status text NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'SUCCEEDED', 'FAILED')),
      attempts jsonb NOT NULL DEFAULT '[]'::jsonb,
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      delivered_at timestamptz
    )`.execute(db);
  await sql`CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, created_at DESC, id DESC)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS webhook_deliveries`.execute(db);
  await sql`DROP TABLE IF EXISTS webhook_endpoints`.execute(db);
}

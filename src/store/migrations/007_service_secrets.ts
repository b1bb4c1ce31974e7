// Secrets the service processes share through the database, created once by whichever process
// needs one first: the key that signs the console's media sessions (src/domain/media-session.ts),
// so a cookie issued by one API process is accepted by every other.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE service_secrets (
      name text PRIMARY KEY,
      secret bytea NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS service_secrets`.execute(db);
}

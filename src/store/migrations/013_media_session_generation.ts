// users.media_session_generation: ending a media session (DELETE /api/session, the console's sign
// out) must also end every cookie issued before it, not only clear the one in this browser: a copy
// of the cookie would otherwise read the user's recordings until it expires (15 minutes). Each
// cookie carries the generation it was issued under; ending the session moves the user to the next.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE users ADD COLUMN media_session_generation integer NOT NULL DEFAULT 0`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE users DROP COLUMN IF EXISTS media_session_generation`.execute(db);
}

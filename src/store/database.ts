// The database: one pg pool and one Kysely instance over it, embedded or external, one dialect.
import { CamelCasePlugin, Kysely, Migrator, PostgresDialect, sql, type Migration, type MigrationProvider, type Transaction } from 'kysely';
import pg from 'pg';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { EmbeddedPostgres } from './embedded-postgres.js';
import * as m001 from './migrations/001_initial.js';
import * as m002 from './migrations/002_search.js';
import * as m003 from './migrations/003_webhooks.js';
import * as m004 from './migrations/004_perf_indexes.js';
import * as m005 from './migrations/005_call_list_covering.js';
import * as m006 from './migrations/006_list_keysets.js';
import * as m007 from './migrations/007_service_secrets.js';
import * as m008 from './migrations/008_analysis_revisions_and_item_edits.js';
import * as m009 from './migrations/009_containment.js';
import * as m010 from './migrations/010_call_stages.js';
import * as m011 from './migrations/011_analysis_pending_index.js';
import * as m012 from './migrations/012_voice_enrolment_attempts.js';
import * as m013 from './migrations/013_media_session_generation.js';
import type { Database } from './schema.js';

// pg returns int8 and numeric as strings; every count here fits in a double.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number(v));
// `date` columns stay plain YYYY-MM-DD strings instead of local-midnight Date objects.
pg.types.setTypeParser(pg.types.builtins.DATE, (v) => v);

const UNREACHABLE_ERRNO = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/**
 * Whether an error means the database cannot be reached right now (503, retry later) rather than a
 * fault of this request: network errors, PostgreSQL connection exceptions (class 08), operator
 * intervention (57P0x: shutdown, starting up), too many connections, and the driver's own
 * connection failures, which carry no code (pool and connect timeouts, a lost connection).
 */
export function isDatabaseUnavailable(err: { code?: unknown; message?: unknown }): boolean {
  const code = typeof err.code === 'string' ? err.code : '';
  const message = String(err.message ?? '');
  if (UNREACHABLE_ERRNO.has(code) || /^08/.test(code) || /^57P0/.test(code) || code === '53300') return true;
  if (code === 'ENOENT' && /connect/i.test(message)) return true; // the Unix socket of a stopped server
  return /timeout exceeded when trying to connect|Connection terminated|is not queryable/i.test(message);
}

/**
 * Whether PostgreSQL cancelled a statement at its time limit (request handlers' statement_timeout,
 * SQLSTATE 57014 query_canceled): the request answers 503 service_unavailable, to be retried.
 */
export function isStatementTimeout(err: { code?: unknown }): boolean {
  return err.code === '57014';
}

export type Db = Kysely<Database>;
/** An open transaction: what a use case passes to repository functions that must commit together. */
export type Tx = Transaction<Database>;

const migrations: Record<string, Migration> = {
  '001_initial': m001,
  '002_search': m002,
  '003_webhooks': m003,
  '004_perf_indexes': m004,
  '005_call_list_covering': m005,
  '006_list_keysets': m006,
  '007_service_secrets': m007,
  '008_analysis_revisions_and_item_edits': m008,
  '009_containment': m009,
  '010_call_stages': m010,
  '011_analysis_pending_index': m011,
  '012_voice_enrolment_attempts': m012,
  '013_media_session_generation': m013,
};

class StaticMigrationProvider implements MigrationProvider {
  async getMigrations(): Promise<Record<string, Migration>> {
    return migrations;
  }
}

export const SEEDED_FLAGS: Array<{ key: string; enabled: boolean }> = [
  { key: 'billing_enabled', enabled: false },
];

export interface DatabaseHandle {
  /**
   * No statement time limit: migrations, the pipeline's jobs, the sweeps, account deletion (one
   * DELETE cascading over every row of a user, which may take long) and whatever is not a request.
   */
  db: Db;
  pool: pg.Pool;
  /**
   * For HTTP request handlers (src/http and what they call): the same database through a pool of
   * its own whose connections carry `statement_timeout` (DATABASE_REQUEST_STATEMENT_TIMEOUT_MS),
   * so a pathological query of a request is cancelled by PostgreSQL instead of holding a backend;
   * the request answers 503 service_unavailable (isStatementTimeout).
   */
  requestDb: Db;
  requestPool: pg.Pool;
  /** The pg connection settings, shared with pg-boss so it uses the same server. */
  connection: pg.PoolConfig;
  embedded: EmbeddedPostgres | null;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

export async function openDatabase(config: Config, log: Logger, opts: { migrate?: boolean } = {}): Promise<DatabaseHandle> {
  let embedded: EmbeddedPostgres | null = null;
  let connection: pg.PoolConfig;
  if (config.databaseUrl) {
    connection = { connectionString: config.databaseUrl };
  } else {
    embedded = new EmbeddedPostgres(config.dataDir, log.child({ component: 'embedded-postgres' }));
    const c = await embedded.start();
    connection = { host: c.host, port: c.port, user: c.user, database: c.database };
  }
  const makePool = (extra: pg.PoolConfig = {}) => {
    const pool = new pg.Pool({ ...connection, max: 10, connectionTimeoutMillis: 5000, idleTimeoutMillis: 30000, ...extra });
    // A dropped connection (database restart) must not crash the process; the pool reconnects.
    pool.on('error', (err) => log.warn({ err: err.message }, 'idle database connection failed'));
    // pg-pool removes its error listener from a client while it is checked out (Kysely checks one
    // out per query or transaction), and pg emits 'error' on a connection lost mid-query: without a
    // listener of our own that is an uncaught exception that ends the process. The query itself
    // still fails and the pool discards the dead client on release.
    pool.on('connect', (client) => {
      client.on('error', (err) => log.warn({ err: err.message }, 'database connection lost'));
    });
    return pool;
  };
  const kysely = (pool: pg.Pool) => new Kysely<Database>({ dialect: new PostgresDialect({ pool }), plugins: [new CamelCasePlugin()] });
  const pool = makePool();
  const db = kysely(pool);
  // Both pools open connections only when used: a worker-only process never opens a request
  // connection. The limit is a startup parameter of each connection (pg sends it with the
  // connection's settings), so it costs no round trip; 0 leaves the request pool unlimited.
  const timeoutMs = config.databaseRequestStatementTimeoutMs;
  const requestPool = makePool(timeoutMs > 0 ? { statement_timeout: timeoutMs } : {});
  const requestDb = kysely(requestPool);

  try {
    if (opts.migrate !== false) {
      await migrate(db, log);
      await seedFlags(db);
    }
  } catch (err) {
    await db.destroy().catch(() => undefined);
    await requestDb.destroy().catch(() => undefined);
    await embedded?.stop();
    throw err;
  }

  return {
    db,
    pool,
    requestDb,
    requestPool,
    connection,
    embedded,
    async ping() {
      try {
        await sql`SELECT 1`.execute(db);
        return true;
      } catch {
        return false;
      }
    },
    async close() {
      await requestDb.destroy().catch(() => undefined);
      await db.destroy().catch(() => undefined);
      await embedded?.stop();
    },
  };
}

/** Kysely's PostgreSQL adapter serialises concurrent migrators with an advisory lock. */
export async function migrate(db: Db, log: Logger): Promise<void> {
  const migrator = new Migrator({ db, provider: new StaticMigrationProvider() });
  const { error, results } = await migrator.migrateToLatest();
  for (const r of results ?? []) {
    if (r.status === 'Success') log.info({ migration: r.migrationName }, 'migration applied');
    if (r.status === 'Error') log.error({ migration: r.migrationName }, 'migration failed');
  }
  if (error) throw error instanceof Error ? error : new Error('migration failed');
}

/** Migrations this code knows that the database has not applied (readiness: 0 once migrated). */
export async function pendingMigrations(db: Db): Promise<number> {
  const r = await sql<{ name: string }>`SELECT name FROM kysely_migration`.execute(db);
  const applied = new Set(r.rows.map((row) => row.name));
  return Object.keys(migrations).filter((name) => !applied.has(name)).length;
}

export async function seedFlags(db: Db): Promise<void> {
  await db
    .insertInto('featureFlags')
    .values(SEEDED_FLAGS.map((f) => ({ flagKey: f.key, enabled: f.enabled })))
    .onConflict((oc) => oc.column('flagKey').doNothing())
    .execute();
}

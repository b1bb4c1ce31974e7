// A benchmark target in its own process, so that the load generator and the service do not share
// one event loop: `target.ts service '<json options>'` starts the real service (embedded or external
// PostgreSQL, local or JWT mode), seeds it and prints one line `READY <json>`; `target.ts bare`
// starts a bare Fastify route (the ceiling). Both stop on SIGTERM or when stdin closes.
import Fastify from 'fastify';
import { startTestService, type DbMode } from '../../test/support/service.js';
import { currentDatabase, newestCallIds, queryPlans, seed, transcriptCallId, type SeedPlan } from './seed.js';

export interface TargetOptions {
  db: DbMode;
  /** IDP_* variables for JWT mode; absent means local mode. */
  idpEnv?: Record<string, string>;
  seed: SeedPlan;
  env?: Record<string, string>;
  explain?: boolean;
}

export interface TargetReady {
  url: string;
  pid: number;
  statusIds: string[];
  transcriptId: string;
  /** The database's name (to find its server processes on the external PostgreSQL). */
  database: string;
  /** The service's DATA_DIR (the embedded PostgreSQL's postmaster names it). */
  dataDir: string;
  /** EXPLAIN ANALYZE of the status and list queries, when asked for. */
  plans?: Awaited<ReturnType<typeof queryPlans>>;
}

async function main(): Promise<void> {
  const [kind, json] = process.argv.slice(2);
  let stop: () => Promise<void>;
  let ready: TargetReady;
  if (kind === 'bare') {
    const app = Fastify({ logger: false });
    app.get('/bare', async () => ({ ok: true }));
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    stop = () => app.close();
    ready = { url, pid: process.pid, statusIds: [], transcriptId: '', database: '', dataDir: '' };
  } else {
    const o = JSON.parse(json) as TargetOptions;
    const t = await startTestService({ db: o.db, env: { ...o.idpEnv, ...o.env } });
    const db = t.service.database.db;
    await seed(db, o.seed);
    const ids = await newestCallIds(db, o.seed.subject, 20);
    stop = () => t.stop();
    ready = { url: t.url, pid: process.pid, statusIds: ids.slice(0, 10), transcriptId: await transcriptCallId(db, o.seed.subject), database: await currentDatabase(db), dataDir: t.dataDir };
    if (o.explain) ready.plans = await queryPlans(db, o.seed.subject, ready.statusIds);
  }
  let stopping = false;
  const shutdown = async () => {
    if (stopping) return;
    stopping = true;
    await stop().catch(() => undefined);
    process.exit(0);
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  process.stdin.on('end', shutdown);
  // A parent that died leaves a closed pipe: writing to it must stop the target cleanly too.
  process.stdout.on('error', shutdown);
  process.stdin.resume();
  process.stdout.write(`READY ${JSON.stringify(ready)}\n`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

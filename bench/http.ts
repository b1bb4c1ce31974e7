// HTTP request-path speed: autocannon (50 connections, loopback) against the real service in its
// own process, in local mode and with real RS256 ID tokens against a local key set (JWT mode), on
// the embedded and the external PostgreSQL, with a bare Fastify route measured beside each
// configuration as the ceiling. Writes docs/bench/http.md.
//   npm run bench:http [-- --duration 8 --db embedded,external --auth local,jwt]
import pg from 'pg';
import { EXTERNAL_ADMIN_URL, externalDbAvailable, TestIdp, type DbMode } from '../test/support/service.js';
import { argValue, load, loadAverage, machine, settle, startTarget, table, today, treeCpuMs, writeSection, type LoadResult } from './support/harness.js';

const duration = Number(argValue('duration', '8'));
const connections = Number(argValue('connections', '50'));
const dbs = argValue('db', 'embedded,external').split(',') as DbMode[];
const auths = argValue('auth', 'local,jwt').split(',') as Array<'local' | 'jwt'>;
const cpuProf = process.argv.includes('--cpu-prof');
const only = argValue('routes', 'status,list,transcript,actions').split(',');

const SUBJECT_JWT = 'bench-user-1';
const SUBJECT_LOCAL = 'local-user';

interface Row {
  db: DbMode;
  auth: 'local' | 'jwt';
  route: string;
  r: LoadResult;
  ceiling: number;
  ceilingCpu: number | null;
  load: string;
}

async function main(): Promise<void> {
  const rows: Row[] = [];
  const idp = await TestIdp.start();
  const startedLoad = loadAverage();
  const hasExternal = await externalDbAvailable();
  try {
    for (const db of dbs) {
      if (db === 'external' && !hasExternal) {
        console.log('external PostgreSQL not reachable: skipped');
        continue;
      }
      for (const auth of auths) {
        const subject = auth === 'jwt' ? SUBJECT_JWT : SUBJECT_LOCAL;
        const target = await startTarget(
          'service',
          {
            db,
            idpEnv: auth === 'jwt' ? idp.env() : undefined,
            // 200 users with 60 calls each; the subject's newest 50 have transcripts and action items.
            seed: { users: 200, callsPerUser: 60, processed: 50, subject, extraExternalIds: auth === 'local' ? [SUBJECT_LOCAL] : [] },
          },
          cpuProf ? ['--cpu-prof', '--cpu-prof-dir', 'bench/.profiles'] : [],
        );
        const bare = await startTarget('bare');
        try {
          const headers: Record<string, string> = {};
          if (auth === 'jwt') headers.authorization = `Bearer ${await idp.token({ sub: subject, email: 'bench1@example.test', email_verified: true }, { expiresIn: '2h' })}`;
          const routes = (
            [
              ['status', 'GET /api/calls/status (10 ids)', `/api/calls/status?ids=${target.statusIds.join(',')}`],
              ['list', 'GET /api/calls (limit 50)', '/api/calls?limit=50'],
              ['transcript', 'GET /api/calls/{id}/transcript', `/api/calls/${target.transcriptId}/transcript`],
              ['actions', 'GET /api/actions', '/api/actions'],
            ] as const
          )
            .filter(([key]) => only.includes(key))
            .map(([, name, p]) => [name, p] as const);
          // Check once that every route answers 200 before loading it.
          for (const [name, p] of routes) {
            const res = await fetch(target.url + p, { headers });
            if (res.status !== 200) throw new Error(`${name} answered ${res.status}: ${await res.text()}`);
          }
          // CPU of the service's process tree (with the embedded PostgreSQL) or of the service and
          // its database's server processes on the external PostgreSQL.
          const cpu = async () => treeCpuMs(target.pid, db === 'external' ? { extraPids: await backendPids(target.database) } : { dataDir: target.dataDir });
          await settle(cpu);
          const ceiling = await load(`${bare.url}/bare`, { duration, connections, cpu: async () => treeCpuMs(bare.pid) });
          console.log(`[${db}/${auth}] bare Fastify route: ${ceiling.rps.toFixed(0)} req/s p50 ${ceiling.p50} ms p99 ${ceiling.p99} ms`);
          for (const [name, p] of routes) {
            const r = await load(target.url + p, { duration, connections, headers, cpu });
            const row: Row = { db, auth, route: name, r, ceiling: ceiling.rps, ceilingCpu: ceiling.cpuMsPerRequest, load: loadAverage() };
            rows.push(row);
            console.log(`[${db}/${auth}] ${name}: ${r.rps.toFixed(0)} req/s (${pct(r.rps, ceiling.rps)} of bare) CPU ${r.cpuMsPerRequest?.toFixed(3)} ms/req (bare ${ceiling.cpuMsPerRequest?.toFixed(3)}) p50 ${r.p50} ms p99 ${r.p99} ms non-2xx ${r.non2xx} errors ${r.errors}`);
          }
          rows.push({ db, auth, route: 'bare Fastify route (ceiling)', r: ceiling, ceiling: ceiling.rps, ceilingCpu: ceiling.cpuMsPerRequest, load: loadAverage() });
        } finally {
          await bare.stop();
          await target.stop();
        }
      }
    }
  } finally {
    await idp.stop();
  }

  const body = table(
    ['database', 'auth', 'route', 'req/s', '% of bare route', 'p50 ms', 'p99 ms', 'CPU ms per request', 'CPU ratio (bare / route)', 'non-2xx', 'load avg (1/5/15 min)'],
    rows.map((x) => [
      x.db,
      x.auth,
      x.route,
      x.r.rps.toFixed(0),
      pct(x.r.rps, x.ceiling),
      x.r.p50,
      x.r.p99,
      x.r.cpuMsPerRequest?.toFixed(3) ?? '-',
      x.r.cpuMsPerRequest && x.ceilingCpu ? pct(x.ceilingCpu, x.r.cpuMsPerRequest) : '-',
      x.r.non2xx + x.r.errors,
      x.load,
    ]),
  );
  writeSection(
    'http',
    `## HTTP: request path against a bare Fastify route

Measured by \`npm run bench:http\` on ${today()} (${machine()}; load average at start ${startedLoad}). autocannon, ${connections} connections, ${duration} s per route after a 2 s warm-up, loopback; the service runs in its own process (\`bench/support/target.ts\`) with the request log off, the load generator in another. JWT mode signs RS256 ID tokens with a local key set served over loopback (one token, as one polling client holding it); local mode is the fixed local user. Seeded: 200 users with 60 calls each (the measured user's newest 50 completed with a transcript of 80 segments and two action items each), then \`VACUUM ANALYZE\` and \`CHECKPOINT\`; each configuration starts once the service and its database are idle (\`settle\` in \`bench/support/harness.ts\`), so autovacuum, write-back and start-up work fall outside the measurement. The bare route (\`GET /bare\` answering \`{"ok":true}\`) runs in the same run right before each configuration's routes, and every ratio uses that ceiling, so a loaded machine moves both. Absolute numbers on a shared machine are noisy; the ratios are what to compare.

${body}
`,
  );
}

/** The server processes of one database on the external PostgreSQL (its pool's connections). */
async function backendPids(database: string): Promise<number[]> {
  const c = new pg.Client({ connectionString: EXTERNAL_ADMIN_URL });
  await c.connect();
  try {
    return (await c.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [database])).rows.map((r) => r.pid);
  } finally {
    await c.end();
  }
}

function pct(a: number, b: number): string {
  return b > 0 ? `${((100 * a) / b).toFixed(1)} %` : '-';
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

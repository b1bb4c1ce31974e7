// HTTP request-path speed: autocannon (50 connections, loopback) against the real service in its
// own process, in local mode and with real RS256 ID tokens against a local key set (JWT mode), on
// the embedded and the external PostgreSQL, with a bare Fastify route measured beside each
// configuration as the ceiling. Writes docs/bench/http.md.
//   npm run bench:http [-- --duration 8 --db embedded,external --auth local,jwt]
import pg from 'pg';
import { EXTERNAL_ADMIN_URL, externalDbAvailable, TestIdp, type DbMode } from '../test/support/service.js';
import { argValue, load, loadAverage, machine, median, medianResult, settle, startTarget, table, today, treeCpuMs, writeSection, type LoadResult } from './support/harness.js';

const duration = Number(argValue('duration', '5'));
// The machine's speed drifts between consecutive runs (the bare route alone: 9,500-22,000 req/s on
// an idle machine); rounds of (bare, routes...) interleave the ceiling with the routes, and each
// ratio is the median over rounds of the route against the ceiling of its own round.
const rounds = Number(argValue('rounds', '3'));
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
  /** Medians over the rounds. */
  r: LoadResult;
  ceiling: number;
  ceilingCpu: number | null;
  /** Median and range over the rounds of req/s against the same round's bare route. */
  ratio: number;
  ratioRange: [number, number];
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
          const ceilings: LoadResult[] = [];
          const measured = new Map<string, Array<{ r: LoadResult; ceiling: LoadResult }>>(routes.map(([name]) => [name, []]));
          for (let round = 1; round <= rounds; round++) {
            const ceiling = await load(`${bare.url}/bare`, { duration, connections, cpu: async () => treeCpuMs(bare.pid) });
            ceilings.push(ceiling);
            console.log(`[${db}/${auth} round ${round}] bare Fastify route: ${ceiling.rps.toFixed(0)} req/s p50 ${ceiling.p50} ms p99 ${ceiling.p99} ms`);
            for (const [name, p] of routes) {
              const r = await load(target.url + p, { duration, connections, headers, cpu });
              measured.get(name)!.push({ r, ceiling });
              console.log(`[${db}/${auth} round ${round}] ${name}: ${r.rps.toFixed(0)} req/s (${pct(r.rps, ceiling.rps)} of bare) CPU ${r.cpuMsPerRequest?.toFixed(3)} ms/req (bare ${ceiling.cpuMsPerRequest?.toFixed(3)}) p50 ${r.p50} ms p99 ${r.p99} ms non-2xx ${r.non2xx} errors ${r.errors}`);
            }
          }
          const bareMedian = medianResult(ceilings);
          for (const [name] of routes) {
            const runs = measured.get(name)!;
            const ratios = runs.map((x) => x.r.rps / x.ceiling.rps);
            rows.push({ db, auth, route: name, r: medianResult(runs.map((x) => x.r)), ceiling: bareMedian.rps, ceilingCpu: bareMedian.cpuMsPerRequest, ratio: median(ratios), ratioRange: [Math.min(...ratios), Math.max(...ratios)], load: loadAverage() });
          }
          rows.push({ db, auth, route: 'bare Fastify route (ceiling)', r: bareMedian, ceiling: bareMedian.rps, ceilingCpu: bareMedian.cpuMsPerRequest, ratio: 1, ratioRange: [1, 1], load: loadAverage() });
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
    ['database', 'auth', 'route', 'req/s', '% of bare route (median; range over rounds)', 'p50 ms', 'p99 ms', 'CPU ms per request', 'CPU ratio (bare / route)', 'non-2xx', 'load avg (1/5/15 min)'],
    rows.map((x) => [
      x.db,
      x.auth,
      x.route,
      x.r.rps.toFixed(0),
      x.route.startsWith('bare') ? '100 %' : `${(100 * x.ratio).toFixed(1)} % (${(100 * x.ratioRange[0]).toFixed(1)}-${(100 * x.ratioRange[1]).toFixed(1)})`,
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

Measured by \`npm run bench:http\` on ${today()} (${machine()}; load average at start ${startedLoad}). autocannon, ${connections} connections, ${duration} s per route after a 2 s warm-up, ${rounds} rounds, loopback; the service runs in its own process (\`bench/support/target.ts\`) with the request log off, the load generator in another. JWT mode signs RS256 ID tokens with a local key set served over loopback (one token, as one polling client holding it); local mode is the fixed local user. Seeded: 200 users with 60 calls each (the measured user's newest 50 completed with a transcript of 80 segments and two action items each), then \`VACUUM ANALYZE\` and \`CHECKPOINT\`; each configuration starts once the service and its database are idle (\`settle\` in \`bench/support/harness.ts\`), so autovacuum, write-back and start-up work fall outside the measurement. The bare route (\`GET /bare\` answering \`{"ok":true}\`) is measured in every round right before that round's routes. The machine's speed drifts from run to run even when idle (the bare route alone has measured 9,500-22,000 req/s in consecutive runs), so each configuration runs ${rounds} rounds of (bare route, routes) and a route's ratio is the median over rounds of its req/s against its own round's bare route (the range is in brackets); req/s, latencies and CPU are medians over rounds, and the bare row gives the median ceiling.

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

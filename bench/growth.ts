// Growth: latency of status polling and of the first page of the call list as the database grows
// to 10, 1,000 and 100,000 calls, held by one user or spread over many (10 calls each). Rows are
// seeded with generate_series; the service runs in its own process in local mode on the embedded
// PostgreSQL (or --db external). Flat latency means the queries are index-backed.
//   npm run bench:growth [-- --sizes 10,1000,100000 --duration 5 --rounds 3 --db embedded]
import type { DbMode } from '../test/support/service.js';
import { argValue, load, loadAverage, machine, medianResult, settle, startTarget, table, today, treeCpuMs, writeSection, type LoadResult, type Target } from './support/harness.js';

const sizes = argValue('sizes', '10,1000,100000').split(',').map(Number);
const duration = Number(argValue('duration', '5'));
const connections = Number(argValue('connections', '10'));
const rounds = Number(argValue('rounds', '3'));
const db = argValue('db', 'embedded') as DbMode;
const SUBJECT = 'local-user';

interface Row {
  shape: string;
  total: number;
  status: LoadResult;
  list: LoadResult;
  list50: LoadResult;
  plans: Array<{ query: string; plan: string; executionMs: number }>;
  load: string;
}

async function main(): Promise<void> {
  const rows: Row[] = [];
  const startedLoad = loadAverage();
  for (const shape of ['one user', 'many users'] as const) {
    // Every size of one shape runs at once, and the rounds visit the sizes in turn: the machine's
    // speed drifts by tens of percent within minutes, so sizes measured one after another would
    // compare moments as much as database sizes.
    const targets: Array<{ total: number; target: Target; cpu: () => Promise<number>; runs: Array<{ status: LoadResult; list: LoadResult; list50: LoadResult; load: string }> }> = [];
    try {
      for (const total of sizes) {
        // One user: the measured user holds every call. Many users: the measured user holds 10 and
        // total/10 - 1 other users hold 10 each.
        const plan =
          shape === 'one user'
            ? { users: 0, callsPerUser: total, processed: 50, subject: SUBJECT, extraExternalIds: [SUBJECT] }
            : { users: Math.max(0, Math.round(total / 10) - 1), callsPerUser: 10, processed: 50, subject: SUBJECT, extraExternalIds: [SUBJECT] };
        const started = Date.now();
        const target = await startTarget('service', { db, seed: plan, explain: true });
        targets.push({ total, target, cpu: async () => treeCpuMs(target.pid, { dataDir: target.dataDir }), runs: [] });
        console.log(`[${shape}, ${total} calls] seeded and started in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      }
      for (const t of targets) await settle(t.cpu);
      for (let round = 1; round <= rounds; round++) {
        for (const { total, target, cpu, runs } of targets) {
          const status = await load(`${target.url}/api/calls/status?ids=${target.statusIds.join(',')}`, { duration, connections, cpu });
          // Ten items at every size (the smallest database holds ten calls), so the answer is the same
          // size and only the database grows; the 50-item page is measured too, for reference.
          const list = await load(`${target.url}/api/calls?limit=10`, { duration, connections, cpu });
          const list50 = await load(`${target.url}/api/calls?limit=50`, { duration, connections, cpu });
          if (status.non2xx + list.non2xx + list50.non2xx + status.errors + list.errors + list50.errors > 0) throw new Error('non-2xx answers under load');
          runs.push({ status, list, list50, load: loadAverage() });
          console.log(`[${shape}, ${total} calls, round ${round}] status p50 ${status.p50} ms mean ${status.mean.toFixed(2)} ms p99 ${status.p99} ms CPU ${status.cpuMsPerRequest?.toFixed(3)} ms/req; list (10) p50 ${list.p50} ms mean ${list.mean.toFixed(2)} ms p99 ${list.p99} ms CPU ${list.cpuMsPerRequest?.toFixed(3)} ms/req; list (50) p50 ${list50.p50} ms p99 ${list50.p99} ms`);
        }
      }
      for (const { total, target, runs } of targets) {
        console.log(`[${shape}, ${total} calls] plans ${JSON.stringify(target.plans)}`);
        rows.push({
          shape,
          total,
          status: medianResult(runs.map((r) => r.status)),
          list: medianResult(runs.map((r) => r.list)),
          list50: medianResult(runs.map((r) => r.list50)),
          plans: target.plans ?? [],
          load: runs[runs.length - 1].load,
        });
      }
    } finally {
      for (const t of targets) await t.target.stop();
    }
  }
  const base = (shape: string) => rows.find((r) => r.shape === shape && r.total === sizes[0]);
  const ratio = (a: number | null | undefined, b: number | null | undefined) => (a != null && b ? `${(a / b).toFixed(2)}x` : '-');
  const plan = (r: Row, q: string) => r.plans.find((p) => p.query.startsWith(q));
  writeSection(
    'growth',
    `## Growth: latency with 10, 1,000 and 100,000 calls

Measured by \`npm run bench:growth\` on ${today()} (${machine()}; load average at start ${startedLoad}). ${db} PostgreSQL, local mode, autocannon with ${connections} connections for ${duration} s per route after a 2 s warm-up, ${rounds} rounds. The sizes of one shape run side by side (one service and database each), and every round measures each size in turn, so that the machine's drift over minutes falls on all sizes alike; each figure is the median over the rounds. Calls seeded with \`generate_series\` (\`bench/support/seed.ts\`), then \`VACUUM ANALYZE\`d, and measured once the service and its database are idle. "One user": the measured user holds every call. "Many users": the measured user holds 10 calls and the rest belong to other users with 10 each. The measured user's newest completed calls (up to 50) have a transcript and two action items each, so the list's action-item join does its ordinary work. Status polls 10 ids; the list asks for 10 items (\`?limit=10\`), so that every size returns the same answer and only the database grows; the first page of 50 is in the last columns for reference (the 10-call cases return 10 items there). autocannon's percentiles have 1 ms resolution, so the mean latency (finer) is given too and "vs first" divides means; CPU per request is of the service with its embedded PostgreSQL (all processes of the tree, see \`treeCpuMs\`) and "SQL ms" is PostgreSQL's own execution time of the query. "vs first" divides by the value at the smallest size of the same shape.

${table(
  ['shape', 'calls in database', 'status p50 / mean / p99 ms', 'status mean vs first', 'status CPU ms/req', 'status SQL ms', 'list (10) p50 / mean / p99 ms', 'list (10) mean vs first', 'list (10) CPU ms/req', 'list SQL ms (50)', 'list (50) p50 / mean / p99 ms', 'list (50) mean vs first', 'load avg'],
  rows.map((r) => [
    r.shape,
    r.total.toLocaleString('en'),
    `${r.status.p50} / ${r.status.mean.toFixed(2)} / ${r.status.p99}`,
    ratio(r.status.mean, base(r.shape)?.status.mean),
    r.status.cpuMsPerRequest?.toFixed(3) ?? '-',
    plan(r, 'status')?.executionMs.toFixed(3) ?? '-',
    `${r.list.p50} / ${r.list.mean.toFixed(2)} / ${r.list.p99}`,
    ratio(r.list.mean, base(r.shape)?.list.mean),
    r.list.cpuMsPerRequest?.toFixed(3) ?? '-',
    plan(r, 'list')?.executionMs.toFixed(3) ?? '-',
    `${r.list50.p50} / ${r.list50.mean.toFixed(2)} / ${r.list50.p99}`,
    ratio(r.list50.mean, base(r.shape)?.list50.mean),
    r.load,
  ]),
)}

Plans at 100,000 calls (EXPLAIN ANALYZE of the prepared statements of \`src/domain/calls.ts\`, median of five runs in the "SQL ms" columns; the status-filtered list is explained, not loaded):

${rows
  .filter((r) => r.total === Math.max(...sizes))
  .flatMap((r) => r.plans.map((p) => `- ${r.shape}, ${p.query}: ${p.plan}`))
  .join('\n')}
`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

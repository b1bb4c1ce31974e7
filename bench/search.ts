// Search speed: the cost of keeping the index current (call_search_refresh, which the triggers run
// on every write a call's document depends on) and the latency of GET /api/calls/search queries,
// on the embedded PostgreSQL with synthetic calls built from the corpus dialogues' sentences.
//
//   node --import tsx bench/search.ts               # 1000 calls; writes docs/bench/search.md
//   node --import tsx bench/search.ts --calls 200 --no-write
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { sql } from 'kysely';
import { corpusDir, projectRoot } from '../test/support/corpus.js';
import { startTestService } from '../test/support/service.js';
import { fixture, transcriptFor } from '../test/fixtures/seed.js';
import { storeAnalysis } from '../src/domain/call-results.js';
import { searchCalls } from '../src/domain/search.js';
import type { Analysis } from '../src/domain/analysis.js';

const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const CALLS = arg('--calls', 1000);
const SEGMENTS = arg('--segments', 40);
const LONG_SEGMENTS = arg('--long-segments', 2400); // four hours of conversation at 6 s a segment
const write = !process.argv.includes('--no-write');

// Deterministic pseudo-random numbers, so every run indexes the same calls.
let seed = 42;
const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);

const sentences: string[] = [];
for (const f of fs.readdirSync(path.join(corpusDir, 'dialogues')).filter((x) => x.endsWith('.json'))) {
  const d = JSON.parse(fs.readFileSync(path.join(corpusDir, 'dialogues', f), 'utf8')) as { turns: Array<{ text: string }> };
  for (const t of d.turns) sentences.push(t.text);
}

function transcriptOf(callId: string, segments: number) {
  const base = transcriptFor(callId);
  const template = base.segments;
  base.segments = Array.from({ length: segments }, (_, i) => ({
    ...template[i % 2],
    id: `seg_${String(i + 1).padStart(4, '0')}`,
    startSeconds: i * 6,
    endSeconds: i * 6 + 5.5,
    text: sentences[Math.floor(rand() * sentences.length)],
  }));
  base.durationSeconds = segments * 6;
  return base;
}

const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const fmt = (ms: number) => ms.toFixed(1);

const t = await startTestService({ env: { WORKER_ENABLED: 'false' } });
try {
  const db = t.service.ctx.database.db;
  const user = await db.insertInto('users').values({ externalUserId: 'bench-search', displayName: 'Olivia Park', lastLoginAt: new Date() }).returning('id').executeTakeFirstOrThrow();
  const analysis = fixture<Analysis>('analysis-v3.json');

  async function seedCall(segments: number): Promise<{ id: string; ms: number }> {
    const call = await db
      .insertInto('calls')
      .values({ userId: user.id, status: 'COMPLETED', uploadTitle: `Call ${Math.floor(rand() * 1e6)}`, contactName: 'Bayview Logistics', updatedAt: new Date(), audioBytes: 0 })
      .returning('id')
      .executeTakeFirstOrThrow();
    const transcript = transcriptOf(call.id, segments);
    const t0 = performance.now();
    // What the pipeline's completion writes: the transcript, then analysis, items, title and summary.
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('callArtifacts').values({ callId: call.id, userId: user.id, kind: 'transcript', schemaVersion: 2, body: JSON.stringify(transcript) }).execute();
      await storeAnalysis(trx, user.id, call.id, analysis);
    });
    return { id: call.id, ms: performance.now() - t0 };
  }

  // Writes with and without the index triggers, for the same kind of call.
  const seedMs: number[] = [];
  const started = performance.now();
  for (let i = 0; i < CALLS; i++) seedMs.push((await seedCall(SEGMENTS)).ms);
  const seedTotalS = (performance.now() - started) / 1000;

  const refreshShort: number[] = [];
  const ids = (await db.selectFrom('calls').select('id').where('userId', '=', user.id).limit(50).execute()).map((r) => r.id);
  for (const id of ids) {
    const t0 = performance.now();
    await sql`SELECT call_search_refresh(${id}::uuid)`.execute(db);
    refreshShort.push(performance.now() - t0);
  }
  const long = await seedCall(LONG_SEGMENTS);
  const refreshLong: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    await sql`SELECT call_search_refresh(${long.id}::uuid)`.execute(db);
    refreshLong.push(performance.now() - t0);
  }
  // An action item status change on the long call: one refresh through the statement trigger.
  const itemUpdate: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    await db.updateTable('actionItems').set({ status: i % 2 ? 'OPEN' : 'DONE', updatedAt: new Date() }).where('callId', '=', long.id).where('userId', '=', user.id).execute();
    itemUpdate.push(performance.now() - t0);
  }

  const queries = ['invoice', 'appointment', '"next tuesday"', 'zoom meeting', 'router or modem', 'email -zoom', 'refund', 'the quarterly zeppelin'];
  const rows: Array<{ q: string; hits: number; p50: number; p95: number }> = [];
  for (const q of queries) {
    const times: number[] = [];
    let hits = 0;
    for (let i = 0; i < 21; i++) {
      const t0 = performance.now();
      const r = await searchCalls(db, user.id, { q, limit: 20, offset: 0 });
      if (i > 0) times.push(performance.now() - t0); // the first run warms caches
      hits = r.items.length;
    }
    const [{ n }] = (await sql<{ n: number }>`SELECT count(*)::int AS n FROM call_search WHERE user_id = ${user.id} AND document @@ websearch_to_tsquery('english', ${q})`.execute(db)).rows;
    rows.push({ q, hits: n, p50: percentile(times, 50), p95: percentile(times, 95) });
    void hits;
  }
  const size = (await sql<{ table: string; index: string }>`SELECT pg_size_pretty(pg_table_size('call_search')) AS table, pg_size_pretty(pg_relation_size('call_search_document_idx')) AS index`.execute(db)).rows[0];

  const date = new Date().toISOString().slice(0, 10);
  const md = `## Search: index upkeep and query latency

Measured by \`node --import tsx bench/search.ts\` on ${date} (${os.cpus().length} cores, ${os.cpus()[0]?.model.trim() ?? 'unknown CPU'}, load average ${os.loadavg()[0].toFixed(1)} at the end: the machine was shared), embedded PostgreSQL, one user with ${CALLS + 1} completed calls of ${SEGMENTS} segments (sentences drawn from the corpus dialogues) plus one call of ${LONG_SEGMENTS} segments (${((LONG_SEGMENTS * 6) / 3600).toFixed(1)} hours at 6 s a segment); every call has the same analysis (test/fixtures/analysis-v3.json), so its words (\"next Tuesday\", \"zoom meeting\") match every call. The index (\`call_search\`, ${size.table}; GIN index ${size.index}) is kept by triggers, so its cost is part of each write.

| what | median ms | p95 ms |
|---|---|---|
| completion writes of a ${SEGMENTS}-segment call (transcript, analysis, action items, title: one rebuild at commit) | ${fmt(percentile(seedMs, 50))} | ${fmt(percentile(seedMs, 95))} |
| one refresh, ${SEGMENTS}-segment call | ${fmt(percentile(refreshShort, 50))} | ${fmt(percentile(refreshShort, 95))} |
| one refresh, ${LONG_SEGMENTS}-segment call | ${fmt(percentile(refreshLong, 50))} | ${fmt(percentile(refreshLong, 95))} |
| action item status change on the ${LONG_SEGMENTS}-segment call (one refresh) | ${fmt(percentile(itemUpdate, 50))} | ${fmt(percentile(itemUpdate, 95))} |

Seeding ${CALLS} calls took ${seedTotalS.toFixed(1)} s in all.

Query latency of \`searchCalls\` (limit 20: ranking, snippets and matching segments of the page), 20 runs each after one warm-up:

| q | matching calls | median ms | p95 ms |
|---|---|---|---|
${rows.map((r) => `| \`${r.q}\` | ${r.hits} | ${fmt(r.p50)} | ${fmt(r.p95)} |`).join('\n')}
`;
  console.log(md);
  if (write) {
    fs.mkdirSync(path.join(projectRoot, 'docs/bench'), { recursive: true });
    fs.writeFileSync(path.join(projectRoot, 'docs/bench/search.md'), md);
    console.log('wrote docs/bench/search.md');
  }
} finally {
  await t.stop();
}

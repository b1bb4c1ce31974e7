// Event-loop stalls while a long transcript is re-analysed (issue 22, finding 2): the longest
// pause of the service process's event loop (perf_hooks.monitorEventLoopDelay) and the time the
// request itself took, while a 3-hour
// transcript is analysed again after a speaker correction (PATCH /api/calls/{id}/speakers, whose
// analysis follows on the analysis queue) and through POST /api/calls/{id}/reanalyze.
//
// before: the embedded analyzer in the service's own thread, as it ran before this change (the
//         PATCH then also waited for it; here the queue runs it, the stall is the same);
// after:  the service as configured by default: the embedded analyzer in a worker thread.
//
// The transcript is synthetic: corpus dialogue sentences repeated, two speakers, 6 s a segment.
// A benchmark, not a test: it asserts nothing and its figures depend on the machine's load.
//
//   CORPUS_DIR=/path/to/corpus node --import tsx bench/analysis-stall.ts     # writes docs/bench/analysis-stall.md
//   node --import tsx bench/analysis-stall.ts --segments 200 --no-write      # a quick look
import fs from 'node:fs';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { corpusDir, projectRoot } from '../test/support/corpus.js';
import { startTestService, TestIdp } from '../test/support/service.js';
import { fixture, transcriptFor } from '../test/fixtures/seed.js';
import { storeAnalysis } from '../src/domain/call-results.js';
import { EmbeddedAnalyzer } from '../src/pipeline/analysis/embedded/index.js';
import type { Analysis } from '../src/domain/analysis.js';
import { provenanceLine, startProvenance } from './support/provenance.js';

const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const SEGMENTS = arg('--segments', 1800); // three hours at 6 s a segment
const write = !process.argv.includes('--no-write');

const sentences: string[] = [];
for (const f of fs.readdirSync(path.join(corpusDir, 'dialogues')).filter((x) => x.endsWith('.json'))) {
  const d = JSON.parse(fs.readFileSync(path.join(corpusDir, 'dialogues', f), 'utf8')) as { turns: Array<{ text: string }> };
  for (const t of d.turns) sentences.push(t.text);
}

/** A long two-speaker transcript: the seed transcript's speakers, the corpus's sentences in turn. */
function longTranscript(callId: string, segments: number) {
  const base = transcriptFor(callId);
  const template = base.segments;
  base.segments = Array.from({ length: segments }, (_, i) => ({
    ...template[i % 2],
    id: `seg_${String(i + 1).padStart(4, '0')}`,
    startSeconds: i * 6,
    endSeconds: i * 6 + 5.5,
    text: sentences[i % sentences.length],
  }));
  const clock = (s: number) => `${String(Math.floor(s / 60)).padStart(2, '0')}:${String(Math.floor(s % 60)).padStart(2, '0')}`;
  base.cleanText = base.segments.map((s) => `[${clock(s.startSeconds)} - ${clock(s.endSeconds)}] ${s.speakerDisplayName}: ${s.text}`).join('\n');
  base.durationSeconds = segments * 6;
  return base;
}

interface Figures {
  requestMs: number;
  untilAnalysedMs: number;
  maxStallMs: number;
  p99StallMs: number;
}

/**
 * Runs `action` (which resolves once the analysis is stored) while measuring the event loop. The
 * HTTP client runs in the same process, so a latency it measured would not see a stall (its own
 * timers wait as well): the event loop's delay is the figure.
 */
async function measure(action: () => Promise<{ requestMs: number }>): Promise<Figures> {
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  const t0 = performance.now();
  const { requestMs } = await action();
  const untilAnalysedMs = performance.now() - t0;
  h.disable();
  return {
    requestMs,
    untilAnalysedMs,
    maxStallMs: h.max / 1e6,
    p99StallMs: h.percentile(99) / 1e6,
  };
}

async function run(mode: 'before' | 'after'): Promise<{ correction: Figures; reanalyze: Figures }> {
  const idp = await TestIdp.start();
  // before: the analyzer in this thread; after: the default pipeline (the embedded analyzer in a worker thread).
  const t = await startTestService({ env: idp.env(), workers: true, ...(mode === 'before' ? { pipeline: { analyzer: new EmbeddedAnalyzer() } } : {}) });
  try {
    const token = await idp.token({ sub: 'bench-stall', name: 'Olivia Park' });
    const me = await t.request('GET', '/api/users/me', { token });
    const userId = me.body.id as string;
    const db = t.service.ctx.database.db;
    const call = await db
      .insertInto('calls')
      .values({ userId, status: 'COMPLETED', uploadTitle: 'Three-hour call', contactName: 'Bayview Logistics', direction: 'INCOMING', durationSeconds: SEGMENTS * 6, updatedAt: new Date(), completedAt: new Date(), audioBytes: 0 })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db.insertInto('callArtifacts').values({ callId: call.id, userId, kind: 'transcript', schemaVersion: 2, body: JSON.stringify(longTranscript(call.id, SEGMENTS)) }).execute();
    await db.transaction().execute((trx) => storeAnalysis(trx, userId, call.id, fixture<Analysis>('analysis-v3.json')));

    const reanalyze = async () => {
      const t0 = performance.now();
      const r = await t.request('POST', `/api/calls/${call.id}/reanalyze`, { token });
      if (r.status !== 200) throw new Error(`reanalyze answered ${r.status}`);
      return { requestMs: performance.now() - t0 };
    };
    // Warm-up (module loading, the worker thread's start), not measured.
    await reanalyze();

    let n = 0;
    const correction = await measure(async () => {
      const t0 = performance.now();
      const r = await t.request('PATCH', `/api/calls/${call.id}/speakers`, { token, body: { operations: [{ type: 'RENAME_SPEAKER', speakerId: 'spk_2', displayName: `Dana ${++n}` }] } });
      if (r.status !== 200) throw new Error(`PATCH answered ${r.status}`);
      const requestMs = performance.now() - t0;
      while ((await t.request('GET', `/api/calls/${call.id}`, { token })).body.analysisPending) await new Promise((res) => setTimeout(res, 100));
      return { requestMs };
    });
    const again = await measure(reanalyze);
    return { correction, reanalyze: again };
  } finally {
    await t.stop();
    await idp.stop();
  }
}

const prov = startProvenance(`synthetic ${SEGMENTS}-segment transcript (${((SEGMENTS * 6) / 3600).toFixed(1)} h, corpus dialogue sentences repeated)`, 'not-applicable');
const results = { before: await run('before'), after: await run('after') };
const provenance = prov.finish();

const f = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`);
const rows: string[] = [];
for (const mode of ['before', 'after'] as const) {
  for (const [what, fig] of [['speaker correction (PATCH, analysis queued)', results[mode].correction], ['re-analysis (POST reanalyze)', results[mode].reanalyze]] as const) {
    rows.push(`| ${mode} | ${what} | ${f(fig.maxStallMs)} | ${f(fig.p99StallMs)} | ${f(fig.requestMs)} | ${f(fig.untilAnalysedMs)} |`);
  }
}
const table = [
  '| analyzer | operation | longest event-loop stall | p99 stall | request answered in | analysis stored after |',
  '|---|---|---|---|---|---|',
  ...rows,
].join('\n');
const report = `# Event-loop stalls during re-analysis

The longest pause of the service process's event loop (\`perf_hooks.monitorEventLoopDelay\`, 10 ms
resolution) while a ${((SEGMENTS * 6) / 3600).toFixed(1)}-hour transcript (${SEGMENTS} segments) is analysed again with the
embedded analyzer. **before**: the analyzer runs
in the service's own thread, as it did before issue 22 (where the speaker correction also waited
for it inside the request); **after**: the default service, the analyzer in a worker thread and the
correction's analysis on the analysis queue. One warm-up re-analysis precedes the figures.

${table}

${provenanceLine(provenance, 'node --import tsx bench/analysis-stall.ts')}
`;
console.log(report);
if (write) {
  fs.mkdirSync(path.join(projectRoot, 'docs/bench'), { recursive: true });
  fs.writeFileSync(path.join(projectRoot, 'docs/bench/analysis-stall.md'), report);
  console.log('wrote docs/bench/analysis-stall.md');
}
process.exit(0);

// Pipeline speed. (1) Real-time factor per stage on corpus calls: decode, recognition,
// diarization, voice embedding, speaker resolution (with transcript building and validation) and
// analysis, one call at a time in this process. (2) Queue drain: 40 uploads of a short clip
// processed by 1 and by 2 worker processes (`npm run worker`) sharing the external PostgreSQL
// and one DATA_DIR, with an API-only process taking the uploads. Writes docs/bench/pipeline.md.
//   npm run bench:pipeline [-- --calls 4 --uploads 40 --workers 1,2 --clip-seconds 8]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import pino from 'pino';
import { loadConfig } from '../src/config.js';
import { createPipeline } from '../src/pipeline/index.js';
import { embedCallSpeakers } from '../src/pipeline/voice/match.js';
import { corpusFile, corpusIds, loadTruth, projectRoot, transcribeCorpusCall } from '../test/support/corpus.js';
import { freePort, spawnService, waitHealthy, type ServiceProcess } from '../test/support/process.js';
import { createExternalDatabase, externalDbAvailable, tempDir, uploadForm } from '../test/support/service.js';
import { argValue, loadAverage, machine, table, today, writeSection } from './support/harness.js';

const callCount = Number(argValue('calls', '4'));
const uploads = Number(argValue('uploads', '40'));
const workerCounts = argValue('workers', '1,2').split(',').map(Number);
const clipSeconds = Number(argValue('clip-seconds', '8'));
const skipStages = process.argv.includes('--drain-only');
const skipDrain = process.argv.includes('--stages-only');

const STAGES = ['decode', 'recognition', 'diarization', 'voice', 'resolution', 'analysis'] as const;

async function stages(): Promise<string> {
  const startedAt = loadAverage();
  const dataDir = tempDir('cas-bench-pipeline-');
  const config = loadConfig({ SERVICE_ENV: 'test', DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
  const pipeline = await createPipeline(config, pino({ level: 'silent' }));
  process.on('exit', () => fs.rmSync(dataDir, { recursive: true, force: true }));
  const ids = corpusIds().slice(0, callCount);
  const rows: Array<Array<string | number>> = [];
  const sums: Record<string, number> = Object.fromEntries(STAGES.map((s) => [s, 0]));
  let audioSeconds = 0;
  for (const id of ids) {
    const truth = loadTruth(id);
    const t0 = performance.now();
    let voice = 0;
    let wall = 0;
    // The voice embedding reads the decoded audio, which lives only as long as the work folder.
    const r = await transcribeCorpusCall(pipeline, id, 'mono16k.wav', {
      whileDecoded: async (result) => {
        wall = performance.now() - t0;
        const v0 = performance.now();
        await embedCallSpeakers(pipeline.embedder, result.audio, result.diarization.speakerRegions);
        voice = performance.now() - v0;
      },
    });
    const a0 = performance.now();
    await pipeline.analyzer.analyze(r.transcript, {
      userDisplayName: truth.user.displayName,
      contactName: truth.upload.contactName,
      phoneNumber: truth.upload.phoneNumber,
      direction: truth.upload.direction,
      recordedAt: truth.upload.recordedAt,
      title: truth.title,
    });
    const analysis = performance.now() - a0;
    const t = r.timings;
    const ms: Record<string, number> = {
      decode: t.decode ?? 0,
      recognition: t.transcribe ?? 0,
      diarization: t.diarize ?? 0,
      voice,
      // The speech stage's remainder: speaker resolution, transcript building and validation.
      resolution: Math.max(0, wall - (t.decode ?? 0) - (t.transcribe ?? 0) - (t.diarize ?? 0) - (t.voice ?? 0)),
      analysis,
    };
    const secs = r.audio.durationSeconds;
    audioSeconds += secs;
    for (const s of STAGES) sums[s] += ms[s];
    const total = STAGES.reduce((x, s) => x + ms[s], 0);
    rows.push([id, secs.toFixed(1), ...STAGES.map((s) => (ms[s] / 1000 / secs).toFixed(3)), (total / 1000 / secs).toFixed(3), loadAverage()]);
    console.log(`${id}: ${STAGES.map((s) => `${s} ${(ms[s] / 1000 / secs).toFixed(3)}`).join(', ')}`);
  }
  const total = STAGES.reduce((x, s) => x + sums[s], 0);
  rows.push(['**all**', audioSeconds.toFixed(1), ...STAGES.map((s) => (sums[s] / 1000 / audioSeconds).toFixed(3)), (total / 1000 / audioSeconds).toFixed(3), '']);
  return `### Real-time factor per stage

Measured ${today()}, load average at start ${startedAt}.

${ids.length} corpus calls (mono16k.wav tier), one at a time. RTF = stage wall time / audio duration. Voice is the embedding of both speakers (what a call costs when the user has a voice profile); resolution is the rest of the speech stage (speaker naming, transcript building and validation).

${table(['call', 'audio s', ...STAGES.map((s) => `${s} RTF`), 'total RTF', 'load avg'], rows)}`;
}

async function drain(): Promise<string> {
  const startedAt = loadAverage();
  if (!(await externalDbAvailable())) return '### Queue drain\n\nSkipped: the external PostgreSQL did not answer.';
  const dir = path.join(projectRoot, '.cache/bench');
  fs.mkdirSync(dir, { recursive: true });
  const clip = path.join(dir, `clip-${clipSeconds}s.m4a`);
  if (!fs.existsSync(clip)) execFileSync('ffmpeg', ['-v', 'error', '-y', '-i', corpusFile(corpusIds()[0], 'call.m4a'), '-t', String(clipSeconds), '-c', 'copy', clip], { timeout: 60_000 });
  const rows: Array<Array<string | number>> = [];
  const drains: Record<number, number> = {};
  for (const workers of workerCounts) {
    const db = await createExternalDatabase();
    const dataDir = tempDir('cas-bench-drain-');
    const port = await freePort();
    const common = {
      DATABASE_URL: db.url,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      SERVICE_MAX_UPLOADS_PER_HOUR: '10000',
      SERVICE_MAX_CONCURRENT_ACTIVE_CALLS: '10000',
      PLAN_FREE_TRANSCRIPTS_PER_DAY: '10000',
      PLAN_FREE_MINUTES_PER_MONTH: '1000000',
    };
    const procs: ServiceProcess[] = [];
    const client = new pg.Client({ connectionString: db.url });
    try {
      const api = spawnService({ ...common, PORT: String(port), HOST: '127.0.0.1', WORKER_ENABLED: 'false' });
      procs.push(api);
      await waitHealthy(port, api);
      // The workers start first, with the queue empty, and the uploads begin only when every one of
      // them is ready (its "service started" line, logged after it began polling the queue): a
      // worker still loading while another already drains would count its start-up against the
      // two-worker run. Uploads of a short clip take a second or two in all, against minutes of
      // processing. One job at a time per process (WORKER_CONCURRENCY=1, set explicitly: the
      // pipeline of one call runs on one core, pocketsphinx and the embedded stages being
      // single-threaded), so N processes use at most N cores. The drain is measured from the
      // database's own timestamps: first PIPELINE STARTED event to the last finished call.
      const workerProcs: ServiceProcess[] = [];
      for (let i = 0; i < workers; i++) workerProcs.push(spawnService({ ...common, LOG_LEVEL: 'info', WORKER_CONCURRENCY: '1' }, ['--worker-only']));
      procs.push(...workerProcs);
      const readyBy = Date.now() + 180_000;
      while (!workerProcs.every((w) => w.output().includes('"msg":"service started"'))) {
        const dead = workerProcs.find((w) => w.child.exitCode !== null);
        if (dead) throw new Error(`worker exited early: ${dead.output().slice(-2000)}`);
        if (Date.now() > readyBy) throw new Error('workers not ready in 3 minutes');
        await new Promise((r) => setTimeout(r, 250));
      }
      for (let i = 0; i < uploads; i++) {
        const res = await fetch(`http://127.0.0.1:${port}/api/calls/analyze`, { method: 'POST', body: uploadForm(clip, { title: `drain ${i}` }) });
        if (res.status !== 202) throw new Error(`upload answered ${res.status}: ${await res.text()}`);
      }
      await client.connect();
      const deadline = Date.now() + 30 * 60_000;
      for (;;) {
        const r = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM calls WHERE status IN ('COMPLETED', 'FAILED')`);
        if (r.rows[0].n >= uploads) break;
        if (Date.now() > deadline) throw new Error('drain did not finish in 30 minutes');
        await new Promise((res) => setTimeout(res, 500));
      }
      const t = await client.query<{ seconds: number; failed: number; per_call: number }>(`
        SELECT extract(epoch FROM (SELECT max(completed_at) FROM calls) - (SELECT min(created_at) FROM processing_events WHERE step = 'PIPELINE' AND outcome = 'STARTED'))::float8 AS seconds,
               (SELECT count(*)::int FROM calls WHERE status = 'FAILED') AS failed,
               (SELECT avg((detail->>'totalMs')::float8) FROM processing_events WHERE step = 'PIPELINE' AND outcome = 'COMPLETED')::float8 AS per_call`);
      const { seconds, failed, per_call } = t.rows[0];
      drains[workers] = seconds;
      const speedup = drains[workerCounts[0]] ? (drains[workerCounts[0]] / seconds).toFixed(2) + 'x' : '-';
      rows.push([workers, uploads, clipSeconds, seconds.toFixed(1), (uploads / seconds).toFixed(2), ((uploads * clipSeconds) / seconds).toFixed(1), (per_call / 1000).toFixed(2), failed, speedup, loadAverage()]);
      console.log(`${workers} worker process(es): ${uploads} calls drained in ${seconds.toFixed(1)} s (${failed} failed), ${speedup} vs ${workerCounts[0]}`);
    } finally {
      await client.end().catch(() => undefined);
      for (const p of procs.reverse()) await p.kill('SIGTERM');
      await db.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }
  return `### Queue drain: ${uploads} uploads, 1 and 2 worker processes

Measured ${today()}, load average at start ${startedAt}.

External PostgreSQL; one API process (workers off) takes ${uploads} uploads of a ${clipSeconds} s clip (${path.basename(clip)}, cut from a corpus call) one after another, once ${workerCounts.join(' or ')} \`--worker-only\` processes (WORKER_CONCURRENCY=1 each, set explicitly) have all started and poll the queue (so no worker's start-up counts against a run); they share the queue and the DATA_DIR. Drain = first job start to last call finished, from the database's timestamps. Run it on a quiet machine: \`npm run bench:pipeline -- --drain-only --uploads 40\`. On a 2-core machine two workers share the cores with PostgreSQL, the API process and the other load, so the speed-up is bounded by the free cores.

${table(['worker processes', 'calls', 'clip s', 'drain s', 'calls/s', 'audio s per s', 'mean s per call (in worker)', 'failed', 'speed-up vs first', 'load avg'], rows)}`;
}

/** A part of the current report (from its ### heading to the next), kept when this run skips it. */
function previousPart(heading: string): string | null {
  const file = path.join(projectRoot, 'docs/bench/pipeline.md');
  if (!fs.existsSync(file)) return null;
  const text = fs.readFileSync(file, 'utf8');
  const start = text.indexOf(`### ${heading}`);
  if (start < 0) return null;
  const next = text.indexOf('\n### ', start + 4);
  return text.slice(start, next < 0 ? undefined : next).trim();
}

async function main(): Promise<void> {
  const parts: string[] = [];
  // --drain-only and --stages-only re-measure one part and keep the other as last measured (each
  // part carries its own date and load).
  const keptStages = skipStages ? previousPart('Real-time factor per stage') : null;
  const keptDrain = skipDrain ? previousPart('Queue drain') : null;
  if (!skipStages) parts.push(await stages());
  else if (keptStages) parts.push(keptStages);
  if (!skipDrain) parts.push(await drain());
  else if (keptDrain) parts.push(keptDrain);
  writeSection(
    'pipeline',
    `## Pipeline: stage speed and queue drain

Measured by \`npm run bench:pipeline\` (${machine()}), offline defaults (pocketsphinx, embedded diarizer, embedder and analyzer).

${parts.join('\n\n')}
`,
  );
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);

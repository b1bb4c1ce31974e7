// Event-loop stalls while a call is processed in the service's own process (`npm start` runs the
// jobs in-process): the longest pause of the event loop (perf_hooks.monitorEventLoopDelay) from the
// upload until the call is COMPLETED, and the diarize stage's time.
//
// before: the embedded diarizer in the service's own thread, as it ran before diarization moved to
//         worker threads;
// after:  the service as configured by default (src/pipeline/diarization/threaded.ts).
//
// The call is the car-repair corpus call (mono16k.wav) looped to --minutes by Ogg stream copy.
// Recognition is cached by audio hash (test/support/recognition-cache.ts), so the second run does
// not recognise again; recognition runs in a child process either way.
// A benchmark, not a test: it asserts nothing and its figures depend on the machine's load.
//
//   node --import tsx bench/processing-stall.ts                    # 5 minutes; writes docs/bench/processing-stall.md
//   node --import tsx bench/processing-stall.ts --minutes 1 --no-write
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import pino from 'pino';
import { createDiarizer } from '../src/pipeline/diarization/index.js';
import { createTranscriber } from '../src/pipeline/transcription/index.js';
import { corpusFile, ensureCorpus, projectRoot } from '../test/support/corpus.js';
import { cachingTranscriber } from '../test/support/recognition-cache.js';
import { startTestService, TestIdp, uploadForm, waitForCall } from '../test/support/service.js';
import { provenanceLine, startProvenance } from './support/provenance.js';

const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const MINUTES = arg('--minutes', 5);
const write = !process.argv.includes('--no-write');

ensureCorpus(['car-repair']);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'processing-stall-'));
const audio = path.join(tmp, 'call.ogg');
execFileSync('ffmpeg', ['-loglevel', 'error', '-y', '-stream_loop', '-1', '-i', corpusFile('car-repair', 'mono16k.wav'), '-t', String(MINUTES * 60), '-c:a', 'libopus', '-b:a', '32k', audio]);

interface Figures {
  maxStallMs: number;
  p99StallMs: number;
  diarizeMs: number;
  totalMs: number;
}

async function run(mode: 'before' | 'after'): Promise<Figures> {
  const idp = await TestIdp.start();
  const transcriber = cachingTranscriber(await createTranscriber({ provider: 'pocketsphinx' }, pino({ level: 'silent' })));
  const pipeline = mode === 'before' ? { transcriber, diarizer: createDiarizer() } : { transcriber };
  const t = await startTestService({ env: { ...idp.env(), WORKER_ENABLED: 'true', WORKER_CONCURRENCY: '1' }, workers: true, pipeline });
  try {
    const token = await idp.token({ sub: 'bench-processing-stall', name: 'Olivia Park' });
    const h = monitorEventLoopDelay({ resolution: 10 });
    h.enable();
    const t0 = performance.now();
    const r = await t.request('POST', '/api/calls/analyze', { token, form: uploadForm(audio, { title: 'Long call', direction: 'OUTGOING' }, {}, 'call.ogg', 'audio/ogg') });
    if (r.status !== 202) throw new Error(`upload answered ${r.status}`);
    const status = await waitForCall(t, r.body.callId, token);
    const totalMs = performance.now() - t0;
    h.disable();
    if (status !== 'COMPLETED') throw new Error(`call ended ${status}`);
    // The diarize stage's own event (src/pipeline/stages/diarize.ts) carries its time.
    const event = await t.service.ctx.database.db.selectFrom('processingEvents').select(['detail']).where('callId', '=', r.body.callId).where('step', '=', 'DIARIZE').executeTakeFirst();
    const detail = (typeof event?.detail === 'string' ? JSON.parse(event.detail) : event?.detail) as { ms?: number } | undefined;
    const diarizeMs = Number(detail?.ms ?? NaN);
    return { maxStallMs: h.max / 1e6, p99StallMs: h.percentile(99) / 1e6, diarizeMs, totalMs };
  } finally {
    await t.stop();
    await idp.stop();
  }
}

const prov = startProvenance(`the car-repair corpus call (mono16k.wav) looped to ${MINUTES} minutes, Opus`, 'not-applicable');
// after first: its recognition fills the cache that the before run then reads.
const results = { after: await run('after'), before: await run('before') };
const provenance = prov.finish();
fs.rmSync(tmp, { recursive: true, force: true });

const f = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`);
const table = [
  '| diarizer | longest event-loop stall | p99 stall | diarize stage | upload to COMPLETED |',
  '|---|---|---|---|---|',
  ...(['before', 'after'] as const).map((m) => `| ${m} | ${f(results[m].maxStallMs)} | ${f(results[m].p99StallMs)} | ${f(results[m].diarizeMs)} | ${f(results[m].totalMs)} |`),
].join('\n');
const report = `# Event-loop stalls while a call is processed

The longest pause of the service process's event loop (\`perf_hooks.monitorEventLoopDelay\`, 10 ms
resolution) from the upload of a ${MINUTES}-minute call until it is COMPLETED, jobs in the service's
own process (as \`npm start\` runs them). **before**: the embedded diarizer in the service's own
thread; **after**: the default service, the diarizer in a worker thread
(src/pipeline/diarization/threaded.ts). Every request of every user waits out a stall. The
recognition of the second run comes from the first run's cache (the \`after\` run goes first).

${table}

${provenanceLine(provenance, 'node --import tsx bench/processing-stall.ts')}
`;
console.log(report);
if (write) {
  fs.mkdirSync(path.join(projectRoot, 'docs/bench'), { recursive: true });
  fs.writeFileSync(path.join(projectRoot, 'docs/bench/processing-stall.md'), report);
  console.log('wrote docs/bench/processing-stall.md');
}
process.exit(0);

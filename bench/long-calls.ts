// Long-call benchmark: peak memory (RSS) of one worker process and time per stage for calls of
// 10 minutes, 1 hour and 3 hours through the pipeline with its embedded defaults (ffmpeg decode,
// pocketsphinx, diarization, voice, naming, normalisation, embedded analysis). Each call runs in a
// fresh child process so its peak RSS is its own. The calls are a corpus call looped by stream copy.
//
//   npm run bench:long                                   # 10, 60 and 180 minutes, mono (about 1.5 h of CPU)
//   npm run bench:long -- --minutes 10,60 --tier stereo.wav
//   npm run bench:long -- --recognizer mock --tier stereo.wav   # recognition by a local OpenAI-compatible
//       server that answers instantly (test/support/mock-recognizer.ts): the worker's own memory and
//       stages without pocketsphinx's time (pocketsphinx runs as a child process, outside the worker's RSS)
// Writes docs/bench/long-calls.md (and prints the table). Target (issue 14): the 3-hour call's peak
// within 1.5 x the 10-minute call's peak + 100 MB.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { loadConfig } from '../src/config.js';
import { createPipeline } from '../src/pipeline/index.js';
import { transcribeCall } from '../src/pipeline/speech.js';
import { corpusFile, loadTruth, projectRoot } from '../test/support/corpus.js';
import { startMockRecognizer } from '../test/support/mock-recognizer.js';
import { provenanceLine, startProvenance } from './support/provenance.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const CALL_ID = 'car-repair';

const NOTES = [
  'The decoded call stays on disk (src/pipeline/audio/pcm.ts): the 16 kHz mono WAV file and, for a two-channel upload, the',
  'two-channel WAV file in the job\'s work folder. Every stage reads them in windows of 30 s: VAD, the cuts of long utterances,',
  'frame energies, MFCCs (of the speech frames only, in one buffer), per-word channel energies; voice matching reads only a',
  'speaker\'s regions (at most 300 s per speaker). What still grows with the call is per frame or per word: energies and labels',
  '(a few bytes per 10 ms), the state of mono diarization per speech frame (below), the words and the transcript. Recognition',
  'through an OpenAI-compatible provider reads only windows',
  'of the decoded file and sends parts encoded by ffmpeg; pocketsphinx runs as a child process (its memory is not in the worker\'s',
  'RSS). (The figures from before, with whole-call float arrays, are in the git history of this report.)',
  'A two-leg stereo call (channel diarizer) now stays flat. Mono diarization keeps, per 10 ms speech frame, its 19 MFCCs in one',
  'flat matrix read by offset (76 bytes a frame; before 2026-11-25 also a Float32Array view per frame, about 100 bytes of object',
  'each, which made the 3-hour mono call miss the target) and its per-cluster log-likelihoods',
  '(8 bytes per cluster per frame, one buffer per re-segmentation).',
  'Peak RSS varies by some tens of MB from run to run with garbage collection timing. Times in these tables depend heavily on the',
  'machine\'s load (given with each table).',
].join('\n');

interface ChildResult {
  audioSeconds: number;
  words: number;
  timings: Record<string, number>;
  maxRssMb: number;
  totalMs: number;
}

/** In the child: one call through speech and analysis; prints its measurements as JSON. */
async function child(file: string): Promise<void> {
  const config = loadConfig({ ...process.env, DATA_DIR: path.join(os.tmpdir(), 'cas-bench-long') });
  const pipeline = await createPipeline(config, pino({ level: 'warn' }));
  const truth = loadTruth(CALL_ID);
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cas-bench-long-work-'));
  const t0 = performance.now();
  try {
    const speech = await transcribeCall(pipeline, {
      callId: '00000000-0000-4000-8000-000000000000',
      audioPath: file,
      workDir,
      maxAudioSeconds: 4 * 3600 + 60,
      voiceProfile: null,
      context: { userDisplayName: truth.user.displayName, contactName: truth.upload.contactName, phoneNumber: truth.upload.phoneNumber, direction: truth.upload.direction, voiceEmbeddingEnabled: false },
    });
    const a0 = performance.now();
    await pipeline.analyzer.analyze(speech.transcript, { userDisplayName: truth.user.displayName, contactName: truth.upload.contactName, phoneNumber: truth.upload.phoneNumber, direction: truth.upload.direction, recordedAt: truth.upload.recordedAt, title: null });
    const timings = { ...speech.timings, analyze: Math.round(performance.now() - a0) };
    const result: ChildResult = {
      audioSeconds: speech.audio.durationSeconds,
      words: speech.recognition.words.length,
      timings,
      maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
      totalMs: Math.round(performance.now() - t0),
    };
    process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
  } finally {
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const childFile = arg('--child');
  if (childFile) return child(childFile);
  if (process.argv.includes('--assemble-only')) return assemble();
  const minutes = (arg('--minutes') ?? '10,60,180').split(',').map(Number);
  const tier = (arg('--tier') ?? 'mono16k.wav') as 'mono16k.wav' | 'stereo.wav';
  const recognizer = arg('--recognizer') ?? 'embedded';
  const mock = recognizer === 'mock' ? await startMockRecognizer() : null;
  const childEnv = mock ? { ...process.env, TRANSCRIPTION_PROVIDER: 'openai', TRANSCRIPTION_OPENAI_BASE_URL: mock.baseUrl } : process.env;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cas-bench-long-'));
  const rows: string[] = ['| call | audio s | words | peak RSS MB | decode s | transcribe s | diarize s | voice s | analyze s | total s |', '|---|---|---|---|---|---|---|---|---|---|'];
  const results: Array<[number, ChildResult]> = [];
  const load = os.loadavg().map((x) => x.toFixed(1)).join(' / ');
  const startedAt = new Date().toISOString().slice(0, 16);
  const prov = startProvenance(`the ${CALL_ID} corpus call (${tier}) looped to ${minutes.join(', ')} minutes`, 'not-applicable');
  try {
    const base = path.join(dir, 'base.ogg');
    execFileSync('ffmpeg', ['-nostdin', '-loglevel', 'error', '-i', corpusFile(CALL_ID, tier), '-c:a', 'libopus', '-b:a', '24k', base]);
    for (const m of minutes) {
      const file = path.join(dir, `call-${m}min.ogg`);
      execFileSync('ffmpeg', ['-nostdin', '-loglevel', 'error', '-stream_loop', '-1', '-i', base, '-t', String(m * 60), '-c', 'copy', file]);
      // Asynchronous: the mock recogniser answers from this process meanwhile.
      const r = await new Promise<{ status: number | null; stdout: string }>((resolve) => {
        const c = spawn(process.execPath, ['--import', 'tsx', 'bench/long-calls.ts', '--child', file], { cwd: projectRoot, env: childEnv, stdio: ['ignore', 'pipe', 'inherit'] });
        let out = '';
        c.stdout.on('data', (d) => (out += d));
        c.on('close', (status) => resolve({ status, stdout: out }));
      });
      const line = r.stdout.split('\n').find((l) => l.startsWith('RESULT '));
      if (r.status !== 0 || !line) throw new Error(`the ${m}-minute call failed (exit ${r.status})`);
      const res = JSON.parse(line.slice(7)) as ChildResult;
      results.push([m, res]);
      const s = (k: string) => ((res.timings[k] ?? 0) / 1000).toFixed(1);
      rows.push(`| ${m} min | ${res.audioSeconds.toFixed(0)} | ${res.words} | ${res.maxRssMb} | ${s('decode')} | ${s('transcribe')} | ${s('diarize')} | ${s('voice')} | ${s('analyze')} | ${(res.totalMs / 1000).toFixed(1)} |`);
      console.log(rows.at(-1));
      fs.rmSync(file, { force: true });
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    await mock?.close();
  }
  const first = results.find(([m]) => m === 10)?.[1];
  const last = results.find(([m]) => m === 180)?.[1];
  const verdict =
    first && last
      ? `Target: 3-hour peak ≤ 1.5 × ${first.maxRssMb} + 100 = ${Math.round(1.5 * first.maxRssMb + 100)} MB; measured ${last.maxRssMb} MB: ${last.maxRssMb <= 1.5 * first.maxRssMb + 100 ? 'met' : 'not met'}.`
      : 'Target (3-hour peak ≤ 1.5 × 10-minute peak + 100 MB) not evaluated: run with 10 and 180 minutes.';
  const md = [
    `### ${tier}, recognizer ${recognizer === 'mock' ? 'mock (OpenAI-compatible, instant)' : 'embedded (pocketsphinx)'}`,
    '',
    `\`npm run bench:long -- --minutes ${minutes.join(',')} --tier ${tier} --recognizer ${recognizer}\` started ${startedAt} UTC, ${os.cpus().length} cores, load average at start ${load} (1/5/15 min).`,
    `The ${CALL_ID} corpus call (${tier}) looped to length by Ogg stream copy; embedded diarization and analysis (voice matching off: no profile); one child process per call; peak RSS is the child's maxRSS.`,
    '',
    ...rows,
    '',
    verdict,
    '',
    // The commit each part measured: parts are kept across runs of other tiers, so each says its own.
    provenanceLine(prov.finish(), `node --import tsx bench/long-calls.ts ${process.argv.slice(2).join(' ')}`),
  ].join('\n');
  fs.mkdirSync(path.join(projectRoot, 'docs/bench'), { recursive: true });
  // One file per tier and recogniser, assembled into long-calls.md under one heading.
  const dirOut = path.join(projectRoot, 'docs/bench/long-calls');
  fs.mkdirSync(dirOut, { recursive: true });
  fs.writeFileSync(path.join(dirOut, `${tier.replace(/\W+/g, '-')}-${recognizer}.md`), `${md}\n`);
  assemble();
  console.log(`\n${verdict}\nwrote docs/bench/long-calls.md`);
}

function assemble(): void {
  const dirOut = path.join(projectRoot, 'docs/bench/long-calls');
  const all = fs.existsSync(dirOut)
    ? fs
        .readdirSync(dirOut)
        .filter((f) => f.endsWith('.md'))
        .sort()
        .map((f) => fs.readFileSync(path.join(dirOut, f), 'utf8').trim())
        // A part from before the parts were stamped cannot say which code it measured.
        .map((t) => (t.includes('_Measured by `') ? t : `${t}\n\n_Not stamped with a commit: measured by an earlier bench/long-calls.ts, possibly before changes the notes above describe; the git history of docs/bench/long-calls/ dates it. Rerun \`npm run bench -- --only long-calls\` to replace it._`))
    : [];
  fs.writeFileSync(path.join(projectRoot, 'docs/bench/long-calls.md'), `## Long calls: memory and time per stage\n\n${NOTES}\n\n${all.join('\n\n')}\n`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

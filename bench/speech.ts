// Speech benchmark: runs every corpus call through the pipeline's speech stages (decode,
// recognition, diarization, naming, normalisation) and scores the transcripts with the corpus
// scorer: word error rate, word-level speaker attribution, roles, names, and the real-time factor.
//
//   npm run bench:speech                       # tiers mono16k.wav, stereo.wav, call.m4a
//   npm run bench:speech -- --tiers mono16k.wav,phone8k.wav --ids car-repair
// Writes docs/bench/speech.md (and prints the tables).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { loadConfig } from '../src/config.js';
import { createPipeline } from '../src/pipeline/index.js';
import { corpusIds, loadScorer, loadTruth, projectRoot, transcribeCorpusCall } from '../test/support/corpus.js';
import { timingViolations, wordTimingErrors } from '../test/support/word-timing.js';

type Tier = 'mono16k.wav' | 'stereo.wav' | 'call.m4a' | 'call.mp3' | 'call.ogg' | 'call.aac' | 'phone8k.wav';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const pct = (x: number) => `${(100 * x).toFixed(1)}`;

async function main() {
  const tiers = (arg('--tiers') ?? 'mono16k.wav,stereo.wav,call.m4a').split(',') as Tier[];
  const ids = arg('--ids')?.split(',') ?? corpusIds();
  const scorer = await loadScorer();
  const config = loadConfig({ ...process.env, DATA_DIR: path.join(os.tmpdir(), 'cas-bench') });
  const pipeline = await createPipeline(config, pino({ level: 'warn' }));
  const sections: string[] = [];
  const summary: string[] = [
    '| tier | calls | WER % | attribution % | role % | naming % | turn-boundary error s (max) | timing checks | real-time factor |',
    '|---|---|---|---|---|---|---|---|---|',
  ];

  for (const tier of tiers) {
    const rows: string[] = [
      '| call | s | WER % | attribution % | role % | naming % | turn-boundary error s (max) | timing checks | RTF | labelSource (USER / CONTACT) | warnings |',
      '|---|---|---|---|---|---|---|---|---|---|---|',
    ];
    const boundaryErrors: number[] = [];
    let maxBoundary = 0;
    let violatingCalls = 0;
    const results: any[] = [];
    let audioSeconds = 0;
    let processingMs = 0;
    for (const id of ids) {
      const truth = loadTruth(id);
      const t0 = performance.now();
      const speech = await transcribeCorpusCall(pipeline, id, tier);
      const ms = performance.now() - t0;
      const r = scorer.scoreTranscript(truth, speech.transcript);
      r.id = id;
      results.push(r);
      audioSeconds += speech.audio.durationSeconds;
      processingMs += ms;
      const timing = wordTimingErrors(truth.turns, speech.diarization.words, scorer.normalizeText);
      for (const t of timing.turns) boundaryErrors.push(t.startError, t.endError);
      maxBoundary = Math.max(maxBoundary, timing.maxBoundaryError);
      const violations = timingViolations(speech.audio.durationSeconds, speech.diarization.words, speech.transcript.segments);
      if (violations.length > 0) violatingCalls++;
      const checks = violations.length === 0 ? 'ok' : `${violations.length} failed: ${violations[0]}`;
      const quality = (speech.transcript as { qualityWarnings?: string[] }).qualityWarnings ?? [];
      const bySource = (role: string) => speech.transcript.speakers.find((s) => s.role === role)?.labelSource ?? '-';
      rows.push(
        `| ${id} | ${speech.audio.durationSeconds.toFixed(1)} | ${pct(r.wer)} | ${pct(r.attribution)} | ${pct(r.roleAccuracy)} | ${pct(r.naming)} | ${timing.meanBoundaryError.toFixed(2)} (${timing.maxBoundaryError.toFixed(2)}) | ${checks} | ${(ms / 1000 / speech.audio.durationSeconds).toFixed(2)} | ${bySource('USER')} / ${bySource('CONTACT')} | ${[...speech.transcript.speakerResolution.warnings, ...quality].join(', ') || '-'} |`,
      );
      process.stdout.write(`${tier} ${id}: wer ${pct(r.wer)} attr ${pct(r.attribution)} role ${pct(r.roleAccuracy)} naming ${pct(r.naming)} boundary ${timing.meanBoundaryError.toFixed(2)} s checks ${checks} (${(ms / 1000).toFixed(1)} s)\n`);
    }
    const s = scorer.summarize(results);
    const rtf = processingMs / 1000 / audioSeconds;
    const meanBoundary = boundaryErrors.reduce((a, b) => a + b, 0) / Math.max(1, boundaryErrors.length);
    const checks = violatingCalls === 0 ? 'all ok' : `${violatingCalls} calls failed`;
    rows.push(`| **mean** | ${audioSeconds.toFixed(0)} | ${pct(s.wer)} (pooled ${pct(s.werPooled)}) | ${pct(s.attribution)} | ${pct(s.roleAccuracy)} | ${pct(s.naming)} | ${meanBoundary.toFixed(2)} (${maxBoundary.toFixed(2)}) | ${checks} | ${rtf.toFixed(2)} | | |`);
    summary.push(`| ${tier} | ${s.calls} | ${pct(s.wer)} | ${pct(s.attribution)} | ${pct(s.roleAccuracy)} | ${pct(s.naming)} | ${meanBoundary.toFixed(2)} (${maxBoundary.toFixed(2)}) | ${checks} | ${rtf.toFixed(2)} |`);
    sections.push(`### ${tier}\n\n${rows.join('\n')}\n`);
  }

  const doc = `## Speech: recognition, speaker attribution and naming

Measured by \`npm run bench:speech\` on ${new Date().toISOString().slice(0, 10)} (${os.cpus().length} cores, ${os.cpus()[0]?.model ?? 'unknown CPU'}), transcription provider \`${pipeline.transcriber.provider}\` (${pipeline.transcriber.model}), diarization \`${pipeline.diarizer.model}\`. Scored with the corpus scorer (\`../shared/corpus/score.mjs\`): WER after its normalisation, word-level speaker attribution, role accuracy over both speakers, naming accuracy over both roles. The real-time factor (RTF) is wall-clock processing time (decode + recognition + diarization + naming) divided by audio duration, one call at a time.

${summary.join('\n')}

${sections.join('\n')}`;
  fs.mkdirSync(path.join(projectRoot, 'docs/bench'), { recursive: true });
  fs.writeFileSync(path.join(projectRoot, 'docs/bench/speech.md'), doc);
  console.log(`\n${summary.join('\n')}\nwritten to docs/bench/speech.md`);
}

await main();

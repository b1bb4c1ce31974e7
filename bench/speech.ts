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
  const summary: string[] = ['| tier | calls | WER % | attribution % | role % | naming % | real-time factor |', '|---|---|---|---|---|---|---|'];

  for (const tier of tiers) {
    const rows: string[] = [
      '| call | s | WER % | attribution % | role % | naming % | RTF | labelSource (USER / CONTACT) | warnings |',
      '|---|---|---|---|---|---|---|---|---|',
    ];
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
      const bySource = (role: string) => speech.transcript.speakers.find((s) => s.role === role)?.labelSource ?? '-';
      rows.push(
        `| ${id} | ${speech.audio.durationSeconds.toFixed(1)} | ${pct(r.wer)} | ${pct(r.attribution)} | ${pct(r.roleAccuracy)} | ${pct(r.naming)} | ${(ms / 1000 / speech.audio.durationSeconds).toFixed(2)} | ${bySource('USER')} / ${bySource('CONTACT')} | ${speech.transcript.speakerResolution.warnings.join(', ') || '-'} |`,
      );
      process.stdout.write(`${tier} ${id}: wer ${pct(r.wer)} attr ${pct(r.attribution)} role ${pct(r.roleAccuracy)} naming ${pct(r.naming)} (${(ms / 1000).toFixed(1)} s)\n`);
    }
    const s = scorer.summarize(results);
    const rtf = processingMs / 1000 / audioSeconds;
    rows.push(`| **mean** | ${audioSeconds.toFixed(0)} | ${pct(s.wer)} (pooled ${pct(s.werPooled)}) | ${pct(s.attribution)} | ${pct(s.roleAccuracy)} | ${pct(s.naming)} | ${rtf.toFixed(2)} | | |`);
    summary.push(`| ${tier} | ${s.calls} | ${pct(s.wer)} | ${pct(s.attribution)} | ${pct(s.roleAccuracy)} | ${pct(s.naming)} | ${rtf.toFixed(2)} |`);
    sections.push(`### ${tier}\n\n${rows.join('\n')}\n`);
  }

  const doc = `## Speech: recognition, speaker attribution and naming

Measured by \`npm run bench:speech\` on ${new Date().toISOString().slice(0, 10)} (${os.cpus().length} cores, ${os.cpus()[0]?.model ?? 'unknown CPU'}), transcription provider \`${pipeline.transcriber.provider}\` (${pipeline.transcriber.model}), diarization \`${pipeline.diarizer.model}\`. Scored with the corpus scorer (\`../shared/corpus/score.mjs\`): WER after its normalisation, word-level speaker attribution, role accuracy over both speakers, naming accuracy over both roles. The real-time factor (RTF) is wall-clock processing time (decode + recognition + diarization + naming) divided by audio duration, one call at a time.

${summary.join('\n')}

${sections.join('\n')}`;
  fs.mkdirSync(path.join(projectRoot, 'docs/bench'), { recursive: true });
  // Sections measured by other scripts (real voices, names) follow a marker and are kept.
  const file = path.join(projectRoot, 'docs/bench/speech.md');
  const MARK = '<!-- measured by other scripts: kept by bench/speech.ts -->';
  const old = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  const kept = old.includes(MARK) ? old.slice(old.indexOf(MARK)) : '';
  fs.writeFileSync(file, kept ? `${doc}\n${kept}` : doc);
  console.log(`\n${summary.join('\n')}\nwritten to docs/bench/speech.md`);
}

await main();

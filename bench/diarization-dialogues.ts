// Speaker attribution, roles and naming of the speech stage on the dev part of bench/dialogues
// (bench/support/analysis-sets.ts; the held-out calls are refused), without the analyzer: for
// tuning diarization against the role errors the analysis benchmark reports.
//   node --import tsx bench/diarization-dialogues.ts [--tiers m4a,phone8k] [--ids a,b] [--opts '{...}'] [--trace]
// Recognitions come from the shared cache (.cache/recognitions) that bench/analysis-heldout.ts fills.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDiarizer } from '../src/pipeline/diarization/index.js';
import { diarizeFrames } from '../src/pipeline/diarization/mono.js';
import type { Pipeline } from '../src/pipeline/index.js';
import { loadScorer, projectRoot, transcribeTruthAudio, type Truth } from '../test/support/corpus.js';
import { cachingTranscriber } from '../test/support/recognition-cache.js';
import { devIds, notForTuning } from './support/analysis-sets.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
const outDir = path.join(projectRoot, '.cache/analysis-dialogues');
const TIERS = { m4a: 'call.m4a', phone8k: 'phone8k.wav' } as const;
const tiers = (arg('--tiers') ?? 'm4a,phone8k').split(',') as Array<keyof typeof TIERS>;
const ids = arg('--ids')?.split(',') ?? devIds();
const refused = ids.filter((id) => notForTuning().has(id));
if (refused.length) throw new Error(`held-out calls are not for tuning: ${refused.join(', ')}`);
const monoOpts = JSON.parse(arg('--opts') ?? '{}');

const { FormatRegistry } = await import('@sinclair/typebox');
if (!FormatRegistry.Has('uuid')) FormatRegistry.Set('uuid', (v) => /^[0-9a-f-]{36}$/i.test(v));
if (!FormatRegistry.Has('date-time')) FormatRegistry.Set('date-time', (v) => !Number.isNaN(Date.parse(v)));
const { default: pino } = await import('pino');
const { loadConfig } = await import('../src/config.js');
const { createPipeline } = await import('../src/pipeline/index.js');
const base = await createPipeline(loadConfig({ ...process.env, DATA_DIR: path.join(os.tmpdir(), 'cas-bench-diar-dialogues') }), pino({ level: 'warn' }));
const { PocketsphinxTranscriber } = await import('../src/pipeline/transcription/pocketsphinx.js');
const transcriber = base.transcriber.provider === 'pocketsphinx' ? new PocketsphinxTranscriber({ timeoutBaseMs: 900_000, timeoutMsPerAudioSecond: 30_000 }) : base.transcriber;
const pipeline: Pipeline = { ...base, transcriber: cachingTranscriber(transcriber), diarizer: createDiarizer({ mono: monoOpts }) };
const scorer = await loadScorer();

for (const tier of tiers) {
  let roles = 0;
  let naming = 0;
  const attrs: number[] = [];
  for (const id of ids) {
    const truth: Truth = JSON.parse(fs.readFileSync(path.join(outDir, id, 'truth.json'), 'utf8'));
    let trace = '';
    const speech = await transcribeTruthAudio(pipeline, path.join(outDir, id, TIERS[tier]), truth, {
      whileDecoded: async (r) => {
        if (!process.argv.includes('--trace')) return;
        const f = await diarizeFrames(r.audio.mono, r.audio.sampleRate, monoOpts);
        trace = ` clusters ${f.clusters} starts ${(f.starts ?? []).map((x) => `${x.heldOut.toFixed(2)}${x.turns ? `[${x.turns.join(',')}]` : ''}`).join('/')} seps ${f.separations.map((x) => `${x.heldOut.toFixed(2)}/${x.inSample.toFixed(2)}${x.turns ? `[${x.turns.join(',')}]` : ''}`).join(' ')}`;
      },
    });
    const s = scorer.scoreTranscript(truth, speech.transcript);
    if (s.roleAccuracy === 1) roles++;
    if (s.naming === 1) naming++;
    attrs.push(s.attribution);
    const got = speech.transcript.speakers.map((sp) => `${sp.speakerId}:${sp.role}=${sp.displayName}`).join(', ');
    if (process.argv.includes('--verbose')) {
      for (const seg of speech.transcript.segments) console.log(`    | ${seg.speakerId} ${seg.role} ${seg.startSeconds.toFixed(2)}-${seg.endSeconds.toFixed(2)}: ${seg.text}`);
      console.log(`    resolution ${JSON.stringify(speech.transcript.speakerResolution)} ${JSON.stringify(speech.transcript.speakers)}`);
      for (const t of truth.turns) console.log(`    truth ${t.speaker} ${t.startSeconds.toFixed(2)}-${t.endSeconds.toFixed(2)}: ${t.text}`);
    }
    console.log(`${tier} ${id}: attribution ${(100 * s.attribution).toFixed(1)} roles ${s.roleAccuracy} naming ${s.naming} speakers ${speech.diarization.speakers.length} (${got})${trace}`);
  }
  const mean = attrs.reduce((a, b) => a + b, 0) / attrs.length;
  console.log(`${tier}: roles ${roles}/${ids.length}, naming ${naming}/${ids.length}, attribution mean ${(100 * mean).toFixed(1)} min ${(100 * Math.min(...attrs)).toFixed(1)}`);
}

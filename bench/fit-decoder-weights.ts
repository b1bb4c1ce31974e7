// Refits DEFAULT_DECODER_ARGS (src/pipeline/transcription/pocketsphinx.ts): the language-model
// weights of pocketsphinx's three search passes and its noise removal, chosen by word error rate.
//
//   node --import tsx bench/fit-decoder-weights.ts                      # one weight at a time around the current ones
//   node --import tsx bench/fit-decoder-weights.ts --lw 4,5,6 --fwdflatlw 7 --bestpathlw 8 --remove-noise no,yes
//   node --import tsx bench/fit-decoder-weights.ts --tier call.m4a --ids car-repair,doctor-results
//
// Each setting recognises every corpus call (utterance by utterance, as the service does; cached by
// setting in .cache/recognitions) and is scored by the corpus scorer as one speaker over the whole
// call; the setting with the lowest pooled WER is printed with the current one. It changes nothing.
// Costs about 0.2 s of CPU per second of audio per setting on an idle core (12 calls: 7.3 min of
// audio). Data: the synthetic corpus, which is also where the recogniser is scored (in-sample).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decodeAudio } from '../src/pipeline/audio/decode.js';
import { DEFAULT_DECODER_ARGS, PocketsphinxTranscriber } from '../src/pipeline/transcription/pocketsphinx.js';
import { corpusFile, corpusIds, loadScorer, loadTruth } from '../test/support/corpus.js';
import { cachingTranscriber } from '../test/support/recognition-cache.js';
import { PooledWordErrors, wordErrors } from './support/word-errors.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const current = Object.fromEntries(
  Array.from({ length: DEFAULT_DECODER_ARGS.length / 2 }, (_, k) => [DEFAULT_DECODER_ARGS[2 * k].slice(1), DEFAULT_DECODER_ARGS[2 * k + 1]]),
) as Record<string, string>;

/** The settings to try: the grid given on the command line, else each weight moved by one step alone. */
function candidates(): Array<Record<string, string>> {
  const given = ['lw', 'fwdflatlw', 'bestpathlw', 'remove_noise'].filter((k) => arg(`--${k.replace('_', '-')}`) !== undefined);
  if (given.length > 0) {
    let grid: Array<Record<string, string>> = [{ ...current }];
    for (const k of given) {
      const values = arg(`--${k.replace('_', '-')}`)!.split(',');
      grid = grid.flatMap((g) => values.map((v) => ({ ...g, [k]: v })));
    }
    return grid;
  }
  const out = [{ ...current }];
  for (const k of ['lw', 'fwdflatlw', 'bestpathlw']) {
    for (const step of [-1, 1]) out.push({ ...current, [k]: String(Number(current[k]) + step) });
  }
  out.push({ ...current, remove_noise: current.remove_noise === 'no' ? 'yes' : 'no' });
  return out;
}

const toArgs = (s: Record<string, string>) => Object.entries(s).flatMap(([k, v]) => [`-${k}`, v]);

async function main(): Promise<void> {
  const tier = (arg('--tier') ?? 'mono16k.wav') as Parameters<typeof corpusFile>[1];
  const ids = arg('--ids')?.split(',') ?? corpusIds();
  const scorer = await loadScorer();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fit-decoder-'));
  const decoded = new Map<string, { wavPath: string; durationSeconds: number }>();
  const rows: Array<{ setting: Record<string, string>; pooled: number; mean: number }> = [];
  try {
    for (const id of ids) decoded.set(id, await decodeAudio(corpusFile(id, tier), fs.mkdtempSync(path.join(tmp, `${id}-`)), { timeoutMs: 120_000, maxSeconds: 600 }));
    console.log(`| setting | pooled WER % | mean WER % |\n|---|---|---|`);
    for (const setting of candidates()) {
      const decoderArgs = toArgs(setting);
      const transcriber = cachingTranscriber(new PocketsphinxTranscriber({ decoderArgs, timeoutMsPerAudioSecond: 60_000 }), { settings: decoderArgs });
      const pooled = new PooledWordErrors();
      const wers: number[] = [];
      for (const id of ids) {
        const truth = loadTruth(id);
        const audio = decoded.get(id)!;
        const r = await transcriber.transcribe({ wavPath: audio.wavPath, durationSeconds: audio.durationSeconds });
        const e = wordErrors(scorer, truth, r.words);
        pooled.add(e);
        wers.push(e.wer);
      }
      const row = { setting, pooled: pooled.errors / pooled.refWords, mean: wers.reduce((a, b) => a + b, 0) / wers.length };
      rows.push(row);
      console.log(`| \`${decoderArgs.join(' ')}\` | ${(100 * row.pooled).toFixed(1)} | ${(100 * row.mean).toFixed(1)} |`);
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  const best = rows.reduce((a, b) => (b.pooled < a.pooled ? b : a));
  console.log(`\n${ids.length} calls, ${tier} (in-sample: the corpus the recogniser is scored on)`);
  console.log(`current: DEFAULT_DECODER_ARGS = ${JSON.stringify(DEFAULT_DECODER_ARGS)}`);
  console.log(`best:    DEFAULT_DECODER_ARGS = ${JSON.stringify(toArgs(best.setting))} (pooled WER ${(100 * best.pooled).toFixed(1)} %)`);
}

await main();

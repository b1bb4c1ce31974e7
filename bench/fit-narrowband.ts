// Measures the recogniser's telephone-band treatment (src/pipeline/transcription/narrowband.ts and
// NARROWBAND_DECODER_ARGS / NARROWBAND_FOLD_GAIN in pocketsphinx.ts) on the corpus calls or on the
// DEV dialogues of bench/dialogues (never the held-out ones), and prints pooled WER per setting.
//
//   node --import tsx bench/fit-narrowband.ts --set corpus --tier phone8k.wav --settings ';-dither yes -seed 1' [--fold 0,0.1]
//
// Each setting is a list of flags applied to narrowband calls only (front-end flags of feat.params
// included: pocketsphinx.ts rewrites that file for them); '' is the wideband decoding. The audio must
// be rendered first: the corpus by test/support/corpus.ts, the dev dialogues with the corpus's
// render.sh into .cache/analysis-dialogues (CORPUS_DIALOGUES=bench/dialogues, ids from devIds()).
// Utterances come from the project's VAD on the decoded audio; no vocabulary (no call dictionary).
// Recognitions are cached by setting in .cache/recognitions. It changes nothing.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decodeAudio } from '../src/pipeline/audio/decode.js';
import { WavFilePcm } from '../src/pipeline/audio/pcm.js';
import { detectSpeech, speechUtterances } from '../src/pipeline/diarization/vad.js';
import { PocketsphinxTranscriber } from '../src/pipeline/transcription/pocketsphinx.js';
import { corpusIds, loadScorer, projectRoot, type Truth } from '../test/support/corpus.js';
import { cachingTranscriber } from '../test/support/recognition-cache.js';
import { devIds } from './support/analysis-sets.js';
import { PooledWordErrors, wordErrors } from './support/word-errors.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
const set = arg('--set') ?? 'corpus';
const tier = arg('--tier') ?? 'phone8k.wav';
const outDir = set === 'dev' ? path.join(projectRoot, '.cache/analysis-dialogues') : path.join(projectRoot, '.cache/corpus');
const ids = arg('--ids')?.split(',') ?? (set === 'dev' ? devIds() : corpusIds());
const settings = (arg('--settings') ?? '').split(';').map((s) => s.trim().split(/\s+/).filter(Boolean));
const folds = (arg('--fold') ?? '0').split(',').map(Number);

const scorer = await loadScorer();
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fit-narrowband-'));
try {
  const decoded = new Map<string, { wavPath: string; durationSeconds: number; utterances: Array<{ start: number; end: number }> }>();
  for (const id of ids) {
    const a = await decodeAudio(path.join(outDir, id, tier), fs.mkdtempSync(path.join(tmp, `${id}-`)), { timeoutMs: 120_000, maxSeconds: 900 });
    const src = await WavFilePcm.open(a.wavPath);
    decoded.set(id, { ...a, utterances: await speechUtterances(src, src.sampleRate, await detectSpeech(src, src.sampleRate)) });
  }
  for (const fold of folds) {
    for (const narrowbandArgs of settings) {
      const t = cachingTranscriber(new PocketsphinxTranscriber({ narrowbandArgs, narrowbandFoldGain: fold, timeoutMsPerAudioSecond: 60_000 }), {
        settings: ['narrowband', ...narrowbandArgs, 'fold', String(fold)],
      });
      const pooled = new PooledWordErrors();
      const t0 = Date.now();
      for (const id of ids) {
        const truth: Truth = JSON.parse(fs.readFileSync(path.join(outDir, id, 'truth.json'), 'utf8'));
        const a = decoded.get(id)!;
        const r = await t.transcribe({ wavPath: a.wavPath, durationSeconds: a.durationSeconds, utterances: a.utterances });
        pooled.add(wordErrors(scorer, truth, r.words));
      }
      console.log(`${set} ${tier} (${ids.length} calls) narrowband [${narrowbandArgs.join(' ')}] fold ${fold}: pooled WER ${pooled.percent()} % (${pooled.errors}/${pooled.refWords}), ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    }
  }
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}

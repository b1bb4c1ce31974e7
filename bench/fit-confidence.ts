// Refits ACOUSTIC_CONFIDENCE (src/pipeline/transcription/pocketsphinx.ts): the logistic curve that
// turns a word's per-frame acoustic score into the chance that the word is right.
//
//   node --import tsx bench/fit-confidence.ts [--tier mono16k.wav] [--ids a,b]
//
// Every corpus call is recognised (cached, test/support/recognition-cache.ts); each recognised
// word is marked right or wrong by aligning the call's words to its truth text; the per-frame
// score is read back from the word's confidence through the current curve (the recogniser rounds
// confidence to 3 decimals, so words at 0 or 1 are clipped to 0.0005 / 0.9995); a logistic
// regression of right-or-wrong on that score gives the new midpoint and scale. Prints them with
// the current constants; it changes nothing. Data: the synthetic corpus, which is also what the
// curve is scored on (in-sample).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decodeAudio } from '../src/pipeline/audio/decode.js';
import { ACOUSTIC_CONFIDENCE, PocketsphinxTranscriber } from '../src/pipeline/transcription/pocketsphinx.js';
import { corpusFile, corpusIds, loadScorer, loadTruth } from '../test/support/corpus.js';
import { cachingTranscriber } from '../test/support/recognition-cache.js';
import { rightWords } from './support/word-alignment.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** Logistic regression p = 1 / (1 + exp(-(x - midpoint) / scale)) by Newton's method on standardised x. */
export function fitLogistic(xs: number[], ys: boolean[]): { midpoint: number; scale: number } {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const sd = Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / xs.length) || 1;
  const z = xs.map((x) => (x - mean) / sd);
  let a = 0; // intercept
  let b = 1; // slope
  for (let iter = 0; iter < 100; iter++) {
    let ga = 0, gb = 0, haa = 0, hab = 0, hbb = 0;
    for (let k = 0; k < z.length; k++) {
      const p = 1 / (1 + Math.exp(-(a + b * z[k])));
      const r = (ys[k] ? 1 : 0) - p;
      const w = p * (1 - p);
      ga += r;
      gb += r * z[k];
      haa += w;
      hab += w * z[k];
      hbb += w * z[k] * z[k];
    }
    const det = haa * hbb - hab * hab;
    if (det <= 0) break;
    const da = (hbb * ga - hab * gb) / det;
    const db = (haa * gb - hab * ga) / det;
    a += da;
    b += db;
    if (Math.abs(da) + Math.abs(db) < 1e-9) break;
  }
  // a + b z = (x - midpoint) / scale with z = (x - mean) / sd
  const scale = sd / b;
  return { midpoint: mean - (a * sd) / b, scale };
}

async function main(): Promise<void> {
  const tier = (arg('--tier') ?? 'mono16k.wav') as Parameters<typeof corpusFile>[1];
  const ids = arg('--ids')?.split(',') ?? corpusIds();
  const scorer = await loadScorer();
  const transcriber = cachingTranscriber(new PocketsphinxTranscriber({ timeoutMsPerAudioSecond: 60_000 }));
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fit-confidence-'));
  const xs: number[] = [];
  const ys: boolean[] = [];
  try {
    for (const id of ids) {
      const truth = loadTruth(id);
      const audio = await decodeAudio(corpusFile(id, tier), fs.mkdtempSync(path.join(tmp, `${id}-`)), { timeoutMs: 120_000, maxSeconds: 600 });
      const r = await transcriber.transcribe({ wavPath: audio.wavPath, durationSeconds: audio.durationSeconds });
      const right = rightWords(r.words.map((w) => w.word), truth.turns.map((t) => t.text).join(' '), scorer.normalizeText);
      r.words.forEach((w, k) => {
        if (scorer.normalizeText(w.word).length === 0) return;
        const c = Math.min(0.9995, Math.max(0.0005, w.confidence));
        xs.push(ACOUSTIC_CONFIDENCE.midpoint + ACOUSTIC_CONFIDENCE.scale * Math.log(c / (1 - c)));
        ys.push(right[k]);
      });
      process.stderr.write(`${id}: ${r.words.length} words\n`);
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  const fit = fitLogistic(xs, ys);
  const share = ys.filter(Boolean).length / ys.length;
  console.log(`${xs.length} words on ${tier}, ${(100 * share).toFixed(1)} % right (in-sample: the corpus the curve is scored on)`);
  console.log(`current: ACOUSTIC_CONFIDENCE = { midpoint: ${ACOUSTIC_CONFIDENCE.midpoint}, scale: ${ACOUSTIC_CONFIDENCE.scale} }`);
  console.log(`refit:   ACOUSTIC_CONFIDENCE = { midpoint: ${Math.round(fit.midpoint / 50) * 50}, scale: ${Math.round(fit.scale / 50) * 50} }`);
}

if (process.argv[1]?.endsWith('fit-confidence.ts')) await main();

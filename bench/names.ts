// Name recognition with and without the per-call dictionary (src/pipeline/transcription/dictionary.ts).
//   node --import tsx bench/names.ts [--ids a,b] [--tiers mono16k,m4a,phone8k]
// For every corpus call: the words of the supplied names (user displayName, contactName) that the
// dialogue actually says; recognised with pocketsphinx on each tier, without and with those names as
// the call's vocabulary; a name word counts as recognised when it appears in the recognised text. Also reports WER (corpus scorer) both ways.
// Recognitions are cached by audio, vocabulary, recogniser version and settings (test/support/recognition-cache.ts).
// Results: docs/bench/names.md, written by `npm run bench -- --only names` (bench/run.ts) from this table.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decodeAudio } from '../src/pipeline/audio/decode.js';
import { PocketsphinxTranscriber } from '../src/pipeline/transcription/pocketsphinx.js';
import { namesToWords } from '../src/pipeline/transcription/dictionary.js';
import { corpusFile, corpusIds, loadScorer, loadTruth } from '../test/support/corpus.js';
import { cachingTranscriber } from '../test/support/recognition-cache.js';
import { wordErrors } from './support/word-errors.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
const FILES = { mono16k: 'mono16k.wav', m4a: 'call.m4a', phone8k: 'phone8k.wav' } as const;
const tiers = (arg('--tiers') ?? 'mono16k').split(',') as Array<keyof typeof FILES>;
const ids = arg('--ids')?.split(',') ?? corpusIds();
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'names-bench-'));
const transcriber = cachingTranscriber(new PocketsphinxTranscriber({ timeoutMsPerAudioSecond: 60_000 }));
const scorer = await loadScorer();

console.log('| encoding | call | name words said | recognised without | with dictionary | WER without | WER with | added words |');
console.log('|---|---|---|---|---|---|---|---|');
for (const tier of tiers) {
  let said = 0;
  let before = 0;
  let after = 0;
  const wers: number[][] = [[], []];
  for (const id of ids) {
    const truth = loadTruth(id);
    const spokenText = truth.turns.map((t) => t.text).join(' ').toLowerCase();
    const supplied = [truth.user.displayName, truth.upload.contactName].filter((n): n is string => !!n);
    // The words of the supplied names that the call says (a contact name like "Dentist" is a label, not said).
    const spoken = namesToWords(supplied).filter((w) => new RegExp(`\\b${w}\\b`).test(spokenText));
    const dir = fs.mkdtempSync(path.join(tmp, `${id}-`));
    const audio = await decodeAudio(corpusFile(id, FILES[tier]), dir, { timeoutMs: 60_000, maxSeconds: 600 });
    const results: string[] = [];
    let added = '';
    for (const vocabulary of [undefined, supplied]) {
      const r = await transcriber.transcribe({ wavPath: audio.wavPath, durationSeconds: audio.durationSeconds, vocabulary });
      const text = r.words.map((w) => w.word.toLowerCase()).join(' ');
      const hits = spoken.filter((w) => new RegExp(`\\b${w}\\b`).test(text));
      results.push(`${hits.length}/${spoken.length}`);
      const wer = wordErrors(scorer, truth, r.words).wer;
      wers[vocabulary ? 1 : 0].push(wer);
      if (vocabulary) after += hits.length;
      else before += hits.length;
      if (vocabulary && fs.existsSync(path.join(dir, 'call.dict'))) {
        added = fs.readFileSync(path.join(dir, 'call.dict'), 'utf8').split('\n').filter((l) => l.startsWith('smith(')).length + '';
      }
    }
    said += spoken.length;
    console.log(`| ${tier} | ${id} | ${spoken.join(', ') || '-'} | ${results[0]} | ${results[1]} | ${(100 * wers[0].at(-1)!).toFixed(1)} | ${(100 * wers[1].at(-1)!).toFixed(1)} | ${added || 0} |`);
  }
  const mean = (a: number[]) => (100 * a.reduce((x, y) => x + y, 0)) / a.length;
  console.log(`| ${tier} | **all** | ${said} | **${before}/${said}** | **${after}/${said}** | ${mean(wers[0]).toFixed(1)} | ${mean(wers[1]).toFixed(1)} | |`);
}
fs.rmSync(tmp, { recursive: true, force: true });

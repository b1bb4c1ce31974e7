// Chooses GENERAL_MODEL_WEIGHT and the training text of the phone-call language model
// (src/pipeline/transcription/call-language-model.ts): builds the model with each weight given, from
// Debian's en-us.lm.bin and --text phrases (the phrase list alone), dev (the dev dialogues' turns) or
// phrases+dev (both, as shipped since session 23), and recognises the corpus's twelve calls and the
// dev dialogues (or only --eval-ids, which are then kept out of the training text, so that they
// measure the model out of sample). Held-out dialogues are never decoded here. Changes nothing.
//
//   node --max-old-space-size=8192 --import tsx bench/fit-language-model.ts --lambda 1,0.95,0.9,0.8 --tier call.m4a
//   node --max-old-space-size=8192 --import tsx bench/fit-language-model.ts --no-general --text phrases+dev --lambda 0.6 \
//     --dev-out .cache/analysis-dialogues --eval-ids <retired set ids>   # out-of-sample check of the shipped text
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decodeAudio } from '../src/pipeline/audio/decode.js';
import { DEFAULT_DECODER_ARGS, DEFAULT_POCKETSPHINX_MODEL_DIR, PocketsphinxTranscriber } from '../src/pipeline/transcription/pocketsphinx.js';
import { estimateModel, mixModels, parseArpa, writeArpa } from '../src/pipeline/transcription/language-model.js';
import { readTrieModel } from '../src/pipeline/transcription/trie-model.js';
import { CALL_PHRASES_PATH, phraseSentences } from '../src/pipeline/transcription/call-language-model.js';
import { corpusDir, corpusFile, corpusIds, loadScorer, loadTruth, projectRoot } from '../test/support/corpus.js';
import { cachingTranscriber } from '../test/support/recognition-cache.js';
import { spokenSentences } from '../scripts/build-call-dialogue-text.js';
import { analysisDialoguesDir, devIds } from './support/analysis-sets.js';
import { PooledWordErrors, wordErrors } from './support/word-errors.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/**
 * The dev dialogues this run decodes, rendered by the corpus renderer into the folder
 * bench/analysis-heldout.ts renders into, named one by one (render.sh over a whole folder deletes
 * the renders of dialogues missing from it). Held-out ones are never rendered here.
 */
function renderDev(ids: readonly string[]): string {
  const out = path.join(projectRoot, '.cache/analysis-dialogues');
  execFileSync('bash', [path.join(corpusDir, 'render.sh'), ...ids], { env: { ...process.env, CORPUS_DIALOGUES: analysisDialoguesDir, CORPUS_OUT: out }, stdio: ['ignore', 'ignore', 'inherit'] });
  return out;
}

/** The dev dialogues' sentences, without the dialogues in `except` (the ones a run evaluates on). */
function devSentences(except: ReadonlySet<string> = new Set()): string[][] {
  const out: string[][] = [];
  for (const id of devIds().filter((i) => !except.has(i))) {
    const d = JSON.parse(fs.readFileSync(path.join(analysisDialoguesDir, `${id}.json`), 'utf8')) as { turns: Array<{ text: string }> };
    for (const t of d.turns) out.push(...spokenSentences(t.text));
  }
  return out;
}

async function main(): Promise<void> {
  const tier = (arg('--tier') ?? 'call.m4a') as Parameters<typeof corpusFile>[1];
  const lambdas = (arg('--lambda') ?? '0.8').split(',').map(Number);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'fit-lm-'));
  const t0 = performance.now();
  const general = arg('--arpa') ? parseArpa(fs.readFileSync(arg('--arpa')!, 'utf8')) : readTrieModel(fs.readFileSync(path.join(DEFAULT_POCKETSPHINX_MODEL_DIR, 'en-us.lm.bin')));
  console.log(`general model read in ${((performance.now() - t0) / 1000).toFixed(1)} s: ${general.grams.map((g) => g.size).join('/')}`);
  const prior = new Map([...general.grams[0]].map(([w, e]) => [w, e.logProb]));
  // --eval-ids: evaluate on these dev dialogues only, and keep them out of any dev text the model is
  // estimated from, so that they measure a model built from the other dev dialogues out of sample.
  const evalIds = arg('--eval-ids')?.split(',').filter(Boolean);
  const dev = new Set(devIds());
  if (evalIds?.some((id) => !dev.has(id))) throw new Error('--eval-ids: only dev dialogues (held-out ones are never decoded here)');
  const devOut = arg('--dev-out') ?? renderDev(evalIds ?? devIds());
  // (--exclude-ids: more dev dialogues to keep out of the training text, e.g. a second retired set)
  const evalSet = new Set([...(evalIds ?? []), ...(arg('--exclude-ids')?.split(',').filter(Boolean) ?? [])]);
  // --text: one training text or several, comma-separated (each gives its own rows)
  const texts = (arg('--text') ?? 'phrases').split(',');
  const domains = texts.map((text) => {
    const sentences = [
      ...(text === 'phrases' || text === 'phrases+dev' ? phraseSentences(fs.readFileSync(CALL_PHRASES_PATH, 'utf8')) : []),
      ...(text === 'dev' || text === 'phrases+dev' ? devSentences(evalSet) : []),
    ];
    if (!sentences.length) throw new Error(`--text ${text}: expected phrases, dev or phrases+dev`);
    console.log(`${text} text: ${sentences.length} sentences, ${sentences.reduce((s, x) => s + x.length, 0)} words`);
    return { text, model: estimateModel(sentences, prior) };
  });
  const scorer = await loadScorer();
  const calls: Array<{ id: string; set: string; wavPath: string; durationSeconds: number; truth: unknown }> = [];
  for (const id of corpusIds()) {
    const d = await decodeAudio(corpusFile(id, tier), fs.mkdtempSync(path.join(work, `${id}-`)), { timeoutMs: 120_000, maxSeconds: 600 });
    calls.push({ id, set: 'corpus', ...d, truth: loadTruth(id) });
  }
  if (devOut) {
    for (const id of evalIds ?? devIds()) {
      const d = await decodeAudio(path.join(devOut, id, tier), fs.mkdtempSync(path.join(work, `${id}-`)), { timeoutMs: 120_000, maxSeconds: 600 });
      calls.push({ id, set: 'dev', ...d, truth: JSON.parse(fs.readFileSync(path.join(devOut, id, 'truth.json'), 'utf8')) });
    }
  }
  const models: Array<{ name: string; dir: string }> = process.argv.includes('--no-general') ? [] : [{ name: 'general', dir: DEFAULT_POCKETSPHINX_MODEL_DIR }];
  for (const { text, model: domain } of domains) {
    for (const lambda of lambdas.filter((l) => l < 1)) {
      const t1 = performance.now();
      const mixed = mixModels(general, domain, lambda);
      const dir = path.join(work, `model-${text}-${lambda}`);
      fs.mkdirSync(dir);
      fs.writeFileSync(path.join(dir, 'mixed.arpa'), writeArpa(mixed));
      execFileSync('sphinx_lm_convert', ['-i', path.join(dir, 'mixed.arpa'), '-o', path.join(dir, 'en-us.lm.bin')], { stdio: 'ignore' });
      fs.rmSync(path.join(dir, 'mixed.arpa'));
      fs.symlinkSync(path.join(DEFAULT_POCKETSPHINX_MODEL_DIR, 'en-us'), path.join(dir, 'en-us'));
      fs.symlinkSync(path.join(DEFAULT_POCKETSPHINX_MODEL_DIR, 'cmudict-en-us.dict'), path.join(dir, 'cmudict-en-us.dict'));
      console.log(`${text}, lambda ${lambda}: mixed in ${((performance.now() - t1) / 1000).toFixed(1)} s`);
      models.push({ name: domains.length > 1 ? `mixed ${lambda}, ${text}` : `mixed ${lambda}`, dir });
    }
  }
  console.log(`| model | corpus WER % | dev WER % |\n|---|---|---|`);
  for (const m of models) {
    const lmHash = m.name === 'general' ? 'general' : crypto.createHash('sha256').update(fs.readFileSync(path.join(m.dir, 'en-us.lm.bin'))).digest('hex').slice(0, 16);
    const transcriber = cachingTranscriber(new PocketsphinxTranscriber({ modelDir: m.dir, languageModel: 'general', timeoutMsPerAudioSecond: 60_000 }), { settings: [...DEFAULT_DECODER_ARGS, `lm:${lmHash}`] });
    const pooled: Record<string, PooledWordErrors> = { corpus: new PooledWordErrors(), dev: new PooledWordErrors() };
    for (const c of calls) {
      const r = await transcriber.transcribe({ wavPath: c.wavPath, durationSeconds: c.durationSeconds });
      pooled[c.set].add(wordErrors(scorer, c.truth, r.words));
    }
    console.log(`| ${m.name} | ${pooled.corpus.percent()} | ${pooled.dev.percent()} |`);
  }
  fs.rmSync(work, { recursive: true, force: true });
}

await main();

import fs from 'node:fs';
import { PocketsphinxTranscriber } from './src/pipeline/transcription/pocketsphinx.js';
import { corpusIds, loadTruth, corpusFile } from './test/support/corpus.js';
const tr = new PocketsphinxTranscriber();
const out: Record<string, unknown> = {};
for (const id of corpusIds()) {
  const t = loadTruth(id);
  const rec = await tr.transcribe({ wavPath: corpusFile(id, 'mono16k.wav'), durationSeconds: t.durationSeconds });
  out[id] = rec.words;
}
fs.writeFileSync('/tmp/asr_words.json', JSON.stringify(out));
console.log('ok');

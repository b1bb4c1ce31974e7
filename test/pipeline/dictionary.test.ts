import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readWavMono, writeWav16 } from '../../src/pipeline/audio/decode.js';
import { buildCallDictionary, espeakToCmu, namesToWords, pronounce } from '../../src/pipeline/transcription/dictionary.js';
import { DEFAULT_POCKETSPHINX_MODEL_DIR, PocketsphinxTranscriber, parseHypseg } from '../../src/pipeline/transcription/pocketsphinx.js';
import { corpusFile, ensureCorpus, loadTruth } from '../support/corpus.js';

const BASE_DICT = path.join(DEFAULT_POCKETSPHINX_MODEL_DIR, 'cmudict-en-us.dict');
let tmp: string;
before(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dictionary-test-'));
});
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('per-call dictionary', () => {
  it('splits names into words, without accents, punctuation or single letters', () => {
    assert.deepEqual(namesToWords(['Daniel Okafor', 'Bayview Logistics, Inc.', null, "Siobhán O'Neil", 'J. Smith']), [
      'daniel', 'okafor', 'bayview', 'logistics', 'inc', 'siobhan', "o'neil", 'smith',
    ]);
  });

  it('maps espeak-ng phonemes onto the CMU phone set', () => {
    assert.equal(espeakToCmu("b'eIvju:"), 'B EY V Y UW');
    assert.equal(espeakToCmu("n'O@TwInd"), 'N AO R TH W IH N D');
    assert.equal(espeakToCmu("tS'aItS"), 'CH AY CH');
  });

  it('pronounces names with espeak-ng', async () => {
    const p = await pronounce(['okafor', 'northwind', 'priya']);
    assert.equal(p.get('northwind'), 'N AO R TH W IH N D');
    assert.match(p.get('okafor')!, /^(AA|OW) K (AE|AH) F ER$/);
    assert.match(p.get('priya')!, /^P R (IH|IY) Y AH$/);
  });

  it('adds only the words cmudict lacks, as carrier pronunciations that map back to the name', async () => {
    const dir = fs.mkdtempSync(path.join(tmp, 'dict-'));
    const d = await buildCallDictionary(BASE_DICT, ['Daniel Okafor', 'Northwind Foods', 'Priya Shah'], dir);
    assert.ok(d);
    assert.deepEqual(d.added.map((a) => a.word).sort(), ['northwind', 'okafor', 'priya']);
    const text = fs.readFileSync(d.path, 'utf8');
    assert.ok(text.startsWith(fs.readFileSync(BASE_DICT, 'utf8')), 'the base dictionary comes first, unchanged');
    const extra = text.slice(fs.statSync(BASE_DICT).size).trim().split('\n');
    assert.equal(extra.length, 3);
    for (const line of extra) {
      const [token] = line.split(' ');
      assert.match(token, /^smith\(\d+\)$/);
      assert.ok(['okafor', 'northwind', 'priya'].includes(d.rename(token)!));
    }
    assert.equal(d.rename('smith'), null, 'a genuine "smith" stays smith');
    // pocketsphinx's output with a carrier pronunciation reads as the name.
    const carrier = extra.find((l) => l.endsWith('N AO R TH W IH N D'))!.split(' ')[0];
    const pieces = [{ id: 'u0', startFrame: 100, endFrame: 200 }];
    const words = parseHypseg(`u0 S 0 T -100 A -90 L -10 0 -1000 0 ${carrier} 50 -1000 -3 smith(2) 60 -1000 -3 </s> 90`, pieces, d.rename);
    assert.deepEqual(words.map((w) => w.word), ['northwind', 'smith']);
    assert.equal(await buildCallDictionary(BASE_DICT, ['Daniel Smith', 'Harbor Clinic'], dir), null, 'nothing to add');
  });

  it('recognises a name outside cmudict only with the call dictionary (real pocketsphinx)', async () => {
    // "Hi, I'm calling from Bayview Logistics. ..." (sales-demo-booking, turn 1), cut from the corpus.
    ensureCorpus();
    const truth = loadTruth('sales-demo-booking');
    const turn = truth.turns[1];
    assert.match(turn.text, /Bayview Logistics/);
    const { samples, sampleRate } = await readWavMono(corpusFile('sales-demo-booking', 'mono16k.wav'));
    const clip = samples.subarray(Math.round((turn.startSeconds - 0.2) * sampleRate), Math.round((turn.endSeconds + 0.2) * sampleRate));
    const dir = fs.mkdtempSync(path.join(tmp, 'asr-'));
    const wavPath = path.join(dir, 'clip.wav');
    await writeWav16(wavPath, clip, sampleRate);
    const ps = new PocketsphinxTranscriber();
    const durationSeconds = clip.length / sampleRate;
    const plain = await ps.transcribe({ wavPath, durationSeconds });
    assert.ok(!plain.words.some((w) => w.word === 'bayview'), 'without the dictionary the name cannot be heard');
    const withNames = await ps.transcribe({ wavPath, durationSeconds, vocabulary: ['Olivia Park', 'Bayview Logistics'] });
    const text = withNames.words.map((w) => w.word).join(' ');
    assert.match(text, /\bbayview logistics\b/);
    assert.ok(!/smith\(/.test(text));
  });
});

// The sphinxbase trie reader on Debian's general-English model, checked against entries of the
// ARPA text a patched sphinx_lm_convert wrote from the same file (printed to 4 decimals), and on
// files it must refuse. Building a small trie file by hand would re-implement the writer, so the
// real model is read once when it is installed.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { BackoffModel } from '../../src/pipeline/transcription/language-model.js';
import { readTrieModel } from '../../src/pipeline/transcription/trie-model.js';

const MODEL_PATH = '/usr/share/pocketsphinx/model/en-us/en-us.lm.bin';
const installed = existsSync(MODEL_PATH);

/** The ARPA reference prints 4 decimals: a value read here may differ by half a unit of the last. */
function assertNear(actual: number | undefined, expected: number, what: string): void {
  assert.ok(actual !== undefined && Math.abs(actual - expected) <= 0.00005 + 1e-9, `${what}: ${actual} vs ${expected}`);
}

function assertEntry(model: BackoffModel, key: string, logProb: number, logBackoff: number): void {
  const order = key.split(' ').length;
  const entry = model.grams[order - 1].get(key);
  assert.ok(entry, `${order}-gram "${key}" is missing`);
  assertNear(entry.logProb, logProb, `log prob of "${key}"`);
  assertNear(entry.logBackoff, logBackoff, `log backoff of "${key}"`);
}

describe('readTrieModel', () => {
  it('reads en-us.lm.bin: the counts the trie reaches, the file word order and known entries', { skip: !installed && `${MODEL_PATH} is not installed` }, () => {
    const model = readTrieModel(readFileSync(MODEL_PATH));
    // The header says 2051547 bigrams, but the last 6 allocated slots are empty: the unigrams'
    // ranges end at 2051541, which is what sphinxbase's own walk (and the ARPA reference) finds.
    assert.deepEqual(model.grams.map((g) => g.size), [72547, 2051541, 1669625]);
    assert.deepEqual([...model.grams[0].keys()].slice(0, 9), ["'bout", "'cause", "'em", "'n", "'s", "'til", '</s>', '<s>', 'a']);
    assertEntry(model, "'cause", -4.5777, -0.1373);
    assertEntry(model, '</s>', -1.1261, 0);
    assertEntry(model, '<s>', -99, -1.3321);
    assertEntry(model, "<s> 'bout", -6.1449, 0);
    assertEntry(model, 'of the', -0.6986, -0.0724);
    assertEntry(model, "<s> how 'bout", -3.6584, 0);
    assertEntry(model, 'one of the', -0.3058, 0);
    assert.equal(model.grams[2].get("'bout <s> how"), undefined, 'trigram words are in text order');
  });

  it('rejects a file with another header', () => {
    const darpa = Buffer.concat([Buffer.from('Darpa Trigram LM', 'latin1'), Buffer.alloc(64)]);
    assert.throws(() => readTrieModel(darpa), (e: unknown) => e instanceof Error && /header is "Darpa Trigram LM/.test(e.message));
    assert.throws(() => readTrieModel(Buffer.alloc(0)), /ends inside the header/);
  });

  it('rejects a truncated trie file', { skip: !installed && `${MODEL_PATH} is not installed` }, () => {
    // Cut inside the quantisation tables, which start 36 bytes in (2^16 float32 each).
    const head = readFileSync(MODEL_PATH).subarray(0, 100_000);
    assert.throws(() => readTrieModel(head), /file ends inside the 2-gram probability table/);
  });
});

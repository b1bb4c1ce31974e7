// Format of the phone-call language-model text (src/pipeline/transcription/call-phrases.txt):
// the n-gram estimator reads it word by word, so a digit, a punctuation mark or an upper-case
// letter would become a word pocketsphinx can never say, and repeated lines would skew counts.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const PHRASES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/pipeline/transcription/call-phrases.txt');
const SPOKEN_SENTENCE = /^[a-z']+( [a-z']+)*$/;

function sentenceLines(): string[] {
  return fs.readFileSync(PHRASES, 'utf8').split('\n').filter((line) => line !== '' && !line.startsWith('#'));
}

describe('call-phrases.txt', () => {
  it('opens with a comment header that forbids deriving it from the benchmark dialogues', () => {
    const text = fs.readFileSync(PHRASES, 'utf8');
    assert.ok(text.startsWith('#'));
    assert.match(text, /^#.*never be derived from the benchmark/im);
  });

  it('has only lowercase spoken words, single-spaced, no digits', () => {
    const bad = sentenceLines().filter((line) => !SPOKEN_SENTENCE.test(line) || /\d/.test(line));
    assert.deepEqual(bad, []);
  });

  it('has at least 1500 sentence lines', () => {
    assert.ok(sentenceLines().length >= 1500, `only ${sentenceLines().length} lines`);
  });

  it('repeats no line', () => {
    const seen = new Set<string>();
    const repeated = sentenceLines().filter((line) => (seen.has(line) ? true : (seen.add(line), false)));
    assert.deepEqual(repeated, []);
  });

  it('keeps apostrophes inside words', () => {
    const stray = sentenceLines().filter((line) => line.split(' ').some((word) => word.startsWith("'") || word.endsWith("'")));
    assert.deepEqual(stray, []);
  });
});

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { estimateModel, logProbability, mixModels, parseArpa, writeArpa, type BackoffModel } from '../../src/pipeline/transcription/language-model.js';
import fs from 'node:fs';
import { addedWords, CALL_WORDS_PATH, callModelKey, callWords, findCallLanguageModel, phraseSentences } from '../../src/pipeline/transcription/call-language-model.js';
import { DEFAULT_POCKETSPHINX_MODEL_DIR } from '../../src/pipeline/transcription/pocketsphinx.js';
import path from 'node:path';

// A small general model over a six-word vocabulary: properly normalised unigrams, a few bigrams
// and one trigram, with the backoff weights the mixture code recomputes anyway.
const GENERAL_ARPA = `
\\data\\
ngram 1=7
ngram 2=4
ngram 3=1

\\1-grams:
-1.0000\t</s>\t0.0000
-99.0000\t<s>\t-0.3000
-0.6000\tcall\t-0.2000
-0.7000\tme\t-0.2000
-0.8000\tback\t-0.2000
-0.9000\tsend\t-0.2000
-1.0000\tit\t-0.2000

\\2-grams:
-0.3000\t<s>\tcall\t-0.1000
-0.4000\tcall\tme\t-0.1000
-0.5000\tme\tback\t-0.1000
-0.6000\tsend\tit

\\3-grams:
-0.2000\tcall\tme\tback

\\end\\
`;

const VOCAB = ['</s>', 'call', 'me', 'back', 'send', 'it'];

/** Sum over the vocabulary of P(w | context): 1 for a normalised backoff model. */
function mass(model: BackoffModel, context: string[]): number {
  return VOCAB.reduce((s, w) => s + 10 ** logProbability(model, context, w), 0);
}

function normaliseUnigrams(model: BackoffModel): BackoffModel {
  const total = VOCAB.reduce((s, w) => s + 10 ** model.grams[0].get(w)!.logProb, 0);
  for (const w of VOCAB) model.grams[0].get(w)!.logProb -= Math.log10(total);
  return model;
}

describe('backoff language models', () => {
  it('reads ARPA text and writes it back with the same n-grams', () => {
    const model = parseArpa(GENERAL_ARPA);
    assert.deepEqual(model.grams.map((g) => g.size), [7, 4, 1]);
    assert.equal(model.grams[2].get('call me back')!.logProb, -0.2);
    const again = parseArpa(writeArpa(model));
    assert.deepEqual([...again.grams[1].keys()].sort(), [...model.grams[1].keys()].sort());
    assert.equal(again.grams[0].get('<s>')!.logBackoff, -0.3);
  });

  it('backs off through the lower orders, adding the context backoff weights', () => {
    const model = parseArpa(GENERAL_ARPA);
    // "send me": no bigram; bo(send) + P(me).
    assert.ok(Math.abs(logProbability(model, ['send'], 'me') - (-0.2 + -0.7)) < 1e-9);
    // "me call back": neither the trigram nor the context "me call" exists (backoff weight 1),
    // nor the bigram "call back": bo(call) + P(back).
    assert.ok(Math.abs(logProbability(model, ['me', 'call'], 'back') - (-0.2 + -0.8)) < 1e-9);
    // "<s> call me": no trigram; the context bigram "<s> call" carries backoff -0.1: bo + P(me | call).
    assert.ok(Math.abs(logProbability(model, ['<s>', 'call'], 'me') - (-0.1 + -0.4)) < 1e-9);
    assert.ok(Math.abs(logProbability(model, ['call', 'me'], 'back') - -0.2) < 1e-9);
  });

  it('estimates a phone-call model whose distributions sum to one and keep unseen words', () => {
    const general = normaliseUnigrams(parseArpa(GENERAL_ARPA));
    const prior = new Map([...general.grams[0]].map(([w, e]) => [w, e.logProb]));
    const domain = estimateModel([['call', 'me', 'back'], ['send', 'it'], ['call', 'me']], prior);
    for (const ctx of [[], ['<s>'], ['call'], ['<s>', 'call'], ['call', 'me'], ['send']]) {
      assert.ok(Math.abs(mass(domain, ctx) - 1) < 1e-6, `context ${ctx.join(' ')}: ${mass(domain, ctx)}`);
    }
    assert.ok(logProbability(domain, ['call'], 'me') > logProbability(domain, ['call'], 'it'));
    // A word the text never has keeps a share of the general model's probability.
    assert.ok(logProbability(domain, [], 'back') > -99);
  });

  it('mixes two models into one normalised model between them', () => {
    const general = normaliseUnigrams(parseArpa(GENERAL_ARPA));
    const prior = new Map([...general.grams[0]].map(([w, e]) => [w, e.logProb]));
    const domain = estimateModel([['send', 'it', 'back'], ['send', 'it']], prior);
    const mixed = mixModels(general, domain, 0.9);
    for (const ctx of [[], ['<s>'], ['call'], ['send'], ['send', 'it'], ['call', 'me']]) {
      assert.ok(Math.abs(mass(mixed, ctx) - 1) < 1e-6, `context ${ctx.join(' ')}: ${mass(mixed, ctx)}`);
    }
    // An n-gram only the phone-call text has becomes explicit, between the two models' values.
    const p = (m: BackoffModel) => 10 ** logProbability(m, ['send', 'it'], 'back');
    assert.ok(mixed.grams[2].has('send it back'));
    assert.ok(p(mixed) > p(general) && p(mixed) < p(domain));
    assert.ok(Math.abs(p(mixed) - (0.9 * p(general) + 0.1 * p(domain))) < 1e-9);
  });
});

describe('the phone-call model inputs', () => {
  it('reads the phrase list without comments or blank lines', () => {
    assert.deepEqual(phraseSentences('# written for the model\n\ni will call you back\n  thanks bye \n'), [
      ['i', 'will', 'call', 'you', 'back'],
      ['thanks', 'bye'],
    ]);
  });

  it('names a build by everything it is made of', () => {
    const base = Buffer.from('model');
    assert.equal(callModelKey(base, 'a b'), callModelKey(Buffer.from('model'), 'a b'));
    assert.notEqual(callModelKey(base, 'a b'), callModelKey(base, 'a c'));
    assert.notEqual(callModelKey(base, 'a b'), callModelKey(Buffer.from('other'), 'a b'));
  });

  it('adds the listed words cmudict lacks, and the training text\'s possessives of words it knows', () => {
    const known = new Map([['quote', 'K W OW T'], ['plumber', 'P L AH M ER'], ['fridge', 'F R IH JH'], ['zoom', 'Z UW M'], ["zoom's", 'Z UW M Z']]);
    const listed = callWords('# comment\nfacetime F EY S T AY M\nzoom Z UW M\n');
    const added = addedWords(known, listed, [["the", "quote's", 'fine'], ["plumber's", 'van'], ["fridge's", 'door'], ["facetime's", 'down'], ["zoom's", 'up'], ["okafor's", 'desk']]);
    assert.deepEqual(added, [
      { word: 'facetime', phones: 'F EY S T AY M' },
      { word: "quote's", phones: 'K W OW T S' },
      { word: "plumber's", phones: 'P L AH M ER Z' },
      { word: "fridge's", phones: 'F R IH JH IH Z' },
      { word: "facetime's", phones: 'F EY S T AY M Z' },
    ]);
  });

  it('lists only words cmudict lacks, each once, in CMU phones', () => {
    const listed = callWords(fs.readFileSync(CALL_WORDS_PATH, 'utf8'));
    assert.ok(listed.some((w) => w.word === 'facetime'));
    assert.equal(new Set(listed.map((w) => w.word)).size, listed.length);
    const cmu = new Set(fs.readFileSync(path.join(DEFAULT_POCKETSPHINX_MODEL_DIR, 'cmudict-en-us.dict'), 'utf8').split('\n').map((l) => l.split(' ')[0]));
    const phones = new Set('AA AE AH AO AW AY B CH D DH EH ER EY F G HH IH IY JH K L M N NG OW OY P R S SH T TH UH UW V W Y Z ZH'.split(' '));
    for (const { word, phones: p } of listed) {
      assert.ok(!cmu.has(word), `${word} is in cmudict already`);
      for (const ph of p.split(' ')) assert.ok(phones.has(ph), `${word}: ${ph} is no phone of the acoustic model`);
    }
  });

  it('builds its dictionary beside the model, with the listed words', () => {
    const built = findCallLanguageModel(path.join(DEFAULT_POCKETSPHINX_MODEL_DIR, 'en-us.lm.bin'));
    assert.ok(built, 'the call model is built by scripts/bootstrap.sh before the tests');
    const lines = fs.readFileSync(built.dictPath, 'utf8').split('\n');
    assert.ok(lines.includes('facetime F EY S T AY M'));
    assert.ok(lines.includes('hello HH AH L OW'));
  });
});

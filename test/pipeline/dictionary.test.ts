import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readWavMono, writeWav16 } from '../../src/pipeline/audio/decode.js';
import { buildCallDictionary, buildDictationModel, dictationArpa, dictationCounts, dictationPieces, dictationSpans, espeakToCmu, mayHoldDictation, namesToWords, pronounce, spliceDictation } from '../../src/pipeline/transcription/dictionary.js';
import { DEFAULT_POCKETSPHINX_MODEL_DIR, PocketsphinxTranscriber, parseHypseg } from '../../src/pipeline/transcription/pocketsphinx.js';
import { logProbability, parseArpa } from '../../src/pipeline/transcription/language-model.js';
import { corpusFile, ensureCorpus, loadTruth } from '../support/corpus.js';
import { synthesizeSpeech } from '../support/voices.js';

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

  it('adds the names as carrier pronunciations that map back to the name: espeak-ng\'s for words cmudict lacks, cmudict\'s own for the rest', async () => {
    const dir = fs.mkdtempSync(path.join(tmp, 'dict-'));
    const d = await buildCallDictionary(BASE_DICT, ['Daniel Okafor', 'Northwind Foods', 'Priya Shah'], dir);
    assert.ok(d);
    assert.deepEqual(d.added.map((a) => a.word).sort(), ['northwind', 'okafor', 'priya']);
    assert.deepEqual(d.boosted.map((a) => a.word).sort(), ['daniel', 'foods', 'shah']);
    assert.equal(d.boosted.find((a) => a.word === 'daniel')!.phones, 'D AE N Y AH L', "cmudict's first pronunciation");
    const text = fs.readFileSync(d.path, 'utf8');
    assert.ok(text.startsWith(fs.readFileSync(BASE_DICT, 'utf8')), 'the base dictionary comes first, unchanged');
    const extra = text.slice(fs.statSync(BASE_DICT).size).trim().split('\n');
    assert.equal(extra.length, 6);
    for (const line of extra) {
      const [token] = line.split(' ');
      assert.match(token, /^smith\(\d+\)$/);
      assert.ok(['okafor', 'northwind', 'priya', 'daniel', 'foods', 'shah'].includes(d.rename(token)!));
    }
    assert.equal(d.rename('smith'), null, 'a genuine "smith" stays smith');
    // pocketsphinx's output with a carrier pronunciation reads as the name.
    const carrier = extra.find((l) => l.endsWith('N AO R TH W IH N D'))!.split(' ')[0];
    const pieces = [{ id: 'u0', startFrame: 100, endFrame: 200 }];
    const words = parseHypseg(`u0 S 0 T -100 A -90 L -10 0 -1000 0 ${carrier} 50 -1000 -3 smith(2) 60 -1000 -3 </s> 90`, pieces, d.rename);
    assert.deepEqual(words.map((w) => w.word), ['northwind', 'smith']);
    const knownOnly = await buildCallDictionary(BASE_DICT, ['Daniel Smith', 'The Harbor Clinic of Maine'], dir);
    assert.ok(knownOnly);
    assert.deepEqual(knownOnly.added, [], 'cmudict knows every word');
    assert.deepEqual(knownOnly.boosted.map((a) => a.word).sort(), ['clinic', 'daniel', 'harbor', 'maine', 'smith'], 'not "the", "of"');
    assert.equal(await buildCallDictionary(BASE_DICT, [null, '', 'A'], dir), null, 'no name, nothing to add');
  });

  it('hears a name cmudict knows that the call model splits, with the call dictionary (real pocketsphinx)', async () => {
    // "Hello, Jamie speaking." (family-logistics, turn 0): the call model hears "hello jay me speaking".
    ensureCorpus();
    const truth = loadTruth('family-logistics');
    const turn = truth.turns[0];
    assert.match(turn.text, /Jamie speaking/);
    const { samples, sampleRate } = await readWavMono(corpusFile('family-logistics', 'mono16k.wav'));
    const clip = samples.subarray(Math.round(Math.max(0, turn.startSeconds - 0.2) * sampleRate), Math.round((turn.endSeconds + 0.2) * sampleRate));
    const dir = fs.mkdtempSync(path.join(tmp, 'asr-'));
    const wavPath = path.join(dir, 'clip.wav');
    await writeWav16(wavPath, clip, sampleRate);
    const ps = new PocketsphinxTranscriber();
    const durationSeconds = clip.length / sampleRate;
    const plain = (await ps.transcribe({ wavPath, durationSeconds })).words.map((w) => w.word).join(' ');
    assert.ok(!/\bjamie\b/.test(plain), `without the call's names: ${plain}`);
    const withNames = (await ps.transcribe({ wavPath, durationSeconds, vocabulary: ['Chris Walker', 'Jamie Walker'] })).words.map((w) => w.word).join(' ');
    assert.match(withNames, /\bhello jamie speaking\b/);
    assert.ok(!/smith\(/.test(withNames));
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

  it('hears words cmudict lacks that the call model adds: FaceTime, Venmo (real pocketsphinx)', async () => {
    // flite reads "FaceTime" as "fass time"; "face time" gets it the way people say it.
    const ps = new PocketsphinxTranscriber();
    const dir = fs.mkdtempSync(path.join(tmp, 'words-'));
    const heard: string[] = [];
    for (const [k, sentence] of ["Let's do a face time call at seven.", 'Just pay me back on Venmo, no rush.'].entries()) {
      const wavPath = synthesizeSpeech(dir, 'rms', sentence, `s${k}`);
      const r = await ps.transcribe({ wavPath, durationSeconds: (fs.statSync(wavPath).size - 44) / 32_000 });
      heard.push(r.words.map((w) => w.word).join(' '));
    }
    assert.match(heard[0], /\bfacetime call\b/);
    assert.match(heard[1], /\bon venmo\b/);
  });
});

const timed = (text: string, from = 0) => text.split(' ').map((word, k) => ({ word, start: from + k * 0.5, end: from + k * 0.5 + 0.4, confidence: 0.9 }));

describe('dictation pass', () => {
  it('decodes again only pieces with a dictation cue', () => {
    const cued = (t: string, names: string[] = []) => mayHoldDictation(t.split(' '), new Set(names));
    // an address word, a number that is given, a number run
    assert.ok(cued('my email is'));
    assert.ok(cued('money and fireworks my email is jessica got long hair down the dot com'));
    assert.ok(cued('could you text me a photo my number is'));
    assert.ok(cued('please call us at'));
    assert.ok(cued('call me back at'));
    assert.ok(cued('if you need to change the time pontiac five five five to one for four seven five'));
    assert.ok(cued('text me a five five five six or seven one two one two'));
    // a name of the call and the "dot" of an address, as the first pass hears it
    assert.ok(cued('please send the invite to lisa got more than prefer the stock', ['lisa']));
    assert.ok(!cued('please send the invite to lisa got more than prefer the stock'));
    // words of every phone call are no cue on their own: a digit word, "call", "number", "text"
    assert.ok(!cued('see you on friday'));
    assert.ok(!cued('call me back'));
    assert.ok(!cued('sure i will call you on friday'));
    assert.ok(!cued('thanks i only have one bag'));
    assert.ok(!cued('my flight lands on friday at seven forty pm'));
    assert.ok(!cued('it will be four hundred twenty dollars and it takes about forty five minutes'));
    assert.ok(!cued('we will also send you a text message'));
    assert.ok(!cued('what is the number of your policy'));
    // two digit words are a time or a count, not yet a dictated number; three in a row are
    // (the 8 kHz first pass often keeps no more of a phone number)
    assert.ok(!cued('two to four or five'));
    assert.ok(cued('two to four five'));
    assert.ok(cued('please call me back and five five five or forty one nine million by friday'));
    assert.ok(cued('all about eight hundred five five five due to the dual bill'));
  });

  it('decodes again the piece after a cue only when the dictation may go on there', () => {
    const pick = (...pieces: string[]) => dictationPieces(pieces.map((p) => p.split(' ')), new Set(['linda', 'green']));
    // "what's your email" ends the piece: the address is in the next one
    assert.deepEqual(pick('sure what is your email', 'linda got green and nail dot com', 'i will send them tonight'), [true, true, false]);
    assert.deepEqual(pick('what is your email', 'it is karen died and that skill nailed', 'forty dollars an hour'), [true, true, false]);
    // an address that ended (its top-level domain) or a whole ten-digit number ends the dictation
    assert.deepEqual(pick('my email is jessica got long hair down the dot com', 'gotcha i will send you the link'), [true, false]);
    assert.deepEqual(pick('my number is five five five eight one oh three three four seven', 'sure i will send it'), [true, false]);
    // a shorter run may go on in the next piece
    assert.deepEqual(pick('call me at five five five two one oh', 'four four seven five'), [true, true]);
    // a cue far from the end: the dictation followed it in the same piece
    assert.deepEqual(pick('i will email you the offer letter today and talk to you on monday then', 'yes that is right'), [true, false]);
    assert.deepEqual(pick('see you on friday', 'bye'), [false, false]);
  });

  it('builds a bigram model of the call: its words, its names at webmail domains, digit after digit', () => {
    const counts = dictationCounts(['please', 'email', 'them', 'to', 'pollinate'], ['David Lee', 'Paula Stone']);
    for (const w of ['please', 'pollinate', 'paula', 'stone', 'gmail', 'outlook', 'dot', 'com', 'oh', 'nine']) assert.ok(counts.unigrams.has(w), w);
    for (const b of ['paula at', 'at gmail', 'gmail dot', 'dot com', 'paula dot', 'dot stone', 'five oh', 'oh five', 'paula stone']) assert.ok(counts.bigrams.has(b), b);
    // the first pass's words are unigrams only: its misheard "to pollinate" carries no weight of its own
    assert.ok(!counts.bigrams.has('to pollinate'));
    const arpa = dictationArpa(counts, (w) => w !== 'pollinate');
    assert.match(arpa, /^\\data\\\nngram 1=(\d+)\nngram 2=(\d+)\n/);
    const [, n1, n2] = /ngram 1=(\d+)\nngram 2=(\d+)/.exec(arpa)!;
    const model = parseArpa(arpa);
    const [uni, bi] = model.grams;
    assert.equal(uni.size, Number(n1));
    assert.equal(bi.size, Number(n2));
    assert.ok(!uni.has('pollinate'), 'a word the dictionary lacks is left out');
    assert.ok(uni.has('<s>') && uni.has('</s>'));
    for (const e of [...uni.values(), ...bi.values()]) assert.ok(e.logProb <= 0);
    // a proper backoff model: after any context the probabilities of the vocabulary sum to one
    for (const context of [['paula'], ['five'], ['gmail'], ['please']]) {
      const sum = [...uni.keys()].filter((w) => w !== '<s>').reduce((s, w) => s + 10 ** logProbability(model, context, w), 0);
      assert.ok(Math.abs(sum - 1) < 1e-3, `${context}: ${sum}`);
    }
    assert.ok(arpa.endsWith('\\end\\\n'));
  });

  it('writes the model with the call dictionary\'s new names under their own spelling', async () => {
    const dir = fs.mkdtempSync(path.join(tmp, 'dictation-'));
    const callDict = await buildCallDictionary(BASE_DICT, ['Priya Okafor'], dir);
    assert.ok(callDict);
    const m = await buildDictationModel(BASE_DICT, ['hello', 'smith'], ['Priya Okafor'], dir, callDict);
    assert.ok(parseArpa(fs.readFileSync(m.lmPath, 'utf8')).grams[0].has('okafor'));
    const dict = fs.readFileSync(m.dictPath, 'utf8').trim().split('\n');
    const byWord = (w: string) => dict.filter((l) => l.split(' ')[0].replace(/\(\d+\)$/, '') === w);
    assert.equal(byWord('okafor').length, 1);
    assert.equal(byWord('priya').length, 1);
    assert.equal(byWord('smith').length, 1, 'no carrier pronunciation: the name has its own spelling');
    assert.ok(byWord('hello').length >= 1 && byWord('gmail').length === 1 && byWord('five').length >= 1);
  });

  it('gives the dictation pass the pronunciations of its model\'s words only (loading all of cmudict was most of its time)', async () => {
    const dir = fs.mkdtempSync(path.join(tmp, 'dictation-'));
    const m = await buildDictationModel(BASE_DICT, ['hello', 'email'], ['Paula Stone'], dir, null);
    const lmWords = new Set(parseArpa(fs.readFileSync(m.lmPath, 'utf8')).grams[0].keys());
    const dictWords = new Set(fs.readFileSync(m.dictPath, 'utf8').trim().split('\n').map((l) => l.split(' ')[0].replace(/\(\d+\)$/, '')));
    for (const w of lmWords) if (!w.startsWith('<')) assert.ok(dictWords.has(w), w);
    for (const w of dictWords) assert.ok(lmWords.has(w), w);
    // every pronunciation of a word, as cmudict has them ("hello", "hello(2)")
    const base = fs.readFileSync(BASE_DICT, 'utf8').split('\n').filter((l) => /^hello(\(\d+\))? /.test(l));
    assert.ok(base.length >= 2);
    for (const l of base) assert.ok(fs.readFileSync(m.dictPath, 'utf8').includes(`${l}\n`), l);
  });

  it('finds whole addresses and digit strings, with "for"/"to" inside a digit string', () => {
    const names = new Set(['jessica', 'long', 'paula', 'stone']);
    const spans = (t: string) => dictationSpans(timed(t), names).map((s) => `${s.kind}:${t.split(' ').slice(s.from, s.to).join(' ')}`);
    assert.deepEqual(spans('my email is jessica dot long at outlook dot com thanks'), ['email:jessica dot long at outlook dot com']);
    assert.deepEqual(spans('email them to paula at stone tax dot com by friday'), ['email:paula at stone tax dot com']);
    assert.deepEqual(spans('write to rentals at park view homes dot com'), ['email:rentals at park view homes dot com']);
    assert.deepEqual(spans('send it to me at home dot com'), [], '"me" is no local part');
    assert.deepEqual(spans('at dot com'), []);
    assert.deepEqual(spans('call five five five two one oh for four seven five for now'), ['digits:five five five two one oh for four seven five']);
    assert.deepEqual(spans('between five and six'), []);
    assert.deepEqual(spans('five five five to one'), [], 'too short for a phone number');
  });

  it('splices an address or digit string into the first pass by time, and nothing else', () => {
    const first = timed('please email them to pollinate soundtrack that time by friday okay at four pm');
    const second = timed('please email them to paula at stone tax dot com by friday okay at ford pm');
    // the second pass's words are placed over the first pass's span (times as the decoder reports them)
    second.forEach((w, k) => {
      if (k >= 4 && k <= 9) {
        w.start = 2 + (k - 4) * (2 / 6);
        w.end = w.start + 0.3;
      } else if (k > 9) {
        w.start = first[k - 2].start;
        w.end = first[k - 2].end;
      }
    });
    const out = spliceDictation(first, second, ['David Lee', 'Paula Stone']);
    assert.equal(out.map((w) => w.word).join(' '), 'please email them to paula at stone tax dot com by friday okay at four pm');
    // a first pass that already has as many digits keeps its own
    const digits = timed('call five five five two one oh four four seven five');
    const worse = timed('call five five five two one oh for for seven five');
    assert.deepEqual(spliceDictation(digits, worse, []).map((w) => w.word), digits.map((w) => w.word));
    assert.deepEqual(spliceDictation(worse, digits, []).map((w) => w.word), digits.map((w) => w.word));
    // the dictation model's digits never spread over the words around the number
    const heard = timed('call us at five five five nine oh two six six one four when you are on your way');
    const pulled = timed('call us at five five five nine oh two six six one four one you are on your way');
    assert.deepEqual(spliceDictation(heard, pulled, []).map((w) => w.word), heard.map((w) => w.word));
    // "six oh seven": the first pass lost the "oh"; "text me a" before the number stays words
    const missing = timed('text me a five five five six seven one two one two');
    const at = [0, 0.5, 1, 1.5, 2, 2.5, 3, 3.25, 3.5, 4, 4.5, 5, 5.5];
    const found = 'text three oh five five five six oh seven one two one two'.split(' ').map((word, k) => ({ word, start: at[k], end: at[k] + 0.2, confidence: 0.9 }));
    assert.equal(spliceDictation(missing, found, []).map((w) => w.word).join(' '), 'text me a five five five six oh seven one two one two');
  });

  it('hears a dictated address at the words of a name, whole (real pocketsphinx)', async () => {
    // "Please send it to operations at bayview logistics dot com." (sales-demo-booking, turn 5)
    ensureCorpus();
    const truth = loadTruth('sales-demo-booking');
    const turn = truth.turns[5];
    assert.match(turn.text, /operations at bayview logistics dot com/);
    const { samples, sampleRate } = await readWavMono(corpusFile('sales-demo-booking', 'mono16k.wav'));
    const clip = samples.subarray(Math.round((turn.startSeconds - 0.2) * sampleRate), Math.round((turn.endSeconds + 0.2) * sampleRate));
    const dir = fs.mkdtempSync(path.join(tmp, 'asr-'));
    const wavPath = path.join(dir, 'clip.wav');
    await writeWav16(wavPath, clip, sampleRate);
    const r = await new PocketsphinxTranscriber().transcribe({ wavPath, durationSeconds: clip.length / sampleRate, vocabulary: ['Olivia Park', 'Bayview Logistics'] });
    assert.match(r.words.map((w) => w.word).join(' '), /\bat bayview logistics dot com\b/);
  });
});

// The speech-act model used beside the analyzer's rules: the committed weights load and read a few
// unambiguous utterances (not in its training data) as they are meant, its features are stable, and
// its training is deterministic (the same data gives the same bytes).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { featuresOf, predictSpeechAct, readSpeechAct, speechActModel, tokensOf } from '../../src/pipeline/analysis/embedded/speech-acts.js';
import { labelDialogue, readUtterances, serializeModel, trainModel } from '../../scripts/train-speech-acts.js';

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures');

describe('speech-act model', () => {
  it('loads the committed weights with both heads', () => {
    const m = speechActModel();
    assert.ok(m);
    assert.equal(m.act.labels.length, 10);
    assert.deepEqual(m.intent.labels, ['meeting', 'email', 'call', 'message', 'reminder', 'task']);
    assert.ok(Object.keys(m.act.weights).length > 100);
  });

  it('reads unambiguous utterances it was not trained on', () => {
    const cases: Array<[string, string | null, string]> = [
      ['Could you please fax the signed lease to our office before Thursday?', 'Anything else you need from me?', 'request'],
      ['I will post the spare key to you first thing on Monday.', 'How do I get back in?', 'commitment'],
      ['Thank you so much, enjoy the rest of your weekend.', 'That is everything sorted then.', 'social'],
      ['My husband usually looks after the garden.', 'Who mows the lawn at your place?', 'info'],
    ];
    for (const [text, prev, act] of cases) assert.equal(readSpeechAct({ text, prev })?.act, act, text);
  });

  it('gives the same reading every time', () => {
    const input = { text: 'Can you send me the photos tonight?', prev: 'I took pictures of the damage.' };
    assert.deepEqual(readSpeechAct(input), readSpeechAct(input));
  });

  it('reads e-mail and call intents', () => {
    assert.equal(readSpeechAct({ text: 'Could you email me a copy of the statement, please?', prev: 'The payment went through.' })?.intent, 'email');
    assert.equal(readSpeechAct({ text: 'I will give you a ring tomorrow afternoon.', prev: 'I need to check with my wife.' })?.intent, 'call');
  });

  it('has stable features: contractions expanded, numbers collapsed, markers as a cue', () => {
    assert.deepEqual(tokensOf("I'll call you at five five five 0134."), ['i', 'will', 'call', 'you', 'at', '<num>']);
    assert.deepEqual(featuresOf({ text: 'Okay, send it?', prev: 'Can you check the meter?' }), [
      'a:okay', 'b:<s>_send', 'b:it_</s>', 'b:send_it', 'bias', 'c:ack', 'c:imperative', 'c:question', 'c:short', 'p:can', 'p:check', 'p:meter', 'p:question', 'p:request', 'p:the', 'p:you', 'w:it', 'w:send',
    ]);
    assert.ok(featuresOf({ text: 'Hello?', prev: null }).includes('p:none'));
  });
});

describe('speech-act training', () => {
  it('reproduces the committed tiny model byte for byte', () => {
    const data = readUtterances(path.join(fixtures, 'speech-acts-tiny.jsonl'));
    const once = serializeModel(trainModel(data));
    assert.equal(once, serializeModel(trainModel(data)));
    assert.equal(once, fs.readFileSync(path.join(fixtures, 'speech-acts-tiny.model.json'), 'utf8'));
    // and the tiny model has learnt its own data
    const m = trainModel(data);
    assert.equal(predictSpeechAct(m, { text: data[1].text, prev: data[1].prev }).act, 'request');
  });

  it('labels dialogue turns from the expected items: the asker requests, the owner commits', () => {
    const d = {
      turns: [
        { speaker: 'A', text: 'Hello?' },
        { speaker: 'B', text: 'Hi. Can you send me the quote by email?' },
        { speaker: 'A', text: 'Sure. I will email it tonight.' },
        { speaker: 'B', text: 'Thanks, bye.' },
      ],
      expect: { actionItems: [{ owner: 'A', text: 'Email the quote', intent: 'email', turn: 2, turns: [1, 2] }] },
    };
    const got = labelDialogue(d).map((u) => `${u.act}:${u.intent ?? '-'}:${u.text}`);
    assert.deepEqual(got, [
      'social:-:Hello?',
      'social:-:Hi.',
      'request:email:Can you send me the quote by email?',
      'acceptance:-:Sure.',
      'commitment:email:I will email it tonight.',
      'social:-:Thanks, bye.',
    ]);
  });
});

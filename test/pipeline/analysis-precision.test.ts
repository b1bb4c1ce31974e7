// Action items that are not: what the speaker would do if something happened, a plan that hangs on
// an event said condition first, the same call promised twice in other words, and a request hidden
// behind "tell you what" (session 24, precision on calls written by a new author).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clausesOf } from '../../src/pipeline/analysis/embedded/clauses.js';
import { itemsOf as itemsAt, type Turns, unit } from '../support/analysis-turns.js';

const recordedAt = '2026-05-12T16:00:00Z'; // a Tuesday

const itemsOf = (turns: Turns, names: [string, string]) => itemsAt(turns, names, recordedAt);

describe('what the speaker would do if something happened', () => {
  it('reads "if ..., I would ring him" as no request to the listener', () => {
    const read = clausesOf(unit('If the oak ever starts leaning I would ring him, but it is fine for now.'));
    assert.deepEqual(read.filter((c) => c.kind === 'request').map((c) => c.vp), []);
    // a condition before an imperative still asks
    assert.equal(clausesOf(unit('If anything looks wrong call us back.'))[0].kind, 'request');
  });

  it('makes no call item of a hypothetical, and keeps the plans said around it', () => {
    const items = itemsOf(
      [
        [1, 'Barker Gardens, Owen speaking.'],
        [0, 'Hi Owen, it is Nora. Could you email me the invoice after the job?'],
        [1, 'Will do. I will email it to you on Thursday.'],
        [0, 'Thanks. Oh, you mentioned a tree surgeon last time. If the oak ever starts leaning I would ring him, but it is fine for now.'],
        [1, 'Sure. See you Thursday.'],
      ],
      ['Nora Price', 'Owen Barker'],
    );
    assert.deepEqual(items.filter((i) => i.intent === 'call').map((i) => i.title), []);
    assert.equal(items.filter((i) => i.intent === 'email' && i.ownerRole === 'CONTACT').length, 1);
  });
});

describe('the same call promised twice', () => {
  it('is one call item, with the time said the second time', () => {
    const items = itemsOf(
      [
        [1, 'Sunrise Bakery, how can I help?'],
        [0, 'Hi, I would like a birthday cake for Saturday, with a unicorn on top.'],
        [1, 'Lovely. Once the decorator has seen the design, I will call you back with the final price. What is the best number?'],
        [0, 'My cell is five five five, six one seven, two zero nine three.'],
        [1, 'Five five five, six one seven, two zero nine three. I will ring you tomorrow before noon.'],
        [0, 'Perfect, thank you.'],
      ],
      ['Dana Cole', 'Sunrise Bakery'],
    );
    const calls = items.filter((i) => i.intent === 'call' && i.ownerRole === 'CONTACT');
    assert.equal(calls.length, 1, JSON.stringify(calls.map((c) => c.title)));
    assert.equal(calls[0].dueDate, '2026-05-13');
  });
});

describe('a plan that hangs on something that may not happen', () => {
  it('said condition first, is a next step, not an action item; one that waits on the listener is not', () => {
    const turns: Turns = [
      [0, 'Hello?'],
      [1, 'Callum, it is Isla. Can you send me your new address on WhatsApp?'],
      [0, 'I will send it to you tonight on WhatsApp.'],
      [1, 'Lovely. If the flight is delayed I will message you from the plane.'],
      [0, 'Okay. See you Saturday.'],
    ];
    const items = itemsOf(turns, ['Callum Reid', 'Isla Reid']);
    assert.deepEqual(items.filter((i) => i.ownerRole === 'CONTACT').map((i) => i.title), []);
    assert.equal(items.filter((i) => i.intent === 'message' && i.ownerRole === 'USER').length, 1);
    // the plan that waits on the listener, and the one said condition last, stay items
    const kept = itemsOf(
      [
        [1, 'If you send me the meter reading tonight, I will email you the new bill tomorrow.'],
        [0, 'Okay, will do.'],
        [1, 'And I will call you if the engineer needs to come out.'],
      ],
      ['Rosa Delgado', 'Energy Co'],
    );
    assert.equal(kept.filter((i) => i.ownerRole === 'CONTACT' && i.intent === 'email').length, 1);
    assert.equal(kept.filter((i) => i.ownerRole === 'CONTACT' && i.intent === 'call').length, 1);
  });
});

describe('"tell you what" before a request', () => {
  it('opens the request without hiding it, so the answer takes the name it asked about', () => {
    assert.deepEqual(clausesOf(unit('Tell you what, can you message Lisa so it comes from both of us?')).filter((c) => c.kind === 'request').map((c) => c.vp), ['message Lisa']);
    const items = itemsOf(
      [
        [1, 'Yep, from the ninth. Tell you what, can you message Lisa so it comes from both of us?'],
        [0, 'Ha. Yeah go on then, I will message her tonight.'],
      ],
      ['Megan Ford', 'Dan Kowalski'],
    );
    assert.deepEqual(items.filter((i) => i.intent === 'message').map((i) => i.title), ['Message Lisa']);
  });
});

describe('a state to keep until the next step', () => {
  it('"keep the cone on until then" is how things stand, no errand; "keep an eye on it" still asks', () => {
    assert.deepEqual(clausesOf(unit('Keep the cone on until then.')).map((c) => c.kind), ['other']);
    assert.equal(clausesOf(unit('Keep an eye on the pressure gauge.'))[0].kind, 'request');
    const items = itemsOf(
      [
        [1, 'He is doing well after the stitches. I would like to see him on Friday at five to take them out.'],
        [0, 'Friday at five is fine.'],
        [1, 'Good. Keep the cone on until then. Could you text us a photo of the wound tomorrow morning?'],
        [0, 'Of course, I will text it first thing.'],
      ],
      ['Sara Quinn', 'Maple Vets'],
    );
    assert.deepEqual(items.filter((i) => /\bcone\b/i.test(i.title)).map((i) => i.title), []);
    assert.equal(items.filter((i) => i.intent === 'message' && i.ownerRole === 'USER').length, 1);
  });
});

describe('news asked for there and then', () => {
  it('"come on, tell me" is no errand', () => {
    assert.deepEqual(clausesOf(unit('Come on, tell me.')).filter((c) => c.kind === 'request').map((c) => c.vp), []);
    const items = itemsOf(
      [
        [0, 'Hey Amir.'],
        [1, 'Yeah? I wanted to hear how the interview went. Come on, tell me.'],
        [0, 'I got the job! I start in March.'],
      ],
      ['Sami Haddad', 'Amir Haddad'],
    );
    assert.deepEqual(items.map((i) => i.title), []);
  });
});

describe('waiting it out', () => {
  it('"give it until Saturday" hands nothing over; "give him the key" does', () => {
    assert.deepEqual(clausesOf(unit('Give it until Saturday.')).map((c) => c.kind), ['other']);
    assert.deepEqual(clausesOf(unit('Give it a couple of days.')).map((c) => c.kind), ['other']);
    assert.equal(clausesOf(unit('Give him the key.'))[0].kind, 'request');
    assert.equal(clausesOf(unit('Give it to your brother.'))[0].kind, 'request');
  });
});

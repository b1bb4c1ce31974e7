// Session 27: readings found on the twelfth blind set's recognitions (dev since session 27).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { itemsOf, meetingOf } from '../support/analysis-turns.js';

describe('a question run on after an acceptance (session 27)', () => {
  it('"... works, what email should I send the invite to" is its own sentence: the one asking sends the invite', () => {
    // The recogniser writes no question mark and no sentence break: the question was read as part of
    // the acceptance, and the meeting went to the party who had only been asked to attend.
    const m = meetingOf(
      [
        [1, 'Hello.'],
        [0, 'Hi Rita it is Sam Cole about the renewal.'],
        [1, 'Of course I would rather show you the options on a screen can you do a teams call monday at ten.'],
        [0, 'Monday is bad so make that tuesday at three.'],
        [1, 'Tuesday at three works half an hour should cover it what email should I send the teams invite to.'],
        [0, 'Send it to sam dot cole at outlook dot com.'],
        [1, 'Perfect talk tuesday.'],
      ],
      ['Sam Cole', 'Rita Moss'],
      '2026-03-12T15:00:00Z',
    );
    assert.equal(m.ownerRole, 'CONTACT');
    assert.equal(m.intentMetadata?.proposedAt, '2026-03-17T15:00:00');
    assert.deepEqual(m.intentMetadata?.attendees?.map((a) => a.email), ['sam.cole@outlook.com']);
  });
});

describe('where to reach someone, said as an instruction (session 27)', () => {
  it('"Use my cell, it\'s ..." answering "what number should they call you on" is no errand of its own', () => {
    // The rules read it as "how to reach me" ('other'), but the speech-act model turned the whole
    // sentence back into a request: a call item titled "Use Ann Lee's cell it is ...".
    const items = itemsOf(
      [
        [1, 'Benefits office this call may be recorded how can I help you.'],
        [0, 'Hello I need to get a claim started for my late husband.'],
        [1, 'The earliest phone appointment is friday the tenth at nine a specialist will ring you then.'],
        [1, 'What number should they call you on?'],
        [0, 'Use my cell it\'s four one two five five five zero one nine a the house phone does not always ring.'],
        [1, 'Four one two five five five zero one nine eight.'],
      ],
      ['Ann Lee', 'Benefits Office'],
      '2026-04-01T15:00:00Z',
    );
    assert.ok(!items.some((i) => /^use\b/i.test(i.title)), JSON.stringify(items.map((i) => [i.intent, i.title])));
  });
});

describe('a third party\'s promise run on after a clock time (session 27)', () => {
  it('"... on Thursday at ten a m a claims specialist will call you" gives the call', () => {
    const items = itemsOf(
      [
        [1, 'Pension service how can I help you.'],
        [0, 'Hello I was told to book a review of my pension.'],
        [1, 'The earliest slot I have is thursday april sixteenth at ten a m a case worker will call you.'],
        [0, 'Thursday at ten is fine I am home.'],
      ],
      ['Ann Lee', 'Pension Service'],
      '2026-04-08T15:00:00Z',
    );
    const call = items.find((i) => i.intent === 'call');
    assert.ok(call, JSON.stringify(items.map((i) => [i.intent, i.title])));
    assert.equal(call.ownerRole, 'CONTACT');
  });
});

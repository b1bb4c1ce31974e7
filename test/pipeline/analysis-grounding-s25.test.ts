// Dictated details the session 25 fuzz (bench/fuzz-grounding.ts, --suite s25) rebuilt wrong or
// cited ungrounded: identifiers with spelled letters taken for phone numbers, American numbers
// written with the area code in brackets, a clock time whose colon and "p.m." a recogniser spelled
// apart, a weekday named by a holiday, an address of two plain words cut to its last word, and an
// address the speaker took back in their next turn.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolveDates } from '../../src/pipeline/analysis/embedded/dates.js';
import { normalizeSpoken } from '../../src/pipeline/analysis/embedded/spoken.js';
import { itemsOf as itemsAt, type Turns } from '../support/analysis-turns.js';

const recordedAt = '2025-06-11T16:05:00Z'; // a Wednesday

const itemsOf = (turns: Turns) => itemsAt(turns, ['Dana Pike', 'Tom Reyes'], recordedAt);
const phonesIn = (text: string) => normalizeSpoken(text).entities.filter((e) => e.kind === 'phone').map((e) => (e as { digits: string }).digits);
const emailsIn = (text: string) => normalizeSpoken(text).entities.filter((e) => e.kind === 'email').map((e) => (e as { address: string }).address);
const toEmails = (turns: Turns) => itemsOf(turns).map((i) => i.intentMetadata?.toEmail).filter((x): x is string => !!x);

describe('identifiers and phone numbers', () => {
  it('reads digits after a claim number and its spelled letters as the claim, not a phone', () => {
    assert.deepEqual(phonesIn('My claim number is C L three eight six two six four zero.'), []);
    assert.deepEqual(phonesIn('my policy number is p x a seven seven three one two nine eight'), []);
    // a phone number said after the same kind of words is still one
    assert.deepEqual(phonesIn('My number is three eight six two six four zero.'), ['3862640']);
  });

  it('reads an American number written with the area code in brackets whole', () => {
    assert.deepEqual(phonesIn('The best number is (303) 636-6285.'), ['3036366285']);
    assert.deepEqual(phonesIn('Call (212)555-0142 after six.'), ['2125550142']);
  });
});

describe('clock times and days', () => {
  it('reads "4 15 p m" as 16:15, not 16:00', () => {
    const [d] = resolveDates('can we meet July 3rd at 4 15 p m', recordedAt, false);
    assert.equal(d.datetime, '2025-07-03T16:15:00');
    assert.equal(resolveDates('yes at 11 30 am works', recordedAt, false)[0].time, '11:30');
  });

  it('places no day for a weekday named by a holiday ("Easter Monday", "Black Friday")', () => {
    assert.deepEqual(resolveDates('Can we meet Easter Monday at 5:50?', recordedAt, false), []);
    assert.deepEqual(resolveDates('The sale ends Black Friday.', recordedAt, false), []);
    // a weekday said after "good" is the weekday ("sounds good friday at three" as a recogniser writes it)
    assert.equal(resolveDates('sounds good friday at three', recordedAt, false)[0].date, '2025-06-13');
  });
});

describe('an address of two plain words', () => {
  // Where the address starts is not said: ward@ would mail a stranger, tomward@ or tom.ward@ would
  // be a guess. The words run together only where the speaker says so or they are the call's names.
  it('gives no address rather than the last word alone', () => {
    assert.deepEqual(emailsIn('It is tom ward at yahoo dot com.'), []);
    assert.deepEqual(emailsIn('please email john smith at gmail dot com'), []);
    assert.deepEqual(emailsIn('It is tom ward, all one word, at yahoo dot com.'), ['tomward@yahoo.com']);
    // nor where the last word is a name of the call ("grant" of Lucy Grant)
    assert.deepEqual(normalizeSpoken('make that sam grant at yahoo dot com.', new Set(['lucy', 'grant'])).entities, []);
    // a verb of sending, a filler or a correction cue before one word is not part of the address
    assert.deepEqual(emailsIn('email sarah at gmail dot com'), ['sarah@gmail.com']);
    assert.deepEqual(emailsIn('yeah um tom at gmail dot com'), ['tom@gmail.com']);
    assert.deepEqual(emailsIn('it is zoe at hotmail dot com, sorry, I mean joe underscore lee at gmail dot com').at(-1), 'joe_lee@gmail.com');
  });

  it('cites no address in the e-mail item, and the call\'s names run together', () => {
    const said = (local: string) =>
      toEmails([
        [0, 'Hi Tom, it is Dana from the garage.'],
        [1, 'Hi Dana, thanks for calling back.'],
        [0, 'Can I email you the quote? What is the best address?'],
        [1, `Sure, send it to ${local} at outlook dot com.`],
        [0, 'Great, I will email it over today.'],
        [1, 'Thanks, bye.'],
      ]);
    assert.deepEqual(said('kim fox'), []);
    assert.deepEqual(said('tom reyes'), ['tomreyes@outlook.com']);
  });
});

describe('an address taken back in the next turn', () => {
  it('cites the address said again after "sorry", not the one taken back', () => {
    const emails = toEmails([
      [0, 'Hi Tom, it is Dana from the garage.'],
      [1, 'Hi Dana, thanks for calling back.'],
      [0, 'Can I email you the form? What is the best address?'],
      [1, 'It is z grant at mail dot brightwater dot com.'],
      [0, 'Okay.'],
      [1, 'Sorry, z dot grant. Z dot grant at mail dot brightwater dot com.'],
      [0, 'Great, I will email it over today.'],
      [1, 'Thanks, bye.'],
    ]);
    assert.deepEqual(emails, ['z.grant@mail.brightwater.com']);
    // one more address after the cue ("sorry, and copy in ...") takes nothing back
    const both = toEmails([
      [0, 'Hi Tom, it is Dana from the garage.'],
      [1, 'Hi Dana, thanks for calling back.'],
      [0, 'Can I email you the form? What is the best address?'],
      [1, 'It is tom at acme dot co dot uk.'],
      [0, 'Okay.'],
      [1, 'Sorry, and copy in jo at acme dot co dot uk.'],
      [0, 'Great, I will email it over today.'],
      [1, 'Thanks, bye.'],
    ]);
    assert.ok(both.includes('tom@acme.co.uk'), both.join(' '));
  });

  it('cites no address when only the local part is said again', () => {
    const emails = toEmails([
      [0, 'Hi Tom, it is Dana from the garage.'],
      [1, 'Hi Dana, thanks for calling back.'],
      [0, 'Can I email you the form? What is the best address?'],
      [1, 'It is s shah at outlook dot com.'],
      [0, 'Okay.'],
      [1, 'Sorry, no, s dot shah.'],
      [0, 'Great, I will email it over today.'],
      [1, 'Thanks, bye.'],
    ]);
    assert.ok(!emails.includes('sshah@outlook.com'), emails.join(' '));
  });
});

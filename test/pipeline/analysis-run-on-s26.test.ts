// Run-on sentences as the offline recogniser writes them (no punctuation between what a person said
// in one breath), read on the retired eleventh set's call.m4a recognitions in session 26: a
// suggestion after an answer word ("absolutely why don't you call me back ..."), a plan that runs on
// into one's phone line ("... we'll set up a time my direct line is ..."), and an address asked to be
// used instead of the one on file ("could you use my work email instead, it's ..."), which is where
// to send what was already arranged, not an e-mail of its own.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { itemsOf as itemsAt, type Turns } from '../support/analysis-turns.js';

const recordedAt = '2026-10-08T19:30:00Z'; // a Thursday
const titles = (turns: Turns) => itemsAt(turns, ['Megan Alvarez', 'Derek Simmons'], recordedAt).map((i) => `${i.ownerRole} ${i.intent} ${i.title}`);

describe('run-on sentences of a recognition', () => {
  it('reads "absolutely why don\'t you call me back next week" as a request to call back', () => {
    const got = titles([
      [0, 'Could we come by for a visit before he starts.'],
      [1, "Absolutely why don't you call me back next week once you've checked your schedule."],
      [0, 'Got it thank you.'],
    ]);
    assert.ok(got.some((t) => /^USER call Call Derek Simmons back next week/.test(t)), got.join(' | '));
  });

  it('cuts a plan from the phone line said after it ("we\'ll set up a time my direct line is ...")', () => {
    const got = titles([
      [0, 'Could we come by for a visit before he starts.'],
      [1, "Absolutely why don't you call me back next week and we'll set up a time my direct line is six one seven five five five oh one four two."],
      [0, 'Six one seven five five five oh one four two got it thank you.'],
    ]);
    assert.ok(!got.some((t) => /set up a time/i.test(t)), got.join(' | '));
    assert.ok(got.some((t) => /^USER call /.test(t)), got.join(' | '));
  });

  it('makes no e-mail item of "could you use my work email instead, it\'s ..." after an invite was promised', () => {
    const got = titles([
      [1, "Half four's fine I'll send the teams link to the email we've got on file is that still the hotmail one."],
      [0, "No that's ancient could you use my work email it's megan dot alvarez at bright well care dot org."],
      [1, 'Megan dot alvarez at bright well care dot org lovely.'],
    ]);
    assert.ok(!got.some((t) => /^CONTACT email /.test(t)), got.join(' | '));
  });
});

// Extra action items and a grounding violation read on the twelfth set (session 27, American
// speakers, retired into dev): a caution said as a negative imperative ("please don't try to lift it
// yourself") with no time it holds for; a requirement said as the speaker's own future need ("I'll
// also need your last pay stub"), which the listener takes on in their own words; a promise about
// the call itself ("I'll be quick"); and "a quarter to four", which the grounding read as a day
// three months on and so refused the clock time said after it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clausesOf } from '../../src/pipeline/analysis/embedded/clauses.js';
import { groundAnalysis } from '../../src/pipeline/analysis/grounding.js';
import type { Analysis } from '../../src/domain/analysis.js';
import { itemsOf as itemsAt, transcriptOf, type Turns, unit } from '../support/analysis-turns.js';

const recordedAt = '2025-06-11T16:05:00Z'; // a Wednesday
const names: [string, string] = ['Dana Pike', 'Tom Reyes'];

const itemsOf = (turns: Turns) => itemsAt(turns, names, recordedAt);
const titles = (turns: Turns) => itemsOf(turns).map((i) => `${i.ownerRole} ${i.intent} ${i.title}`);

describe('a caution said as a negative imperative', () => {
  it('makes no item of "please don\'t ..." with no time it holds for', () => {
    const got = titles([
      [0, 'The water heater is leaking from the bottom valve.'],
      [1, 'Okay, a plumber can come Friday morning. And please don\'t try to tighten the valve yourself.'],
      [0, 'Wasn\'t going to, thanks.'],
    ]);
    assert.ok(!got.some((t) => /tighten/i.test(t)), got.join(' | '));
    const bare = titles([
      [0, 'The ladder is in the garage if he needs it.'],
      [1, 'Great. Never lean it against the gutter, it bends.'],
    ]);
    assert.ok(!bare.some((t) => /lean/i.test(t)), bare.join(' | '));
    // (a prohibition for a while, until or after a time, is still something to keep to)
    assert.ok(clausesOf(unit('Please do not run the dishwasher until the part arrives.')).some((c) => c.kind === 'request' && !c.negated));
    // (nor is a reminder said in the negative: "don't forget to ...")
    assert.ok(clausesOf(unit("Please don't forget to bring your passport.")).some((c) => c.kind === 'request' && !c.negated));
  });
});

describe('the speaker\'s own future need', () => {
  it('reads "I\'ll also need X" as a requirement, not the speaker\'s promise', () => {
    const kinds = clausesOf(unit("I'll also need your last pay stub before the appointment, if you can find it.")).map((c) => c.kind);
    assert.ok(!kinds.includes('commit'), kinds.join(' '));
    const got = titles([
      [1, "Great, I'll also need your last pay stub before Friday, if you can find it."],
      [0, "Sure, I'll scan it tonight."],
    ]);
    assert.ok(!got.some((t) => /^CONTACT .*need/i.test(t)), got.join(' | '));
    assert.ok(got.some((t) => /^USER .*scan/i.test(t)), got.join(' | '));
  });
});

describe('a promise about the call itself', () => {
  it('makes no item of "I\'ll be quick"', () => {
    for (const s of ['I will be quick, I have a new opening for a nurse.', "I'll be brief, it is about your renewal.", 'We will keep it short.']) {
      assert.ok(!clausesOf(unit(s)).some((c) => c.kind === 'commit' || c.kind === 'soft'), s);
    }
  });
});

describe('grounding a clock time after "a quarter to"', () => {
  it('keeps a meeting time said after "a quarter to four" on the day named before it', () => {
    const turns: Turns = [
      [1, 'Could we meet next Tuesday at three thirty?'],
      [0, 'Next Tuesday, three thirty is tough, I get the kids at a quarter to four. Could we do four fifteen?'],
      [1, 'Four fifteen works.'],
    ];
    const a = { actionItems: [{ intentMetadata: { proposedAt: '2025-06-17T16:15:00' } }] } as unknown as Analysis;
    const { violations } = groundAnalysis(a, transcriptOf(turns, names, recordedAt), recordedAt);
    assert.deepEqual(violations, []);
  });
});

describe('a bare promise with a fuller one after it', () => {
  it('makes one item of "I guess I can find that ... I\'ll scan it tomorrow"', () => {
    const got = titles([
      [1, 'We will need the title deed from the sale before the call, if you can dig it up.'],
      [0, "Yeah, I guess I can find that. It's in a box somewhere. I'll scan it tomorrow."],
      [1, 'Perfect. Talk Friday.'],
    ]);
    assert.ok(got.some((t) => /^USER .*scan/i.test(t)), got.join(' | '));
    assert.ok(!got.some((t) => /^USER task Find$/i.test(t)), got.join(' | '));
  });
});

describe('no errand on purpose, as a recogniser writes it', () => {
  it('leaves "use my cell it is ..." to no one, the speech-act model included', () => {
    const c = clausesOf(unit("Use my cell it's six one seven five five five zero one four two the landline doesn't always ring."));
    assert.ok(c.every((x) => x.kind === 'other' && x.ruledOut), JSON.stringify(c.map((x) => [x.kind, x.ruledOut])));
  });
  it('reads a request taken back in the same breath as none', () => {
    const c = clausesOf(unit('Tomorrow nine to eleven can you come sooner I have a flight at noon actually never mind'));
    assert.ok(c.every((x) => x.kind === 'other' && x.ruledOut), JSON.stringify(c.map((x) => [x.kind, x.vp, x.ruledOut])));
  });
});

describe("the speaker's own ride", () => {
  it('makes no promise of "I\'ll grab an Uber" or "we\'ll take the bus"', () => {
    for (const s of ["Actually, never mind, I'll grab an Uber.", "We'll just take the bus in."]) {
      assert.ok(!clausesOf(unit(s)).some((c) => c.kind === 'commit' || c.kind === 'soft'), s);
    }
    // (booking a ride for someone else is an errand)
    assert.ok(clausesOf(unit("I'll book a cab for my mom on Friday.")).some((c) => c.kind === 'commit'));
    assert.ok(clausesOf(unit("I'll book a taxi for you.")).some((c) => c.kind === 'commit'));
    assert.ok(clausesOf(unit("I'll order a cab to the station for you.")).some((c) => c.kind === 'commit'));
  });
});

describe('a day of the month marked down', () => {
  it('reads "putting the twentieth in my calendar" and "a note for the sixteenth" as those days', () => {
    const got = itemsAt([
      [1, 'The deadline for the payment plan is April twentieth, and the call is on the sixteenth.'],
      [0, "Okay. I'm putting the twentieth in my calendar right now."],
      [1, 'Great.'],
      [0, "And I'll put a note on the fridge for the sixteenth."],
    ], names, '2026-04-14T16:00:00Z');
    const due = (re: RegExp) => got.find((i) => re.test(i.title))?.dueDate;
    assert.equal(due(/calendar/i), '2026-04-20', JSON.stringify(got.map((i) => [i.title, i.dueDate])));
    assert.equal(due(/fridge/i), '2026-04-16', JSON.stringify(got.map((i) => [i.title, i.dueDate])));
    // (and the title says which day)
    assert.ok(got.some((i) => /20 April/.test(i.title)), JSON.stringify(got.map((i) => i.title)));
  });
});

describe('thinking aloud', () => {
  it('reads "let\'s see her email" (a recogniser\'s "let\'s see, your email?") as no plan', () => {
    for (const s of ["I'll email you the forms let's see her email", "Let's see, your account number?"]) {
      assert.ok(!clausesOf(unit(s)).some((c) => c.kind === 'joint' || c.kind === 'request'), JSON.stringify(clausesOf(unit(s)).map((c) => [c.kind, c.vp])));
    }
  });
});

describe('a short promise of a thing of its own', () => {
  it('keeps "I\'ll do the form tonight" beside a promise about something else', () => {
    const got = titles([
      [0, 'Oh, great, he will love that. What do you need from us?'],
      [1, "Two things. There's a permission form on the app, and the bus costs forty dollars, which also goes through the app. Ideally both by Friday."],
      [0, "Friday, okay. I'll do the form tonight. The payment, I'll have to check with his mom, but one of us will get it paid by Friday."],
    ]);
    assert.ok(got.some((t) => /form/i.test(t)), got.join(' | '));
  });
});

describe("a trip of one's own", () => {
  it('reads "we\'re driving up to my in-laws that weekend" as where the speaker will be, not a promise', () => {
    for (const s of ["But we're driving up to my in-laws that whole weekend, sorry.", "I'm flying out to Denver on the eighteenth."]) {
      assert.ok(!clausesOf(unit(s)).some((c) => c.kind === 'commit'), JSON.stringify(clausesOf(unit(s)).map((c) => [c.kind, c.vp])));
    }
    // (a trip made to do something is the errand)
    assert.ok(clausesOf(unit("I'm driving over to your place tomorrow to drop the keys off.")).some((c) => c.kind === 'commit'));
  });
});

describe('a request turned down by sending the asker elsewhere', () => {
  it('makes no item of a favour answered "... sorry, maybe try the neighbour"', () => {
    const got = titles([
      [1, 'um and okay so random question any chance you could feed the cat on saturday the eighteenth we have a wedding', 'MEDIUM'],
      [0, "and always but we're driving up to my parents that whole weekend sorry maybe try the boy next door the one who walks dogs", 'MEDIUM'],
      [1, 'yeah maybe no worries anyway we should get lunch sometime', 'MEDIUM'],
    ]);
    assert.ok(!got.some((t) => /feed/i.test(t)), got.join(' | '));
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { punctuateRunOn } from '../../src/pipeline/analysis/embedded/text.js';

// Sentence boundaries restored in a turn as an offline recogniser writes it: lower case, no
// punctuation inside the turn, one full stop at the end (the normaliser's form).
describe('punctuateRunOn: sentence boundaries in unpunctuated turns', () => {
  it('cuts after an acceptance or acknowledgement before an instruction or a statement', () => {
    assert.equal(punctuateRunOn('Tuesday at noon is fine send the agenda to the team channel.'), 'Tuesday at noon is fine. Send the agenda to the team channel.');
    assert.equal(punctuateRunOn("Thursday's fine email me the signed lease afterwards."), "Thursday's fine. Email me the signed lease afterwards.");
    assert.equal(punctuateRunOn('Saturday morning works text me when the van is parked outside.'), 'Saturday morning works. Text me when the van is parked outside.');
    assert.equal(punctuateRunOn('Good ring me on monday about the roof repair quote.'), 'Good. Ring me on monday about the roof repair quote.');
    assert.equal(punctuateRunOn('Done the new contract is already in your inbox.'), 'Done. The new contract is already in your inbox.');
    assert.equal(punctuateRunOn("I see I'm sorry what we can do is waive the fee this one time."), "I see. I'm sorry. What we can do is waive the fee this one time.");
  });

  it('keeps an idiom and a continuation whole', () => {
    // "good call" is praise; "works for" and "is fine with" continue the sentence
    assert.equal(punctuateRunOn("Good call don't book the hotel yet we might change the dates."), "Good call don't book the hotel yet we might change the dates.");
    assert.equal(punctuateRunOn('The later slot is fine with me and the kids as well honestly.'), 'The later slot is fine with me and the kids as well honestly.');
  });

  it('reads a question from its word order, without a question mark', () => {
    assert.equal(punctuateRunOn('I want to go over the floor plan with you could we meet at the site on monday at nine.'), 'I want to go over the floor plan with you. Could we meet at the site on monday at nine?');
    assert.equal(punctuateRunOn('The parts came in this morning any chance you could drop the bike off before friday.'), 'The parts came in this morning. Any chance you could drop the bike off before friday?');
    assert.equal(punctuateRunOn('The panel has both slots open which address should the invite go to.'), 'The panel has both slots open. Which address should the invite go to?');
    assert.equal(punctuateRunOn('Do it send the paperwork to the office downtown when you can.'), 'Do it. Send the paperwork to the office downtown when you can.');
  });

  it('opens a new sentence at "oh and" and at a request after a statement, not after a reported one', () => {
    assert.equal(punctuateRunOn('The tiles arrived a day early oh and my brother asked if you could look at his boiler.'), 'The tiles arrived a day early. Oh, and my brother asked if you could look at his boiler.');
    assert.equal(punctuateRunOn('Everything is set for the party if you could just send us the guest list we can print the cards.'), 'Everything is set for the party. If you could just send us the guest list. We can print the cards.');
  });

  it('cuts before "and" with an instruction after a statement or a promise, not inside a list of instructions', () => {
    assert.equal(punctuateRunOn("I'll print the forms this evening and bring your passport to the meeting tomorrow."), "I'll print the forms this evening. And bring your passport to the meeting tomorrow.");
    assert.equal(punctuateRunOn('Please pay the deposit by monday and write your booking code on the transfer.'), 'Please pay the deposit by monday and write your booking code on the transfer.');
  });

  it('reads a recogniser\'s "e mail" as one word', () => {
    assert.equal(punctuateRunOn('Could you e mail me the receipt.'), 'Could you email me the receipt?');
  });

  it('leaves a turn with punctuation inside as written', () => {
    assert.equal(punctuateRunOn('Friday is fine. Send the agenda, please.'), 'Friday is fine. Send the agenda, please.');
  });
});

describe('punctuateRunOn: numbers, ordinals, lists and interjections in unpunctuated turns', () => {
  it('ends a number read digit by digit before the sentence after it', () => {
    assert.equal(punctuateRunOn('Four one five two two nine oh eight the courier will ring before he comes.'), 'Four one five two two nine oh eight. The courier will ring before he comes.');
  });

  it('opens a sentence at each ordinal of a spoken list', () => {
    assert.equal(
      punctuateRunOn('Two things really the gate code changed last week second the dog will be in the garden all day.'),
      'Two things really the gate code changed last week. Second the dog will be in the garden all day.',
    );
  });

  it('puts back the comma between a day and the next task of a list after one subject', () => {
    assert.equal(
      punctuateRunOn("Right I'll renew the parking permit by thursday pay the water bill on the twelfth and call the landlord."),
      "Right. I'll renew the parking permit by thursday, pay the water bill on the twelfth and call the landlord.",
    );
  });

  it('reads "oh and" before an instruction as an interjection, not a clause sharing a subject', () => {
    assert.equal(punctuateRunOn('Oh and switch the water off at the main before you leave for the airport.'), 'Oh, and switch the water off at the main before you leave for the airport.');
  });

  it('ends a leading "I hear you" before a condition', () => {
    assert.equal(punctuateRunOn("I understand if it helps I can ask the manager to ring you this afternoon."), "I understand. If it helps I can ask the manager to ring you this afternoon.");
  });

  it('keeps a polite request whole: "I would appreciate it if you could ..."', () => {
    assert.equal(punctuateRunOn("I'd appreciate it if you could read the slides before the meeting tonight."), "I'd appreciate it if you could read the slides before the meeting tonight.");
  });
});

describe('clauses of a restored run-on turn', () => {
  it('reads the instruction after "oh and" as a request, and each listed task as a promise', async () => {
    const { buildCallText } = await import('../../src/pipeline/analysis/embedded/text.js');
    const { clausesOf } = await import('../../src/pipeline/analysis/embedded/clauses.js');
    const seg = (id: string, text: string, t: number) => ({ id, speaker: 'spk_1', speakerLabel: 'A', speakerDisplayName: 'A', speakerId: 'spk_1', sourceSpeakerId: 'S0', role: 'USER' as const, startSeconds: t, endSeconds: t + 4, text, alignmentConfidence: 'HIGH' as const });
    const transcript = {
      schemaVersion: 2, callId: '6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f', language: 'en', durationSeconds: 20, cleanText: '',
      speakers: [{ speakerId: 'spk_1', label: 'A', displayName: 'A', role: 'USER' }],
      segments: [seg('s1', 'Hello there.', 0), seg('s2', 'Oh and switch the water off at the main before you leave for the airport.', 5), seg('s3', "Right I'll renew the parking permit by thursday pay the water bill on the twelfth and call the landlord.", 10)],
    } as never;
    const ct = buildCallText(transcript, { recordedAt: '2026-03-02T10:00:00Z', userDisplayName: 'A', contactName: null } as never);
    const kinds = ct.units.flatMap((u) => clausesOf(u).filter((c) => c.kind !== 'other').map((c) => `${c.kind}: ${c.vp}`));
    assert.ok(kinds.includes('request: switch the water off at the main before you leave for the airport'), kinds.join(' | '));
    assert.ok(kinds.some((k) => /^commit: pay the water bill/.test(k)), kinds.join(' | '));
  });
});

describe('punctuateRunOn: conjunctions, recaps and long questions', () => {
  it('takes a conjunction with the sentence it opens, and cuts no recap after "to confirm"', () => {
    assert.equal(
      punctuateRunOn("So to confirm I'll post the keys on monday and we'll meet at the flat on the ninth."),
      "So to confirm I'll post the keys on monday. And we'll meet at the flat on the ninth.",
    );
  });

  it('gives a long question its question mark from the word order', () => {
    assert.equal(
      punctuateRunOn('Could you bring the spare keys and the parking card and the alarm code to the office on tuesday.'),
      'Could you bring the spare keys and the parking card and the alarm code to the office on tuesday?',
    );
  });

  it('ends "will do" before a question, which "will do" does not open', () => {
    assert.equal(punctuateRunOn('Will do should I copy the accountant on the summary email.'), 'Will do. Should I copy the accountant on the summary email?');
  });
});

describe('punctuateRunOn: a closing "please" and a question after an acceptance', () => {
  it('closes a request at a "please" not followed by a verb, and opens one at a "please" that is', () => {
    assert.equal(punctuateRunOn('The window seat on the left please the other one rattles a lot.'), 'The window seat on the left please. The other one rattles a lot.');
    assert.equal(punctuateRunOn("Okay you're booked in please arrive a little early for the paperwork."), "Okay. You're booked in. Please arrive a little early for the paperwork.");
  });

  it('opens a question with "anything" after an acceptance, and a warning after a number read out', () => {
    assert.equal(punctuateRunOn('Thursday at noon is fine anything we should print beforehand.'), 'Thursday at noon is fine. Anything we should print beforehand?');
    assert.equal(punctuateRunOn("Pay into account two two four one nine oh don't pay into any other account."), "Pay into account two two four one nine oh. Don't pay into any other account.");
  });
});

describe('clauses: "I\'m a" is "I\'m gonna" only before a verb', () => {
  it('reads no plan into "I\'m a student and ..."', async () => {
    const { clausesOf } = await import('../../src/pipeline/analysis/embedded/clauses.js');
    const unit = (norm: string) => ({ idx: 1, turn: 1, segmentId: 's', speaker: { speakerId: 'spk_1', label: 'A', displayName: 'A', role: 'USER' }, text: norm, norm, plain: norm.toLowerCase(), start: 0, end: 1, stems: [], words: 8, isQuestion: false, past: false, confidence: 'HIGH', entities: [], dates: [] }) as never;
    assert.ok(!clausesOf(unit("I'm a student and I got a letter saying my grant was cut.")).some((c) => /going to/.test(c.text)));
    assert.ok(clausesOf(unit("I'm a call the bank about the letter tomorrow.")).some((c) => c.kind === 'commit' && /^call the bank/.test(c.vp)));
  });
});

describe('punctuateRunOn: a time answer and a bare progressive promise', () => {
  it('ends a time said as an answer before a request to get in touch', () => {
    assert.equal(punctuateRunOn('Any time after four call me when the parcel shows up at the desk.'), 'Any time after four. Call me when the parcel shows up at the desk.');
  });

  it('opens a sentence at a bare progressive promise, not after an auxiliary', () => {
    assert.equal(punctuateRunOn('The blue one is sold out a bit lighter sending you the link in a second.'), 'The blue one is sold out a bit lighter. Sending you the link in a second.');
    assert.equal(punctuateRunOn("We'll be sending you the invoice by the end of the week."), "We'll be sending you the invoice by the end of the week.");
  });
});

describe('punctuateRunOn: a list of tasks after a dictated address', () => {
  it('puts back the comma between a dictated address and the next task', () => {
    assert.equal(
      punctuateRunOn("Right I'll send the scans to office at north clinic dot org book the follow up and pay the invoice."),
      "Right. I'll send the scans to office at north clinic dot org, book the follow up and pay the invoice.",
    );
  });
});

describe('punctuateRunOn: a wish after a promise', () => {
  it('opens a sentence at "I\'d also appreciate" / "I would prefer" as at "I\'d like"', () => {
    assert.equal(
      punctuateRunOn("I'll drop the keys off tonight I'd also appreciate a receipt for the deposit."),
      "I'll drop the keys off tonight. I'd also appreciate a receipt for the deposit.",
    );
    assert.equal(
      punctuateRunOn('Let me read the lease first I would prefer a call on friday to go through it.'),
      'Let me read the lease first. I would prefer a call on friday to go through it.',
    );
  });
});

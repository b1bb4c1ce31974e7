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
    assert.equal(punctuateRunOn('The tiles arrived a day early oh and my brother asked if you could look at his boiler.'), 'The tiles arrived a day early. Oh and my brother asked if you could look at his boiler.');
    assert.equal(punctuateRunOn('Everything is set for the party if you could just send us the guest list we can print the cards.'), 'Everything is set for the party. If you could just send us the guest list. We can print the cards.');
  });

  it('cuts before "and" with an instruction after a statement or a promise, not inside a list of instructions', () => {
    assert.equal(punctuateRunOn("I'll print the forms this evening and bring your passport to the meeting tomorrow."), "I'll print the forms this evening. And bring your passport to the meeting tomorrow.");
    assert.equal(punctuateRunOn('Please pay the deposit by monday and write your booking code on the transfer.'), 'Please pay the deposit by monday and write your booking code on the transfer.');
  });

  it('reads a recogniser\'s "e mail" as one word', () => {
    assert.equal(punctuateRunOn('Could you e mail me the receipt.'), 'Could you email me the receipt.');
  });

  it('leaves a turn with punctuation inside as written', () => {
    assert.equal(punctuateRunOn('Friday is fine. Send the agenda, please.'), 'Friday is fine. Send the agenda, please.');
  });
});

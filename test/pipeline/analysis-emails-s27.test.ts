// Dictated e-mail addresses as callers from new places say them and as an offline recogniser writes
// them (session 27): country domains heard as words ("dot easy"), "dot khan" for "dot com", "at mail
// dot com" kept as mail.com, a comma before the "at", letters said after a word, a shared mailbox opening
// with "hello", and which address goes on the item (the asked-for answer, not the sender's own).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { normalizeSpoken } from '../../src/pipeline/analysis/embedded/spoken.js';
import { groundAnalysis } from '../../src/pipeline/analysis/grounding.js';
import { groundedAnalysis, type Turns } from '../support/analysis-turns.js';

const recordedAt = '2026-03-11T16:05:00Z'; // a Wednesday

const emailsOf = (text: string) => normalizeSpoken(text).entities.filter((e) => e.kind === 'email').map((e) => (e as { address: string }).address);

const grounded = (turns: Turns, names: [string, string], runOn = false) => groundedAnalysis(turns, names, recordedAt, runOn);

/** Every address put on the items: toEmail and attendees' e-mails. */
function addressesOf(raw: ReturnType<typeof grounded>['raw']): string[] {
  return (raw.actionItems ?? []).flatMap((i) => {
    const md = (i.intentMetadata ?? {}) as { toEmail?: string | null; attendees?: Array<{ email?: string | null }> };
    return [md.toEmail ?? null, ...(md.attendees ?? []).map((a) => a.email ?? null)].filter((x): x is string => !!x);
  });
}

describe('dictated addresses, session 27', () => {
  it('reads a top-level domain heard as a word right after "dot"', () => {
    assert.deepEqual(emailsOf('so facilities four at kestrel arch dot khan'), ['facilities4@kestrelarch.com']);
    assert.deepEqual(emailsOf('sophie dot lang at harbour design dot easy harbour with the you'), ['sophie.lang@harbourdesign.ie']);
    // running speech keeps its words
    assert.deepEqual(emailsOf('I was at the station dot come on'), []);
  });

  it('reads "at mail dot com" as said (mail.com is a real provider), and a mail subdomain as said', () => {
    assert.deepEqual(emailsOf("It's rosa dot delgado seventy one at mail dot com."), ['rosa.delgado71@mail.com']);
    assert.deepEqual(emailsOf('tom at mail dot brightwater dot com'), ['tom@mail.brightwater.com']);
  });

  it('keeps a dotted local part said with a comma before its "at"', () => {
    assert.deepEqual(emailsOf("It's a dot desai, at brookside primary dot org dot uk. That's D E S A I."), ['a.desai@brooksideprimary.org.uk']);
    // (a lone word before the comma is no address)
    assert.deepEqual(emailsOf("It's the same, at hotmail dot com."), []);
  });

  it('joins letters said after a word where a separator opens the part', () => {
    assert.deepEqual(emailsOf("It's treasurer dot hollins c c at gmail dot com."), ['treasurer.hollinscc@gmail.com']);
  });

  it('reads digits written with a hyphen, and a name, an initial and digits opening the address', () => {
    assert.deepEqual(emailsOf("It's megan dot clarke eighty-four at gmail dot com."), ['megan.clarke84@gmail.com']);
    assert.deepEqual(emailsOf("It's hannah k seventy-two at proton mail dot com."), ['hannahk72@protonmail.com']);
    // (another word before the name leaves where the address starts unsaid)
    assert.deepEqual(emailsOf('my son tom b seven at gmail dot com'), ['b7@gmail.com']);
  });

  it('reads letters spelled in groups set off by commas', () => {
    assert.deepEqual(emailsOf('Her email is j as in juliet, e s s, dot park at outlook dot com.'), ['jess.park@outlook.com']);
  });

  it('reads past the spelling of a word said a little before ("priya dot nair, that\'s p r i y a, at ...")', () => {
    assert.deepEqual(emailsOf("It's priya dot nair, that's p r i y a, at fast mail dot com."), ['priya.nair@fastmail.com']);
    // letters that spell nothing said before stay in the address
    assert.deepEqual(emailsOf("That's A P at northwind foods dot com"), ['ap@northwindfoods.com']);
  });

  it('reads a word that is never an address alone as the part after a separator ("underscore home")', () => {
    assert.deepEqual(emailsOf("No, it's l kim underscore home at yahoo dot com now."), ['lkim_home@yahoo.com']);
    assert.deepEqual(emailsOf('send it to me at home dot com'), []);
  });

  it('runs two words after a separator together ("ruth dot adeyemi tutoring")', () => {
    assert.deepEqual(emailsOf('My address is ruth dot adeyemi tutoring at gmail dot com.'), ['ruth.adeyemitutoring@gmail.com']);
    // (no separator: where the address starts is not said)
    assert.deepEqual(emailsOf('It is tom ward at yahoo dot com.'), []);
  });

  it('reads "All one word." said as a sentence of its own after the address', () => {
    const { raw } = grounded(
      [
        [1, 'Could you email me some photos of the crack?'],
        [0, "Email's better, the pictures come through bigger. It's gareth lyle plastering at gmail dot com. All one word."],
        [1, "Gareth lyle plastering at gmail dot com. I'll send them tonight."],
      ],
      ['Gareth Lyle', 'Nora Quinn'],
    );
    assert.ok(addressesOf(raw).includes('garethlyleplastering@gmail.com'), JSON.stringify(raw.actionItems));
  });

  it('grounds an address said with a comma before its "at", and puts it on the item', () => {
    const { raw } = grounded(
      [
        [1, 'Could you email it to me directly, so I have got it in writing? It\'s a dot desai, at brookside primary dot org dot uk.'],
        [0, "Yes, I'll email it over tomorrow morning."],
      ],
      ['Graham Fletcher', 'Anita Desai'],
    );
    assert.ok(addressesOf(raw).includes('a.desai@brooksideprimary.org.uk'), JSON.stringify(raw.actionItems));
  });

  it('makes no item of an address given to look up a record ("what\'s the email address on the application?")', () => {
    const { raw } = grounded(
      [
        [0, 'Hi, I sent in a renewal five weeks ago and the online status has not changed, so I wanted to check on it.'],
        [1, "I can look that up. What's the email address on the application?"],
        [0, "It's hannah dot kowalski at proton mail dot com."],
        [1, 'Thanks, I have found it. It is with the printing team.'],
      ],
      ['Hannah Kowalski', 'Passport Office'],
    );
    assert.deepEqual((raw.actionItems ?? []).filter((i) => i.intent === 'email'), []);
  });

  it('grounds the addresses rebuilt from heard words', () => {
    const { raw, transcript } = grounded(
      [
        [1, "I'll price it up and send you a written quote, what's the best email?"],
        [0, 'so facilities four at kestrel arch dot khan'],
        [1, 'Got it, you will have it today.'],
      ],
      ['Mia Stone', 'Tara Lowe'],
    );
    assert.ok(addressesOf(raw).includes('facilities4@kestrelarch.com'), JSON.stringify(raw.actionItems));
    assert.equal(groundAnalysis(raw, transcript, recordedAt).violations.length, 0);
  });

  it('keeps a shared mailbox said as "hello at ..." in one sentence, and takes the address given in answer', () => {
    const { raw } = grounded(
      [
        [1, "Wednesday at ten it is. I'll send the Zoom link to your email. Is it jill at petal and stem dot com?"],
        [0, "Yep, jill at petal and stem dot com. And I'll email you the logo files, what's your address?"],
        [1, 'Hello at pixel work studio dot co.'],
        [0, "Got it. I'll dig those up tonight."],
      ],
      ['Jill Novak', 'Rory Vance'],
      true,
    );
    const logo = (raw.actionItems ?? []).find((i) => /logo/i.test(i.title));
    assert.ok(logo, JSON.stringify(raw.actionItems));
    assert.equal((logo.intentMetadata as { toEmail?: string }).toEmail, 'hello@pixelworkstudio.co');
  });

  it('sends a document to the address the other party confirmed, not the one the sender guessed', () => {
    const { raw } = grounded(
      [
        [1, "Wednesday at ten it is. I'll send the contract to your email. Is it jill at petal one stem dot com?"],
        [0, 'Yep, jill at petal and stem dot com.'],
        [1, 'Great, talk soon.'],
      ],
      ['Jill Novak', 'Rory Vance'],
    );
    const contract = (raw.actionItems ?? []).find((i) => /contract/i.test(i.title));
    assert.ok(contract, JSON.stringify(raw.actionItems));
    assert.equal((contract.intentMetadata as { toEmail?: string }).toEmail, 'jill@petalandstem.com');
  });

  it("does not write to the sender's own address when the other party gave theirs", () => {
    const { raw } = grounded(
      [
        [1, "Tuesday at three, lovely. What's the best email?"],
        [0, 'Use kwame dot mensah eighty eight at outlook dot com.'],
        [1, 'Kwame dot mensah eighty eight at outlook dot com, got it. Could you send me an updated CV before Friday?'],
        [0, "Yeah, I can do that. I'll tidy it up tomorrow. Same address you emailed from?"],
        [1, "That's the one, alasdair at northpoint talent dot co dot uk."],
        [0, 'Okay, great, thanks.'],
      ],
      ['Kwame Mensah', 'Alasdair Grant'],
    );
    const cv = (raw.actionItems ?? []).find((i) => /\bcv\b/i.test(i.title));
    assert.ok(cv, JSON.stringify(raw.actionItems));
    assert.equal((cv.intentMetadata as { toEmail?: string }).toEmail, 'alasdair@northpointtalent.co.uk');
  });

  it('puts the address the owner of a meeting gave for the invite on the meeting', () => {
    // (as a recogniser writes it: "at you" for "at three" makes the meeting the user's own proposal)
    const { raw } = grounded(
      [
        [1, 'I would rather walk you and your wife through the options on a screen though can you do a teams call thursday at you'],
        [0, 'thursdays bad karens traveling no wait shes back thursday night so make that friday at two'],
        [1, 'friday at two works half an hour should cover it what email should I send the teams invite to'],
        [0, 'send it to dan dot whitfield at outlook dot com'],
        [1, 'dan dot whitfield at outlook dot com I will need the declarations page from your current auto policy before the call if you can get it'],
      ],
      ['Dan Whitfield', 'Gloria Estrada'],
    );
    const meeting = (raw.actionItems ?? []).find((i) => i.intent === 'meeting');
    assert.ok(meeting, JSON.stringify(raw.actionItems));
    const attendees = (meeting.intentMetadata as { attendees: Array<{ name: string; email?: string | null }> }).attendees;
    assert.ok(attendees.some((a) => a.name === 'Dan Whitfield' && a.email === 'dan.whitfield@outlook.com'), JSON.stringify(attendees));
  });
});

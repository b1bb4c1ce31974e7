// Extra action items a new author's calls drew out of the analyzer (session 26, read on the retired
// ninth to eleventh sets): instructions for what to do if something happens, asked and answered;
// an instruction said back by the one who got it; verbs of asking or promising that do nothing after
// the call (an idiom, a hope, a note made there and then, a watch for what the other side sends); the
// speaker's purpose going on after ", and" read as an imperative; "an invitation letter" read as a
// meeting's invite; how to do an offered task, said with the go-ahead, as a task of its own; where to
// send what was just asked for, in the next sentence, as a second e-mail; an address said to prove who
// one is; and an address given right after a promise to send something, which made a second item
// beside that promise. And two readings that hid an item and let a wrong one take its place: a request
// after a time clause and a courtesy "if", and a plan with a question about its details tagged on.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clausesOf } from '../../src/pipeline/analysis/embedded/clauses.js';
import { itemsOf as itemsAt, type Turns, unit } from '../support/analysis-turns.js';

const recordedAt = '2025-06-11T16:05:00Z'; // a Wednesday

const itemsOf = (turns: Turns) => itemsAt(turns, ['Dana Pike', 'Tom Reyes'], recordedAt);
const titles = (turns: Turns) => itemsOf(turns).map((i) => `${i.ownerRole} ${i.intent} ${i.title}`);

describe('what to do if something happens', () => {
  it('makes no item of the answer to "if X happens, do I ...?"', () => {
    const got = titles([
      [0, 'Hi, it is Dana, the boiler is making that banging noise again.'],
      [1, 'Right, I can get an engineer out tomorrow morning.'],
      [0, 'Great. And if it cuts out tonight, do I just ring you?'],
      [1, 'Ring the out of hours line and press two, there is always someone on.'],
      [0, 'Okay, thanks.'],
    ]);
    assert.ok(!got.some((t) => /out of hours|press two/i.test(t)), got.join(' | '));
    // (an instruction that answers a plain question stays one)
    const plain = titles([
      [0, 'Hi, it is Dana, the boiler is making that banging noise again.'],
      [1, 'Right, I can get an engineer out tomorrow morning.'],
      [0, 'Great. Do I need to do anything before he comes?'],
      [1, 'Ring the out of hours line tonight and give them your account number.'],
      [0, 'Okay, will do.'],
    ]);
    assert.ok(plain.some((t) => /^USER call/.test(t)), plain.join(' | '));
  });
});

describe('the speaker\'s own purpose', () => {
  it('reads a second verb after "I\'m ringing to ..., and" as the purpose going on, not a request', () => {
    const kinds = clausesOf(unit("So I'm ringing to, well, get it booked in, and find out roughly what it costs.")).map((c) => c.kind);
    assert.ok(!kinds.includes('request'), kinds.join(' '));
    assert.ok(!clausesOf(unit('I was hoping to move it to Friday, and check the price too.')).some((c) => c.kind === 'request'));
    // (an instruction after a promise stays one)
    assert.ok(clausesOf(unit('Send me the form tonight, and call me if anything is missing.')).some((c) => c.kind === 'request'));
  });
});

describe('requests and plans said with more around them', () => {
  // (recall: items these sentences hid, one of them read as a meeting's extra instead)
  it('reads a request after a time clause and a courtesy "if"', () => {
    const got = titles([
      [1, 'We are offering catch-up appointments on Teams. Would Monday at four work?'],
      [0, 'Monday at four is fine.'],
      [1, 'Great, I will send the Teams link to the email we have on file, is that still the Gmail one?'],
      [0, 'No, could you use my work one? It is dana dot pike at brightwell dot org.'],
      [1, 'Lovely. And before then, if you get a chance, could you sign his reading record for the last two weeks?'],
      [0, 'Yes, I can do that tonight.'],
    ]);
    assert.ok(got.includes('USER task Sign his reading record for the last 2 weeks'), got.join(' | '));
    // (a real condition after the time clause stays one)
    const [c] = clausesOf(unit('Before Friday, if it rains, call me.'));
    assert.equal(c.kind, 'request');
    assert.equal(c.conditional, true);
  });

  it('reads a plan with a question about its details tagged on as the plan', () => {
    const [c] = clausesOf({ ...unit("I'll send the Teams link to the email we've got on file, is that still the Hotmail one?"), isQuestion: true });
    assert.equal(c.kind, 'commit');
    assert.equal(c.vp, 'send the Teams link to the email we have got on file');
    // (an offer asked as a question is still no plan)
    assert.notEqual(clausesOf({ ...unit('I can send it to the email on file, is that okay?'), isQuestion: true })[0].kind, 'commit');
  });
});

describe('an instruction said back', () => {
  it('is no request of the one who said it first', () => {
    const got = itemsOf([
      [0, 'Hi, I am calling about my water bill. Should I still pay the March one?'],
      [1, 'Yes, sorry, pay the March bill as normal, and the refund comes off April.'],
      [0, 'Right, pay the March bill as normal. Fine.'],
      [1, 'Lovely. Anything else?'],
      [0, 'No, thanks.'],
    ]);
    assert.ok(!got.some((i) => i.ownerRole === 'CONTACT'), got.map((i) => `${i.ownerRole} ${i.title}`).join(' | '));
  });
});

describe('asking or promising words that do nothing after the call', () => {
  it('reads "call it twenty" as an amount agreed, not a call', () => {
    const got = titles([
      [0, 'How many chairs do we need for the party, then?'],
      [1, 'Call it twenty. I will order them tomorrow.'],
      [0, 'Great.'],
    ]);
    assert.ok(!got.some((t) => / call /.test(t)), got.join(' | '));
  });

  it('reads "please tell me that is good news" as a hope, not a task', () => {
    const got = titles([
      [0, 'Please tell me that is good news.'],
      [1, 'It is. The loan was approved this morning.'],
      [0, 'Brilliant, thank you.'],
    ]);
    assert.deepEqual(got, []);
  });

  it('makes no item of a note put on the file while on the call', () => {
    const got = titles([
      [0, 'And the side gate will be open, so he can go straight round the back.'],
      [1, 'Great, I will put that in the notes. You are all set for Friday, eight to noon.'],
      [0, 'Awesome, thank you.'],
    ]);
    assert.ok(!got.some((t) => /notes/i.test(t)), got.join(' | '));
  });

  it('makes no item of a watch on one\'s junk folder for what the other side sends', () => {
    const got = titles([
      [1, 'I will send the Zoom link over this afternoon.'],
      [0, 'Perfect, thanks.'],
      [1, 'And keep an eye on your spam folder for the link, it sometimes lands there.'],
      [0, 'Will do, bye.'],
    ]);
    assert.ok(!got.some((t) => /spam/i.test(t)), got.join(' | '));
  });
});

describe('how to do what was offered', () => {
  it('is part of the offered task, said with the go-ahead', () => {
    const got = titles([
      [1, 'The plumber can come on Monday to look at the leak.'],
      [0, 'Great. Do you want me to turn the water off at the stopcock in the meantime?'],
      [1, 'If you do not mind, yeah, that would help. Just put a bucket under the pipe.'],
      [0, 'Okay, I will do it tonight.'],
    ]);
    assert.deepEqual(got, ['USER task Turn the water off at the stopcock in the meantime']);
  });
});

describe('where to send what was just asked for', () => {
  it('is the same request, not a second e-mail', () => {
    const got = itemsOf([
      [0, 'The dishwasher is leaking again, can someone come out?'],
      [1, 'Sure, we can send someone Friday. It would help if you could email us a photo of the leak before he comes. Send it to repairs at oak lettings dot com.'],
      [0, 'Repairs at oak lettings dot com. I will do it now.'],
    ]);
    const mails = got.filter((i) => i.intent === 'email');
    assert.equal(mails.length, 1, got.map((i) => `${i.ownerRole} ${i.intent} ${i.title}`).join(' | '));
    assert.equal(mails[0].intentMetadata?.toEmail, 'repairs@oaklettings.com');
  });
});

describe('a letter of invitation', () => {
  it('is post the other side sends, no meeting', () => {
    const got = titles([
      [0, 'Hi, I got my forecast and it says thirty four years, I thought I had thirty five.'],
      [1, 'The forecast went out before last year was added, so you are on thirty five now.'],
      [0, 'Oh good. Do I need to send anything in?'],
      [1, 'Not yet. You will get an invitation letter about two months before your pension age, and you claim then.'],
      [0, 'Lovely, thanks.'],
    ]);
    assert.deepEqual(got, []);
  });
});

describe('dictated addresses', () => {
  it('makes no e-mail of an address said to prove who one is', () => {
    const got = itemsOf([
      [1, 'Thanks for calling Northgate Energy. How can I help?'],
      [0, 'I just want to check my new direct debit went through.'],
      [1, 'Sure. For security, can you confirm the email address on the account?'],
      [0, 'It is dana dot pike at gmail dot com.'],
      [1, 'That matches. Yes, the direct debit moved over on the twentieth.'],
      [0, 'Great, that is all I needed.'],
    ]);
    assert.deepEqual(got.map((i) => i.intentMetadata?.toEmail).filter(Boolean), []);
  });

  it('makes one e-mail of a promise to send and the address asked for after it', () => {
    const got = itemsOf([
      [1, 'Oh, but we will need a copy of your licence before the pickup, we have not got it.'],
      [0, 'Right, I will send that through. What is the email?'],
      [1, 'Bookings at harbour vans dot com.'],
      [0, 'Bookings at harbour vans dot com. Great, thanks.'],
    ]);
    const mine = got.filter((i) => i.ownerRole === 'USER');
    assert.equal(mine.length, 1, got.map((i) => `${i.ownerRole} ${i.intent} ${i.title}`).join(' | '));
    assert.equal(mine[0].intent, 'email');
    assert.equal(mine[0].intentMetadata?.toEmail, 'bookings@harbourvans.com');
  });
});

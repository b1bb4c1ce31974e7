// Due dates and meeting times the date reader misread (session 26): days counted from an event said
// earlier in the call, a day borrowed from another request of the same sentence, a bare "now",
// evening and 24-hour clock times and the American "a quarter of five", and the time agreed after a
// counter-offer. Each class is checked on the action item a whole call yields, so the reading has to
// survive the rest of the analyzer.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { itemsOf as itemsAt, meetingOf as meetingAt, type Turns } from '../support/analysis-turns.js';

const recordedAt = '2026-05-12T16:00:00Z'; // a Tuesday
const names: [string, string] = ['Sam Reed', 'Carla Diaz'];

const itemsOf = (turns: Turns) => itemsAt(turns, names, recordedAt);
const meetingOf = (turns: Turns) => meetingAt(turns, names, recordedAt);
const mine = (turns: Turns) => {
  const items = itemsOf(turns);
  return { item: items.find((i) => i.ownerRole === 'USER'), dump: JSON.stringify(items) };
};

describe('a day counted from an event said earlier in the call', () => {
  it('places "the day before the inspection" on the eve of the inspection\'s day, not of the last day said', () => {
    const { item, dump } = mine([
      [1, 'Hi Sam, it is Carla from the letting agency.'],
      [1, 'The inspection is on Friday.'],
      [0, 'Okay. I am away on Monday though.'],
      [1, 'That is fine. Could you clear the hallway the day before the inspection?'],
      [0, 'Sure, I will clear the hallway.'],
    ]);
    assert.equal(item?.dueDate, '2026-05-14', dump);
  });

  it('places "the morning of the move" on the move\'s day', () => {
    const { item, dump } = mine([
      [1, 'Hi Sam, it is Carla from the removal company.'],
      [1, 'So the move is on Saturday.'],
      [1, 'Can you pack the kitchen the morning of the move?'],
      [0, 'Yes, I will pack the kitchen.'],
    ]);
    assert.equal(item?.dueDate, '2026-05-16', dump);
  });

  it('counts "two days after the party" from the party\'s day, not from the call', () => {
    const { item, dump } = mine([
      [1, 'Hi Sam, it is Carla.'],
      [1, 'The party is on Friday.'],
      [1, 'Could you return the chairs two days after the party?'],
      [0, 'Okay, I will return the chairs.'],
    ]);
    assert.equal(item?.dueDate, '2026-05-17', dump);
  });
});

describe('a day said with another request of the same sentence', () => {
  it('stays with that request ("call the plumber, and email me the invoice on Thursday")', () => {
    const items = itemsOf([
      [1, 'Hi Sam, it is Carla.'],
      [1, 'Can you call the plumber, and email me the invoice on Thursday?'],
      [0, 'Yes, will do.'],
    ]);
    const call = items.find((i) => i.intent === 'call');
    assert.equal(call?.dueDate, null, JSON.stringify(items));
  });
});

describe('"now" ending a request', () => {
  it('is due today, with no time', () => {
    const { item, dump } = mine([
      [1, 'Hi Sam, it is Carla from the bank.'],
      [1, 'Could you check your account now?'],
      [0, 'Sure, I will check it now.'],
    ]);
    assert.equal(item?.dueDate, '2026-05-12', dump);
  });
});

describe('clock times of the evening, of a 24-hour clock and of American speech', () => {
  it('reads "dinner on Friday at eight" as 20:00', () => {
    const items = itemsOf([
      [1, 'Hi Sam, it is Carla.'],
      [1, 'Can you book a table for dinner on Friday at eight?'],
      [0, 'Sure, I will book the table for eight.'],
    ]);
    assert.ok(!JSON.stringify(items).includes('T08:00') && JSON.stringify(items).includes('T20:00'), JSON.stringify(items));
  });

  it('reads "dinner on Friday at eight" as 20:00 when the sentence also says "I am" (not a.m.)', () => {
    const items = itemsOf([
      [1, 'Hi Sam, it is Carla.'],
      [1, 'I am hoping you can book a table for dinner on Friday at eight?'],
      [0, 'Sure, I will book the table for eight.'],
    ]);
    assert.ok(!JSON.stringify(items).includes('T08:00') && JSON.stringify(items).includes('T20:00'), JSON.stringify(items));
  });

  it('reads "at eight?" answering "this evening" as 20:00', () => {
    const m = meetingOf([
      [1, 'Hi Sam, it is Carla.'],
      [1, 'Are you free for a quick video call this evening?'],
      [0, 'Yes, at eight?'],
      [1, 'Perfect, I will send the link.'],
    ]);
    assert.equal(m.intentMetadata?.proposedAt, '2026-05-12T20:00:00', JSON.stringify(m));
  });

  it('reads "Sunday at eight" answering "Sunday night" as 20:00', () => {
    const m = meetingOf([
      [1, 'Hi Sam, it is Carla.'],
      [1, 'Could we have a video call on Sunday night?'],
      [0, 'Sure, Sunday at eight works. I will send you the link.'],
      [1, 'Lovely, thanks.'],
    ]);
    assert.equal(m.intentMetadata?.proposedAt, '2026-05-17T20:00:00', JSON.stringify(m));
  });

  it('reads "fourteen thirty" as 14:30', () => {
    const m = meetingOf([
      [1, 'Hi Sam, it is Carla.'],
      [1, 'Can we do a Zoom call on Thursday at fourteen thirty?'],
      [0, 'Thursday at fourteen thirty works, I will send the invite.'],
    ]);
    assert.equal(m.intentMetadata?.proposedAt, '2026-05-14T14:30:00', JSON.stringify(m));
  });

  it('reads "fourteen hundred" as 14:00', () => {
    const m = meetingOf([
      [1, 'Hi Sam, it is Carla from the bank.'],
      [1, 'The adviser has a Teams slot on Thursday at fourteen hundred.'],
      [0, 'Thursday at fourteen hundred would suit me best. Please send the invite.'],
    ]);
    assert.equal(m.intentMetadata?.proposedAt, '2026-05-14T14:00:00', JSON.stringify(m));
  });

  it('reads "a quarter of five" as 16:45', () => {
    const m = meetingOf([
      [1, 'Hi Sam, it is Carla.'],
      [1, 'Can we do a Zoom call on Thursday at a quarter of five?'],
      [0, 'Thursday at a quarter of five is fine, I will send the link.'],
    ]);
    assert.equal(m.intentMetadata?.proposedAt, '2026-05-14T16:45:00', JSON.stringify(m));
  });
});

describe('a time offered back', () => {
  it('books the time agreed ("eleven works"), not the first one offered', () => {
    const m = meetingOf([
      [1, 'Hi Sam, it is Carla.'],
      [1, 'Can we have a video call on Thursday at ten?'],
      [0, 'Could we do eleven instead?'],
      [1, 'Eleven works. I will send you the invite.'],
    ]);
    assert.equal(m.intentMetadata?.proposedAt, '2026-05-14T11:00:00', JSON.stringify(m));
  });

  it('books the time the answer took, not a later one offered for something else', () => {
    const m = meetingOf([
      [1, 'Hi Sam, it is Carla.'],
      [1, 'Can we have a Zoom call on Thursday at ten?'],
      [0, 'Yes, that works for me.'],
      [1, 'Great. And if it runs over, could we pick it up on Friday at four?'],
      [0, 'Sure.'],
    ]);
    assert.equal(m.intentMetadata?.proposedAt, '2026-05-14T10:00:00', JSON.stringify(m));
  });
});

describe('clock times read only where the words say one', () => {
  it('reads "set an alarm for quarter to seven" as the morning\'s 06:45, not 18:45', () => {
    const items = itemsOf([
      [1, 'Hi Sam, it is Carla from the courier. I can only come back first thing tomorrow.'],
      [0, 'Okay, I will set an alarm for quarter to seven then and be ready for you.'],
    ]);
    const reminder = items.find((i) => i.intent === 'reminder');
    assert.ok(reminder, JSON.stringify(items.map((i) => [i.intent, i.title])));
    assert.match(String(reminder.intentMetadata?.remindAt), /T06:45:00$/, JSON.stringify(reminder));
  });

  it('does not read an amount said back at the start of a sentence ("Two fifty by the fourteenth") as 14:50', () => {
    const items = itemsOf([
      [1, 'There is a registration deposit of two hundred and fifty dollars. That needs to be paid by Thursday the fourteenth.'],
      [0, 'Two fifty by the fourteenth. Can I pay that online?'],
      [1, 'Yes, through the parent portal. Please pay it by the fourteenth.'],
    ]);
    const timed = items.filter((i) => /T14:50/.test(JSON.stringify(i.intentMetadata ?? {})));
    assert.deepEqual(timed, [], JSON.stringify(items));
  });
});

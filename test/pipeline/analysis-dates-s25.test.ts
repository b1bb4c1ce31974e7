// Due dates and meeting times said in ways the date reader had not read (session 25, the weakest
// column of the dev bench): the British "half nine", "ten past four", "by close of business", "the end of next week", "in a fortnight", "April
// the ninth". Each class is checked on the action item a whole call yields, so the reading has to
// survive the rest of the analyzer.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Analysis } from '../../src/domain/analysis.js';
import { groundAnalysis } from '../../src/pipeline/analysis/grounding.js';
import { itemsOf as itemsAt, meetingOf as meetingAt, transcriptOf, type Turns } from '../support/analysis-turns.js';

const recordedAt = '2026-05-12T16:00:00Z'; // a Tuesday
const names: [string, string] = ['Sam Reed', 'Carla Diaz'];

const itemsOf = (turns: Turns) => itemsAt(turns, names, recordedAt);
const meetingOf = (turns: Turns) => meetingAt(turns, names, recordedAt);
const dump = (items: unknown) => JSON.stringify(items);

describe('a clock time said the British way', () => {
  it('reads "half nine" as 9:30 and books the meeting then', () => {
    const m = meetingOf([
      [1, 'Hi Sam, it is Carla from the surgery.'],
      [1, 'Can we have a video call on Saturday at half nine?'],
      [0, 'Yes, Saturday at half nine works. I will send you an invite.'],
      [1, 'Lovely, thanks.'],
    ]);
    assert.equal(m.intentMetadata?.proposedAt, '2026-05-16T09:30:00', dump(m));
  });

  it('reads "ten past four" as 16:10', () => {
    const m = meetingOf([
      [1, 'Hi Sam, it is Carla.'],
      [1, 'Could we do a Zoom call on Thursday at ten past four?'],
      [0, 'Thursday at ten past four is fine, I will send the Zoom link.'],
    ]);
    assert.equal(m.intentMetadata?.proposedAt, '2026-05-14T16:10:00', dump(m));
  });

  it('grounds "half nine" beside its day, so the time is kept', () => {
    const turns: Turns = [
      [1, 'Can we meet on Saturday at half nine?'],
      [0, 'Saturday at half nine works, I will send an invite.'],
    ];
    const said = { actionItems: [{ title: 'Meeting', intent: 'meeting', sourceSegmentIds: [], intentMetadata: { proposedAt: '2026-05-16T09:30:00' } }] } as unknown as Analysis;
    const { analysis, violations } = groundAnalysis(said, transcriptOf(turns, names, recordedAt), recordedAt);
    assert.deepEqual(violations, []);
    assert.equal(analysis.actionItems?.[0].intentMetadata?.proposedAt, '2026-05-16T09:30:00');
  });
});

describe('minutes to the hour', () => {
  it('reads "ten to six" as a clock time only after a word that leads to one ("the ten to six" is a shift)', () => {
    const items = itemsOf([
      [1, 'Hi Sam, it is Carla from the cafe.'],
      [1, 'Any chance you could cover my Sunday shift? The ten to six?'],
      [0, 'Yes, I can do that.'],
    ]);
    assert.ok(!JSON.stringify(items).includes('17:50'), dump(items));
  });
});

describe('deadlines said as a time of the working day or the week', () => {
  it('reads "by close of business" as the call\'s day', () => {
    const items = itemsOf([
      [1, 'Hi Sam, it is Carla from accounts.'],
      [1, 'Could you email me the signed contract by close of business?'],
      [0, 'Sure, I will email it over.'],
    ]);
    const mine = items.find((i) => i.ownerRole === 'USER');
    assert.equal(mine?.dueDate, '2026-05-12', dump(items));
  });

  it('reads "by the end of next week" as the Friday of next week', () => {
    const items = itemsOf([
      [1, 'Hi Sam, it is Carla from the passport office.'],
      [1, 'Can you send us the new photos by the end of next week?'],
      [0, 'Yes, I will send the photos.'],
    ]);
    const mine = items.find((i) => i.ownerRole === 'USER');
    assert.equal(mine?.dueDate, '2026-05-22', dump(items));
  });

  it('reads "in a fortnight" as fourteen days on', () => {
    const items = itemsOf([
      [1, 'Hi Sam, it is Carla from the garage.'],
      [1, 'Please bring the car back in a fortnight for the check.'],
      [0, 'Okay, I will bring it back then.'],
    ]);
    const dated = items.find((i) => i.dueDate);
    assert.equal(dated?.dueDate, '2026-05-26', dump(items));
  });
});

describe('a day of the month said after its month', () => {
  it('reads "April the ninth" as that day, not the month', () => {
    const items = itemsOf([
      [1, 'Hi Sam, it is Carla from the school.'],
      [1, 'Could you send me the permission form before the concert on June the ninth?'],
      [0, 'Yes, I will send the form.'],
    ]);
    const mine = items.find((i) => i.ownerRole === 'USER');
    assert.equal(mine?.dueDate, '2026-06-09', dump(items));
  });
});

describe('a deadline with its day after it, and "after this"', () => {
  it('reads "by end of day tomorrow" as tomorrow, not the call\'s day', () => {
    const items = itemsOf([
      [1, 'Hi Sam, it is Carla from human resources.'],
      [0, 'I will email you the signed offer letter by end of day tomorrow.'],
      [1, 'Perfect, thank you.'],
    ]);
    const mine = items.find((i) => i.ownerRole === 'USER' && i.intent === 'email');
    assert.equal(mine?.dueDate, '2026-05-13', dump(items));
  });

  it('reads "after this" as the call\'s day', () => {
    const items = itemsOf([
      [1, 'Hi Sam, it is Carla from the dog walking service.'],
      [1, 'Could you text me your address?'],
      [0, 'Sure, I will text you the address after this so you have got it.'],
    ]);
    const mine = items.find((i) => i.ownerRole === 'USER');
    assert.equal(mine?.dueDate, '2026-05-12', dump(items));
  });
});

describe('a day taken back with "wait, no"', () => {
  it('keeps the day said after the correction', () => {
    const items = itemsOf([
      [1, 'Could you read the brief before the interview?'],
      [0, 'Yeah, I will read the brief over the weekend. Oh, wait, no, that is after the interview. I will read the brief tomorrow night then.'],
      [1, 'Great.'],
    ]);
    const mine = items.find((i) => i.ownerRole === 'USER');
    assert.equal(mine?.dueDate, '2026-05-13', dump(items));
  });
});

describe('a memory aid set now', () => {
  it('is for the day it is about, not for "right now"', () => {
    const items = itemsOf([
      [1, 'The first payment is due by the fifteenth.'],
      [0, 'Okay, by the fifteenth. I am setting a reminder right now so I do not miss it.'],
    ]);
    const reminder = items.find((i) => i.intent === 'reminder');
    assert.equal(reminder?.dueDate, '2026-05-15', dump(items));
  });
});

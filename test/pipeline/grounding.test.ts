import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Analysis, IntentMetadata } from '../../src/domain/analysis.js';
import type { Transcript } from '../../src/domain/transcript.js';
import { digitizeSpokenNumbers, dropCurrentCallNumber, groundAnalysis } from '../../src/pipeline/analysis/grounding.js';

function transcript(texts: string[]): Transcript {
  return {
    schemaVersion: 2,
    callId: '0b8e4a52-3f7d-4c55-a1a6-3c2f9b1e7d20',
    language: 'en',
    durationSeconds: texts.length * 4,
    cleanText: '',
    speakers: [],
    segments: texts.map((text, i) => ({
      id: `seg_${String(i + 1).padStart(4, '0')}`,
      speaker: `S${i % 2}`, speakerLabel: `Speaker ${i % 2}`, speakerDisplayName: `Speaker ${i % 2}`, speakerId: `spk_${(i % 2) + 1}`,
      sourceSpeakerId: `S${i % 2}`, role: i % 2 ? 'CONTACT' : 'USER', startSeconds: i * 4, endSeconds: i * 4 + 3, text, alignmentConfidence: 'HIGH',
    })),
    speakerResolution: {
      strategyVersion: 2, usedUserDisplayName: false, usedContactName: false, usedDirection: false, usedPhoneFallback: false,
      voiceEmbeddingEnabled: false, voiceProfileUsed: false, voiceMatchStatus: 'DISABLED', totalSpeakerCount: 2, resolvedSpeakerCount: 0, warnings: [],
    },
    pipeline: { transcriptionProvider: 't', transcriptionModel: 't', diarizationProvider: 'd', diarizationModel: 'd', alignmentVersion: '1', normalizationVersion: 3, status: 'COMPLETED' },
    createdAt: '2025-03-27T16:00:00Z',
  };
}

// Thursday 27 March 2025, as in the corpus's sales call.
const RECORDED_AT = '2025-03-27T15:40:00Z';

const T = transcript([
  'Would a Zoom call next Tuesday at eleven a.m. work for your team?',
  'Please send it to operations at bayview logistics dot com, and copy priya dot shah at gmail dot com.',
  "Call me back on the shop's direct line. It's five five five, three eight two, six zero one zero.",
  'Our fraud line is eight hundred, five five five, zero one nine nine.',
  'We can have it ready tomorrow after four. I will email maria.lopez@lopezhome.net tomorrow morning.',
  'Could you email it again to A P at northwind foods dot com?',
]);

const withMetadata = (...mds: IntentMetadata[]): Analysis => ({
  schemaVersion: 3,
  actionItems: mds.map((intentMetadata, i) => ({ title: `item ${i}`, intent: 'task', intentMetadata, sourceSegmentIds: [] })),
});

const ground = (...mds: IntentMetadata[]) => groundAnalysis(withMetadata(...mds), T, RECORDED_AT);

test('spoken and written emails are kept; invented ones are dropped and reported', () => {
  const { analysis, violations } = ground(
    { toEmail: 'operations@bayviewlogistics.com' },
    { toEmail: 'Priya.Shah@gmail.com' },
    { toEmail: 'maria.lopez@lopezhome.net' },
    { toEmail: 'ap@northwindfoods.com' },
    { toEmail: 'priya@bayviewlogistics.com' }, // plausible, never said
    { toEmail: 'ions@bayviewlogistics.com' }, // a substring of a spoken address, not an address that was said
  );
  const md = analysis.actionItems!.map((a) => a.intentMetadata!.toEmail);
  assert.deepEqual(md, ['operations@bayviewlogistics.com', 'Priya.Shah@gmail.com', 'maria.lopez@lopezhome.net', 'ap@northwindfoods.com', null, null]);
  assert.deepEqual(violations.map((v) => [v.path, v.kind]), [
    ['/actionItems/4/intentMetadata/toEmail', 'email'],
    ['/actionItems/5/intentMetadata/toEmail', 'email'],
  ]);
  assert.equal(violations[0].value, 'priya@bayviewlogistics.com');
});

test('a British address whose "co" was heard as "com" grounds its ".co.uk", and only that', () => {
  const heard = transcript(["It's g dot telford at northgate b s dot com dot u k.", 'and the other one is sam at acme dot com dot au']);
  const { analysis, violations } = groundAnalysis(
    withMetadata({ toEmail: 'g.telford@northgatebs.co.uk' }, { toEmail: 'sam@acme.com.au' }, { toEmail: 'sam@acme.co.au' }),
    heard,
    RECORDED_AT,
  );
  assert.deepEqual(analysis.actionItems!.map((a) => a.intentMetadata!.toEmail), ['g.telford@northgatebs.co.uk', 'sam@acme.com.au', null]);
  assert.equal(violations.length, 1, '"com dot au" is no British domain');
});

test('attendee emails are grounded one by one; an attendee identified only by an invented email goes', () => {
  const { analysis, violations } = ground({
    attendees: [
      { name: 'Bayview operations', email: 'operations@bayviewlogistics.com' },
      { name: 'Sam', email: 'sam@bayviewlogistics.com' },
      { name: '', email: 'ceo@bayviewlogistics.com' },
    ],
  });
  assert.deepEqual(analysis.actionItems![0].intentMetadata!.attendees, [
    { name: 'Bayview operations', email: 'operations@bayviewlogistics.com' },
    { name: 'Sam', email: null },
  ]);
  assert.deepEqual(violations.map((v) => v.path), ['/actionItems/0/intentMetadata/attendees/1/email', '/actionItems/0/intentMetadata/attendees/2/email']);
});

test('dictated phone numbers are kept in any written form; invented ones are dropped', () => {
  const { analysis, violations } = ground(
    { phoneNumber: '555-382-6010' },
    { phoneNumber: '+1 (555) 382 6010' },
    { phoneNumber: '+18005550199' },
    { phoneNumber: '800 555 0199' },
    { phoneNumber: '555-382-6011' }, // one digit off
    { phoneNumber: '382-6010-555' }, // the same digits in another order
    { phoneNumber: '+44 20 7946 0958' },
  );
  assert.deepEqual(analysis.actionItems!.map((a) => a.intentMetadata!.phoneNumber), [
    '555-382-6010', '+1 (555) 382 6010', '+18005550199', '800 555 0199', null, null, null,
  ]);
  assert.deepEqual(violations.map((v) => v.kind), ['phone', 'phone', 'phone']);
});

test('a UK number said with "double oh" is the number that was said', () => {
  const said = transcript(["Yes, use my mobile, it's oh seven seven double oh, nine double oh, three one six."]);
  const { analysis, violations } = groundAnalysis(withMetadata({ phoneNumber: '+447700900316' }, { phoneNumber: '+447700900361' }), said, RECORDED_AT);
  assert.deepEqual(analysis.actionItems!.map((a) => a.intentMetadata!.phoneNumber), ['+447700900316', null]);
  assert.deepEqual(violations.map((v) => v.kind), ['phone']);
});

test('date/times are kept when the transcript says that day and time, dropped otherwise', () => {
  const { analysis, violations } = ground(
    { proposedAt: '2025-04-01T11:00:00' }, // next Tuesday at eleven a.m.
    { proposedAt: '2025-04-01T11:00:00Z' }, // offset ignored: wall clock compared
    { remindAt: '2025-03-28T16:00:00' }, // tomorrow after four
    { remindAt: '2025-03-28T09:00:00' }, // tomorrow morning
    { remindAt: '2025-03-28' }, // the day alone
    { proposedAt: '2025-04-01T15:00:00' }, // right day, time never said
    { proposedAt: '2025-04-02T11:00:00' }, // right time, wrong day
    { remindAt: '2025-03-31T09:00:00' }, // a plausible default, never said
    { remindAt: 'next week' }, // not ISO
  );
  const got = analysis.actionItems!.map((a) => ('proposedAt' in a.intentMetadata! ? a.intentMetadata!.proposedAt : a.intentMetadata!.remindAt));
  assert.deepEqual(got, ['2025-04-01T11:00:00', '2025-04-01T11:00:00Z', '2025-03-28T16:00:00', '2025-03-28T09:00:00', '2025-03-28', null, null, null, null]);
  assert.deepEqual(violations.map((v) => [v.path.split('/').slice(2).join('/'), v.kind]), [
    ['5/intentMetadata/proposedAt', 'datetime'],
    ['6/intentMetadata/proposedAt', 'datetime'],
    ['7/intentMetadata/remindAt', 'datetime'],
    ['8/intentMetadata/remindAt', 'datetime'],
  ]);
});

test('a day said in one mention and its clock time said alone in another near it ground a date/time; a time never said does not', () => {
  // Tuesday 10 March 2026
  const t = transcript([
    "We've got, um, Thursday at ten fifteen, or next Tuesday.",
    "Thursday. No, wait, I've got the dentist on Thursday. Next Tuesday, what time?",
    'Next Tuesday at, let me see, two forty five.',
    'Two forty five. Yep.',
    "Or half past three, or quarter to ten, if that's easier.",
    "It's twenty two dollars, card only.",
    'Okay.',
    'Okay.',
    'Okay.',
    'Oh, and the old one said nine thirty on it.',
  ]);
  const a = withMetadata(
    { remindAt: '2026-03-17T14:45:00' }, // Tuesday (one mention) at two forty five (another)
    { remindAt: '2026-03-17T15:30:00' }, // half past three, after the Tuesday
    { remindAt: '2026-03-17T09:45:00' }, // quarter to ten
    { remindAt: '2026-03-17T14:40:00' }, // a time never said
    { remindAt: '2026-03-12T14:45:00' }, // a time said alone beside another day than this one
    { remindAt: '2026-03-17T09:30:00' }, // a time said alone far from any day
    { remindAt: '2026-03-17T22:00:00' }, // an amount ("twenty two dollars") is no clock time
  );
  const { analysis, violations } = groundAnalysis(a, t, '2026-03-10T14:50:00Z');
  assert.deepEqual(
    analysis.actionItems!.map((i) => i.intentMetadata!.remindAt),
    ['2026-03-17T14:45:00', '2026-03-17T15:30:00', '2026-03-17T09:45:00', null, null, null, null],
  );
  assert.equal(violations.length, 4);
  // a day of the month said with its weekday only ("Saturday the eleventh") is that day
  const dinner = transcript(["Oh, they'd love that. Saturday the eleventh?", "Yeah, the eleventh. Seven o'clock, maybe?"]);
  const d = groundAnalysis(withMetadata({ remindAt: '2026-04-11T19:00:00' }, { remindAt: '2026-04-18T19:00:00' }), dinner, '2026-03-26T20:00:00Z');
  assert.deepEqual(d.analysis.actionItems!.map((i) => i.intentMetadata!.remindAt), ['2026-04-11T19:00:00', null]);
  // a time said alone completes the day named before it, not one named after it in another sentence
  // (nor is a span of minutes a day)
  const meet = transcript([
    'Can we jump on a Google Meet tomorrow and go through the spreadsheet? Maybe two thirty, forty-five minutes?',
    "Two thirty works. Can you send the invite? My calendar's a mess today.",
  ]);
  const m = groundAnalysis(withMetadata({ proposedAt: '2026-02-19T14:30:00' }, { proposedAt: '2026-02-18T14:30:00' }), meet, '2026-02-18T15:55:00Z');
  assert.deepEqual(m.analysis.actionItems!.map((i) => i.intentMetadata!.proposedAt), ['2026-02-19T14:30:00', null]);
});

test('relative dates resolve against recordedAt', () => {
  const t = transcript(['Let us talk again on Friday at three thirty p.m.']);
  const a = withMetadata({ proposedAt: '2025-03-28T15:30:00' });
  assert.equal(groundAnalysis(a, t, RECORDED_AT).violations.length, 0);
  // Two weeks later the same words mean another Friday (a week either way is tolerated, since
  // "next Friday" is used for both).
  assert.equal(groundAnalysis(a, t, '2025-04-10T15:40:00Z').violations.length, 1);
});

test('unknown segment ids are removed and reported', () => {
  const a: Analysis = {
    schemaVersion: 3,
    actionItems: [{ title: 'x', sourceSegmentIds: ['seg_0001', 'seg_0042'] }],
    sections: [{ id: 'sec_001', title: 't', type: 't', summary: 's', items: [{ text: 'i', importance: 'low', sourceSegmentIds: ['seg_0900', 'seg_0006'] }] }],
  };
  const { analysis, violations } = groundAnalysis(a, T, RECORDED_AT);
  assert.deepEqual(analysis.actionItems![0].sourceSegmentIds, ['seg_0001']);
  assert.deepEqual(analysis.sections![0].items[0].sourceSegmentIds, ['seg_0006']);
  assert.deepEqual(violations, [
    { path: '/actionItems/0/sourceSegmentIds/1', kind: 'segment', value: 'seg_0042' },
    { path: '/sections/0/items/0/sourceSegmentIds/0', kind: 'segment', value: 'seg_0900' },
  ]);
  // The input is not modified.
  assert.deepEqual(a.actionItems![0].sourceSegmentIds, ['seg_0001', 'seg_0042']);
});

test('spoken numbers are normalised for date parsing', () => {
  assert.equal(digitizeSpokenNumbers('next Tuesday at eleven a.m.'), 'next Tuesday at 11 a.m.');
  assert.equal(digitizeSpokenNumbers('at four thirty p.m.'), 'at 4:30 p.m.');
  assert.equal(digitizeSpokenNumbers("four o'clock"), "4 o'clock");
  assert.equal(digitizeSpokenNumbers('the week of May twelfth'), 'the week of May 12th');
  assert.equal(digitizeSpokenNumbers('three hundred and eighty dollars'), '380 dollars');
  assert.equal(digitizeSpokenNumbers('eight hundred, five five five'), '800, 5 5 5');
});

test("the current call's own number is not a call-back number", () => {
  const a = withMetadata({ phoneNumber: '555 382 6010' }, { phoneNumber: '800-555-0199' });
  assert.equal(dropCurrentCallNumber(a, '+1 555 382 6010'), 1);
  assert.deepEqual(a.actionItems!.map((x) => x.intentMetadata!.phoneNumber), [null, '800-555-0199']);
});

test('an address dictated with a spelling of its words is grounded as the speaker meant it', () => {
  const t = transcript(["Please use v mensah, that's V, M E N S A H, at harbour mail dot net.", 'Our address is fraser family, all one word, at post box dot com.', "It's j as in juliet, o double d at gmail dot com."]);
  const emails = ['vmensah@harbourmail.net', 'fraserfamily@postbox.com', 'jodd@gmail.com', 'mensah@harbourmail.net.uk', 'vmensahvmensah@harbourmail.net'];
  const { analysis, violations } = groundAnalysis(withMetadata(...emails.map((toEmail) => ({ toEmail }))), t, RECORDED_AT);
  assert.deepEqual(analysis.actionItems!.map((i) => i.intentMetadata!.toEmail ?? null), ['vmensah@harbourmail.net', 'fraserfamily@postbox.com', 'jodd@gmail.com', null, null]);
  assert.equal(violations.length, 2);
});

test('a clock time said alone right before its day ("half past nine on Monday") is that day, whatever day was named a turn before', () => {
  // Wednesday 13 May 2026: Thursday is offered, Monday agreed in a read-back that says the time first
  const t = transcript([
    'I can call you on Thursday, or Monday.',
    "Thursday's bad. Half past nine on Monday?",
    'Four fifteen on Tuesday works too.',
  ]);
  const a = withMetadata(
    { remindAt: '2026-05-18T09:30:00' }, // Monday at half past nine
    { remindAt: '2026-05-19T16:15:00' }, // Tuesday at four fifteen
    { remindAt: '2026-05-14T09:30:00' }, // Thursday was never given a time
    { remindAt: '2026-05-14T16:15:00' },
  );
  const { analysis } = groundAnalysis(a, t, '2026-05-13T16:10:00Z');
  assert.deepEqual(analysis.actionItems!.map((i) => i.intentMetadata!.remindAt), ['2026-05-18T09:30:00', '2026-05-19T16:15:00', null, null]);
});

test('an address with an ordinal word and a spoken digit in it ("first dot last at studio nine") is the address that was said', () => {
  const t = transcript(["It's first dot last at studio nine dot io.", 'Or second dot desk two at gmail dot com.']);
  const emails = ['first.last@studio9.io', 'second.desk2@gmail.com', '1.last@studio9.io', 'first.last@studionine.io', 'first.last2@studio9.io'];
  const { analysis } = groundAnalysis(withMetadata(...emails.map((toEmail) => ({ toEmail }))), t, RECORDED_AT);
  assert.deepEqual(analysis.actionItems!.map((i) => i.intentMetadata!.toEmail ?? null), ['first.last@studio9.io', 'second.desk2@gmail.com', '1.last@studio9.io', 'first.last@studionine.io', null]);
});

test('"March the third" is the third of March, not the third of this month', () => {
  // Tuesday 3 November 2026
  const t = transcript(['I do Thursday evenings. Would March the third at ten thirty work?', 'March the third at ten thirty is perfect.']);
  const a = withMetadata({ proposedAt: '2027-03-03T10:30:00' }, { proposedAt: '2027-03-04T10:30:00' }, { proposedAt: '2026-12-03T10:30:00' });
  const { analysis } = groundAnalysis(a, t, '2026-11-03T19:30:00Z');
  assert.deepEqual(analysis.actionItems!.map((i) => i.intentMetadata!.proposedAt), ['2027-03-03T10:30:00', null, null]);
});

test('an "oh" said as a whole part of an address ("k dot oh dot brien") is the letter o, and nothing else', () => {
  const t = transcript(["It's k dot oh dot brien at gmail dot com.", 'Oh, and bill at gmail dot com.']);
  const emails = ['k.o.brien@gmail.com', 'k.0.brien@gmail.com', 'obill@gmail.com', 'o.bill@gmail.com'];
  const { analysis } = groundAnalysis(withMetadata(...emails.map((toEmail) => ({ toEmail }))), t, RECORDED_AT);
  assert.deepEqual(analysis.actionItems!.map((i) => i.intentMetadata!.toEmail ?? null), ['k.o.brien@gmail.com', null, null, null]);
});

test("a speaker's name heard in another word keeps the digits said after it ('fill seventy one at gmail dot com' with Phil)", () => {
  const t = { ...transcript(["It's fill seventy one at gmail dot com.", 'Fill seventy one, got it.']), speakers: [{ displayName: 'Phil Moreno' }, { displayName: 'Ann Lee' }] } as unknown as Transcript;
  const emails = ['phil71@gmail.com', 'phil72@gmail.com', 'fill71@gmail.com', 'phil@gmail.com'];
  const { analysis } = groundAnalysis(withMetadata(...emails.map((toEmail) => ({ toEmail }))), t, RECORDED_AT);
  assert.deepEqual(analysis.actionItems!.map((i) => i.intentMetadata!.toEmail ?? null), ['phil71@gmail.com', null, 'fill71@gmail.com', null]);
});

test('a domain taken back and said again grounds the address with the domain settled on, and nothing else', () => {
  const said = transcript(["It's tom dot wells at yahoo dot com, no wait, at gmail dot com.", 'And the office is at acme dot com.']);
  const { analysis, violations } = groundAnalysis(
    withMetadata({ toEmail: 'tom.wells@gmail.com' }, { toEmail: 'tom.wells@yahoo.com' }, { toEmail: 'tom.wells@hotmail.com' }, { toEmail: 'tom.wells@acme.com' }, { toEmail: 'wait@gmail.com' }),
    said,
    RECORDED_AT,
  );
  // (the withdrawn address was said too; which one an item should carry is the analyzer's choice)
  assert.deepEqual(analysis.actionItems!.map((a) => a.intentMetadata!.toEmail), ['tom.wells@gmail.com', 'tom.wells@yahoo.com', null, null, null]);
  assert.deepEqual(violations.map((v) => v.kind), ['email', 'email', 'email']);
});

test('a phone number whose last groups were taken back and said again is grounded as corrected, and only so', () => {
  const t = transcript(['You can reach me on zero one six one, eight double nine, double seven six eight, no sorry, two three six five.', 'Okay.']);
  const g = (phoneNumber: string) => groundAnalysis(withMetadata({ phoneNumber }), t, RECORDED_AT).violations.length;
  assert.equal(g('+441618992365'), 0);
  assert.equal(g('01618997768'), 0); // what was said first is still said
  assert.equal(g('01618992368'), 1);
  assert.equal(g('0161899776823'), 1);
});

test('"a quarter to four" names no day: the counter-offered time after it keeps the day said before it', () => {
  // chrono reads "a quarter" alone as three months from the call; that day stood between
  // "next Tuesday" and "four fifteen" and took the time away from Tuesday (session 27, dev m4a).
  const heard = transcript([
    'Would you be able to do a google meet next tuesday at three thirty.',
    'Next tuesday at three thirty is tough I pick up her brother at a quarter to four could we do four fifteen.',
    'Four fifteen works for me.',
  ]);
  const { violations } = groundAnalysis(withMetadata({ proposedAt: '2025-04-01T16:15:00' }), heard, RECORDED_AT);
  assert.deepEqual(violations, []);
});

test('a time said alone grounds the day named after it in the same sentence too', () => {
  // "half four" belongs to "the first" said after it, though Thursday was named in the turn before.
  const heard = transcript([
    'I could start her thursday after school half four.',
    'Could you do wednesdays.',
    'Wednesdays I can do half four starting next week the first.',
  ]);
  const { violations } = groundAnalysis(withMetadata({ remindAt: '2025-04-01T16:30:00' }), heard, RECORDED_AT);
  assert.deepEqual(violations, []);
  // and still not a day nobody named
  assert.equal(groundAnalysis(withMetadata({ remindAt: '2025-04-02T16:30:00' }), heard, RECORDED_AT).violations.length, 1);
});

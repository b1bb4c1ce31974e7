import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { contextOf, truthTranscript } from '../../bench/analysis.js';
import type { Analysis, AnalysisActionItem, AnalysisContext } from '../../src/domain/analysis.js';
import type { Transcript } from '../../src/domain/transcript.js';
import { buildAnalysis, EmbeddedAnalyzer, groundingViolations } from '../../src/pipeline/analysis/embedded/index.js';
import { clausesOf } from '../../src/pipeline/analysis/embedded/clauses.js';
import { resolveDates } from '../../src/pipeline/analysis/embedded/dates.js';
import { buildCallText } from '../../src/pipeline/analysis/embedded/text.js';
import { normalizeSpoken, toE164, type SpokenPhone } from '../../src/pipeline/analysis/embedded/spoken.js';
import { finalizeAnalysis } from '../../src/pipeline/analysis/finalize.js';
import { validateAnalysis } from '../../src/pipeline/analysis/validate.js';
import { loadScorer, loadTruth } from '../support/corpus.js';
import { transcriptOf } from '../support/analysis-turns.js';

const analyzer = new EmbeddedAnalyzer();

async function corpusCall(id: string): Promise<{ analysis: Analysis; transcript: Transcript; context: AnalysisContext }> {
  const scorer = await loadScorer();
  const truth = loadTruth(id);
  const transcript = truthTranscript(truth, scorer);
  const context = contextOf(truth);
  return { analysis: await analyzer.analyze(transcript, context), transcript, context };
}

function only(items: AnalysisActionItem[] | undefined, pred: (i: AnalysisActionItem) => boolean): AnalysisActionItem {
  const found = (items ?? []).filter(pred);
  assert.equal(found.length, 1, `expected one matching action item, got ${found.length}: ${JSON.stringify(items?.map((i) => [i.intent, i.title]))}`);
  return found[0];
}


describe('spoken-form normalisation', () => {
  it('resolves "March the 3rd" to that day of March, with its time, not to the month alone', () => {
    const m = resolveDates('Would March the 3rd at 10:30 work?', '2026-11-03T19:30:00Z', false);
    assert.deepEqual(m.map((x) => [x.date, x.datetime]), [['2027-03-03', '2027-03-03T10:30:00']]);
    // the day of the month said alone is still this month's
    assert.deepEqual(resolveDates('Would the 5th at 10:30 work?', '2026-11-03T19:30:00Z', false).map((x) => x.date), ['2026-11-05']);
  });

  it('reads an "o" said alone in an address as the letter, as the grounding check reads it; a dictated zero with other digits stays a digit', () => {
    const addresses = (s: string) => normalizeSpoken(s).entities.filter((e) => e.kind === 'email').map((e) => (e as { address: string }).address);
    assert.deepEqual(addresses('Send it to k dot o dot brien at smith dot co dot uk.'), ['k.o.brien@smith.co.uk']);
    assert.deepEqual(addresses("It's bill o at gmail dot com."), ['billo@gmail.com']);
    assert.deepEqual(addresses("It's agent o seven at gmail dot com."), ['agent07@gmail.com']);
    // an "oh" that is a whole part between separators is the letter too; "seven oh" is 70
    assert.deepEqual(addresses("It's k dot oh dot brien at gmail dot com."), ['k.o.brien@gmail.com']);
    assert.deepEqual(addresses("It's agent seven oh at gmail dot com."), ['agent70@gmail.com']);
    // and so the analysis of a call that dictates one has nothing for the check to drop
    const t = transcriptOf(
      [
        [1, 'Can you email me the signed form tonight?'],
        [0, 'Sure, what is the address?'],
        [1, 'It is k dot o dot brien at smith dot co dot uk.'],
        [0, 'Got it, I will email it to you tonight.'],
      ],
      ['Dana Price', 'Kevin Obrien'],
      '2026-05-12T15:30:00Z',
    );
    const ctx: AnalysisContext = { userDisplayName: 'Dana Price', contactName: 'Kevin Obrien', phoneNumber: null, direction: 'INCOMING', recordedAt: '2026-05-12T15:30:00Z', title: null };
    const a = finalizeAnalysis(buildAnalysis(t, ctx), t);
    assert.ok(a.actionItems?.some((i) => i.intentMetadata?.toEmail === 'k.o.brien@smith.co.uk'), JSON.stringify(a.actionItems?.map((i) => i.intentMetadata)));
    assert.deepEqual(groundingViolations(a, t, ctx), []);
  });

  it('reassembles spoken e-mail addresses, phone numbers and clock times', () => {
    const email = normalizeSpoken("It's maria dot lopez at lopez home dot net.");
    assert.deepEqual(
      email.entities.filter((e) => e.kind === 'email').map((e) => (e as { address: string }).address),
      ['maria.lopez@lopezhome.net'],
    );
    assert.equal(normalizeSpoken('Could you email it again to A P at northwind foods dot com?').entities[0].kind, 'email');
    assert.match(normalizeSpoken('Could you email it again to A P at northwind foods dot com?').text, /ap@northwindfoods\.com/);

    const phone = normalizeSpoken('Call us on eight hundred, five five five, zero one nine nine.');
    const p = phone.entities.find((e) => e.kind === 'phone') as SpokenPhone;
    assert.equal(p.digits, '8005550199');
    assert.equal(toE164(p, '+1 555 600 0134'), '+18005550199');
    // a national number takes the country of the call it was said in
    const uk = normalizeSpoken('Text me on zero seven seven zero zero, nine zero zero, one two three.').entities.find((e) => e.kind === 'phone') as SpokenPhone;
    assert.equal(toE164(uk, '+44 20 7946 0000'), '+447700900123');
    // a seven-digit local number has no area code to be grounded in
    const local = normalizeSpoken("It's five five five, oh one double two.").entities.find((e) => e.kind === 'phone') as SpokenPhone;
    assert.equal(toE164(local, '+1 555 600 0134'), null);

    assert.equal(normalizeSpoken('Tuesday at ten thirty works for me.').text, 'Tuesday at 10:30 works for me.');
    assert.equal(normalizeSpoken('Does Thursday the twenty fourth at ten a.m. work?').text, 'Does Thursday the 24th at 10 a.m. work?');
    // ordinals that are not days of the month, and the pronoun "one", stay words
    assert.equal(normalizeSpoken('The first opening is for the old one.').text, 'The first opening is for the old one.');
    const amount = normalizeSpoken('That comes to four thousand eight hundred dollars.').entities[0];
    assert.deepEqual([amount.kind, (amount as { value: number }).value, (amount as { currency: string }).currency], ['number', 4800, 'USD']);
  });

  it('rebuilds dictated addresses: spelled letters, initials, digits, remarks and read-backs', () => {
    const addresses = (text: string, names: string[] = [], dictated: string[] = []) =>
      normalizeSpoken(text, new Set(names), new Set(dictated)).entities.filter((e) => e.kind === 'email').map((e) => (e as { address: string }).address);
    // a spelling of the word just said is a remark, not part of the address
    assert.deepEqual(addresses("Please use v mensah, that's V, M E N S A H, at harbour mail dot net."), ['vmensah@harbourmail.net']);
    assert.deepEqual(addresses('Certainly. Claims, C L A I M S, dot west at summit mutual dot com.'), ['claims.west@summitmutual.com']);
    assert.deepEqual(addresses("It's a w whitaker, W H I T A K E R, at fastmail dot com."), ['awwhitaker@fastmail.com']);
    // initials before a name, digits said as numbers, a dash joining a word that is not a name
    assert.deepEqual(addresses("It's d reyes dot data at gmail dot com."), ['dreyes.data@gmail.com']);
    assert.deepEqual(addresses("It's h jenkins fifty four at yahoo dot com."), ['hjenkins54@yahoo.com']);
    assert.deepEqual(addresses("It's emma dot novak seven oh at mailbox dot com."), ['emma.novak70@mailbox.com']);
    assert.deepEqual(addresses('Please send it to it dash ops at halden freight dot com.'), ['it-ops@haldenfreight.com']);
    // phonetic spelling and a doubled letter
    assert.deepEqual(addresses("It's j as in juliet, o double d at gmail dot com."), ['jodd@gmail.com']);
    assert.deepEqual(addresses("It's j as in juliet o double d y at gmail dot com."), ['joddy@gmail.com']);
    // two words make one part only when the speaker says so, or they read back an earlier address
    assert.deepEqual(addresses('Our address is fraser family, all one word, at post box dot com.'), ['fraserfamily@postbox.com']);
    assert.deepEqual(addresses('Fraser family at post box dot com.', [], ['fraserfamily@postbox.com']), ['fraserfamily@postbox.com']);
    // (and otherwise no address: family@ would be a stranger's, session 25)
    assert.deepEqual(addresses('Fraser family at post box dot com.'), []);
    // "a" and "I" before a word stay the article and the pronoun
    assert.deepEqual(addresses('Send a note at noon to sam at gmail dot com.'), ['sam@gmail.com']);
  });

  it('resolves dates against the recording time', () => {
    const at = '2025-03-27T15:40:00Z'; // a Thursday
    const next = resolveDates('Would a Zoom call next Tuesday at 11 a.m. work?', at, false)[0];
    assert.equal(next.datetime, '2025-04-01T11:00:00');
    assert.equal(resolveDates("I'll call you back within the hour.", at, false)[0].date, '2025-03-27');
    assert.equal(resolveDates('A new card will arrive within 5 business days.', '2025-05-06T14:10:00Z', false)[0].date, '2025-05-13');
    // the same weekday word points back in a sentence about the past
    assert.equal(resolveDates('I interviewed on Monday.', '2025-04-16T17:30:00Z', true)[0].date, '2025-04-14');
    assert.equal(resolveDates('Does Thursday the 24th at 10 a.m. work?', '2025-04-16T17:30:00Z', false)[0].datetime, '2025-04-24T10:00:00');
    assert.equal(resolveDates('We can have it ready tomorrow after 4.', '2025-09-17T21:00:00Z', false)[0].datetime, '2025-09-18T16:00:00');
    // a moment seconds away is no clock time ("the second out" read as one second from now)
    assert.deepEqual(resolveDates("I'll fill it out tomorrow, this is the second out this summer.", at, false).map((m) => [m.text, m.time]), [['tomorrow', null]]);
    const tue = '2025-09-16T15:05:00Z'; // a Tuesday
    const dateOf = (s: string, past = false) => resolveDates(s, tue, past).map((m) => m.date);
    assert.deepEqual(dateOf("I'll do it right after this call."), ['2025-09-16']);
    assert.deepEqual(dateOf("Sure, I'll message her right now."), ['2025-09-16']);
    assert.deepEqual(dateOf("I'll send it in the morning."), ['2025-09-17']);
    assert.deepEqual(dateOf("I'll send it first thing."), ['2025-09-17']);
    assert.deepEqual(dateOf('Could you bring it in a week from Thursday?'), ['2025-09-25']);
    assert.deepEqual(dateOf('Please have it back by the end of the week.'), ['2025-09-19']);
    // a deadline is ahead of the call even in a sentence that reads as past
    assert.deepEqual(dateOf('And your pay statements uploaded to the portal by end of business Friday.', true), ['2025-09-19']);
    // "the day before" names no day of its own: the call text places it against the day talked about
    assert.equal(resolveDates("We'll text you the day before.", tue, false)[0].anchorOffset, -1);
    assert.equal(resolveDates("I'll work from home that morning.", tue, false)[0].anchorOffset, 0);
  });
});

describe('EmbeddedAnalyzer on corpus ground-truth transcripts', () => {
  let calls: Record<string, Awaited<ReturnType<typeof corpusCall>>>;
  before(async () => {
    calls = {};
    for (const id of ['contractor-quote', 'car-repair', 'sales-demo-booking', 'family-logistics', 'dentist-appointment']) calls[id] = await corpusCall(id);
  });

  it('reassembles a dictated e-mail address into an email action item owned by the contact', () => {
    const item = only(calls['contractor-quote'].analysis.actionItems, (i) => i.intent === 'email');
    assert.equal(item.ownerRole, 'CONTACT');
    assert.equal(item.ownerSpeakerId, 'spk_2');
    assert.equal(item.ownerDisplayName, 'Daniel Okafor');
    assert.equal(item.intentMetadata?.toEmail, 'maria.lopez@lopezhome.net');
    assert.equal(item.dueDate, '2025-04-09'); // "tomorrow morning"
    assert.ok(item.sourceSegmentIds?.includes('seg_0005'), 'cites the segment where the address was said');
    // "I'll talk it over with my husband" is a plan, not a launchable item
    assert.ok(calls['contractor-quote'].analysis.nextSteps?.some((n) => /husband/.test(n.text)));
  });

  it('turns "call me back" plus "I\'ll call you back within the hour" into one call item with the spoken number', () => {
    const item = only(calls['car-repair'].analysis.actionItems, (i) => i.intent === 'call');
    assert.equal(item.ownerRole, 'USER');
    assert.equal(item.intentMetadata?.phoneNumber, '+15553826010');
    assert.equal(item.dueDate, '2025-09-17');
    assert.deepEqual(item.sourceSegmentIds, ['seg_0006', 'seg_0007']);
    assert.equal(calls['car-repair'].analysis.actionItems?.length, 1);
  });

  it('builds a Zoom meeting with the accepted time, duration and the attendee address', () => {
    const item = only(calls['sales-demo-booking'].analysis.actionItems, (i) => i.intent === 'meeting');
    assert.equal(item.ownerRole, 'USER');
    assert.equal(item.intentMetadata?.providerHint, 'zoom');
    assert.equal(item.intentMetadata?.proposedAt, '2025-04-01T11:00:00'); // "next Tuesday" = first Tuesday after the call
    assert.equal(item.intentMetadata?.durationMinutes, 30);
    assert.deepEqual(item.intentMetadata?.attendees?.map((a) => a.email), ['operations@bayviewlogistics.com']);
    assert.equal(item.dueDate, '2025-04-01');
  });

  it('classifies message, task and reminder intents with their due dates', () => {
    const msg = only(calls['family-logistics'].analysis.actionItems, (i) => i.intent === 'message');
    assert.equal(msg.ownerDisplayName, 'Jamie Walker');
    assert.equal(msg.intentMetadata?.channel, 'whatsapp');
    assert.equal(msg.dueDate, '2025-05-14'); // "tonight"
    const task = only(calls['family-logistics'].analysis.actionItems, (i) => i.intent === 'task');
    assert.equal(task.ownerRole, 'USER');
    assert.match(task.title, /cake/);
    assert.equal(task.dueDate, '2025-05-17'); // "Saturday morning"
    const reminder = only(calls['dentist-appointment'].analysis.actionItems, (i) => i.intent === 'reminder');
    assert.equal(reminder.ownerRole, 'USER');
    assert.equal(reminder.dueDate, '2025-03-17'); // "Monday evening"
  });

  it('produces output that validates, carries the legacy aliases and has no grounding violations', () => {
    for (const { analysis, transcript, context } of Object.values(calls)) {
      const v = validateAnalysis(analysis);
      assert.ok(v.ok, v.ok ? '' : v.errors.join('\n'));
      assert.equal(analysis.schemaVersion, 3);
      assert.equal(analysis.shortSummary, analysis.oneLineSummary);
      assert.equal(analysis.detailedSummary, analysis.executiveSummary);
      const high = analysis.sections!.flatMap((s) => s.items.filter((i) => i.importance === 'high').map((i) => i.text));
      assert.deepEqual(analysis.keyPoints, high);
      for (const item of analysis.actionItems ?? []) assert.equal(item.ownerSpeaker, item.ownerSpeakerLabel);
      const bullets = analysis.executiveSummaryBullets ?? [];
      assert.ok(bullets.length >= 3 && bullets.length <= 6, `bullets: ${bullets.length}`);
      for (const b of bullets) assert.match(b.startTimestamp, /^\d{2}:\d{2}$/);
      assert.ok(analysis.sections!.every((s, i) => s.id === `sec_${String(i + 1).padStart(3, '0')}`));
      const sentences = analysis.executiveSummary!.match(/[^.!?]+[.!?]+/g) ?? [];
      assert.ok(sentences.length >= 2 && sentences.length <= 4 + 2, analysis.executiveSummary ?? '');
      assert.ok(['positive', 'neutral', 'negative', 'mixed'].includes(analysis.sentiment!.overall));
      // the analyzer's own output, before its grounding safety net
      const raw = finalizeAnalysis(buildAnalysis(transcript, context), transcript);
      assert.deepEqual(groundingViolations(raw, transcript, context), []);
    }
    assert.equal(calls['sales-demo-booking'].analysis.callType, 'sales');
    assert.equal(calls['dentist-appointment'].analysis.callType, 'healthcare');
  });

  it('is deterministic', async () => {
    const { transcript, context, analysis } = calls['family-logistics'];
    assert.deepEqual(await analyzer.analyze(transcript, context), analysis);
  });
});

describe('EmbeddedAnalyzer on calls outside the corpus', () => {
  it('keeps arrays empty on a short neutral call rather than inventing content', async () => {
    const recordedAt = '2025-06-10T15:00:00Z';
    const transcript = transcriptOf([[0, 'Hello?'], [1, 'Hi, just checking that this line works.'], [0, 'Yes, it does.']], ['Anna Berg', 'Tom Wells'], recordedAt);
    const a = await analyzer.analyze(transcript, { userDisplayName: 'Anna Berg', contactName: 'Tom Wells', phoneNumber: null, direction: 'INCOMING', recordedAt, title: null });
    assert.ok(validateAnalysis(a).ok);
    for (const key of ['actionItems', 'nextSteps', 'decisions', 'commitments', 'importantDates', 'numbersAndAmounts', 'peopleMentioned', 'openQuestions', 'risks', 'opportunities', 'followUps'] as const) {
      assert.deepEqual(a[key], [], key);
    }
    assert.equal(a.executiveSummaryBullets, undefined); // fewer than three bullets' worth of content
    assert.ok(a.qualityWarnings?.includes('very_short_call'));
    assert.ok(a.sentiment && ['neutral', 'positive'].includes(a.sentiment.overall));
    assert.equal(a.shortSummary, a.oneLineSummary);
  });

  it('speaks of the user in the third person in summaries, whatever the title keeps of their own words', async () => {
    const recordedAt = '2025-06-10T15:00:00Z';
    const transcript = transcriptOf(
      [
        [1, 'Hello, this is Tom from Wells Roofing, calling about the quote for your roof.'],
        [0, 'Hi Tom, thanks for calling back. The price looks fair.'],
        [1, 'Great. Do you want to go ahead with the work next month?'],
        [0, "I'll talk it over with my husband tonight and let you know."],
        [1, 'No problem. Thanks.'],
      ],
      ['Anna Berg', 'Tom Wells'],
      recordedAt,
    );
    const a = await analyzer.analyze(transcript, { userDisplayName: 'Anna Berg', contactName: 'Tom Wells', phoneNumber: null, direction: 'INCOMING', recordedAt, title: null });
    // quotations keep the words as said; the summary's own sentences speak of the user as "they"
    const summaries = [a.oneLineSummary, a.executiveSummary, a.conversationOutcome].join(' | ').replace(/"[^"]*"/g, '""');
    assert.match(summaries, /Anna Berg (?:will|to) talk it over with their husband/);
    assert.doesNotMatch(summaries, /\bmy\b/i);
  });

  it('reads requests and commitments it has not seen before', async () => {
    const recordedAt = '2025-06-10T15:00:00Z'; // a Tuesday
    const transcript = transcriptOf(
      [
        [1, 'Hello, Tom speaking.'],
        [0, 'Hi Tom, it is Anna from the design studio. Do you have a moment to talk about the new logo?'],
        [1, 'Sure. I looked at the drafts yesterday and I really like the second one.'],
        [0, "Great. Let's set up a Google Meet on Friday at two p.m. to go through the final version."],
        [1, 'Friday at two works. Send the invite to tom dot wells at acme dot co dot uk.'],
        [0, "Will do. I'll also email you the invoice for the first phase tomorrow."],
        [1, 'Perfect. And if the printer is late, text me on zero seven seven zero zero, nine zero zero, one two three.'],
        [0, 'No problem. Talk soon.'],
      ],
      ['Anna Berg', 'Tom Wells'],
      recordedAt,
    );
    const context: AnalysisContext = { userDisplayName: 'Anna Berg', contactName: 'Tom Wells', phoneNumber: '+44 20 7946 0000', direction: 'OUTGOING', recordedAt, title: null };
    const a = await analyzer.analyze(transcript, context);
    const meeting = only(a.actionItems, (i) => i.intent === 'meeting');
    assert.equal(meeting.ownerDisplayName, 'Anna Berg');
    assert.equal(meeting.intentMetadata?.providerHint, 'meet');
    assert.equal(meeting.intentMetadata?.proposedAt, '2025-06-13T14:00:00');
    assert.deepEqual(meeting.intentMetadata?.attendees, [{ name: 'Tom Wells', email: 'tom.wells@acme.co.uk' }]);
    const email = only(a.actionItems, (i) => i.intent === 'email');
    assert.equal(email.intentMetadata?.toEmail, 'tom.wells@acme.co.uk');
    assert.equal(email.dueDate, '2025-06-11');
    const message = only(a.actionItems, (i) => i.intent === 'message');
    assert.equal(message.ownerDisplayName, 'Anna Berg');
    assert.equal(message.intentMetadata?.channel, 'sms');
    assert.equal(message.intentMetadata?.phoneNumber, '+447700900123');
    assert.equal(message.priority, 'low'); // conditional
    const raw = finalizeAnalysis(buildAnalysis(transcript, context), transcript);
    assert.deepEqual(groundingViolations(raw, transcript, context), []);
  });
});

describe('EmbeddedAnalyzer on phrasings of other speakers', () => {
  const recordedAt = '2025-06-10T15:00:00Z'; // a Tuesday
  const context: AnalysisContext = { userDisplayName: 'Anna Berg', contactName: 'Tom Wells', phoneNumber: null, direction: 'OUTGOING', recordedAt, title: null };
  const run = (turns: Array<[0 | 1, string]>) => analyzer.analyze(transcriptOf(turns, ['Anna Berg', 'Tom Wells'], recordedAt), context);

  it('reads indirect requests as the addressee\'s items', async () => {
    const a = await run([
      [0, 'Hi Tom. If you could send me the signed contract by Friday, that would be great.'],
      [1, 'Yep, no problem.'],
      [0, 'Any chance you could call the supplier tomorrow about the tiles?'],
      [1, 'You got it.'],
      [0, 'I was wondering if you could text me the gate code.'],
      [1, 'Sure thing.'],
      [0, 'And would you be able to email the floor plans to anna at berg design dot com?'],
      [1, 'For sure.'],
    ]);
    const contract = only(a.actionItems, (i) => /contract/i.test(i.title));
    assert.equal(contract.ownerDisplayName, 'Tom Wells');
    assert.equal(contract.dueDate, '2025-06-13');
    const call = only(a.actionItems, (i) => i.intent === 'call');
    assert.equal(call.ownerDisplayName, 'Tom Wells');
    assert.equal(call.dueDate, '2025-06-11');
    assert.equal(only(a.actionItems, (i) => i.intent === 'message').ownerDisplayName, 'Tom Wells');
    const email = only(a.actionItems, (i) => /floor plans/i.test(i.title));
    assert.equal(email.intent, 'email');
    assert.equal(email.intentMetadata?.toEmail, 'anna@bergdesign.com');
    assert.match(email.title, /^Email the floor plans/);
  });

  it('reads promises said from the other side and without a subject', async () => {
    const a = await run([
      [0, 'So where are we with the photos?'],
      [1, 'Expect an email from me with the photos tonight.'],
      [0, 'Great. And the invoice?'],
      [1, 'You will hear from me about the invoice by Thursday.'],
      [0, 'Thanks. Will text you the gate code tomorrow.'],
    ]);
    const email = only(a.actionItems, (i) => i.intent === 'email');
    assert.equal(email.ownerDisplayName, 'Tom Wells');
    assert.equal(email.dueDate, '2025-06-10');
    const text = only(a.actionItems, (i) => i.intent === 'message');
    assert.equal(text.ownerDisplayName, 'Anna Berg');
    assert.equal(text.dueDate, '2025-06-11');
  });

  it('makes no item of an open offer, a question or a past action', async () => {
    const a = await run([
      [1, 'I already sent the quote last week.'],
      [0, 'Did you send it to the right address?'],
      [1, 'I think so. If you need anything else, just give me a call.'],
      [0, 'Thanks, bye.'],
    ]);
    assert.deepEqual(a.actionItems, []);
  });

  it('makes a commitment that takes on the other party\'s stated need an action item', async () => {
    const a = await run([
      [1, 'There is a balance of two hundred dollars on the account. It has to be paid by Friday.'],
      [0, 'Okay, I will pay it online tomorrow.'],
      [1, 'Also, please confirm your new address by email to billing at acme dot com.'],
      [0, 'Sure, I will send it today.'],
      [1, 'Great. Tell your husband to feel better.'],
    ]);
    const pay = only(a.actionItems, (i) => /\bpay\b/i.test(i.title));
    assert.equal(pay.ownerDisplayName, 'Anna Berg');
    assert.equal(pay.intent, 'task');
    const email = only(a.actionItems, (i) => i.intent === 'email');
    assert.equal(email.ownerDisplayName, 'Anna Berg');
    assert.equal(email.intentMetadata?.toEmail, 'billing@acme.com');
    assert.equal(a.actionItems?.length, 2);
  });

  it('reads terse promises, favours, needs and notes to self with the right owner and intent', async () => {
    const a = await run([
      [0, 'Do me a favor and call the bank tomorrow about the card.'],
      [1, 'Sure. Need the invoice by Thursday, though.'],
      [0, 'Text you the address tonight.'],
      [1, 'Thanks. Note to self, water the plants on Sunday.'],
      [0, 'And I need to remember to renew my passport next week.'],
    ]);
    const call = only(a.actionItems, (i) => i.intent === 'call');
    assert.equal(call.ownerDisplayName, 'Tom Wells');
    assert.equal(call.dueDate, '2025-06-11');
    const invoice = only(a.actionItems, (i) => /invoice/i.test(i.title));
    assert.equal(invoice.ownerDisplayName, 'Anna Berg');
    assert.equal(invoice.dueDate, '2025-06-12');
    const text = only(a.actionItems, (i) => i.intent === 'message');
    assert.equal(text.ownerDisplayName, 'Anna Berg');
    const plants = only(a.actionItems, (i) => /plants/i.test(i.title));
    assert.equal(plants.intent, 'reminder');
    assert.equal(plants.ownerDisplayName, 'Tom Wells');
    const passport = only(a.actionItems, (i) => /passport/i.test(i.title));
    assert.equal(passport.intent, 'reminder');
    assert.equal(passport.ownerDisplayName, 'Anna Berg');
  });

  it('reassembles addresses with an initial, a new top-level domain, a dash, spelled letters and hyphen-spelled words, grounded', async () => {
    const addr = (t: string) => normalizeSpoken(t).entities.filter((e) => e.kind === 'email').map((e) => (e as { address: string }).address);
    assert.deepEqual(addr("Sure, it's o park at fastmail dot com."), ['opark@fastmail.com']);
    assert.deepEqual(addr('Send the invite to studio at nina patel dot design.'), ['studio@ninapatel.design']);
    assert.deepEqual(addr("It's l dot morris at northfield dash group dot com."), ['l.morris@northfield-group.com']);
    assert.deepEqual(addr('approvals at oak hollow h o a dot org, thanks'), ['approvals@oakhollowhoa.org']);
    assert.deepEqual(addr('meet me at the station dot com'), []);
    assert.deepEqual(addr('email me the form derek dot lane at fast male dot com'), ['derek.lane@fastmail.com']);
    // a top-level domain as a recogniser writes its letters, and the "co" of a British domain heard as "com"
    assert.deepEqual(addr("It's g dot telford at northgate b s dot com dot u k."), ['g.telford@northgatebs.co.uk']);
    assert.deepEqual(addr('it is sam at acme dot co dot uk'), ['sam@acme.co.uk']);
    assert.deepEqual(addr('it is sam at acme dot com dot au'), ['sam@acme.com.au']);
    assert.deepEqual(addr('it is sam at acme dot u s'), ['sam@acme.us']);
    // only a webmail name heard.ts knows becomes "...mail"; a second "at" ends no domain
    assert.deepEqual(addr('email is park at best male dot com'), ['park@bestmale.com']);
    // (two plain words with nothing to say where the address starts give no address, session 25)
    assert.deepEqual(addr('email is oak park at best male dot com'), []);
    assert.ok(addr('okay it p r i live dot at a cage at yahoo dot com').every((x) => !x.startsWith('dot@') && !x.includes('cageat')));
    const turns: Array<[0 | 1, string]> = [
      [1, 'I can e-mail the estimate over this afternoon. What is the address?'],
      [0, "It's p-r-i-y-a dot s-h-a-h at yahoo dot com."],
      [1, 'Got it. Let me get that over to you this afternoon.'],
    ];
    const email = only((await run(turns)).actionItems, (i) => i.intent === 'email');
    assert.equal(email.intentMetadata?.toEmail, 'priya.shah@yahoo.com');
    assert.equal(email.ownerDisplayName, 'Tom Wells');
    const transcript = transcriptOf(turns, ['Anna Berg', 'Tom Wells'], recordedAt);
    assert.deepEqual(groundingViolations(finalizeAnalysis(buildAnalysis(transcript, context), transcript), transcript, context), []);
  });

  it('makes an e-mail item for the listener of an address dictated with its request garbled, once, and none where a meeting takes it', async () => {
    // the request's verb misrecognised ("you can avail that" for "you can email them"): the address
    // itself is what somebody will write to, and the one who heard it writes
    const garbled: Array<[0 | 1, string]> = [
      [1, 'We will need photos of the damage and the plumber invoice.'],
      [1, 'You can avail that the claims dot desk at northgate mutual dot com.'],
      [0, 'Claims dot desk at northgate mutual dot com. Okay.'],
    ];
    const email = only((await run(garbled)).actionItems, (i) => i.intent === 'email');
    assert.equal(email.intentMetadata?.toEmail, 'claims.desk@northgatemutual.com');
    assert.equal(email.ownerDisplayName, 'Anna Berg');
    const transcript = transcriptOf(garbled, ['Anna Berg', 'Tom Wells'], recordedAt);
    assert.deepEqual(groundingViolations(finalizeAnalysis(buildAnalysis(transcript, context), transcript), transcript, context), []);
    // an invitee's address where a meeting is arranged is the meeting's, not a second item
    const meeting: Array<[0 | 1, string]> = [
      [1, 'Does Thursday at two work for a Zoom call with the loan officer?'],
      [0, 'Yes. My address is anna dot berg at gmail dot com.'],
      [1, 'Great, I will send the invite.'],
    ];
    const items = (await run(meeting)).actionItems ?? [];
    assert.equal(items.filter((i) => i.intent === 'email').length, 0, JSON.stringify(items.map((i) => [i.intent, i.title])));
    // the listener's own address read back to them ("anna dot berg" said to Anna Berg): the speaker writes to it
    const readBack: Array<[0 | 1, string]> = [
      [1, 'Your new flight leaves at nine.'],
      [1, 'To it is the mail the new itineraries anna dot berg at yahoo dot com.'],
      [0, 'Great, thanks.'],
    ];
    const toAnna = only((await run(readBack)).actionItems, (i) => i.intent === 'email');
    assert.equal(toAnna.intentMetadata?.toEmail, 'anna.berg@yahoo.com');
    assert.equal(toAnna.ownerDisplayName, 'Tom Wells');
    // a stand-in name is nobody's: "contact at ..." dictated to "Contact ending 3390" is no read-back, the listener writes
    const unnamed = await analyzer.analyze(
      transcriptOf([
        [1, 'Where should the photos go?'],
        [0, 'You can avail that the contact at harbor claims dot com.'],
        [1, 'Okay.'],
      ], ['Anna Berg', 'Contact ending 3390'], recordedAt),
      { ...context, contactName: null, phoneNumber: '+1 555 201 3390' },
    );
    const toContact = only(unnamed.actionItems, (i) => i.intent === 'email');
    assert.equal(toContact.intentMetadata?.toEmail, 'contact@harborclaims.com');
    assert.equal(toContact.ownerDisplayName, 'Contact ending 3390');
  });

  it('reads chatty and terse forms of promises by the speaker\'s side', async () => {
    const a = await run([
      [0, 'Would you mind texting me rather than calling?'],
      [1, "For sure, I'll shoot you a text by tomorrow evening."],
      [0, 'And if you could add me to the group chat, that\'d be great.'],
      [1, 'No problem. Expect a call from the adjuster on Thursday to confirm the time.'],
      [0, 'Fax the request to Doctor Hale then.'],
      [1, 'Will do. Ask for Linda at the desk. Tell Sue at the front desk I said hi.'],
    ]);
    const texts = (a.actionItems ?? []).filter((i) => i.intent === 'message');
    assert.equal(texts.length, 2, JSON.stringify(a.actionItems?.map((i) => i.title)));
    assert.ok(texts.every((i) => i.ownerDisplayName === 'Tom Wells'));
    assert.ok(texts.some((i) => i.dueDate === '2025-06-11'));
    const call = only(a.actionItems, (i) => i.intent === 'call');
    assert.equal(call.ownerDisplayName, 'Tom Wells');
    assert.equal(call.dueDate, '2025-06-12');
    only(a.actionItems, (i) => /^Fax/.test(i.title));
    assert.equal(a.actionItems?.length, 4);
  });

  it('makes a dated plain promise to the other party an item, but not an offer, the speaker\'s own comings and goings or a way to reach someone', async () => {
    const a = await run([
      [0, 'My bill doubled this month.'],
      [1, "Looks like an estimated read. We'll send a technician to read the meter Monday."],
      [0, "Fine. I'll stop by the office on Thursday anyway."],
      [1, 'We can also start the new plan next week. If you ever have another billing question, just ask for me. Use my cell.'],
    ]);
    const tech = only(a.actionItems, (i) => /technician/i.test(i.title));
    assert.equal(tech.ownerDisplayName, 'Tom Wells');
    assert.equal(tech.intent, 'task');
    assert.equal(tech.dueDate, '2025-06-16');
    assert.equal(a.actionItems?.length, 1, JSON.stringify(a.actionItems?.map((i) => i.title)));
  });

  it('finds a promise run on after another clause without punctuation, as a recogniser writes it', async () => {
    const a = await run([
      [0, 'My bill doubled this month.'],
      [1, "looks like an estimated read we'll send a technician to read the meter monday"],
      [1, 'perfect expected call from the adjuster on thursday to confirm the time'],
    ]);
    const tech = only(a.actionItems, (i) => /technician/i.test(i.title));
    assert.equal(tech.ownerDisplayName, 'Tom Wells');
    assert.equal(tech.dueDate, '2025-06-16');
    const call = only(a.actionItems, (i) => i.intent === 'call');
    assert.equal(call.ownerDisplayName, 'Tom Wells');
  });

  it('makes no request of a greeting heard as an imperative or of a "please" with no verb after it', async () => {
    const a = await run([
      [1, 'Try county power billing and service.'],
      [0, 'Hi, is the meter outside?'],
      [1, 'Yes please the meters by that gate anything else today.'],
    ]);
    assert.deepEqual(a.actionItems, []);
    // "Fine, note to self ..." with the comma lost and "fine" heard as "find"
    const b = await run([[0, 'Find note to self cancel the hotel for the twentieth.']]);
    assert.equal(only(b.actionItems, () => true).intent, 'reminder');
  });

  it('moves the date of an item when it is changed later in the call', async () => {
    const a = await run([
      [0, 'Could you send me the signed contract by Friday?'],
      [1, 'Sure, I will send it by Friday.'],
      [0, 'Great, and the tiles look good.'],
      [1, 'Actually, make that Monday for the contract, I am away on Friday.'],
    ]);
    const contract = only(a.actionItems, (i) => /contract/i.test(i.title));
    assert.equal(contract.dueDate, '2025-06-16');
    assert.equal(a.actionItems?.length, 1);
  });

  it('gives an appointment agreed across turns its launcher time, which the grounding check finds beside its day', async () => {
    // the day in one turn, its clock time said alone in the next ones (no "at", no a.m./p.m.)
    const turns: Array<[0 | 1, string]> = [
      [0, 'I need a copy of my marriage certificate. Do I just come in?'],
      [1, "It's faster to book. We've got Thursday at ten fifteen, or next Tuesday."],
      [0, "Thursday I've got the dentist. Next Tuesday, what time?"],
      [1, 'Next Tuesday at, let me see, two forty five.'],
      [0, 'Two forty five. Yep.'],
    ];
    const visit = only((await run(turns)).actionItems, (i) => i.intent === 'reminder');
    assert.equal(visit.dueDate, '2025-06-17');
    assert.equal(visit.intentMetadata?.remindAt, '2025-06-17T14:45:00');
    const transcript = transcriptOf(turns, ['Anna Berg', 'Tom Wells'], recordedAt);
    assert.deepEqual(groundingViolations(finalizeAnalysis(buildAnalysis(transcript, context), transcript), transcript, context), []);
  });

  it('reads an appointment summed up with a deadline after it: the day of the window, from its start', async () => {
    const turns: Array<[0 | 1, string]> = [
      [1, 'The final inspection has been scheduled, someone will need to be on site.'],
      [0, "So just to confirm: the inspection is on Tuesday the 17th between eight and noon, and I'll pay the fee by end of business Monday."],
      [1, "That's correct."],
    ];
    const visit = only((await run(turns)).actionItems, (i) => i.intent === 'reminder');
    assert.equal(visit.dueDate, '2025-06-17');
    assert.equal(visit.intentMetadata?.remindAt, '2025-06-17T08:00:00');
    const transcript = transcriptOf(turns, ['Anna Berg', 'Tom Wells'], recordedAt);
    assert.deepEqual(groundingViolations(finalizeAnalysis(buildAnalysis(transcript, context), transcript), transcript, context), []);
  });

  it('reads a turn opening "we\'ll do" as "will do": an acceptance that keeps the day said after it, not a promise to "do Thursday"', async () => {
    const cases: Array<[string, string, RegExp, string]> = [
      ['Could you send me the updated forecast?', "We'll do Thursday then.", /forecast/, '2025-06-12'],
      // as a recogniser writes "Will do, tomorrow afternoon ..." and "Will do, tonight after work. What about ...?"
      ['Can you call me about the quarterly payments on my cell?', "We'll do tomorrow afternoon after my client meetings.", /^Call Tom Wells about the quarterly payments/, '2025-06-11'],
      ['Could you check the meter reading for me?', "We'll do tonight after work what about the signed form?", /meter reading/, '2025-06-10'],
    ];
    for (const [asked, answer, title, due] of cases) {
      const item = only((await run([[1, asked], [0, answer]])).actionItems, () => true);
      assert.equal(item.ownerDisplayName, 'Anna Berg');
      assert.match(item.title, title);
      assert.equal(item.dueDate, due, answer);
    }
  });

  it('takes a request on across turns, whatever words the answer uses; an appointment asked of the user is a reminder, an errand a task', async () => {
    const a = await run([
      [1, 'I was hoping you could help me carry the boxes on Saturday morning.'],
      [0, 'Saturday works. What time do you need me?'],
      [1, 'Around nine.'],
      [0, 'I will be there at nine. Do you want me to bring my dolly?'],
      [1, 'Yes please.'],
    ]);
    const visit = only(a.actionItems, (i) => i.intent === 'reminder');
    assert.equal(visit.ownerDisplayName, 'Anna Berg');
    assert.equal(visit.dueDate, '2025-06-14');
    assert.match(visit.description ?? '', /carry the boxes/);
    // the offer the other party took is the speaker's item
    assert.equal(only(a.actionItems, (i) => /dolly/.test(i.title)).ownerDisplayName, 'Anna Berg');
    const b = await run([
      [1, 'Your refill is ready. Please pick it up by Saturday.'],
      [0, 'Okay, I will stop by on Thursday.'],
    ]);
    const errand = only(b.actionItems, () => true);
    assert.equal(errand.intent, 'task');
    assert.equal(errand.ownerDisplayName, 'Anna Berg');
  });

  it('moves a request to the day its owner offers instead, once the asker takes it', async () => {
    const a = await run([
      [1, 'The part is in. Can you come in Thursday?'],
      [0, 'Thursday is tight for me. Any chance of Friday morning?'],
      [1, 'Friday at nine works.'],
    ]);
    const visit = only(a.actionItems, () => true);
    assert.equal(visit.intent, 'reminder');
    assert.equal(visit.dueDate, '2025-06-13');
    assert.match(visit.title, /Friday/);
  });

  it('reminds the user of an appointment agreed on the call, once, and not of a deadline, a callback time or a slot turned down', async () => {
    const a = await run([
      [1, 'About the boiler service, the van broke down, so tomorrow is out. Could we do Monday instead, eight till twelve?'],
      [0, 'Monday eight till twelve. Yeah, okay.'],
      [1, 'And I will ring you Sunday at six to confirm.'],
      [0, 'Great.'],
      [1, 'The deposit is due by Friday at five.'],
      [0, 'Fine.'],
      [1, 'Or would Thursday at ten suit you better?'],
      [0, 'No, Thursday I am at work.'],
    ]);
    const visit = only(a.actionItems, (i) => i.intent === 'reminder');
    assert.equal(visit.ownerRole, 'USER');
    assert.equal(visit.dueDate, '2025-06-16');
    assert.equal(visit.intentMetadata?.remindAt, '2025-06-16T08:00:00');
    assert.match(visit.title, /^Boiler service on Monday 16 June at 08:00/);
    only(a.actionItems, (i) => i.intent === 'call');
    // a delivery window taken for someone else, who will be there
    const b = await run([
      [1, 'Your sofa will be delivered on Saturday the 14th, between 8 a.m. and noon.'],
      [0, 'Saturday is good.'],
      [1, 'And the washer? We can bring it on Monday between 9 and 11.'],
      [0, 'That is fine, my husband will be home on Monday.'],
    ]);
    const sofa = only(b.actionItems, (i) => i.intent === 'reminder');
    assert.equal(sofa.dueDate, '2025-06-14');
    // the user's own news is no appointment; a visit booked for a bare weekday is the coming one; a
    // meeting nothing says is remote is held in person
    const c = await run([
      [0, 'I will be back from holiday on Monday at 9.'],
      [1, 'Okay, enjoy the trip.'],
      [1, 'The engineer is booked for Friday between 1 and 5.'],
      [0, 'Perfect, I will be in.'],
    ]);
    assert.deepEqual(c.actionItems?.map((i) => [i.intent, i.dueDate]), [['reminder', '2025-06-13']]);
    const d = await run([
      [1, 'Dr Patel can see you on Thursday at 11:20.'],
      [0, 'Thursday at 11:20, lovely, thank you.'],
    ]);
    assert.deepEqual(d.actionItems?.map((i) => [i.ownerRole, i.intent, i.dueDate]), [['USER', 'reminder', '2025-06-12']]);
    // as a recogniser writes it (no punctuation, numbers in words), and a deadline said as a noun
    const e = await run([
      [0, 'can you come round on saturday at ten'],
      [1, 'saturday at ten yeah no problem see you then'],
      [1, 'the delivery is friday between nine and one'],
      [0, 'okay thanks'],
      [1, 'The deadline for the forms is Monday at 5.'],
      [0, 'Okay, noted.'],
    ]);
    assert.deepEqual(e.actionItems?.filter((i) => i.intent === 'reminder').map((i) => i.dueDate).sort(), ['2025-06-13', '2025-06-14']);
    // the call is at 15:00: a slot on its own day must still be ahead ("x ten after this call", a
    // recogniser's "I'll text it after this call", is no appointment at ten that morning)
    const f = await run([
      [1, 'I need your address for the check can you text it to me.'],
      [0, 'Share health x ten after this call.'],
      [1, 'That makes I owe you a check on monday.'],
    ]);
    assert.deepEqual(f.actionItems?.filter((i) => i.intent === 'reminder'), []);
    const g = await run([
      [1, 'Could you come by today at five to sign?'],
      [0, 'Five works, see you then.'],
    ]);
    assert.deepEqual(g.actionItems?.filter((i) => i.intent === 'reminder').map((i) => i.intentMetadata?.remindAt), ['2025-06-10T17:00:00']);
  });

  it('makes a meeting held in person an appointment the user is reminded of, not a video or phone meeting', async () => {
    const a = await run([
      [0, 'Do we need to come in person for the enrolment?'],
      [1, 'Yes, there is a short meeting with the counsellor. I can offer Wednesday at 3:15 or Monday at 9.'],
      [0, 'Wednesday at 3:15 is best for us.'],
    ]);
    assert.equal((a.actionItems ?? []).filter((i) => i.intent === 'meeting').length, 0, JSON.stringify(a.actionItems?.map((i) => [i.intent, i.title])));
    const visit = only(a.actionItems, (i) => i.intent === 'reminder');
    assert.equal(visit.ownerRole, 'USER');
    assert.equal(visit.dueDate, '2025-06-11');
    const video = await run([
      [1, 'There is a short meeting with the counsellor. Would a Zoom call on Wednesday at 3:15 work?'],
      [0, 'Wednesday at 3:15 is best for us.'],
    ]);
    only(video.actionItems, (i) => i.intent === 'meeting');
  });

  it('takes the channel of a request from the fragment said right after it', async () => {
    const a = await run([
      [1, 'Can you send me a photo of the leak? On WhatsApp.'],
      [0, 'Sure, right after this.'],
    ]);
    const photo = only(a.actionItems, () => true);
    assert.equal(photo.intent, 'message');
    assert.equal(photo.intentMetadata?.channel, 'whatsapp');
  });

  it('reads a generic promise as the need or the offer it takes on, in the other party\'s words', async () => {
    const a = await run([
      [1, 'Someone needs to call the council about the bins.'],
      [0, 'I will take care of that tomorrow.'],
      [1, 'Do you want me to email the landlord for you?'],
      [0, 'No, it is fine, I will do it myself tonight.'],
    ]);
    assert.deepEqual(a.actionItems?.map((i) => [i.ownerRole, i.intent, i.title, i.dueDate]), [
      ['USER', 'call', 'Call the council about the bins tomorrow', '2025-06-11'],
      ['USER', 'email', 'Email the landlord tonight', '2025-06-10'],
    ]);
  });

  it('keeps two errands asked in one breath as one task, and an e-mail and a call asked together as two items', async () => {
    const a = await run([
      [1, 'Please mail the old passport by Friday, and write your application number on the envelope.'],
      [0, 'Okay, I will do that.'],
      [1, 'Can you email me the signed lease and call the bank about the deposit?'],
      [0, 'Sure.'],
    ]);
    const tasks = (a.actionItems ?? []).filter((i) => i.intent === 'task');
    assert.equal(tasks.length, 1, JSON.stringify(a.actionItems?.map((i) => [i.intent, i.title])));
    assert.match(tasks[0].description ?? '', /application number/);
    assert.equal(tasks[0].title, 'Mail the old passport by Friday and write the application number on the envelope');
    only(a.actionItems, (i) => i.intent === 'email');
    only(a.actionItems, (i) => i.intent === 'call');
  });

  it('makes no item of a request refused or taken back', async () => {
    const a = await run([
      [1, 'Could you send me the floor plans tomorrow?'],
      [0, 'No, sorry, I cannot this week, we are swamped.'],
      [0, 'Can you call the supplier about the tiles?'],
      [1, 'Which supplier?'],
      [0, 'Actually, never mind.'],
    ]);
    assert.deepEqual(a.actionItems?.map((i) => i.title), []);
    // taken back later by naming it, after it was taken on; what is not named stays
    const b = await run([
      [1, 'Mum asked if you could ring her about Sunday lunch.'],
      [0, 'Okay, I will call her tomorrow.'],
      [1, 'And can you water the plants on Saturday?'],
      [0, 'Sure.'],
      [1, 'Actually, forget calling Mum, I am seeing her tonight.'],
    ]);
    assert.deepEqual(b.actionItems?.map((i) => i.intent), ['task']);
    // taken back in the same breath, as a recogniser writes a recap too
    const c = await run([
      [1, 'Oh, I was going to ask if you could, um, drive her to the clinic on Friday. Actually, no, scratch that, your aunt is taking her.'],
      [0, 'Okay.'],
      [1, 'so to confirm ill email the contract tonight'],
      [0, 'yep thats right'],
    ]);
    assert.deepEqual(c.actionItems?.map((i) => [i.ownerRole, i.intent]), [['CONTACT', 'email']]);
    // a restart's repeated word is said once in a title
    const d = await run([
      [1, 'um so could you uh send me the the quote by friday'],
      [0, 'yeah ill send it tomorrow'],
    ]);
    assert.deepEqual(d.actionItems?.map((i) => i.title), ['Send Tom Wells the quote by friday']);
  });

  it('reads first-person auxiliaries and negative questions as a recogniser writes them', () => {
    const transcript = transcriptOf(
      [
        [0, 'sure all send it tonight'],
        [1, 'okay among to email you the quote'],
        [0, "can't you send it over"],
        [1, 'all right thanks all the best'],
      ],
      ['Anna Berg', 'Tom Wells'],
      recordedAt,
    );
    const acts = buildCallText(transcript, context).units.flatMap((u) => clausesOf(u).filter((c) => c.kind !== 'other' && c.kind !== 'accept').map((c) => `${c.kind}: ${c.vp}`));
    assert.deepEqual(acts, ['commit: send it tonight', 'commit: email you the quote', 'request: send it over']);
  });

  it('reads a request or a promise after a hesitation, or with a courteous "if you can", or passed on for someone else, as it reads it without', () => {
    const transcript = transcriptOf(
      [
        [1, 'And, um, can you give him his tablet with breakfast?'],
        [0, 'Uh, I will text you the photos tonight.'],
        [1, 'Oh, and clear the cupboard under the boiler before I come, if you can.'],
        [0, 'If possible, send me the invoice by Friday.'],
        [1, 'Oh, and my dad asked if you could call him about the sofa.'],
        [0, 'I was gonna ask, could you maybe text me the address?'],
        [1, 'Do you reckon you could drop the keys off at the office?'],
        [0, 'Is there any way you could email me the invoice again?'],
        [1, 'I will email you the contract and, um, give the bank a ring about the transfer.'],
      ],
      ['Anna Berg', 'Tom Wells'],
      recordedAt,
    );
    const acts = buildCallText(transcript, context).units.flatMap((u) => clausesOf(u).filter((c) => c.kind !== 'other' && c.kind !== 'accept').map((c) => `${c.kind}: ${c.vp}`));
    assert.deepEqual(acts, ['request: give him his tablet with breakfast', 'commit: text you the photos tonight', 'request: clear the cupboard under the boiler before I come, if you can', 'request: send me the invoice by Friday', 'request: call him about the sofa', 'request: text me the address', 'request: drop the keys off at the office', 'request: email me the invoice again', 'commit: email you the contract', 'commit: give the bank a ring about the transfer']);
    // "if you can", "if possible": a courtesy, not a condition the request hangs on
    assert.deepEqual(buildCallText(transcript, context).units.flatMap((u) => clausesOf(u).filter((c) => c.kind === 'request').map((c) => c.conditional)), [false, false, false, false, false, false, false]);
  });

  it('reads a list of verb phrases after one subject, in a recap too, as one task each', () => {
    const transcript = transcriptOf(
      [
        [1, 'So just to confirm: I will approve the invoices by Friday, send the forecast to finance by the 10th, and attend the review on Thursday.'],
        [0, 'Okay, send it over.'],
      ],
      ['Anna Berg', 'Tom Wells'],
      recordedAt,
    );
    const acts = buildCallText(transcript, context).units.flatMap((u) => clausesOf(u).filter((c) => c.kind !== 'other' && c.kind !== 'accept').map((c) => `${c.kind}: ${c.vp}`));
    assert.deepEqual(acts, ['commit: approve the invoices by Friday', 'commit: send the forecast to finance by the 10th', 'commit: attend the review on Thursday', 'request: send it over']);
  });
});

describe('EmbeddedAnalyzer on what new authors write (session 20)', () => {
  const recordedAt = '2025-06-10T15:00:00Z'; // a Tuesday
  const context: AnalysisContext = { userDisplayName: 'Anna Berg', contactName: 'Tom Wells', phoneNumber: null, direction: 'OUTGOING', recordedAt, title: null };
  const run = (turns: Array<[0 | 1, string]>) => analyzer.analyze(transcriptOf(turns, ['Anna Berg', 'Tom Wells'], recordedAt), context);

  it('resolves "set it up" to a video call named before it, and "them" to two things said together, not to a singular', async () => {
    const a = await run([
      [0, 'Should we do a FaceTime video call with your parents on Saturday? Maybe at five?'],
      [1, 'Saturday at five is great.'],
      [0, 'Good, I will set it up.'],
    ]);
    const video = only(a.actionItems, (i) => i.intent === 'meeting' && /video call/i.test(i.title));
    assert.equal(video.ownerDisplayName, 'Anna Berg');
    assert.equal(video.dueDate, '2025-06-14');
    const b = await run([
      [1, 'I will send you the Teams invite for the budget review today.'],
      [1, 'Before that I need the signed lease and a copy of your ID.'],
      [0, 'Sure, I will email them tonight.'],
    ]);
    const sent = only(b.actionItems, (i) => i.intent === 'email');
    assert.equal(sent.ownerDisplayName, 'Anna Berg');
    assert.match(sent.title, /lease/i);
    assert.equal(only(b.actionItems, (i) => /teams invite/i.test(i.title)).ownerDisplayName, 'Tom Wells');
  });

  it('makes no item of a time offered or taken, an offer\'s "if you would like", good wishes, one\'s own details or a closing "happy to do it"', async () => {
    const a = await run([
      [1, 'We should go over the floor plan together. Could you do Monday, June sixteenth, at three p.m.?'],
      [0, 'Let me see. Yes, I can do three.'],
      [1, 'If you would like, I can have our designer call you about the tiles.'],
      [0, 'Let me give you my email, the old one is closed. It is anna at berg design dot com.'],
      [1, 'Got it. Give your cat a cuddle for me.'],
      [0, 'Thanks again for fitting me in.'],
      [1, 'Happy to do it.'],
    ]);
    assert.deepEqual(
      (a.actionItems ?? []).filter((i) => /\b(?:do|give|have|like)\b/i.test(i.title)).map((i) => i.title),
      [],
    );
    // "I have Thursday at nine open. Does that work?" - "Yes, I can do that.": the time taken, no plan
    const b = await run([
      [1, 'I have Thursday at nine open. Does that work?'],
      [0, 'Yes, I can do that.'],
    ]);
    assert.equal((b.actionItems ?? []).filter((i) => i.intent === 'meeting' || /\bdo\b/i.test(i.title)).length, 0);
  });

  it('makes a promised video call a meeting of the one who promised it, whatever app carries it', async () => {
    const a = await run([
      [0, 'Could we look at the garden plans together on a video walkthrough? Friday at noon?'],
      [1, 'Friday at noon is fine. I will video call you on Signal.'],
      [0, 'Great, talk then.'],
    ]);
    const m = only(a.actionItems, (i) => i.intent === 'meeting');
    assert.equal(m.ownerDisplayName, 'Tom Wells');
    assert.equal(m.dueDate, '2025-06-13');
    assert.equal((a.actionItems ?? []).filter((i) => i.intent === 'task').length, 0);
  });

  it('makes a promise or an offer of a task the other party welcomes in the next turn an item, but not one whose welcome answers a question or a fact about the listener', async () => {
    const a = await run([
      [0, 'My sister flies in on Friday evening and my car is in the shop.'],
      [1, 'I can pick her up, I finish early that day.'],
      [0, 'Oh, you are a lifesaver.'],
      [1, 'The shelves are heavy, so I will bring the wall plugs and a drill.'],
      [0, 'Oh good, I had not thought of that.'],
    ]);
    const pick = only(a.actionItems, (i) => /\bpick\b/i.test(i.title));
    assert.equal(pick.ownerDisplayName, 'Tom Wells');
    assert.equal(pick.intent, 'task');
    assert.equal(only(a.actionItems, (i) => /wall plugs/i.test(i.title)).ownerDisplayName, 'Tom Wells');
    const b = await run([
      [1, 'I can book you in for a fitting. Is Monday at ten okay?'],
      [0, 'Yes, that works.'],
      [1, 'You will see the refund on your next statement.'],
      [0, 'Perfect, thanks.'],
    ]);
    assert.equal((b.actionItems ?? []).filter((i) => i.intent === 'task').length, 0);
  });

  it('names the user\'s reminder of being there by the appointment agreed for it', async () => {
    const a = await run([
      [1, 'I would like to see how the knee is healing. Could you come in on Thursday the twelfth at a quarter past four?'],
      [0, 'A quarter past four on the twelfth, yes, I can leave the office early for that.'],
      [1, 'Lovely.'],
    ]);
    const r = only(a.actionItems, (i) => i.intent === 'reminder');
    assert.equal(r.ownerDisplayName, 'Anna Berg');
    assert.equal(r.dueDate, '2025-06-12');
    // (and what the user said they will do for it stays in the title)
    assert.equal(r.title, 'Appointment on Thursday 12 June at 16:15: leave the office early');
  });

  it('makes a dated promise to have someone do it, or to get things done, an item, and two promises of one turn about the same things one item', async () => {
    const a = await run([
      [1, 'If the van is still in the loading bay tomorrow morning, it will be towed.'],
      [0, 'Oh no. I will have my son move it tonight.'],
    ]);
    const move = only(a.actionItems, (i) => /\bmove\b/i.test(i.title));
    assert.equal(move.ownerDisplayName, 'Anna Berg');
    assert.equal(move.dueDate, '2025-06-10');
    const b = await run([
      [1, 'What else? Oh, the last three pay slips, for the file.'],
      [0, 'I can download those from the payroll site. I will get them together this weekend.'],
      [1, 'Perfect.'],
    ]);
    assert.equal((b.actionItems ?? []).filter((i) => i.ownerDisplayName === 'Anna Berg').length, 1);
  });

  it('reads "could someone ...?" as a request to the listener\'s side, and "will someone ...?" as a question', () => {
    const transcript = transcriptOf(
      [
        [1, 'He has a bad cough. Could someone collect him from the gym before three?'],
        [0, 'Would somebody be able to let the plumber in on Friday?'],
        [1, 'Will someone get back to me about the refund?'],
      ],
      ['Anna Berg', 'Tom Wells'],
      recordedAt,
    );
    const acts = buildCallText(transcript, context).units.flatMap((u) => clausesOf(u).filter((c) => c.kind === 'request').map((c) => c.vp));
    assert.deepEqual(acts, ['collect him from the gym before 3', 'let the plumber in on Friday']);
  });

  it('takes a slot the user calls better, the one in the sentence that takes it, and reads a weekday said alone as the one just named with its date', async () => {
    const a = await run([
      [1, 'I can bring it back to the warehouse, or come again tomorrow between ten and twelve.'],
      [0, 'Tomorrow is better, I will be home.'],
      [1, 'Someone must sign, so if nobody is in it goes back and you would have to collect it yourself.'],
      [0, 'I will be in, no worries.'],
    ]);
    const r = only(a.actionItems, (i) => i.intent === 'reminder');
    assert.equal(r.dueDate, '2025-06-11');
    assert.equal(r.intentMetadata?.remindAt, '2025-06-11T10:00:00');
    assert.equal((a.actionItems ?? []).filter((i) => /collect/i.test(i.title)).length, 0);
    const b = await run([
      [1, 'The fitter has Monday the sixteenth at nine, or Thursday the nineteenth at two.'],
      [0, 'Monday at nine I have a class. Thursday the nineteenth at two is better.'],
      [1, 'Thursday at two it is.'],
      [0, 'Great.'],
    ]);
    const fit = only(b.actionItems, (i) => i.intent === 'reminder');
    assert.equal(fit.dueDate, '2025-06-19');
    assert.equal(fit.intentMetadata?.remindAt, '2025-06-19T14:00:00');
  });

  it('reads details asked for there and then as no errand, but details asked for on a channel as one', () => {
    const transcript = transcriptOf(
      [
        [0, 'Could you give me her number in case the van is late?'],
        [1, 'Can you tell me your new address?'],
        [0, 'Can you give me his email by text later?'],
      ],
      ['Anna Berg', 'Tom Wells'],
      recordedAt,
    );
    const acts = buildCallText(transcript, context).units.flatMap((u) => clausesOf(u).filter((c) => c.kind === 'request').map((c) => c.vp));
    assert.deepEqual(acts, ['give me his email by text later']);
  });

  it('reads "send it" as the thing just said to be sent, not a document named after it', async () => {
    const a = await run([
      [1, 'I will send you the Zoom invite for the budget review tomorrow. Are you on the mailing list?'],
      [0, 'I think so. Send it to the address you have, that is fine.'],
      [1, 'Will do.'],
    ]);
    assert.equal((a.actionItems ?? []).filter((i) => /mailing list/i.test(i.title)).length, 0);
    assert.equal(only(a.actionItems, (i) => i.intent === 'meeting').ownerDisplayName, 'Tom Wells');
    assert.equal(a.actionItems?.length, 1);
  });

  it('reads bringing people along as no errand, and bringing things as one', () => {
    const transcript = transcriptOf(
      [
        [0, 'Sunday at noon works. I will bring my husband.'],
        [1, 'Lovely, and bring the children if you can.'],
        [1, 'Please bring your own laptop.'],
      ],
      ['Anna Berg', 'Tom Wells'],
      recordedAt,
    );
    const acts = buildCallText(transcript, context).units.flatMap((u) => clausesOf(u).filter((c) => c.kind === 'request' || c.kind === 'commit').map((c) => c.vp));
    assert.deepEqual(acts, ['bring your own laptop']);
  });

  it('reads "it" as the thing the speaker brought up in the sentence before, not an invite named earlier', async () => {
    const a = await run([
      [1, 'I will send the Zoom invite tonight.'],
      [1, 'There is also a short questionnaire. Could you fill it in and send it back by Thursday?'],
      [0, 'Sure, no problem.'],
    ]);
    const t = only(a.actionItems, (i) => /questionnaire/i.test(i.title));
    assert.equal(t.ownerDisplayName, 'Anna Berg');
    assert.equal(t.intent, 'task');
    assert.equal(t.dueDate, '2025-06-12');
  });

  it('reads a generic promise right after "you can ..." as that, not as the answer to an older request', async () => {
    const a = await run([
      [1, 'Could you sign the consent form and bring it back by Friday?'],
      [0, 'Of course.'],
      [1, 'The materials fee is ten dollars, you can pay it online on the parent portal.'],
      [0, 'Okay, I will do it tomorrow.'],
    ]);
    const pay = only(a.actionItems, (i) => /\bpay\b/i.test(i.title));
    assert.equal(pay.ownerDisplayName, 'Anna Berg');
    assert.equal(pay.dueDate, '2025-06-11');
    only(a.actionItems, (i) => /consent form/i.test(i.title));
  });

  it('reads a recap\'s promise as taking on what the other party required earlier in the call', async () => {
    const a = await run([
      [1, 'Before the handover, the spare garage keys must be left in the key box.'],
      [0, 'Understood. And when is the handover?'],
      [1, 'Monday at nine. Our agent will meet you at the gate.'],
      [0, 'So just to confirm: I will leave the spare garage keys in the key box on Sunday.'],
      [1, 'That is right.'],
    ]);
    const keys = only(a.actionItems, (i) => /keys/i.test(i.title));
    assert.equal(keys.ownerDisplayName, 'Anna Berg');
    assert.equal(keys.intent, 'task');
  });
});

describe('EmbeddedAnalyzer on how people punctuate (session 20)', () => {
  const recordedAt = '2025-06-10T15:00:00Z'; // a Tuesday
  const context: AnalysisContext = { userDisplayName: 'Anna Berg', contactName: 'Tom Wells', phoneNumber: null, direction: 'OUTGOING', recordedAt, title: null };
  const run = (turns: Array<[0 | 1, string]>) => analyzer.analyze(transcriptOf(turns, ['Anna Berg', 'Tom Wells'], recordedAt), context);
  const titles = (a: Analysis) => (a.actionItems ?? []).map((i) => `${i.intent}: ${i.title}`);

  it('reads "I can X, or Y" as options put to the listener, and the one chosen as no new errand', async () => {
    const a = await run([
      [0, 'So what happens to the deposit?'],
      [1, 'Your choice. I can transfer it to your savings, or keep it on file for the next booking.'],
      [0, 'Keep it on file, we will be back in spring.'],
    ]);
    assert.deepEqual(titles(a), []);
  });

  it('reads "Yes, perfect, book that." after a time offered as the time taken, not an errand about whatever "that" was', async () => {
    const a = await run([
      [1, 'The next opening is Friday the thirteenth at ten.'],
      [0, 'Hmm, that is the day of my brother\'s graduation ceremony. Anything later?'],
      [1, 'Monday the sixteenth, same time?'],
      [0, 'Yes, perfect, book that.'],
    ]);
    assert.equal((a.actionItems ?? []).filter((i) => /graduation|book/i.test(i.title)).length, 0, JSON.stringify(titles(a)));
  });

  it('reads a heads-up asked for, with "Like a text when ..." as the next sentence, as one message', async () => {
    const a = await run([
      [0, 'Could you give me a heads up before you get here? Like a text when you are ten minutes away.'],
      [1, 'Sure, I will text you when I am ten minutes away.'],
    ]);
    const msg = only(a.actionItems, (i) => i.intent === 'message');
    assert.equal(msg.ownerDisplayName, 'Tom Wells');
    assert.equal(a.actionItems?.length, 1, JSON.stringify(titles(a)));
  });

  it('reads "I\'d better put a reminder in my phone or I\'ll forget" as a reminder the speaker sets', async () => {
    const a = await run([
      [1, 'The parts should be in by Thursday.'],
      [0, 'Great. I had better put a reminder in my phone or I will forget.'],
    ]);
    const r = only(a.actionItems, (i) => i.intent === 'reminder');
    assert.equal(r.ownerDisplayName, 'Anna Berg');
  });

  it('reads "You have to X. Just email ..." as one request, the second sentence saying how', async () => {
    const a = await run([
      [0, 'How do I get the parking permit?'],
      [1, 'You have to put the application in writing. Just email the office at permits at elm court dot org with your plate number.'],
      [0, 'Okay, I will do that tonight.'],
    ]);
    const e = only(a.actionItems, (i) => i.intent === 'email');
    assert.equal(e.ownerDisplayName, 'Anna Berg');
    assert.equal(a.actionItems?.length, 1, JSON.stringify(titles(a)));
  });

  it('reads "Try to get it in by Friday" after an e-mail asked for as that e-mail\'s deadline, not a second errand', async () => {
    const a = await run([
      [1, 'If you could e-mail us the signed lease and a copy of your ID, we can process it quickly.'],
      [0, 'Sure, where do I send it?'],
      [1, 'To leasing at elm court dot org. Try to get it in by Friday, before the owner signs.'],
      [0, 'Will do, I will send it tonight after work.'],
    ]);
    const e = only(a.actionItems, (i) => i.intent === 'email');
    assert.equal(e.ownerDisplayName, 'Anna Berg');
    assert.equal(a.actionItems?.length, 1, JSON.stringify(titles(a)));
  });

  it('reads an address dictated a few sentences before the e-mail asked for as where that e-mail goes', async () => {
    const a = await run([
      [1, 'We will need the receipts for the repair. You can email them to claims at harbor mutual dot com.'],
      [0, 'Claims at harbor mutual dot com. The repair was four hundred dollars, by the way.'],
      [1, 'That should be covered. The adjuster is Mark, he handles your area.'],
      [0, 'Good to know.'],
      [1, 'Please get the receipts to us by the end of the week.'],
      [0, 'I will send them tonight.'],
    ]);
    const e = only(a.actionItems, (i) => i.intent === 'email');
    assert.equal(e.ownerDisplayName, 'Anna Berg');
    assert.equal(a.actionItems?.length, 1, JSON.stringify(titles(a)));
  });

  it('reads "Let me check." said alone as a pause to look, not an errand, so the invite promised after it keeps its owner', async () => {
    const a = await run([
      [1, 'It is about an hour, on Zoom. Could you do Friday the thirteenth at three?'],
      [0, 'Let me check. Yes, I can do three.'],
      [1, 'Great. I will send you the Zoom invite today.'],
    ]);
    const m = only(a.actionItems, (i) => i.intent === 'meeting');
    assert.equal(m.ownerDisplayName, 'Tom Wells');
    assert.equal(a.actionItems?.length, 1, JSON.stringify(titles(a)));
  });

  it('reads "could you do Thursday at 2 p m", the letters apart as a recogniser writes them, as a time offered', () => {
    const transcript = transcriptOf([[1, 'could you do thursday the 12th at 2 p m']], ['Anna Berg', 'Tom Wells'], recordedAt);
    const acts = buildCallText(transcript, context).units.flatMap((u) => clausesOf(u).map((c) => `${c.kind}: ${c.vp}`));
    assert.deepEqual(acts, ['proposal: do thursday the 12th at 2 p m']);
  });

  it('reads "I\'ll put you down for that one" after a slot asked for as the slot taken, not an errand', async () => {
    const a = await run([
      [1, 'The earliest I have is Wednesday morning, eight till twelve.'],
      [0, 'Wednesday morning I have a meeting. Could you do Thursday afternoon instead?'],
      [1, 'Thursday afternoon is one till five. I will put you down for that one.'],
    ]);
    assert.equal((a.actionItems ?? []).filter((i) => /\bput\b.*\bdown\b/i.test(i.title)).length, 0, JSON.stringify(titles(a)));
  });
});

describe('EmbeddedAnalyzer on clause structure a new author used (session 21)', () => {
  const recordedAt = '2025-06-10T15:00:00Z'; // a Tuesday
  const context: AnalysisContext = { userDisplayName: 'Anna Berg', contactName: 'Tom Wells', phoneNumber: null, direction: 'OUTGOING', recordedAt, title: null };
  const run = (turns: Array<[0 | 1, string]>) => analyzer.analyze(transcriptOf(turns, ['Anna Berg', 'Tom Wells'], recordedAt), context);
  const acts = (turns: Array<[0 | 1, string]>) => buildCallText(transcriptOf(turns, ['Anna Berg', 'Tom Wells'], recordedAt), context).units.flatMap((u) => clausesOf(u).map((c) => `${c.kind}${c.conditional ? ' (if)' : ''}: ${c.vp}`));
  const titles = (a: Analysis) => (a.actionItems ?? []).map((i) => `${i.intent} ${i.ownerDisplayName}: ${i.title}`);

  it('reads the act after a lead-in with a colon, a recommendation, a question of where to send, and help with a task', () => {
    assert.ok(acts([[1, 'Last thing, sorry: could you bring the parking permit on Monday?']]).includes('request: bring the parking permit on Monday'));
    assert.ok(acts([[1, 'The simplest way is to text the photos to the site manager.']]).includes('request: text the photos to the site manager'));
    assert.ok(acts([[1, 'What address should I send the contract to?']]).includes('commit: send the contract'));
    assert.ok(acts([[0, 'My brother will help me carry the boxes on Saturday.']]).includes('commit: carry the boxes on Saturday'));
    assert.ok(acts([[0, 'I will fill it in tonight and get it posted tomorrow.']]).includes('commit: post it tomorrow'));
    assert.ok(acts([[1, 'Just have the meter cupboard cleared before the engineer arrives.']]).includes('request: clear the meter cupboard before the engineer arrives'));
  });

  it('keeps a promise after a comma-less condition conditional, and reads an open invitation as no errand', () => {
    assert.ok(acts([[0, 'I will call the store tomorrow, and if the refund has not come by Friday I will ring the bank.']]).includes('commit (if): ring the bank'));
    assert.deepEqual(acts([[1, 'Drop me a line whenever you are ready to order.']]).filter((a) => a.startsWith('request')), []);
  });

  it('names "him" by the kin the speaker mentioned, and a reminder "for that" by the dated thing the other party said', async () => {
    const a = await run([
      [1, 'The repair is four hundred dollars.'],
      [0, 'I need to run it past my partner. I will text him tonight.'],
      [1, 'Sure. Also, your warranty runs out next month, by the way.'],
      [0, 'Oh, I will set a reminder for that.'],
    ]);
    assert.match(only(a.actionItems, (i) => i.intent === 'message').title, /partner/i);
    assert.match(only(a.actionItems, (i) => i.intent === 'reminder').title, /warranty/i);
  });

  it('reads "it" in "email it to me" as what the asker asked for, not the link the asker will send', async () => {
    const a = await run([
      [1, 'I will send you the Zoom link tomorrow. Before then, could you write a short summary of the project?'],
      [0, 'Sure, I can do that.'],
      [1, 'If you could email it to me by Thursday, that would be great.'],
    ]);
    const e = only(a.actionItems, (i) => i.intent === 'email');
    assert.equal(e.ownerDisplayName, 'Anna Berg');
    assert.match(e.title, /summary/i);
  });

  it('makes an e-mailed link a meeting\'s only when nothing else it could be of is said, and keeps "the link in the email" off the channel', async () => {
    const a = await run([
      [1, 'The induction is on Teams on Thursday at ten.'],
      [0, 'Thursday at ten works. Can you send me the link?'],
      [1, 'Of course, I will email the link this afternoon. And I will email you the handbook link tonight.'],
    ]);
    assert.equal(only(a.actionItems, (i) => i.intent === 'meeting').ownerDisplayName, 'Tom Wells');
    assert.match(only(a.actionItems, (i) => i.intent === 'email').title, /handbook/i);
    const b = await run([
      [1, 'You can pay the fee with the link in the email, it has to be paid by Friday.'],
      [0, 'I will do it online tonight.'],
    ]);
    assert.equal((b.actionItems ?? []).filter((i) => i.intent === 'email').length, 0, JSON.stringify(titles(b)));
  });

  it('keeps a request after a promise, of another kind and verb, apart from it however its pronoun was read', async () => {
    const a = await run([
      [1, 'Jamie\'s consent form has not come back yet. Could he bring it in by Friday?'],
      [0, 'I will sign it tonight. Should I tell the other parents too?'],
      [1, 'If you could put it in the parents WhatsApp group, that would be great.'],
      [0, 'Sure, I will do that tonight.'],
    ]);
    assert.match(only(a.actionItems, (i) => i.intent === 'task' && /sign/i.test(i.title)).title, /consent form/i);
    only(a.actionItems, (i) => i.intent === 'message');
  });
  it('reads "at sixteen" as no clock time, and an offer on a condition after "unfortunately" as no yes to the request', async () => {
    assert.deepEqual(resolveDates('I tried the flat at 16 as well, nobody answered.', recordedAt, true).filter((d) => d.explicitTime), []);
    const a = await run([
      [0, 'Could you just put it in the shed?'],
      [1, 'It has to be signed for, unfortunately. I can bring it to the post office if nobody is in.'],
      [0, 'Fine, I will collect it there on Saturday.'],
    ]);
    assert.equal((a.actionItems ?? []).filter((i) => /shed|post office/i.test(i.title) && i.ownerDisplayName === 'Tom Wells').length, 0, JSON.stringify(titles(a)));
  });
});

describe('EmbeddedAnalyzer review of session 21 clause readings', () => {
  const recordedAt = '2025-06-10T15:00:00Z';
  const context: AnalysisContext = { userDisplayName: 'Anna Berg', contactName: 'Tom Wells', phoneNumber: null, direction: 'OUTGOING', recordedAt, title: null };
  const acts = (turns: Array<[0 | 1, string]>) => buildCallText(transcriptOf(turns, ['Anna Berg', 'Tom Wells'], recordedAt), context).units.flatMap((u) => clausesOf(u).map((c) => `${c.kind}${c.conditional ? ' (if)' : ''}: ${c.vp}`));

  it('reads a thing had done with its noun, not a noun ending in -ed as the participle', () => {
    assert.ok(acts([[1, 'Get a shed delivered before Friday.']]).includes('request: deliver a shed before Friday'));
    assert.ok(acts([[1, 'Get a hundred copies printed by Monday.']]).includes('request: print a hundred copies by Monday'));
  });

  it('reads no promise in what a thing will help with', () => {
    assert.deepEqual(acts([[0, 'That will help us plan the route.'], [0, 'It could help me understand the costs.']]).filter((a) => a.startsWith('commit')), []);
  });

  it('keeps a promise made for whenever the listener likes, and a look asked for after a time clause', () => {
    assert.ok(acts([[0, 'I will send the contract over whenever you like.']]).includes('commit: send the contract over whenever you like'));
    assert.ok(acts([[1, 'Before I come, if you could have a look at the boiler, that would be great.']]).includes('request: have a look at the boiler'));
  });

  it('names "her" only as an object, "fiancé" too, and writes a reminder of what the other party said in the listener\'s words', async () => {
    const run = (turns: Array<[0 | 1, string]>) => analyzer.analyze(transcriptOf(turns, ['Anna Berg', 'Tom Wells'], recordedAt), context);
    const a = await run([[0, 'I need to ask my wife first. I will call her sister tomorrow about the dates.']]);
    assert.doesNotMatch(only(a.actionItems, (i) => i.intent === 'call').title, /wife/i);
    const b = await run([[0, 'I need to check with my fiancé. I will text him tonight.']]);
    assert.match(only(b.actionItems, (i) => i.intent === 'message').title, /fiancé/i);
    const c = await run([[1, 'Also, you are due for a check-up next month.'], [0, 'Oh, I will set a reminder for that.']]);
    assert.match(only(c.actionItems, (i) => i.intent === 'reminder').title, /\bI am due\b/);
  });
});

describe('EmbeddedAnalyzer session 22 readings (retired set 7)', () => {
  const recordedAt = '2025-06-10T15:00:00Z';
  const context: AnalysisContext = { userDisplayName: 'Anna Berg', contactName: 'Tom Wells', phoneNumber: null, direction: 'OUTGOING', recordedAt, title: null };
  const run = (turns: Array<[0 | 1, string]>) => analyzer.analyze(transcriptOf(turns, ['Anna Berg', 'Tom Wells'], recordedAt), context);
  const acts = (turns: Array<[0 | 1, string]>) => buildCallText(transcriptOf(turns, ['Anna Berg', 'Tom Wells'], recordedAt), context).units.flatMap((u) => clausesOf(u).map((c) => `${c.kind}: ${c.vp}`));
  const titles = (a: Analysis) => (a.actionItems ?? []).map((i) => `${i.ownerRole} ${i.intent}: ${i.title}`);

  it('gives a memory aid that says nothing of what it is for the content the speaker just repeated', async () => {
    const a = await run([
      [1, 'And nothing to eat after eight at night, the evening before. Water is okay.'],
      [0, 'Nothing to eat after eight the evening before. I will have to set a reminder, he always begs for treats.'],
    ]);
    assert.match(only(a.actionItems, (i) => i.intent === 'reminder').title, /nothing to eat after 8/i);
  });

  it('names a memory aid that says only its day by the event announced for that day', async () => {
    const a = await run([
      [1, 'The annual boiler inspections are next week, and yours is down for Monday the 16th, between two and four.'],
      [0, 'The sixteenth. Hmm, I will be at work, but you have a key, right?'],
      [1, 'We do. Please clear the cupboard under the stairs.'],
      [0, 'Okay, I can clear that out at the weekend. And I will put a reminder in my phone for the sixteenth.'],
    ]);
    const r = only(a.actionItems, (i) => i.intent === 'reminder');
    assert.match(r.title, /boiler inspection on Monday 16 June/i);
    assert.equal(r.dueDate, '2025-06-16');
  });

  it('writes to the address the speaker settled on when they take one back', async () => {
    const said = [
      ["It's tom dot wells at yahoo dot com, no wait, at gmail dot com.", 'tom.wells@gmail.com'],
      ["It's tom at acme dot com. Sorry, tom at acme dot co dot uk.", 'tom@acme.co.uk'],
      ['My email is t wells at outlook dot com, actually no, use t wells at work mail dot com.', 'twells@workmail.com'],
      // two addresses with no correction between them: the nearest one, as before
      ["It's tom at acme dot com.", 'tom@acme.com'],
    ] as const;
    for (const [dictation, address] of said) {
      const a = await run([[1, 'Could you email me the quote?'], [0, 'Sure, what is the address?'], [1, dictation], [0, 'Got it, I will send it tonight.']]);
      assert.equal(only(a.actionItems, (i) => i.intent === 'email').intentMetadata?.toEmail, address, dictation);
    }
  });

  it('reads where a speaker will be instead as no plan of theirs', async () => {
    for (const said of ["I'll be at work all day Friday, but the side gate is open.", 'I will be away next week, so the back door is the one to use.', "I'll be in a meeting at two, but the office knows you are coming."]) {
      const a = await run([[1, 'We can fit the new meter on Friday.'], [0, said], [1, 'Fine, thanks.']]);
      // (the contact's own "we can fit the new meter on Friday" is theirs to keep)
      assert.deepEqual([...titles(a), ...(a.nextSteps ?? []).map((n) => n.text)].filter((t) => /\bbe\b/i.test(t)), [], said);
    }
  });

  it("reads the speaker's stated obligation of an errand with its day as their plan, not one to be somewhere", async () => {
    assert.ok(acts([[0, 'I will need to collect the part from the depot tomorrow.']]).includes('commit: collect the part from the depot tomorrow'));
    const a = await run([[0, 'I will need to collect the part from the depot tomorrow.'], [1, 'Right.'], [0, 'And I have to work on Saturday.']]);
    assert.deepEqual(titles(a), ['USER task: Collect the part from the depot tomorrow']);
  });

  it('reads an imperative after a sequence adverb or after ", so" as a request, and one to keep doing as none', () => {
    assert.ok(acts([[1, 'In the meantime, switch the water off at the stopcock, just to be safe.']]).some((c) => c.startsWith('request: switch the water off')));
    assert.ok(!acts([[1, 'Until then, keep using the old badge, it is valid until Friday.']]).some((c) => c.startsWith('request')));
    assert.ok(acts([[1, 'There is no bell, so text me when you are outside.']]).some((c) => c.startsWith('request: text me')));
  });

  it('reads a name asked for there and then as no errand, and a message put in a chat group as a message', async () => {
    const a = await run([[1, 'Give me your last name and I will look up the booking.'], [0, 'Berg. Anna Berg.']]);
    assert.equal((a.actionItems ?? []).filter((i) => /last name/i.test(i.title)).length, 0, JSON.stringify(titles(a)));
    const b = await run([[0, 'Deal. I will put a message in the team WhatsApp once the date is fixed, so nobody books flights at noon.']]);
    assert.equal(only(b.actionItems, (i) => /WhatsApp/.test(i.title)).intent, 'message');
  });

  it('hears a refusal in any sentence of the reply, not only its first', async () => {
    const a = await run([[0, 'Could you collect the rug from the cleaners on Thursday?'], [1, 'Thursday? Oh dear. No, sorry, I cannot do Thursday, I am away.']]);
    assert.equal((a.actionItems ?? []).filter((i) => /rug/i.test(i.title)).length, 0, JSON.stringify(titles(a)));
    // (a yes before it holds)
    const b = await run([[0, 'Could you collect the rug from the cleaners on Thursday?'], [1, 'Sure, I can. No rush on the payment?']]);
    assert.equal((b.actionItems ?? []).filter((i) => /rug/i.test(i.title)).length, 1, JSON.stringify(titles(b)));
  });

  it('takes a promise as asked for when it answers a thing ruled out, or the answer to "do I need to bring anything?"', async () => {
    const a = await run([
      [1, 'Not really, but we will need the yard clear, the lorry has to reverse right in. So no bikes in the yard that afternoon.'],
      [0, 'Okay, I will move the bikes into the shed the night before.'],
    ]);
    assert.match(only(a.actionItems, (i) => /bikes/i.test(i.title)).title, /^Move the bikes into the shed/);
    const b = await run([
      [0, 'Lovely. Do I need to bring anything?'],
      [1, 'Just his insurance certificate, since the claim went through another broker. And parking is free.'],
      [0, 'Okay, I will dig that certificate out.'],
    ]);
    assert.match(only(b.actionItems, (i) => /certificate/i.test(i.title)).title, /his insurance certificate/i);
  });

  it('reads an offer whose other option is a question to the listener as no promise', () => {
    assert.ok(!acts([[1, 'I can try the shop next door, or if there is a safe spot I can leave it there.']]).some((c) => /^(?:commit|soft)/.test(c)));
  });

  it('leaves no connective at the end of a title whose next clause was cut off', async () => {
    const a = await run([[0, 'I will put a note in my diary for Sunday morning, otherwise I will forget the whole thing.']]);
    assert.doesNotMatch(only(a.actionItems, (i) => i.intent === 'reminder').title, /\b(?:otherwise|or|and|but)\s*$/i);
  });
});

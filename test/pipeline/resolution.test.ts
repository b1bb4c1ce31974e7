import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  callFlowCue,
  callOpeningCue,
  groupUtterances,
  isAnsweringPhrase,
  matchToken,
  nameSpecOf,
  resolveSpeakers,
  type SpeakerResolutionResult,
  type Utterance,
} from '../../src/pipeline/resolution/index.js';
import type { ResolutionContext } from '../../src/pipeline/types.js';
import { corpusIds, loadTruth, type Truth } from '../support/corpus.js';

/** A dialogue as `[speaker, text]` turns, one second apart. */
function turns(...lines: Array<[string, string]>): Utterance[] {
  return lines.map(([sourceSpeakerId, text], i) => ({ sourceSpeakerId, text, start: i * 2, end: i * 2 + 1.5 }));
}

function ctx(over: Partial<ResolutionContext> = {}): ResolutionContext {
  return {
    userDisplayName: 'Maria Lopez',
    contactName: 'Daniel Okafor',
    phoneNumber: '+1 555 310 2284',
    direction: 'OUTGOING',
    voiceEmbeddingEnabled: false,
    ...over,
  };
}

function resolve(utterances: Utterance[], context: ResolutionContext = ctx()): SpeakerResolutionResult {
  return resolveSpeakers(groupUtterances(utterances), context);
}

function speaker(r: SpeakerResolutionResult, id: string) {
  const s = r.speakers.find((x) => x.sourceSpeakerId === id);
  assert.ok(s, `speaker ${id} present`);
  return s;
}

const NEUTRAL_REPLY = 'Sure, that works for me. Talk soon.';

describe('label sources', () => {
  it('USER_PROFILE: the whole supplied user name in a self-introduction', () => {
    const r = resolve(turns(['A', 'Good morning.'], ['B', 'Hi, this is Maria Lopez. I am calling about the quote.'], ['A', NEUTRAL_REPLY]));
    assert.deepEqual(
      { role: speaker(r, 'B').role, src: speaker(r, 'B').labelSource, conf: speaker(r, 'B').confidence, name: speaker(r, 'B').displayName },
      { role: 'USER', src: 'USER_PROFILE', conf: 'HIGH', name: 'Maria Lopez' },
    );
    assert.equal(speaker(r, 'A').role, 'CONTACT');
    assert.equal(speaker(r, 'A').labelSource, 'BY_ELIMINATION');
    assert.equal(speaker(r, 'A').confidence, 'MEDIUM');
    assert.equal(speaker(r, 'A').displayName, 'Daniel Okafor');
    assert.deepEqual(r.speakerResolution.warnings, []);
    assert.equal(r.speakerResolution.resolvedSpeakerCount, 2);
    assert.equal(r.speakerResolution.usedUserDisplayName, true);
  });

  it('USER_PROFILE: the other speaker asks for the user by full name', () => {
    const r = resolve(
      turns(['A', 'Hello?'], ['B', 'Hello, this is the fraud team at Harbor Bank. Am I speaking with Maria Lopez?'], ['A', 'Yes.']),
      ctx({ direction: 'INCOMING' }),
    );
    assert.equal(speaker(r, 'A').role, 'USER');
    assert.equal(speaker(r, 'A').labelSource, 'USER_PROFILE');
    assert.equal(speaker(r, 'B').role, 'CONTACT');
  });

  it('CONTACT_METADATA: the contact names its organisation in full', () => {
    const r = resolve(
      turns(['A', 'Hello?'], ['B', "Hi, I'm calling from Bayview Logistics about a demo."], ['A', 'Happy to help.']),
      ctx({ userDisplayName: 'Olivia Park', contactName: 'Bayview Logistics', direction: 'INCOMING' }),
    );
    assert.equal(speaker(r, 'B').role, 'CONTACT');
    assert.equal(speaker(r, 'B').labelSource, 'CONTACT_METADATA');
    assert.equal(speaker(r, 'B').confidence, 'HIGH');
    assert.equal(speaker(r, 'B').displayName, 'Bayview Logistics');
    assert.equal(speaker(r, 'A').role, 'USER');
    assert.equal(speaker(r, 'A').labelSource, 'BY_ELIMINATION');
    assert.equal(r.speakerResolution.usedContactName, true);
  });

  it('GREETING_MATCH (HIGH): greeting the other by first name and introducing oneself', () => {
    const r = resolve(turns(['A', "Hi Daniel, it's Maria. You came by on Saturday."], ['B', 'Of course. The roof comes to four thousand.']));
    assert.equal(speaker(r, 'A').role, 'USER');
    assert.equal(speaker(r, 'A').labelSource, 'GREETING_MATCH');
    assert.equal(speaker(r, 'A').confidence, 'HIGH');
    assert.equal(speaker(r, 'B').role, 'CONTACT');
    assert.equal(speaker(r, 'B').labelSource, 'GREETING_MATCH');
    assert.equal(speaker(r, 'B').label, 'Daniel Okafor');
  });

  it('GREETING_MATCH: honorific + surname in a greeting, and "<name> speaking"', () => {
    const r1 = resolve(turns(['A', 'Good morning Mr Okafor, I have a question about the roof.'], ['B', NEUTRAL_REPLY]));
    assert.equal(speaker(r1, 'B').role, 'CONTACT');
    assert.equal(speaker(r1, 'B').labelSource, 'GREETING_MATCH');
    assert.equal(speaker(r1, 'A').labelSource, 'BY_ELIMINATION');

    const r2 = resolve(turns(['A', 'Hello, Daniel speaking.'], ['B', 'Hi, I have a question about the roof.']));
    assert.equal(speaker(r2, 'A').role, 'CONTACT');
    assert.equal(speaker(r2, 'A').labelSource, 'GREETING_MATCH');
    assert.equal(speaker(r2, 'B').role, 'USER');
  });

  it('answering with one\'s own full name after a greeting is a self-introduction (issue 28)', () => {
    // "Hello, Frank Harris." picks up the phone; the caller's "Hi Mr Harris" agrees with it
    const r = resolve(
      turns(['A', 'hello franco harris'], ['B', 'hi mr harris this is no i came from the city permit office'], ['A', 'thanks north']),
      ctx({ userDisplayName: 'Frank Harris', contactName: 'City Permit Office', direction: 'INCOMING' }),
    );
    assert.equal(speaker(r, 'A').role, 'USER');
    assert.equal(speaker(r, 'A').labelSource, 'GREETING_MATCH');
    assert.equal(speaker(r, 'B').role, 'CONTACT');
    // later in the call, or with more words after it, a greeting with a full name still addresses the listener
    const later = resolve(
      turns(['A', 'Hello?'], ['B', 'Hi, I have a question.'], ['A', 'Sure.'], ['B', 'Hello Maria Lopez'], ['A', NEUTRAL_REPLY]),
    );
    assert.equal(speaker(later, 'A').role, 'USER');
    const more = resolve(turns(['A', 'Hello Daniel Okafor, it is about the roof.'], ['B', NEUTRAL_REPLY]));
    assert.equal(speaker(more, 'B').role, 'CONTACT');
  });

  it('answering with one\'s own name, surname misheard, then "speaking" is a self-introduction', () => {
    // "Hello, Nora Quill speaking." with the surname heard as a word that sounds like it; the
    // greeting before the first name would otherwise make it an address to the user
    const c = ctx({ userDisplayName: 'Nora Quill', contactName: null, phoneNumber: '+1 555 201 4433', direction: 'INCOMING' });
    const r = resolve(turns(['A', 'hello nora quit speaking'], ['B', 'good morning this is the front desk at the library your books are ready'], ['A', 'great thank you']), c);
    assert.equal(speaker(r, 'A').role, 'USER');
    assert.equal(speaker(r, 'B').role, 'CONTACT');
    // a caller greeting the user and naming themselves with a first name is still the caller
    const caller = resolve(turns(['A', 'hi nora steve speaking'], ['B', 'oh hi how are you'], ['A', 'fine thanks']), c);
    assert.equal(speaker(caller, 'A').role, 'CONTACT');
    // and a word that sounds nothing like the surname is not taken for it
    const other = resolve(turns(['A', 'hello nora table speaking'], ['B', 'yes hello'], ['A', 'fine thanks']), c);
    assert.notEqual(speaker(other, 'A').role, 'USER');
  });

  it('GREETING_MATCH (MEDIUM): a first name that is not the user\'s in a self-introduction', () => {
    const r = resolve(
      turns(['A', 'Hello?'], ['B', "Hi, Dr. Patel's office, this is Janet. I have your results."], ['A', 'Oh, thanks.']),
      ctx({ userDisplayName: 'Tom Becker', contactName: 'Riverside Family Practice', direction: 'INCOMING' }),
    );
    assert.equal(speaker(r, 'B').role, 'CONTACT');
    assert.equal(speaker(r, 'B').labelSource, 'GREETING_MATCH');
    assert.equal(speaker(r, 'B').confidence, 'MEDIUM');
    // The contact is an organisation: the person who introduced themselves is shown (issue 28).
    assert.equal(speaker(r, 'B').displayName, 'Janet');
    assert.equal(speaker(r, 'A').role, 'USER');
    assert.deepEqual(r.speakerResolution.warnings, []);
  });

  it('NAME_MENTION: a name used in passing points at the listener', () => {
    const r = resolve(
      turns(['A', 'Hello?'], ['B', 'Hi, I wanted to follow up on the interview.'], ['A', 'Perfect, Ethan. I will send the invite.'], ['B', 'Great, thank you.']),
      ctx({ userDisplayName: 'Ethan Brooks', contactName: 'Priya Shah' }),
    );
    assert.equal(speaker(r, 'B').role, 'USER');
    assert.equal(speaker(r, 'B').labelSource, 'NAME_MENTION');
    assert.equal(speaker(r, 'B').confidence, 'MEDIUM');
    assert.equal(speaker(r, 'A').role, 'CONTACT');
    assert.equal(speaker(r, 'A').labelSource, 'BY_ELIMINATION');
  });

  it('BY_ELIMINATION and PHONE_FALLBACK: the remaining speaker, shown with the phone label when no contact name', () => {
    const r = resolve(
      turns(['A', 'Hello?'], ['B', 'Hello, am I speaking with Laura Chen?'], ['A', 'Yes, this is Laura.']),
      ctx({ userDisplayName: 'Laura Chen', contactName: null, phoneNumber: '+1 555 600 0134', direction: 'INCOMING' }),
    );
    assert.equal(speaker(r, 'A').role, 'USER');
    assert.equal(speaker(r, 'B').role, 'CONTACT');
    assert.equal(speaker(r, 'B').labelSource, 'PHONE_FALLBACK');
    assert.equal(speaker(r, 'B').displayName, 'Contact ending 0134');
    assert.equal(speaker(r, 'B').label, 'Contact ending 0134');
    assert.equal(speaker(r, 'B').confidence, 'MEDIUM');
    assert.equal(r.speakerResolution.usedPhoneFallback, true);
    assert.equal(r.speakerResolution.usedContactName, false);
  });

  it('POSITIONAL_FALLBACK: direction-aware guess, LOW, warning', () => {
    const dialogue = turns(['A', 'Hello?'], ['B', 'Hi, the heating stopped again.'], ['A', 'I will send someone.']);
    const outgoing = resolve(dialogue, ctx({ direction: 'OUTGOING' }));
    assert.deepEqual(outgoing.speakers.map((s) => [s.role, s.labelSource, s.confidence]), [
      ['CONTACT', 'POSITIONAL_FALLBACK', 'LOW'],
      ['USER', 'POSITIONAL_FALLBACK', 'LOW'],
    ]);
    assert.deepEqual(outgoing.speakerResolution.warnings, ['speaker_roles_unresolved']);
    assert.equal(outgoing.speakerResolution.usedDirection, true);
    assert.equal(outgoing.speakerResolution.resolvedSpeakerCount, 0);

    const incoming = resolve(dialogue, ctx({ direction: 'INCOMING' }));
    assert.deepEqual(incoming.speakers.map((s) => s.role), ['USER', 'CONTACT']);
    assert.equal(incoming.speakers[0].displayName, 'Maria Lopez');
  });

  it('DIARIZATION: no evidence and no direction leaves both UNKNOWN', () => {
    const r = resolve(turns(['A', 'Hello?'], ['B', 'Hi, the heating stopped again.']), ctx({ direction: null }));
    assert.deepEqual(r.speakers.map((s) => [s.role, s.labelSource, s.confidence, s.displayName]), [
      ['UNKNOWN', 'DIARIZATION', 'LOW', 'Speaker 1'],
      ['UNKNOWN', 'DIARIZATION', 'LOW', 'Speaker 2'],
    ]);
    assert.deepEqual(r.speakerResolution.warnings, ['speaker_roles_unresolved']);
    assert.equal(r.speakerResolution.usedDirection, false);
  });

  it('AMBIGUOUS: both speakers say both names', () => {
    const r = resolve(
      turns(['A', 'Hello, Jamie speaking.'], ['B', "Jamie, it's Chris. Got a minute?"], ['A', 'Sure, Chris.']),
      ctx({ userDisplayName: 'Chris Walker', contactName: 'Jamie Walker' }),
    );
    assert.deepEqual(r.speakers.map((s) => [s.role, s.labelSource, s.displayName]), [
      ['UNKNOWN', 'AMBIGUOUS', 'Speaker 1'],
      ['UNKNOWN', 'AMBIGUOUS', 'Speaker 2'],
    ]);
    assert.ok(r.speakers.every((s) => s.confidence === 'MEDIUM'));
    assert.deepEqual(r.speakerResolution.warnings, ['speaker_identity_ambiguous']);
    assert.equal(r.speakerResolution.resolvedSpeakerCount, 0);
  });

  it('a name said after the opening exchange does not make the introductions ambiguous (issue 28)', () => {
    // The contact's own introduction as a recogniser might mangle it ("okafor" heard as "okay for"),
    // and the user thanking the contact by name as the call ends.
    const r = resolve(
      turns(
        ['A', 'Good afternoon, this is Maria.'],
        ['B', 'Hi Maria, Daniel okay for here, the invoice went out this morning.'],
        ['A', 'Great, I will look for it.'],
        ['B', 'It should arrive by Friday.'],
        ['A', 'Perfect.'],
        ['B', 'Anything else I can do?'],
        ['A', 'No, that is all. Thanks a lot, Daniel.'],
      ),
      ctx({ direction: 'INCOMING' }),
    );
    assert.deepEqual(r.speakers.map((s) => [s.role, s.displayName]), [
      ['USER', 'Maria Lopez'],
      ['CONTACT', 'Daniel Okafor'],
    ]);
    assert.equal(speaker(r, 'A').labelSource, 'GREETING_MATCH');
    assert.deepEqual(r.speakerResolution.warnings, []);
  });

  it('AMBIGUOUS: both names from both speakers inside the opening exchange still count', () => {
    // The same shape as above, but the user's closing thanks comes early, among the first turns.
    const r = resolve(
      turns(
        ['A', 'Good afternoon, this is Maria.'],
        ['B', 'Hi Maria, Daniel okay for here, the invoice went out this morning.'],
        ['A', 'Thanks a lot, Daniel.'],
      ),
      ctx({ direction: 'INCOMING' }),
    );
    assert.ok(r.speakers.every((s) => s.role === 'UNKNOWN' && s.labelSource === 'AMBIGUOUS'));
    assert.deepEqual(r.speakerResolution.warnings, ['speaker_identity_ambiguous']);
  });

  it('AMBIGUOUS: evenly contradicting evidence with nothing to break the tie', () => {
    const r = resolve(turns(['A', 'Hi Daniel.'], ['B', 'Hi Daniel.']));
    assert.ok(r.speakers.every((s) => s.role === 'UNKNOWN' && s.labelSource === 'AMBIGUOUS'));
    assert.deepEqual(r.speakerResolution.warnings, ['speaker_identity_ambiguous']);
  });
});

describe('answering phrase', () => {
  const phrase = turns(['A', 'Hello, Acme Dental, how can I help?'], ['B', "Hi, I'd like to book a cleaning."], ['A', 'Sure.']);

  it('OUTGOING: the answerer is the contact', () => {
    const r = resolve(phrase, ctx({ userDisplayName: 'Marcus Bell', contactName: 'Dentist' }));
    assert.equal(speaker(r, 'A').role, 'CONTACT');
    assert.equal(speaker(r, 'A').labelSource, 'GREETING_MATCH');
    assert.equal(speaker(r, 'A').confidence, 'MEDIUM');
    assert.equal(speaker(r, 'A').displayName, 'Dentist');
    assert.equal(speaker(r, 'B').role, 'USER');
    assert.equal(speaker(r, 'B').labelSource, 'BY_ELIMINATION');
    assert.deepEqual(r.speakerResolution.warnings, ['answering_pattern_used']);
    assert.equal(r.speakerResolution.usedDirection, true);
  });

  it('the business answering with its own name, unpunctuated, introduces itself (issue 28)', () => {
    // As a recogniser writes "Passport Agency, how can I help?": no comma to tell it from a vocative.
    const heard = turns(['A', 'Passport agency how can I help'], ['B', 'I am checking on my passport application'], ['A', 'Thank you your application is on hold']);
    const r = resolve(heard, ctx({ userDisplayName: 'Alice Morgan', contactName: 'Passport Agency' }));
    assert.equal(speaker(r, 'A').role, 'CONTACT');
    assert.equal(speaker(r, 'B').role, 'USER');
  });

  it('INCOMING: the answerer is the user', () => {
    const r = resolve(phrase, ctx({ userDisplayName: 'Olivia Park', contactName: 'Bayview Logistics', direction: 'INCOMING' }));
    assert.equal(speaker(r, 'A').role, 'USER');
    assert.equal(speaker(r, 'A').displayName, 'Olivia Park');
    assert.deepEqual(r.speakerResolution.warnings, ['answering_pattern_used']);
  });

  it('counts only in the opening turn', () => {
    const r = resolve(
      turns(['A', 'Hello?'], ['B', "Hi, Dr. Smith's office, how can I help?"], ['A', 'Hi.']),
      ctx({ userDisplayName: 'Marcus Bell', contactName: 'Dentist', direction: 'INCOMING' }),
    );
    assert.equal(speaker(r, 'A').labelSource, 'POSITIONAL_FALLBACK');
    assert.deepEqual(r.speakerResolution.warnings, ['speaker_roles_unresolved']);
  });

  it('recognises the documented forms and not a caller introducing themselves', () => {
    const specs = { user: nameSpecOf('Laura Chen', 'user'), contact: null };
    for (const text of [
      "Dr Smith's office, how can I help?",
      'Thank you for calling Harbor Bank.',
      'Acme Dental speaking.',
      'Hello, this is Acme Dental.',
      'good morning skyline software how can i help',
    ]) assert.equal(isAnsweringPhrase(text, specs), true, text);
    for (const text of [
      'Hello?',
      'Hello, this is the fraud team at Harbor Bank. Am I speaking with Laura Chen?',
      'Hello, this is Laura.',
      'Yes, speaking.',
      "Hi, it's the garage calling about your car.",
    ]) assert.equal(isAnsweringPhrase(text, specs), false, text);
  });

  it('a name-based label outranks the answering phrase, which then adds no warning', () => {
    const r = resolve(
      turns(['A', 'Thank you for calling Acme Dental, how can I help?'], ['B', 'Hi, I need a cleaning.']),
      ctx({ userDisplayName: 'Marcus Bell', contactName: 'Acme Dental' }),
    );
    assert.equal(speaker(r, 'A').role, 'CONTACT');
    assert.equal(speaker(r, 'A').labelSource, 'CONTACT_METADATA');
    assert.deepEqual(r.speakerResolution.warnings, []);
  });
});

describe('a business that names itself (issue 28)', () => {
  it('a name made of a place and a trade is an organisation, not a person', () => {
    assert.equal(nameSpecOf('Maple Avenue Bakery', 'contact')?.personLike, false);
    assert.equal(nameSpecOf('Harbor Point Veterinary', 'contact')?.personLike, false);
    assert.equal(nameSpecOf('Tom Becker', 'contact')?.personLike, true);
  });

  it('"<organisation> calling" in its first turn introduces it, whatever was heard before it', () => {
    const r = resolve(
      turns(
        ['A', 'Hello.'],
        ['B', 'Uh so and maple avenue bakery calling for you, the cake order is ready.'],
        ['A', 'Oh good, I will come by at noon.'],
      ),
      ctx({ userDisplayName: 'Tom Becker', contactName: 'Maple Avenue Bakery', direction: 'INCOMING' }),
    );
    assert.equal(speaker(r, 'B').role, 'CONTACT');
    assert.equal(speaker(r, 'B').labelSource, 'CONTACT_METADATA');
    assert.equal(speaker(r, 'A').role, 'USER');
    assert.deepEqual(r.speakerResolution.warnings, []);
  });

  it('an organisation\'s name before "calling" after "from" or "was that" is someone else\'s', () => {
    const r = resolve(
      turns(['A', 'Good morning.'], ['B', 'Hi, I got a message from maple avenue bakery calling about my cake order.'], ['A', 'Let me look that up.']),
      ctx({ userDisplayName: 'Tom Becker', contactName: 'Maple Avenue Bakery', direction: 'OUTGOING' }),
    );
    assert.notEqual(speaker(r, 'B').role, 'CONTACT');
  });

  it('an organisation\'s whole name opening the call is the organisation answering, even without "how" (issue 28)', () => {
    // "City Tax Office, how may I help you?" heard with its "how" as "hi": read as a vocative, the
    // office's own name addressed the caller and crossed the roles.
    const context = ctx({ userDisplayName: 'Steven Ward', contactName: 'Riverton Water Office', direction: 'OUTGOING' });
    for (const opening of ['Riverton water office hi may I help you', 'Good morning, Riverton Water Office.']) {
      const r = resolve(turns(['A', opening], ['B', "Hi, I got a bill and I don't understand it."], ['A', 'Let me check.']), context);
      assert.equal(speaker(r, 'A').role, 'CONTACT', opening);
      assert.equal(speaker(r, 'A').labelSource, 'CONTACT_METADATA', opening);
      assert.equal(speaker(r, 'B').role, 'USER', opening);
    }
  });

  it('a caller who names the office they reached and says why they call still addresses it', () => {
    const r = resolve(
      turns(['A', 'Hello?'], ['B', "Hi, Riverton Water Office? I'd like to ask about my bill."], ['A', 'Sure, what is the account number?']),
      ctx({ userDisplayName: 'Steven Ward', contactName: 'Riverton Water Office', direction: 'OUTGOING' }),
    );
    assert.equal(speaker(r, 'B').role, 'USER');
    assert.equal(speaker(r, 'A').role, 'CONTACT');
    // only the call's first turn is the answerer's: after it, the name opening a turn is the caller's
    const second = resolve(
      turns(['A', 'Good morning, how can I help?'], ['B', 'Hi, Riverton Water Office, I need to ask about my bill.'], ['A', 'Sure, what is the account number?']),
      ctx({ userDisplayName: 'Steven Ward', contactName: 'Riverton Water Office', direction: 'OUTGOING' }),
    );
    assert.equal(second.speakers.find((s) => s.sourceSpeakerId === 'B')?.role, 'USER');
  });

  it('"this is <someone> at <organisation>" introduces the organisation; "my appointment at" does not', () => {
    const context = ctx({ userDisplayName: 'Rachel Brooks', contactName: 'Jefferson Elementary', direction: 'INCOMING' });
    for (const intro of ["Hi, it's the front office at Jefferson Elementary, your son left his lunch box on the bus.", 'Hello, this is Paul Gomez at jefferson elementary.']) {
      const r = resolve(turns(['A', 'Hello?'], ['B', intro], ['A', 'Oh, thanks for letting me know.']), context);
      assert.equal(speaker(r, 'B').role, 'CONTACT', intro);
      assert.equal(speaker(r, 'B').labelSource, 'CONTACT_METADATA', intro);
      assert.equal(speaker(r, 'A').role, 'USER', intro);
    }
    const caller = resolve(
      turns(['A', 'Hello.'], ['B', "Hi, I'm calling about my appointment at Bright Smile Dental."], ['A', 'Sure.']),
      ctx({ userDisplayName: 'Rachel Brooks', contactName: 'Bright Smile Dental', direction: 'OUTGOING' }),
    );
    assert.notEqual(speaker(caller, 'B').labelSource, 'CONTACT_METADATA');
  });

  it('a school or an office named after a person is an organisation (issue 28)', () => {
    assert.equal(nameSpecOf('Lincoln Elementary', 'contact')?.personLike, false);
    assert.equal(nameSpecOf('Madison County Clerk', 'contact')?.personLike, false);
    assert.equal(nameSpecOf('Grant Academy', 'contact')?.personLike, false);
    assert.equal(nameSpecOf('Lincoln Brooks', 'contact')?.personLike, true);
    // The office saying its own name in passing does not point at the listener.
    const r = resolve(
      turns(['A', 'Hello?'], ['B', 'Hi, your son left his jacket on the bus, so Jefferson Elementary has it at the front desk.'], ['A', 'Thanks, I will get it at three.']),
      ctx({ userDisplayName: 'Rachel Brooks', contactName: 'Jefferson Elementary', direction: 'INCOMING' }),
    );
    assert.equal(speaker(r, 'A').role, 'USER');
    assert.equal(speaker(r, 'B').role, 'CONTACT');
  });

  it('a first name that is also an ordinary word before a surname is a person ("Frank Miller")', () => {
    assert.equal(nameSpecOf('Frank Miller', 'contact')?.personLike, true);
    assert.equal(nameSpecOf('Frank Miller Plumbing', 'contact')?.personLike, false);
    // so "Hi Frank" greets the contact; taken for a business, the first word alone was never matched
    const r = resolve(
      turns(['A', 'Hello?'], ['B', "Hi Frank, it's about the lease."], ['A', 'Yes, I have it ready.']),
      ctx({ userDisplayName: 'Anna Lopez', contactName: 'Frank Miller', direction: 'OUTGOING' }),
    );
    assert.equal(speaker(r, 'A').role, 'CONTACT');
    assert.equal(speaker(r, 'A').labelSource, 'GREETING_MATCH');
  });

  it('family filed by relation ("Mom", "Aunt Rosa") are people, not organisations answering', () => {
    assert.equal(nameSpecOf('Mom', 'contact')?.personLike, true);
    assert.equal(nameSpecOf('Aunt Rosa', 'contact')?.personLike, true);
    assert.equal(nameSpecOf('Grandma', 'contact')?.personLike, true);
    const r = resolve(
      turns(['A', 'Hello?'], ['B', 'Hi Aunt Rosa, how was the party on Saturday?'], ['A', 'It was lovely, everybody came.']),
      ctx({ userDisplayName: 'Peter Young', contactName: 'Aunt Rosa', direction: 'OUTGOING' }),
    );
    assert.equal(speaker(r, 'B').role, 'USER');
    assert.equal(speaker(r, 'A').role, 'CONTACT');
  });

  it('an organisation\'s name before "calling" later in the call is no introduction', () => {
    const r = resolve(
      turns(['A', 'Hello.'], ['B', 'Hi, I have a question about my order.'], ['A', 'Sure.'], ['B', 'I thought I heard maple avenue bakery calling for me yesterday.']),
      ctx({ userDisplayName: 'Tom Becker', contactName: 'Maple Avenue Bakery', direction: 'OUTGOING' }),
    );
    assert.notEqual(speaker(r, 'B').labelSource, 'CONTACT_METADATA');
  });
});

describe('call-opening cues', () => {
  it('OUTGOING, the user speaks first and introduces a business while returning a call: the user', () => {
    const r = resolve(
      turns(
        ['A', 'Hi, this is the front desk at Harbor Clinic, returning your call about the appointment on Friday.'],
        ['B', 'Oh yes, thanks. Can we move it to the afternoon?'],
        ['A', 'Sure, three o clock works.'],
      ),
      ctx({ userDisplayName: 'Nina Park', contactName: 'Daniel Okafor', direction: 'OUTGOING' }),
    );
    assert.equal(speaker(r, 'A').role, 'USER');
    assert.equal(speaker(r, 'A').displayName, 'Nina Park');
    assert.equal(speaker(r, 'A').confidence, 'MEDIUM');
    assert.equal(speaker(r, 'A').labelSource, 'GREETING_MATCH');
    assert.equal(speaker(r, 'B').role, 'CONTACT');
    assert.equal(speaker(r, 'B').confidence, 'MEDIUM');
    assert.equal(speaker(r, 'B').labelSource, 'BY_ELIMINATION');
    assert.deepEqual(r.speakerResolution.warnings, ['answering_pattern_used']);
    assert.equal(r.speakerResolution.usedDirection, true);
  });

  it('INCOMING: the one who says "I\'m calling about" is the contact, even in the second turn', () => {
    const r = resolve(
      turns(['A', 'Hello?'], ['B', "Hi, I'm calling about the invoice you sent last week."], ['A', 'Right, what about it?']),
      ctx({ userDisplayName: 'Nina Park', contactName: 'Daniel Okafor', direction: 'INCOMING' }),
    );
    assert.equal(speaker(r, 'B').role, 'CONTACT');
    assert.equal(speaker(r, 'A').role, 'USER');
    assert.equal(speaker(r, 'A').confidence, 'MEDIUM');
    assert.deepEqual(r.speakerResolution.warnings, ['answering_pattern_used']);
  });

  it('"thanks for calling" later in the opening marks the one who took the call', () => {
    const r = resolve(
      turns(['A', 'Hi there.'], ['B', 'Hi, thanks for calling me back so quickly.'], ['A', 'No problem.']),
      ctx({ userDisplayName: 'Nina Park', contactName: 'Daniel Okafor', direction: 'OUTGOING' }),
    );
    // B took this call, so on an outgoing call B is the contact (position alone would say A).
    assert.equal(speaker(r, 'B').role, 'CONTACT');
    assert.equal(speaker(r, 'A').role, 'USER');
  });

  it('count only in the opening turns, and name evidence outranks them', () => {
    const late = resolve(
      turns(['A', 'Hello?'], ['B', 'Hi.'], ['A', 'How are you?'], ['B', 'Good.'], ['A', 'Fine.'], ['B', "I'm calling about the car."]),
      ctx({ userDisplayName: 'Nina Park', contactName: 'Daniel Okafor', direction: 'INCOMING' }),
    );
    assert.equal(speaker(late, 'A').labelSource, 'POSITIONAL_FALLBACK');
    const named = resolve(
      turns(['A', 'Hi Daniel, returning your call about the quote.'], ['B', 'Great, thanks.']),
      ctx({ userDisplayName: 'Nina Park', contactName: 'Daniel Okafor', direction: 'INCOMING' }),
    );
    // The greeting says B is Daniel (the contact): HIGH, whatever the cue would suggest.
    assert.equal(speaker(named, 'B').role, 'CONTACT');
    assert.equal(speaker(named, 'B').confidence, 'HIGH');
    assert.deepEqual(named.speakerResolution.warnings, []);
  });

  it('asking for someone by name is the caller, even with the name misheard; "who am I speaking with" is not', () => {
    // The user's "Hello?" diarized into the caller's first turn, the name after the question misheard:
    // without the cue only the positional guess was left, and it made the caller the user.
    const r = resolve(
      turns(['A', 'Hello good afternoon with the county clerks office am I speaking with with a pair of'], ['B', 'Yes this is she.'], ['A', 'You overpaid your property tax.'], ['B', 'Oh, good.']),
      ctx({ userDisplayName: 'Linda Perez', contactName: 'County Tax Office', direction: 'INCOMING' }),
    );
    assert.equal(speaker(r, 'A').role, 'CONTACT');
    assert.equal(speaker(r, 'B').role, 'USER');
    assert.equal(callOpeningCue('May I speak to the account holder?'), 'caller');
    assert.equal(callOpeningCue('Who am I speaking with?'), null);
  });

  it('"it\'s me" opening a turn is the caller, who expects to be known by voice', () => {
    // The answerer's "Hello?" lost (or diarized into the caller's turn): the caller speaks first.
    const r = resolve(
      turns(['A', "Hey, it's me. My flight lands on Friday, can you pick me up?"], ['B', "Sure, I'll be there."], ['A', 'Thanks.']),
      ctx({ userDisplayName: 'Sarah Carter', contactName: 'Luke Carter', direction: 'INCOMING' }),
    );
    assert.equal(speaker(r, 'A').role, 'CONTACT');
    assert.equal(speaker(r, 'B').role, 'USER');
    assert.equal(callOpeningCue('Is it me you are looking for?'), null);
  });

  it('recognises the documented cues and leaves plain talk alone', () => {
    for (const text of ['returning your call about the leak', 'you called about the apartment?', "hi i'm calling about my order", 'we are calling from the clinic', 'I got your message this morning'])
      assert.equal(callOpeningCue(text), 'caller', text);
    for (const text of ['Thanks for calling!', 'thank you so much for getting back to me']) assert.equal(callOpeningCue(text), 'answerer', text);
    for (const text of ['Hello?', 'I will call you tomorrow', 'the technician called yesterday', 'thanks for calling, returning your call later']) assert.equal(callOpeningCue(text), null, text);
  });
});

describe('voice embedding', () => {
  const noNames = turns(['A', 'Hello?'], ['B', 'Hi, the heating stopped again.'], ['A', 'I will send someone.']);
  const voice = (scores: Record<string, number>, status: 'MATCHED' | 'NO_MATCH' = 'MATCHED') => ({
    voiceEmbeddingEnabled: true,
    voice: { status, scores, threshold: 0.7 },
  });

  it('the best speaker above the threshold is the user; the other by elimination', () => {
    const r = resolve(noNames, ctx(voice({ A: 0.31, B: 0.88 })));
    assert.equal(speaker(r, 'B').role, 'USER');
    assert.equal(speaker(r, 'B').labelSource, 'VOICE_EMBEDDING');
    assert.equal(speaker(r, 'B').confidence, 'HIGH');
    assert.equal(speaker(r, 'B').voiceMatchScore, 0.88);
    assert.equal(speaker(r, 'B').voiceProfileMatched, true);
    assert.equal(speaker(r, 'A').role, 'CONTACT');
    assert.equal(speaker(r, 'A').labelSource, 'BY_ELIMINATION');
    assert.equal(speaker(r, 'A').voiceProfileMatched, false);
    assert.equal(r.speakerResolution.voiceProfileUsed, true);
    assert.equal(r.speakerResolution.voiceMatchStatus, 'MATCHED');
    assert.deepEqual(r.speakerResolution.warnings, []);
  });

  it('a contradicting greeting wins over the voice match', () => {
    const r = resolve(turns(['A', "Hi Daniel, it's Maria."], ['B', 'Of course.']), ctx(voice({ A: 0.2, B: 0.75 })));
    assert.equal(speaker(r, 'A').role, 'USER');
    assert.equal(speaker(r, 'A').labelSource, 'GREETING_MATCH');
    assert.equal(r.speakerResolution.voiceProfileUsed, false);
    // The matcher's own finding stays visible.
    assert.equal(speaker(r, 'B').voiceProfileMatched, true);
  });

  it('an agreeing greeting leaves the user labelled by voice and the contact by its own greeting', () => {
    const r = resolve(turns(['A', "Hi Daniel, it's Maria."], ['B', 'Of course.']), ctx(voice({ A: 0.9, B: 0.1 })));
    assert.equal(speaker(r, 'A').labelSource, 'VOICE_EMBEDDING');
    assert.equal(speaker(r, 'B').labelSource, 'GREETING_MATCH');
  });

  it('decides a call whose names are ambiguous', () => {
    const r = resolve(
      turns(['A', 'Hello, Jamie speaking.'], ['B', "Jamie, it's Chris."], ['A', 'Sure, Chris.']),
      ctx({ userDisplayName: 'Chris Walker', contactName: 'Jamie Walker', ...voice({ A: 0.1, B: 0.9 }) }),
    );
    assert.equal(speaker(r, 'B').role, 'USER');
    assert.equal(speaker(r, 'B').labelSource, 'VOICE_EMBEDDING');
    assert.equal(speaker(r, 'A').labelSource, 'BY_ELIMINATION');
    assert.deepEqual(r.speakerResolution.warnings, []);
  });

  it('NO_MATCH keeps scores but decides nothing; DISABLED and NO_PROFILE report no scores', () => {
    const r = resolve(noNames, ctx(voice({ A: 0.3, B: 0.4 }, 'NO_MATCH')));
    assert.equal(r.speakerResolution.voiceMatchStatus, 'NO_MATCH');
    assert.equal(speaker(r, 'A').labelSource, 'POSITIONAL_FALLBACK');
    assert.equal(speaker(r, 'B').voiceMatchScore, 0.4);
    assert.equal(speaker(r, 'B').voiceProfileMatched, false);

    const disabled = resolve(noNames, ctx());
    assert.equal(disabled.speakerResolution.voiceMatchStatus, 'DISABLED');
    assert.equal(disabled.speakerResolution.voiceEmbeddingEnabled, false);
    assert.equal(disabled.speakers[0].voiceMatchScore, null);
    assert.equal(disabled.speakers[0].voiceProfileMatched, null);

    const noProfile = resolve(noNames, ctx({ voiceEmbeddingEnabled: true }));
    assert.equal(noProfile.speakerResolution.voiceMatchStatus, 'NO_PROFILE');
  });

  it('a MATCHED status with no score above the threshold decides nothing', () => {
    const r = resolve(noNames, ctx(voice({ A: 0.5, B: 0.6 })));
    assert.equal(speaker(r, 'A').labelSource, 'POSITIONAL_FALLBACK');
    assert.equal(r.speakerResolution.voiceProfileUsed, false);
  });
});

describe('tolerant name matching', () => {
  it('accepts misrecognised names and rejects ordinary words', () => {
    assert.equal(matchToken('mariah', 'maria'), 'close');
    assert.equal(matchToken('Maria', 'maria'), 'exact');
    assert.equal(matchToken('pria', 'priya'), 'close');
    assert.equal(matchToken('danielle', 'daniel'), 'loose');
    assert.equal(matchToken('chris', 'christopher'), 'loose');
    assert.equal(matchToken('more', 'moore'), null);
    assert.equal(matchToken('baker', 'becker'), null);
    assert.equal(matchToken('tim', 'tom'), null);
    assert.equal(matchToken('then', 'chen'), null);
  });

  it('never takes a contraction for a name ("I\'ll" sounds like "Jill")', () => {
    assert.equal(matchToken("i'll", 'jill'), null);
    assert.equal(matchToken("we're", 'wera'), null);
    // The contact greets the user by name; later "ten it is, I'll send ..." is no self-introduction as Jill.
    const r = resolve(
      turns(
        ['A', 'Hello.'],
        ['B', 'Hi is this jill I am the designer from the studio about your website.'],
        ['A', 'Yes hi sorry it has been busy here.'],
        ['B', 'Wednesday at ten it is I\'ll send the link and the contract to your email.'],
        ['A', 'Great thanks.'],
      ),
      ctx({ userDisplayName: 'Jill Novak', contactName: null, phoneNumber: '+1 503 555 0127', direction: 'INCOMING' }),
    );
    assert.equal(speaker(r, 'A').role, 'USER');
    assert.equal(speaker(r, 'B').role, 'CONTACT');
  });

  it('reads no listener from a name after "and" or a name being spelled', () => {
    // "I'm Leah" heard as "and leah": the caller's own name, not said to the one who answered.
    const flyer = resolve(
      turns(['A', 'Hello.'], ['B', 'Hi um I got your number off a flyer at the vet the dog walking one and leah I live over on birch avenue.'], ['A', 'Oh yes hi that is me what kind of dog have you got.']),
      ctx({ userDisplayName: 'Leah Brooks', contactName: null, phoneNumber: '+1 555 671 4093', direction: 'OUTGOING' }),
    );
    assert.equal(speaker(flyer, 'B').role, 'USER');
    assert.equal(speaker(flyer, 'A').role, 'CONTACT');
    // The caller spells their own name in a dictated address: no mention of the listener.
    const spelled = resolve(
      turns(
        ['A', 'Good afternoon grant speaking.'],
        ['B', 'Oh hi you left me a voicemail this morning about a job.'],
        ['A', 'Ah yes what is the best email for the invite.'],
        ['B', 'Use kwame dot mensah at outlook dot com kwame is k w a m e.'],
      ),
      ctx({ userDisplayName: 'Kwame Mensah', contactName: 'Alasdair Grant', phoneNumber: '+44 141 496 0735', direction: 'OUTGOING' }),
    );
    assert.equal(speaker(spelled, 'B').role, 'USER');
    assert.equal(speaker(spelled, 'A').role, 'CONTACT');
  });

  it('reads the answerer\'s own name through a garbled greeting or said alone', () => {
    // "G'day, Coastline Campervans, how can I help?" heard with its greeting garbled.
    const vans = resolve(
      turns(['A', 'Je da why coastline campervans I can I help.'], ['B', 'Hi I have got a booking for a van on saturday and I need to push it back a day.'], ['A', 'No dramas what is the booking number.']),
      ctx({ userDisplayName: 'Liam Brooks', contactName: 'Coastline Campervans', phoneNumber: '+61 7 4000 1234', direction: 'OUTGOING' }),
    );
    assert.equal(speaker(vans, 'A').role, 'CONTACT');
    assert.equal(speaker(vans, 'B').role, 'USER');
    // "Laura Mitchell." answering a work phone, misheard, as the whole first turn.
    const desk = resolve(
      turns(['A', 'Lara mitchell.'], ['B', 'Hey I am calling from the service desk about your ticket.'], ['A', 'Yes thank you the app is still on my old phone.']),
      ctx({ userDisplayName: 'Laura Mitchell', contactName: 'IT Service Desk', phoneNumber: '+1 555 010 2000', direction: 'INCOMING' }),
    );
    assert.equal(speaker(desk, 'A').role, 'USER');
    assert.equal(speaker(desk, 'B').role, 'CONTACT');
    // The caller spells her own first name with letters half misheard: no mention of the listener.
    const band = resolve(
      turns(['A', 'Blue harbor music good afternoon.'], ['B', 'Hi we saw you at a wedding are you free in september.'], ['A', 'What is the best email for the contract.'], ['B', 'Chloe dot bennett at gmail dot com chloe is c h hello he.']),
      ctx({ userDisplayName: 'Tom Alvarez', contactName: 'Chloe Bennett', phoneNumber: '+1 555 010 3000', direction: 'INCOMING' }),
    );
    assert.equal(speaker(band, 'A').role, 'USER');
    assert.equal(speaker(band, 'B').role, 'CONTACT');
  });

  it('finds a misheard greeting in unpunctuated lower-case text', () => {
    const r = resolve(turns(['A', 'hi danial its mariah you came by on saturday'], ['B', 'of course']));
    assert.equal(speaker(r, 'A').role, 'USER');
    assert.equal(speaker(r, 'A').labelSource, 'GREETING_MATCH');
    assert.equal(speaker(r, 'B').labelSource, 'GREETING_MATCH');
  });

  it('reads names and phrases as the embedded recogniser actually heard them on the corpus', () => {
    // pocketsphinx output on corpus audio: "Laura" -> "laurie", "Daniel" -> "danielle",
    // "Jamie" split into "jay me", "how can I help" -> "can can I help".
    const bank = resolve(
      turns(['A', 'Hello.'], ['B', 'We flagged a charge in denver this morning.'], ['A', 'Yes this is laurie.']),
      ctx({ userDisplayName: 'Laura Chen', contactName: null, phoneNumber: '+1 555 600 0134', direction: 'OUTGOING' }),
    );
    assert.equal(speaker(bank, 'A').role, 'USER', 'the outgoing-call position guess would say CONTACT; the name wins');
    assert.equal(speaker(bank, 'A').labelSource, 'GREETING_MATCH');
    assert.equal(speaker(bank, 'B').labelSource, 'PHONE_FALLBACK');

    const roof = resolve(turns(['A', 'Hi danielle in syria and you came by on saturday.'], ['B', 'Of course.']), ctx({ direction: 'INCOMING' }));
    assert.equal(speaker(roof, 'B').role, 'CONTACT');
    assert.equal(speaker(roof, 'B').labelSource, 'GREETING_MATCH');

    const family = resolve(turns(['A', 'Hello jay me speaking.'], ['B', 'Ten and that is gross.']), ctx({ userDisplayName: 'Chris Walker', contactName: 'Jamie Walker', direction: 'INCOMING' }));
    assert.equal(speaker(family, 'A').role, 'CONTACT');
    assert.equal(speaker(family, 'A').labelSource, 'GREETING_MATCH');
    assert.deepEqual(family.speakerResolution.warnings, []);

    assert.equal(isAnsweringPhrase('Hello I didn\'t entail can can I help.', { user: null, contact: null }), true);
  });

  it('does not treat a surname-like common word, a noun use or an e-mail address as a mention', () => {
    const context = ctx({ userDisplayName: 'David Moore', contactName: 'Dentist', direction: null });
    const r = resolve(turns(['A', 'I need more time, the dentist said so.'], ['B', 'Send it to dentist dot com please.']), context);
    assert.ok(r.speakers.every((s) => s.labelSource === 'DIARIZATION'), JSON.stringify(r.speakers));
    const email = resolve(turns(['A', "It's maria dot lopez at lopez home dot net."], ['B', 'Got it.']), ctx({ direction: null }));
    assert.ok(email.speakers.every((s) => s.role === 'UNKNOWN'));
    // a contact dictating her own address ("paula at stone tax dot com") does not speak of Paula
    const own = resolve(
      turns(['A', 'Milan.'], ['B', "Hi paula it's david lee I'm calling about my tax return."], ['A', 'Hi david I still need your income from last year.'], ['B', 'Where should I send them?'], ['A', 'Please email them to paula at stone tax dot com by friday.'], ['B', 'Okay.']),
      ctx({ userDisplayName: 'David Lee', contactName: 'Paula Stone', direction: 'OUTGOING' }),
    );
    assert.equal(speaker(own, 'A').role, 'CONTACT');
    assert.equal(speaker(own, 'B').role, 'USER');
    // while "it's tom baker at hotmail dot com", answering "what's your email", is the speaker's own
    const mine = resolve(
      turns(['A', 'Hello.'], ['B', "Hi this is lisa from prime auto insurance what's your email."], ['A', "It's tom baker at hotmail dot com."]),
      ctx({ userDisplayName: 'Tom Baker', contactName: 'Prime Auto Insurance', direction: 'INCOMING' }),
    );
    assert.equal(speaker(mine, 'A').role, 'USER');
  });

  it('folds accents, knows honorific contact names and ignores "I\'m home" for a contact called Home', () => {
    const accents = resolve(turns(['A', 'Hi Jose, it is about the roof.'], ['B', 'Sure.']), ctx({ contactName: 'José Núñez', direction: null }));
    assert.equal(speaker(accents, 'B').role, 'CONTACT');
    assert.equal(speaker(accents, 'B').displayName, 'José Núñez');

    const doctor = resolve(turns(['A', 'Hello?'], ['B', 'Thanks again, Dr. Smith.']), ctx({ contactName: 'Dr Smith', direction: null }));
    assert.equal(speaker(doctor, 'A').role, 'CONTACT');
    assert.equal(speaker(doctor, 'A').labelSource, 'NAME_MENTION');

    const home = resolve(turns(['A', "Hi, I'm home now."], ['B', 'Good.']), ctx({ contactName: 'Home', direction: null }));
    assert.ok(home.speakers.every((s) => s.role === 'UNKNOWN'));
  });

  it('a stranger greeted by first name is not the user', () => {
    const r = resolve(turns(['A', 'Hi Janet, I got your message.'], ['B', 'Great.']), ctx({ contactName: null, phoneNumber: null, direction: null }));
    assert.equal(speaker(r, 'B').role, 'CONTACT');
    assert.equal(speaker(r, 'B').labelSource, 'GREETING_MATCH');
    assert.equal(speaker(r, 'B').confidence, 'MEDIUM');
    // No contact name supplied: the name the user greeted them by is shown.
    assert.equal(speaker(r, 'B').displayName, 'Janet');
    assert.equal(speaker(r, 'A').displayName, 'Maria Lopez');
  });

  it('a name one sound away from the user\'s is no stranger: it may be the user\'s name misheard (issue 28)', () => {
    // "Hello, Julie speaking." as the recogniser heard it, on an incoming call
    const r = resolve(
      turns(['A', 'hello shelly speaking'], ['B', 'hello this is that our such local middle school your son has a fever'], ['A', 'now now is he okay']),
      ctx({ userDisplayName: 'Julie Adams', contactName: 'Oak Hill Middle School', direction: 'INCOMING' }),
    );
    assert.equal(speaker(r, 'A').role, 'USER');
    assert.equal(speaker(r, 'B').role, 'CONTACT');
    // a name that sounds nothing like the user's still marks a stranger
    const janet = resolve(turns(['A', 'Hello, Janet speaking.'], ['B', 'Hi, I have a question.']), ctx({ userDisplayName: 'Julie Adams', contactName: 'Oak Hill Middle School', direction: 'INCOMING' }));
    assert.equal(speaker(janet, 'A').role, 'CONTACT');
  });

  it('needs a user name before reading a stranger\'s name as "not the user"', () => {
    const r = resolve(
      turns(['A', 'Hello?'], ['B', 'Hi, this is Janet from the clinic.']),
      ctx({ userDisplayName: null, contactName: null, phoneNumber: null, direction: null }),
    );
    assert.ok(r.speakers.every((s) => s.role === 'UNKNOWN'));
  });
});

describe('a contact named from the call (issue 28)', () => {
  const unnamed = (over: Partial<ResolutionContext> = {}) => ctx({ userDisplayName: 'Brian Cole', contactName: null, phoneNumber: '+1 555 330 8821', direction: 'INCOMING', ...over });

  it('the name a contact introduces itself with replaces the phone label', () => {
    const r = resolve(turns(['A', 'Hello?'], ['B', 'Hi, this is Grace Okafor from Brightline Talent.'], ['A', 'Oh hi.']), unnamed());
    assert.equal(speaker(r, 'B').role, 'CONTACT');
    assert.equal(speaker(r, 'B').displayName, 'Grace Okafor');
    assert.equal(speaker(r, 'B').label, 'Grace Okafor');
    assert.equal(r.speakerResolution.usedPhoneFallback, false);
  });

  it('a first name the recogniser repeated is no first name and surname', () => {
    const r = resolve(turns(['A', 'Hello?'], ['B', 'Hi, calling from the service desk about your ticket.'], ['A', 'Sorry, who am I speaking to?'], ['B', "It's andre andre on the service desk."]), unnamed());
    assert.equal(speaker(r, 'B').displayName, 'Andre');
  });

  it('a whole name given late in the call, in apposition to "me"', () => {
    const r = resolve(
      turns(['A', 'Hello, yes, go ahead.'], ['B', 'Calling from the catering kitchen about Saturday.'], ['A', "Who's running the event on the day?"], ['B', "That's me, Pete Larsen, running the kitchen."]),
      unnamed(),
    );
    assert.equal(speaker(r, 'B').displayName, 'Pete Larsen');
  });

  it('a whole name opening the caller\'s first turn after greeting the user', () => {
    const r = resolve(turns(['A', 'Hello?'], ['B', 'hi brian jess morgan recruiting at brightline the team wants a panel interview'], ['A', 'great']), unnamed());
    assert.equal(speaker(r, 'B').displayName, 'Jess Morgan');
  });

  it('the user greeting the caller by first name on picking up', () => {
    const r = resolve(turns(['A', 'Dana, hi, I saw the office number. Is the crown ready?'], ['B', 'Hi Brian, yes. Can you come in Thursday?']), unnamed());
    assert.equal(speaker(r, 'B').role, 'CONTACT');
    assert.equal(speaker(r, 'B').displayName, 'Dana');
  });

  it('no surname is read into the word after the name ("this is janet im calling")', () => {
    const r = resolve(turns(['A', 'hello'], ['B', 'hi this is janet im calling with your results'], ['A', 'thanks']), unnamed());
    assert.equal(speaker(r, 'B').displayName, 'Janet');
  });

  it('a supplied person\'s name is kept; a business with nobody named keeps its own name', () => {
    const person = resolve(turns(['A', 'Hello?'], ['B', "Hi, it's Janet from the school."], ['A', 'Oh hi.']), unnamed({ contactName: 'Daniel Okafor' }));
    assert.equal(speaker(person, 'B').displayName, 'Daniel Okafor');
    const business = resolve(turns(['A', 'Hello?'], ['B', "Hi, it's the garage calling about your car."], ['A', 'Okay.']), unnamed({ contactName: 'Westside Auto' }));
    assert.equal(speaker(business, 'B').displayName, 'Westside Auto');
  });

  it('the user\'s own first name misheard is not taken for the contact\'s', () => {
    const r = resolve(turns(['A', 'hello'], ['B', 'hi its ryan about the order'], ['A', 'yes']), unnamed({ userDisplayName: 'Brian Cole' }));
    assert.notEqual(speaker(r, 'B').displayName, 'Ryan');
  });
});

describe('both names said by both speakers (issue 28)', () => {
  it('a whole-name introduction that every greeting agrees with settles the call', () => {
    const r = resolve(
      turns(['A', 'Hello, Kevin here.'], ['B', "Hi Kevin, it's Megan Hill from the design team."], ['A', "Hi Megan, what's up?"], ['B', 'Could we do a Zoom call on Friday?']),
      ctx({ userDisplayName: 'Megan Hill', contactName: 'Kevin Wright', direction: 'OUTGOING' }),
    );
    assert.equal(speaker(r, 'A').role, 'CONTACT');
    assert.equal(speaker(r, 'B').role, 'USER');
    assert.equal(speaker(r, 'B').labelSource, 'USER_PROFILE');
    assert.deepEqual(r.speakerResolution.warnings, []);
  });

  it('first names alone leave it ambiguous', () => {
    const r = resolve(
      turns(['A', 'Hello, Kevin here.'], ['B', "Hi Kevin, it's Megan."], ['A', "Hi Megan, what's up?"], ['B', 'Could we do a Zoom call on Friday?']),
      ctx({ userDisplayName: 'Megan Hill', contactName: 'Kevin Wright', direction: 'OUTGOING' }),
    );
    assert.ok(r.speakers.every((s) => s.labelSource === 'AMBIGUOUS'));
  });
});

it('a name after a preposition is no mention pointing at the listener ("a refill for Nora Bell")', () => {
  const r = resolve(
    turns(['A', 'Maple Street Pharmacy, pharmacy counter, how can I help?'], ['B', 'Hi, refill for Nora Bell, prescription number four four seven.'], ['A', 'Got it.']),
    ctx({ userDisplayName: 'Nora Bell', contactName: null, direction: 'OUTGOING' }),
  );
  assert.equal(speaker(r, 'A').role, 'CONTACT');
  assert.equal(speaker(r, 'B').role, 'USER');
});

describe('call-flow cues check the positional guess (issue 28)', () => {
  it('reads weak signs of who placed the call', () => {
    for (const text of ['Hi there, calling from the cleaning company, just a quick check-in.', 'calling about the bathroom job', 'um just a heads up the fence stain needs a form'])
      assert.equal(callFlowCue(text), 'caller', text);
    for (const text of ["Hello? Go ahead, I've got a couple of minutes.", "yeah hello go ahead i'm listening", "Hello? Sorry, who's this?", 'Reservations desk, go ahead please.'])
      assert.equal(callFlowCue(text), 'answerer', text);
    for (const text of ['Thanks for calling about it.', 'Were you calling about the bill?', 'Go ahead and book it.', 'Hello?', "It's the garage, they called about the car."])
      assert.equal(callFlowCue(text), null, text);
  });

  const noNames = (direction: 'INCOMING' | 'OUTGOING') => ctx({ userDisplayName: 'Peter Hall', contactName: null, phoneNumber: '+1 555 266 3018', direction });

  it('overturn the guess when the first voice is the one who placed the call (its "Hello?" lost)', () => {
    const r = resolve(turns(['B', 'Hi, calling about the bathroom job. The tile is back ordered three weeks.'], ['A', 'Annoying. What are the options?'], ['B', 'We can swap it.']), noNames('INCOMING'));
    assert.equal(speaker(r, 'B').role, 'CONTACT');
    assert.equal(speaker(r, 'A').role, 'USER');
    assert.equal(speaker(r, 'A').labelSource, 'GREETING_MATCH');
    assert.equal(speaker(r, 'A').confidence, 'MEDIUM');
    assert.deepEqual(r.speakerResolution.warnings, ['answering_pattern_used']);
  });

  it('leave it a guess when they agree with it, as when there are none', () => {
    const r = resolve(turns(['A', 'Hello?'], ['B', "Hi, it's the garage calling about your car."], ['A', 'Okay, how much?']), noNames('INCOMING'));
    assert.equal(speaker(r, 'A').role, 'USER');
    assert.equal(speaker(r, 'A').labelSource, 'POSITIONAL_FALLBACK');
    assert.deepEqual(r.speakerResolution.warnings, ['speaker_roles_unresolved']);
  });
});

describe('speaker counts', () => {
  it('no speakers: empty result without warnings', () => {
    const r = resolveSpeakers([], ctx());
    assert.deepEqual(r.speakers, []);
    assert.equal(r.speakerResolution.totalSpeakerCount, 0);
    assert.deepEqual(r.speakerResolution.warnings, []);
  });

  it('one speaker: greeting the user makes it the contact', () => {
    const r = resolve(turns(['A', "Hi Maria, it's Daniel from Brightside Roofing, please call me back."]));
    assert.equal(r.speakers.length, 1);
    assert.equal(r.speakers[0].role, 'CONTACT');
    assert.equal(r.speakers[0].labelSource, 'GREETING_MATCH');
    assert.equal(r.speakers[0].displayName, 'Daniel Okafor');
    assert.equal(r.speakerResolution.resolvedSpeakerCount, 1);
  });

  it('one speaker without evidence stays UNKNOWN (no positional guess without two parties)', () => {
    const r = resolve(turns(['A', 'Please call me back about the roof.']));
    assert.equal(r.speakers[0].role, 'UNKNOWN');
    assert.equal(r.speakers[0].labelSource, 'DIARIZATION');
    assert.deepEqual(r.speakerResolution.warnings, ['speaker_roles_unresolved']);
  });

  it('three speakers: the two main ones are resolved, the minor one stays UNKNOWN', () => {
    const r = resolve(
      turns(
        ['A', "Hi Daniel, it's Maria. You came by on Saturday to look at our porch roof."],
        ['C', 'Yeah.'],
        ['B', 'Of course. Replacing the whole porch roof comes to four thousand eight hundred dollars.'],
        ['A', 'Okay, that sounds fair. Can you email me a written quote?'],
      ),
    );
    assert.equal(speaker(r, 'A').role, 'USER');
    assert.equal(speaker(r, 'B').role, 'CONTACT');
    assert.deepEqual([speaker(r, 'C').role, speaker(r, 'C').labelSource, speaker(r, 'C').displayName], ['UNKNOWN', 'DIARIZATION', 'Speaker 2']);
    assert.equal(r.speakerResolution.totalSpeakerCount, 3);
    assert.equal(r.speakerResolution.resolvedSpeakerCount, 2);
  });

  it('keeps the input order and reports strategy version 2', () => {
    const r = resolve(turns(['B', 'Hi, is this Leo\'s dad?'], ['A', 'Yes, speaking.']), ctx({ direction: 'INCOMING' }));
    assert.deepEqual(r.speakers.map((s) => s.sourceSpeakerId), ['B', 'A']);
    assert.equal(r.speakerResolution.strategyVersion, 2);
  });

  it('falls back to neutral names when nothing is supplied', () => {
    const r = resolve(turns(['A', 'Hello?'], ['B', 'Hi there.']), ctx({ userDisplayName: null, contactName: null, phoneNumber: null, direction: 'INCOMING' }));
    assert.deepEqual(r.speakers.map((s) => s.displayName), ['You', 'Contact']);
  });
});

// The corpus dialogues, with their truth turns as utterances and A/B as source speaker ids.
type Noise = (text: string) => string;
const MISHEARD: Record<string, string> = {
  maria: 'mariah', daniel: 'danial', priya: 'pria', ethan: 'ethen', laura: 'lora', grace: 'grays',
  alvarez: 'alvares', nadia: 'nadya', rahman: 'raman', jamie: 'jamey', chris: 'kris', kevin: 'kevan',
};
// Lower-cased, unpunctuated, "it's" without its apostrophe and names misspelt as a recogniser might.
const noisy: Noise = (s) =>
  s.toLowerCase().replace(/[^a-z' ]+/g, ' ').replace(/\bit's\b/g, 'its').split(/\s+/).filter(Boolean).map((w) => MISHEARD[w] ?? w).join(' ');

function resolveTruth(t: Truth, noise: Noise = (s) => s): SpeakerResolutionResult {
  const utterances = t.turns.map((x) => ({ sourceSpeakerId: x.speaker, text: noise(x.text), start: x.startSeconds, end: x.endSeconds }));
  return resolveSpeakers(groupUtterances(utterances), {
    userDisplayName: t.user.displayName,
    contactName: t.upload.contactName,
    phoneNumber: t.upload.phoneNumber,
    direction: t.upload.direction,
    voiceEmbeddingEnabled: false,
  });
}

function assertMatchesTruth(t: Truth, r: SpeakerResolutionResult) {
  const naming = t.expect.naming;
  for (const id of ['A', 'B'] as const) {
    const s = speaker(r, id);
    const roles: string[] = naming.acceptableRoles?.[id] ?? [t.speakers[id].role];
    assert.ok(roles.includes(s.role), `${t.id} ${id}: role ${s.role} not in ${roles.join('/')}`);
    const sources: string[] = naming.expectedLabelSources?.[id] ?? [];
    assert.ok(sources.includes(s.labelSource), `${t.id} ${id}: labelSource ${s.labelSource} not in ${sources.join('/')}`);
  }
  for (const role of ['USER', 'CONTACT'] as const) {
    const expected: Array<string | null> = naming.expectedNames[role];
    const holder = r.speakers.find((s) => s.role === role);
    const ok = expected.some((n) => (n === null ? !holder : holder?.displayName === n));
    assert.ok(ok, `${t.id} ${role}: ${holder?.displayName ?? 'nobody'} not in ${JSON.stringify(expected)}`);
  }
  assert.deepEqual([...r.speakerResolution.warnings].sort(), [...naming.expectedWarnings].sort(), `${t.id} warnings`);
}

describe('corpus dialogues', () => {
  const ids = corpusIds();
  it('has the twelve dialogues', () => assert.equal(ids.length, 12));
  for (const id of ids) {
    it(`${id}: expected roles, names, label sources and warnings`, () => {
      const t = loadTruth(id);
      assertMatchesTruth(t, resolveTruth(t));
    });
    it(`${id}: the same from lower-case, unpunctuated, misspelt text`, () => {
      const t = loadTruth(id);
      assertMatchesTruth(t, resolveTruth(t, noisy));
    });
  }
});

it('a misrecognised business name after the greeting of an answering phrase is not an address to the listener', () => {
  // "Hello, Acme Dental, how can I help?" as the offline recogniser heard it.
  const r = resolveSpeakers(
    groupUtterances([
      { sourceSpeakerId: 'S0', text: 'Hello pat me down tilt can can I help.', start: 0, end: 2 },
      { sourceSpeakerId: 'S1', text: "I I'd like to put up winning ways.", start: 3, end: 6 },
      { sourceSpeakerId: 'S0', text: 'Share I have your fellow up from the number you are calling from.', start: 7, end: 14 },
    ]),
    { userDisplayName: 'Marcus Bell', contactName: 'Dentist', phoneNumber: '+1 555 201 4410', direction: 'OUTGOING', voiceEmbeddingEnabled: false },
  );
  const byId = Object.fromEntries(r.speakers.map((s) => [s.sourceSpeakerId, s]));
  assert.equal(byId.S0.role, 'CONTACT', 'the answering party of an outgoing call is the contact');
  assert.equal(byId.S1.role, 'USER');
  assert.ok(r.speakerResolution.warnings.includes('answering_pattern_used'));
});

describe('recognised speech: names the recogniser half-heard', () => {
  it('a first name opening a turn, then a garbled surname and "here", is the speaker introducing themselves', () => {
    // "Maria Lopez here" heard as "maria low pace here": a name in passing would point at the listener.
    const r = resolve(
      turns(['A', 'Repairs desk, go ahead please.'], ['B', 'maria low pace here my boiler stopped working last night'], ['A', NEUTRAL_REPLY]),
      ctx({ contactName: null }),
    );
    assert.equal(speaker(r, 'B').role, 'USER');
    assert.equal(speaker(r, 'A').role, 'CONTACT');
  });

  it('the same with "speaking" answering the phone: the answerer is the user', () => {
    const r = resolve(
      turns(['A', 'maria love the speaking who is this'], ['B', "hi i'm calling about the quote for the roof"], ['A', NEUTRAL_REPLY]),
      ctx({ contactName: null, direction: 'INCOMING' }),
    );
    assert.equal(speaker(r, 'A').role, 'USER');
    assert.equal(speaker(r, 'B').role, 'CONTACT');
  });

  it('a first name between the greeted name and "here" is the caller\'s own: "Maria, Tom here"', () => {
    const r = resolve(
      turns(['A', 'Hello?'], ['B', 'maria tom here about the roof'], ['A', NEUTRAL_REPLY]),
      ctx({ contactName: null, direction: 'INCOMING' }),
    );
    assert.notEqual(speaker(r, 'B').role, 'USER');
    const dr = resolve(
      turns(['A', 'Hello?'], ['B', 'maria doctor shah here about your results'], ['A', NEUTRAL_REPLY]),
      ctx({ contactName: null, direction: 'INCOMING' }),
    );
    assert.notEqual(speaker(dr, 'B').role, 'USER');
  });

  it('a stranger "greeted" deep inside a turn greets no one: the caller cue decides', () => {
    // "hi karen" is what the recogniser made of words in the middle of the nurse's news.
    const r = resolve(
      turns(
        ['A', 'Hello.'],
        ['B', "hi this is the nurse at the clinic i'm calling about your results"],
        ['A', 'okay i have been waiting'],
        ['B', 'so the good news is it came back fine and them this ever hi karen nothing to worry about'],
      ),
      ctx({ contactName: 'Lakeshore Clinic', direction: 'INCOMING' }),
    );
    assert.equal(speaker(r, 'A').role, 'USER');
    assert.equal(speaker(r, 'B').role, 'CONTACT');
  });

  it('a greeting opening a turn still marks a stranger as the listener', () => {
    const r = resolve(
      turns(['A', 'Hello?'], ['B', 'hi karen how are you doing today'], ['A', NEUTRAL_REPLY]),
      ctx({ contactName: null, direction: 'OUTGOING' }),
    );
    assert.equal(speaker(r, 'A').role, 'CONTACT');
    assert.equal(speaker(r, 'A').labelSource, 'GREETING_MATCH');
  });

  it('a whole contact name that looks like a person\'s, opening an answering turn, is the answerer\'s own', () => {
    // "Northbeam Analytics": two words the lexicon does not know, so taken for a person's name.
    const r = resolve(
      turns(
        ['A', 'northbeam analytics customer success good morning how can i help you today'],
        ['B', "good morning i'm calling about our quarterly review"],
        ['A', NEUTRAL_REPLY],
      ),
      ctx({ userDisplayName: 'Oliver Grant', contactName: 'Northbeam Analytics', direction: 'OUTGOING' }),
    );
    assert.equal(speaker(r, 'A').role, 'CONTACT');
    assert.equal(speaker(r, 'B').role, 'USER');
  });
});

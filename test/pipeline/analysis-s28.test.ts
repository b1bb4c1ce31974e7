// Session 28: readings found on dev recognitions (the thirteenth blind set is dev since session 28).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { meetingOf } from '../support/analysis-turns.js';

describe('a video call named as the recogniser writes it (session 28)', () => {
  it('"I\'ll face time you Sunday at seven" is a meeting, as "FaceTime you" is', () => {
    // The recogniser knows "facetime" since session 28 but still writes it as two words at times.
    const m = meetingOf(
      [
        [0, 'Hi Mum it is Tom.'],
        [1, 'Hello love how are you.'],
        [0, 'Good I want to show you the new flat properly.'],
        [1, 'Lovely I will face time you on sunday at seven then.'],
        [0, 'Perfect speak then.'],
      ],
      ['Tom Reid', 'Ann Reid'],
      '2026-03-12T15:00:00Z',
    );
    assert.equal(m.ownerRole, 'CONTACT');
    assert.equal(m.intentMetadata?.proposedAt, '2026-03-15T19:00:00');
  });
});

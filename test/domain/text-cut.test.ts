// Cutting user text without splitting a character: emoji (surrogate pairs), ZWJ sequences, flags,
// skin-tone modifiers and combining marks at the cut, and a cluster longer than every limit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cutText } from '../../src/domain/text-cut.js';
import { sourceTextOf } from '../../src/domain/action-items.js';
import { uploadTitle } from '../../src/domain/uploads.js';

const wellFormed = (s: string) => !/\p{Cs}/u.test(s);

test('a cut that would fall inside a character stops before it', () => {
  const pad = 'a'.repeat(9);
  const cases: Array<[string, string]> = [
    [`${pad}😀b`, pad], // surrogate pair
    [`${pad}👩‍👩‍👧‍👦b`, pad], // ZWJ sequence of 4 emoji
    [`${pad}👍🏽b`, pad], // emoji + skin-tone modifier
    [`${pad}🇫🇷b`, pad], // two regional indicators
    [`${pad}q\u0307\u0323b`, pad], // letter + two combining marks
  ];
  for (const [text, expected] of cases) {
    assert.equal(cutText(text, { maxCodeUnits: 10 }), expected, JSON.stringify(text));
    assert.ok(wellFormed(cutText(text, { maxCodeUnits: 11 })));
    // Counted in characters, the cluster at position 10 is whole and kept.
    const tenth = cutText(text, { maxGraphemes: 10 });
    assert.equal(tenth, text.slice(0, -1), JSON.stringify(text));
  }
});

test('every limit holds at once; a text within all of them is unchanged', () => {
  assert.equal(cutText('😀'.repeat(10), { maxGraphemes: 8, maxUtf8Bytes: 20 }), '😀'.repeat(5));
  assert.equal(cutText('😀'.repeat(10), { maxGraphemes: 3, maxUtf8Bytes: 20 }), '😀'.repeat(3));
  assert.equal(cutText('short', { maxGraphemes: 100, maxCodeUnits: 100, maxUtf8Bytes: 100 }), 'short');
  assert.equal(cutText('', { maxGraphemes: 1 }), '');
  // One cluster larger than the budget: nothing rather than half of it.
  assert.equal(cutText(`x${'\u0301'.repeat(50)}`, { maxGraphemes: 5, maxCodeUnits: 20 }), '');
});

test('an upload\'s title part is cut to 500 code units at a character boundary', () => {
  const title = uploadTitle({}, `${'t'.repeat(499)}😀 and more`);
  assert.equal(title, 't'.repeat(499));
  assert.ok(wellFormed(title!));
  assert.equal(uploadTitle({}, `${'t'.repeat(498)}😀 and more`), `${'t'.repeat(498)}😀`);
  assert.equal(uploadTitle({}, '  plain  '), 'plain');
  assert.equal(uploadTitle({}, '   '), null);
});

test('an action item\'s source excerpt is cut at a character boundary', () => {
  // "[00:00] A: " is 11 code units; 487 more letters put the cut (499 units) inside the emoji.
  const segments = new Map([['seg_0001', { text: `${'x'.repeat(487)}😀😀😀`, speakerDisplayName: 'A', startSeconds: 0 }]]);
  const excerpt = JSON.parse(sourceTextOf({ priority: undefined, sourceSegmentIds: ['seg_0001'] }, segments as never)).excerpt as string;
  assert.ok(wellFormed(excerpt), 'no lone surrogate');
  assert.ok(excerpt.endsWith('x…'), excerpt.slice(-5));
});

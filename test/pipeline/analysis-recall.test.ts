// Action items said in ways the rules had not read (session 24, recall on calls written by a new
// author): a hedged yes ("I guess I can do that"), a request said as a wish for someone ("it'd be great
// if someone could ring the council"), a thing said to need doing ("the gutter needs clearing", "worth
// renewing before Friday") taken on by "I'll sort that", and the go-ahead to an offer ("Do you want me
// to book the electrician?" - "Go on then").
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clausesOf } from '../../src/pipeline/analysis/embedded/clauses.js';
import { itemsOf as itemsAt, type Turns, unit } from '../support/analysis-turns.js';

const recordedAt = '2026-05-12T16:00:00Z'; // a Tuesday

const itemsOf = (turns: Turns, names: [string, string]) => itemsAt(turns, names, recordedAt);

describe('a hedged yes', () => {
  it('reads "I guess I can ..." as the promise after the hedge', () => {
    const read = clausesOf(unit('Yeah I suppose I could drop the keys round on Thursday.'));
    assert.deepEqual(read.map((c) => [c.kind === 'commit' || c.kind === 'soft', c.vp]), [[true, 'drop the keys round on Thursday']]);
  });

  it('takes on the request it answers', () => {
    const items = itemsOf(
      [
        [1, 'Hi, it is Carla from the lettings office.'],
        [1, 'It would help if you could send over the signed inventory before the weekend.'],
        [0, 'Hmm, I guess I can do that tomorrow morning.'],
        [1, 'Great, thanks.'],
      ],
      ['Sam Reed', 'Carla Diaz'],
    );
    const mine = items.filter((i) => i.ownerRole === 'USER');
    assert.equal(mine.length, 1, JSON.stringify(items.map((i) => i.title)));
    assert.match(mine[0].title, /signed inventory/);
    assert.equal(mine[0].dueDate, '2026-05-13');
  });
});

describe('a request said as a wish', () => {
  it('reads "it would be great if someone could ..." and "if you could ..., that would be clutch" as requests', () => {
    assert.deepEqual(
      clausesOf(unit('It would be great if someone could phone the garage about the brakes.')).map((c) => [c.kind, c.vp]),
      [['request', 'phone the garage about the brakes']],
    );
    assert.deepEqual(
      clausesOf(unit('Honestly if you could grab some milk on the way that would be clutch, we are totally out.')).filter((c) => c.kind === 'request').map((c) => [c.kind, c.vp]),
      [['request', 'grab some milk on the way']],
    );
  });
});

describe('a thing said to need doing', () => {
  it('is the errand "I will sort that" takes on', () => {
    const items = itemsOf(
      [
        [1, 'Oh, and your car tax ran out last week, probably worth renewing before Friday.'],
        [0, 'Oh no. Right, I will sort that tonight.'],
        [1, 'Also the gutter needs clearing before the storm comes in.'],
        [0, 'Fine, I will deal with it tomorrow.'],
      ],
      ['Jo Marsh', 'Pete Marsh'],
    );
    const mine = items.filter((i) => i.ownerRole === 'USER').map((i) => [i.title, i.dueDate]);
    assert.equal(mine.length, 2, JSON.stringify(mine));
    assert.match(String(mine[0][0]), /^Renew the car tax/);
    assert.equal(mine[0][1], '2026-05-12');
    assert.match(String(mine[1][0]), /^Clear the gutter/);
    assert.equal(mine[1][1], '2026-05-13');
  });
});

describe('the go-ahead to an offer', () => {
  it('makes the offer an item of the one who offered, resting on the go-ahead', () => {
    const items = itemsOf(
      [
        [1, 'The kitchen light keeps flickering again.'],
        [0, 'Do you want me to get the electrician out?'],
        [1, 'Go on then. Any day but Wednesday.'],
        [0, 'Okay. Shall I ask him to look at the doorbell too?'],
        [1, 'Aye, go on.'],
        [0, 'I will sort it first thing Monday.'],
      ],
      ['Kim Lowe', 'Ann Lowe'],
    );
    const mine = items.filter((i) => i.ownerRole === 'USER');
    assert.equal(mine.length, 2, JSON.stringify(items.map((i) => i.title)));
    assert.match(mine[0].title, /electrician/);
    assert.match(mine[1].title, /doorbell/);
    assert.equal(mine[1].dueDate, '2026-05-18');
  });
});

describe('an errand handed on', () => {
  it('reads the imperative after ", so" as a request, not a promise inheriting the subject before it', () => {
    assert.deepEqual(
      clausesOf(unit('I will drop the spare fob at the front desk, so collect it from there on Monday.')).map((c) => [c.kind, c.vp]),
      [
        ['commit', 'drop the spare fob at the front desk'],
        ['request', 'collect it from there on Monday'],
      ],
    );
  });

  it('makes calls of "give her a bell", "get him to ring you" and words of "remind the others"', () => {
    const items = itemsOf(
      [
        [1, 'The plans are with your surveyor, she has the only copy.'],
        [0, 'Right, I will give her a bell this afternoon about the plans.'],
        [1, 'And the roofer will look at the leak, I will get him to ring you first thing tomorrow.'],
        [0, 'Great. Anything else?'],
        [1, 'Remind the other tenants about the water being off on Thursday if you can.'],
        [0, 'Sure, will do.'],
      ],
      ['Lee Hart', 'Mo Brennan'],
    );
    const got = items.map((i) => [i.ownerRole, i.intent]);
    assert.deepEqual(got, [
      ['USER', 'call'],
      ['CONTACT', 'call'],
      ['USER', 'message'],
    ], JSON.stringify(items.map((i) => i.title)));
  });
});

describe('a post in a chat named by its members', () => {
  it('is the message a request to remind the others asked for', () => {
    const items = itemsOf(
      [
        [1, 'Remind the other parents about the bake sale if you can, nobody reads the newsletter.'],
        [0, 'Ha, I will post something in the parents\' WhatsApp this weekend.'],
        [1, 'Brilliant.'],
      ],
      ['Amy Cole', 'Jo Park'],
    );
    const mine = items.filter((i) => i.ownerRole === 'USER');
    assert.deepEqual(mine.map((i) => i.intent), ['message'], JSON.stringify(items.map((i) => i.title)));
    assert.equal(mine[0].description?.includes('WhatsApp'), true);
  });
});

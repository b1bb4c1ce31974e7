// Conversation metrics from segment timing: a hand-checked two-party exchange covering overlap,
// a quick mid-sentence cut-in, a quick reply after a full stop (not an interruption), silence and
// response latency.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { computeConversationMetrics, countWords } from '../../src/domain/conversation-metrics.js';
import { validateAnalysis } from '../../src/pipeline/analysis/validate.js';

let n = 0;
function seg(speaker: 'A' | 'B', start: number, end: number, text: string) {
  n++;
  return {
    id: `seg_${String(n).padStart(4, '0')}`,
    speakerId: speaker === 'A' ? 'spk_1' : 'spk_2',
    speakerDisplayName: speaker === 'A' ? 'Olivia Park' : 'Bayview Logistics',
    role: (speaker === 'A' ? 'USER' : 'CONTACT') as 'USER' | 'CONTACT',
    startSeconds: start,
    endSeconds: end,
    text,
  };
}

test('turns, talk time, words per minute, interruptions, silence and latency', () => {
  n = 0;
  const segments = [
    seg('A', 1, 5, 'Hello, this is Olivia from Northwind.'), // 6 words, 4 s
    seg('A', 5.5, 7, 'How can I help?'), // same turn (A: 1-7)
    seg('B', 8, 12, 'I would like to book a'), // latency 1 s; ends mid-sentence
    seg('A', 12.1, 14, 'A demo, yes.'), // 0.1 s after a mid-sentence end: interruption; latency 0.1
    seg('B', 13.5, 20, 'Right, next Tuesday at eleven works for us.'), // starts before A ends: interruption (overlap 0.5 s); latency 0
    seg('A', 20.15, 22, 'Great.'), // 0.15 s after a full stop: not an interruption; latency 0.15
  ];
  const m = computeConversationMetrics({ durationSeconds: 25, segments });
  assert.equal(m.version, 1);
  assert.equal(m.durationSeconds, 25);
  assert.equal(m.turnCount, 5);
  assert.equal(m.interruptionCount, 2);
  // Speech covers 1-7 (minus 5-5.5), 8-12, 12.1-20, 20.15-22.
  assert.equal(m.talkSeconds, 5.5 + 4 + 7.9 + 1.85);
  assert.equal(m.overlapSeconds, 0.5);
  assert.equal(m.silenceSeconds, 25 - 19.25);
  assert.equal(m.silenceShare, Math.round((5.75 / 25) * 1000) / 1000);
  assert.deepEqual(m.longestMonologue, { speakerId: 'spk_2', displayName: 'Bayview Logistics', role: 'CONTACT', seconds: 6.5, startSeconds: 13.5, segmentIds: ['seg_0005'] });
  assert.deepEqual(m.responseLatency, { count: 4, averageSeconds: Math.round(((1 + 0.1 + 0 + 0.15) / 4) * 100) / 100, medianSeconds: 0.13 });

  const [a, b] = m.parties;
  assert.equal(a.speakerId, 'spk_1');
  assert.equal(a.role, 'USER');
  assert.equal(a.talkSeconds, 4 + 1.5 + 1.9 + 1.85);
  assert.equal(a.wordCount, 6 + 4 + 3 + 1);
  assert.equal(a.wordsPerMinute, Math.round((14 / 9.25) * 60 * 10) / 10);
  assert.equal(a.turnCount, 3);
  assert.equal(a.longestMonologueSeconds, 6);
  assert.equal(a.interruptionCount, 1);
  assert.equal(a.averageResponseLatencySeconds, 0.13);
  assert.equal(b.talkSeconds, 10.5);
  assert.equal(b.wordCount, 6 + 8);
  assert.equal(b.interruptionCount, 1);
  assert.equal(b.averageResponseLatencySeconds, 0.5);
  assert.equal(a.talkShare + b.talkShare, 1);
  assert.equal(b.talkShare, Math.round((10.5 / 19.75) * 1000) / 1000);

  // The result fits the Analysis schema.
  assert.equal(validateAnalysis({ schemaVersion: 3, conversationMetrics: m }).ok, true);
});

test('no segments: zeros and nulls, all silence', () => {
  const m = computeConversationMetrics({ durationSeconds: 12, segments: [] });
  assert.equal(m.turnCount, 0);
  assert.equal(m.silenceShare, 1);
  assert.equal(m.longestMonologue, null);
  assert.deepEqual(m.responseLatency, { count: 0, averageSeconds: null, medianSeconds: null });
  assert.deepEqual(m.parties, []);
  assert.equal(validateAnalysis({ schemaVersion: 3, conversationMetrics: m }).ok, true);
});

test('word counting keeps contractions and numbers whole', () => {
  assert.equal(countWords("I'll send it at 11, won’t I?"), 7);
  assert.equal(countWords('  '), 0);
});

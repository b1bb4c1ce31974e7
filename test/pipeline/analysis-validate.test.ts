import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Analysis } from '../../src/domain/analysis.js';
import type { Transcript } from '../../src/domain/transcript.js';
import { validateAnalysis } from '../../src/pipeline/analysis/validate.js';
import { finalizeAnalysis } from '../../src/pipeline/analysis/finalize.js';
import { isLegacyAnalysis } from '../../src/pipeline/analysis/versions.js';

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures');
const fixture = (n: number) => JSON.parse(fs.readFileSync(path.join(fixtures, `analysis-v${n}.json`), 'utf8'));

function transcript(texts: string[]): Transcript {
  const segments = texts.map((text, i) => ({
    id: `seg_${String(i + 1).padStart(4, '0')}`,
    speaker: i % 2 ? 'S1' : 'S0',
    speakerLabel: i % 2 ? 'Bayview Logistics' : 'Olivia Park',
    speakerDisplayName: i % 2 ? 'Bayview Logistics' : 'Olivia Park',
    speakerId: i % 2 ? 'spk_2' : 'spk_1',
    sourceSpeakerId: i % 2 ? 'S1' : 'S0',
    role: (i % 2 ? 'CONTACT' : 'USER') as 'CONTACT' | 'USER',
    startSeconds: i * 4,
    endSeconds: i * 4 + 3.5,
    text,
    alignmentConfidence: 'HIGH',
  }));
  return {
    schemaVersion: 2,
    callId: '6f1c2a4e-8d1b-4c1e-9f57-2b7f3c1d9a10',
    language: 'en',
    durationSeconds: texts.length * 4,
    cleanText: '',
    speakers: [],
    segments,
    speakerResolution: {
      strategyVersion: 2, usedUserDisplayName: true, usedContactName: true, usedDirection: true, usedPhoneFallback: false,
      voiceEmbeddingEnabled: false, voiceProfileUsed: false, voiceMatchStatus: 'DISABLED', totalSpeakerCount: 2, resolvedSpeakerCount: 2, warnings: [],
    },
    pipeline: { transcriptionProvider: 't', transcriptionModel: 't', diarizationProvider: 'd', diarizationModel: 'd', alignmentVersion: '1', normalizationVersion: 3, status: 'COMPLETED' },
    createdAt: '2025-03-27T15:45:00Z',
  };
}
const eightSegments = transcript(Array.from({ length: 8 }, (_, i) => `turn ${i + 1}`));

const bullet = (n: number) => ({ header: `Part ${n}`, startTimestamp: `00:0${n}`, paragraphs: [`Paragraph ${n}.`] });

test('validateAnalysis accepts the v3 fixture and a minimal analysis', () => {
  const r = validateAnalysis(fixture(3));
  assert.equal(r.ok, true);
  assert.equal(validateAnalysis({ schemaVersion: 3 }).ok, true);
  // Extra keys are allowed by the spec.
  assert.equal(validateAnalysis({ schemaVersion: 3, somethingNew: { x: 1 } }).ok, true);
});

test('validateAnalysis rejects bad shapes with JSON pointers and without values', () => {
  const bad = {
    schemaVersion: '3',
    callType: 'gossip-about-priya',
    executiveSummaryBullets: [bullet(1)],
    actionItems: [{ title: 'x', intent: 'fax', sourceSegmentIds: ['segment-one'], dueDate: 'next week' }],
    sentiment: { overall: 'ecstatic', score: 4 },
    tone: { overall: 'calm', descriptors: [], formality: 'formal', energy: 'low', pace: 'slow' },
  };
  const r = validateAnalysis(bad);
  assert.equal(r.ok, false);
  if (r.ok) return;
  const paths = r.errors.map((e) => e.split(':')[0]);
  for (const p of ['/schemaVersion', '/callType', '/executiveSummaryBullets', '/actionItems/0/intent', '/actionItems/0/sourceSegmentIds/0', '/actionItems/0/dueDate', '/sentiment/overall', '/sentiment/score', '/tone/descriptors']) {
    assert.ok(paths.includes(p), `missing error for ${p}: ${r.errors.join(' | ')}`);
  }
  const all = r.errors.join('\n');
  for (const value of ['gossip-about-priya', 'fax', 'segment-one', 'next week', 'ecstatic']) assert.ok(!all.includes(value), `error text leaks ${value}`);
  assert.equal(new Set(r.errors).size, r.errors.length);
  // Enum failures name the allowed values so that a repair prompt is actionable.
  assert.ok(r.errors.some((e) => e.startsWith('/actionItems/0/intent:') && e.includes('"meeting"') && e.includes('"none"')), r.errors.join(' | '));
  assert.equal(validateAnalysis(null).ok, false);
  assert.equal(validateAnalysis([]).ok, false);
});

test('finalizeAnalysis derives the legacy aliases exactly', () => {
  const a: Analysis = {
    schemaVersion: 2,
    oneLineSummary: 'One line.',
    executiveSummary: 'Two sentences. Here.',
    shortSummary: 'stale model text',
    keyPoints: ['stale'],
    sections: [
      { id: 'sec_001', title: 'A', type: 'topic', summary: 's', items: [
        { text: 'a-high-1', importance: 'high', sourceSegmentIds: [] },
        { text: 'a-low', importance: 'low', sourceSegmentIds: [] },
        { text: 'a-high-2', importance: 'high', sourceSegmentIds: [] },
      ] },
      { id: 'sec_002', title: 'B', type: 'topic', summary: 's', items: [
        { text: 'b-medium', importance: 'medium', sourceSegmentIds: [] },
        { text: 'b-high', importance: 'high', sourceSegmentIds: [] },
      ] },
    ],
  };
  const f = finalizeAnalysis(a, eightSegments);
  assert.equal(f.schemaVersion, 3);
  assert.equal(f.shortSummary, 'One line.');
  assert.equal(f.detailedSummary, 'Two sentences. Here.');
  assert.deepEqual(f.keyPoints, ['a-high-1', 'a-high-2', 'b-high']);
  for (const k of ['actionItems', 'nextSteps', 'keyDiscussionPoints', 'tags', 'qualityWarnings'] as const) assert.deepEqual(f[k], [], k);
  // Input untouched.
  assert.equal(a.schemaVersion, 2);
  assert.equal(a.shortSummary, 'stale model text');
});

test('finalizeAnalysis drops unknown segment ids everywhere', () => {
  const a = {
    schemaVersion: 3,
    sections: [{ id: 'sec_001', title: 'A', type: 't', summary: 's', items: [{ text: 't', importance: 'high', sourceSegmentIds: ['seg_0001', 'seg_0042', 'seg_0001'] }] }],
    actionItems: [{ title: 'x', sourceSegmentIds: ['seg_0099', 'seg_0008'] }],
    nextSteps: [{ text: 'n', ownerSpeaker: null, when: null, sourceSegmentIds: ['seg_0009'] }],
    sentiment: { overall: 'positive', progression: [
      { phase: 'opening', overall: 'neutral', note: 'n', sourceSegmentIds: ['seg_0002', 'seg_0100'] },
      { phase: 'closing', overall: 'positive', note: 'n', sourceSegmentIds: ['seg_0008'] },
    ] },
    custom: { nested: [{ sourceSegmentIds: ['seg_0003', 'seg_7777'] }] },
  } as Analysis;
  const f = finalizeAnalysis(a, eightSegments) as Analysis & { custom: { nested: Array<{ sourceSegmentIds: string[] }> } };
  assert.deepEqual(f.sections![0].items[0].sourceSegmentIds, ['seg_0001']);
  assert.deepEqual(f.actionItems![0].sourceSegmentIds, ['seg_0008']);
  assert.deepEqual(f.nextSteps![0].sourceSegmentIds, []);
  assert.deepEqual(f.sentiment!.progression!.map((p) => p.sourceSegmentIds), [['seg_0002'], ['seg_0008']]);
  assert.deepEqual(f.custom.nested[0].sourceSegmentIds, ['seg_0003']);
});

test('finalizeAnalysis enforces the limits and the ownerSpeaker alias', () => {
  const moment = (phase: 'opening' | 'middle' | 'closing' | 'followup', note: string) => ({ phase, overall: 'neutral' as const, note, sourceSegmentIds: [] });
  const a = {
    schemaVersion: 3,
    executiveSummaryBullets: [1, 2, 3, 4, 5, 6, 7, 8].map(bullet),
    sentiment: {
      overall: 'mixed',
      progression: [moment('opening', 'p1'), moment('middle', 'p2'), moment('middle', 'p3'), moment('middle', 'p4'), moment('closing', 'p5')],
      emotionalSignals: ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'],
    },
    tone: { overall: 'tense', descriptors: ['a', 'b', 'c', 'd', 'e'], formality: 'formal', energy: 'high', pace: 'fast' },
    actionItems: [
      { title: 'x', ownerSpeakerLabel: 'Olivia Park', ownerSpeaker: 'Speaker 1' },
      { title: 'y', ownerSpeaker: 'Bayview Logistics' },
    ],
    tags: ['Sales', ' demo ', 'sales'],
  } as Analysis;
  const f = finalizeAnalysis(a, eightSegments);
  assert.deepEqual(f.executiveSummaryBullets!.map((b) => b.header), ['Part 1', 'Part 2', 'Part 3', 'Part 4', 'Part 5', 'Part 6']);
  assert.deepEqual(f.sentiment!.progression!.map((p) => p.note), ['p1', 'p2', 'p3', 'p5']);
  assert.equal(f.sentiment!.emotionalSignals!.length, 6);
  assert.deepEqual(f.tone!.descriptors, ['a', 'b', 'c', 'd']);
  assert.equal(f.actionItems![0].ownerSpeaker, 'Olivia Park');
  assert.equal(f.actionItems![1].ownerSpeakerLabel, 'Bayview Logistics');
  assert.equal(f.actionItems![1].ownerSpeaker, 'Bayview Logistics');
  assert.deepEqual(f.tags, ['sales', 'demo']);
  assert.equal(validateAnalysis(f).ok, true);

  // Below a minimum nothing is invented: the optional field goes, and the result still validates.
  const short = finalizeAnalysis({
    schemaVersion: 3,
    executiveSummaryBullets: [bullet(1), bullet(2)],
    sentiment: { overall: 'neutral', progression: [moment('opening', 'only')] },
    tone: { overall: 'calm', descriptors: [], formality: 'informal', energy: 'low', pace: 'slow' },
  } as unknown as Analysis, eightSegments);
  assert.equal(short.executiveSummaryBullets, undefined);
  assert.equal(short.sentiment!.progression, undefined);
  assert.deepEqual(short.tone!.descriptors, ['calm']);
  assert.equal(validateAnalysis(short).ok, true);
});

test('the v3 fixture is already final: finalize only adds conversationMetrics, and is idempotent', () => {
  const v3 = fixture(3);
  const { conversationMetrics, ...rest } = finalizeAnalysis(v3, eightSegments);
  assert.deepEqual(rest, v3);
  assert.equal(conversationMetrics!.turnCount, 8);
  const again = finalizeAnalysis(finalizeAnalysis(v3, eightSegments), eightSegments);
  assert.deepEqual(again, finalizeAnalysis(v3, eightSegments));
  assert.equal(validateAnalysis(again).ok, true);
});

test('isLegacyAnalysis: versions 1 and 2 are served unchanged, v3 is not', () => {
  assert.equal(isLegacyAnalysis(fixture(1)), true);
  assert.equal(isLegacyAnalysis(fixture(2)), true);
  assert.equal(isLegacyAnalysis(fixture(3)), false);
  const { schemaVersion: _, ...unversioned } = fixture(1);
  assert.equal(isLegacyAnalysis(unversioned), true);
  assert.equal(isLegacyAnalysis(null), false);
  assert.equal(isLegacyAnalysis({ schemaVersion: 4 }), false);
  // The fixtures really are in their old shapes.
  assert.deepEqual(Object.keys(fixture(1).sentiment).sort(), ['overall', 'reason']);
  assert.ok('category' in fixture(2).executiveSummaryBullets[0]);
  assert.equal(validateAnalysis(fixture(2)).ok, false);
});

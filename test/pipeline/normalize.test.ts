import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { FormatRegistry } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { Transcript } from '../../src/domain/transcript.js';
import {
  applyResolution,
  buildTranscript,
  formatSegmentText,
  groupWords,
  speakerUtterancesOf,
  speakerUtterancesOfTranscript,
  utterancesOf,
} from '../../src/pipeline/normalize.js';
import { resolveSpeakers, type SpeakerResolutionResult } from '../../src/pipeline/resolution/index.js';
import type { AttributedWord, ResolutionContext } from '../../src/pipeline/types.js';
import { corpusIds, loadScorer, loadTruth, type Truth } from '../support/corpus.js';

before(() => {
  // The schema's formats are registered by the HTTP layer; the test checks them on its own.
  if (!FormatRegistry.Has('uuid')) FormatRegistry.Set('uuid', (v) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v));
  if (!FormatRegistry.Has('date-time')) FormatRegistry.Set('date-time', (v) => !Number.isNaN(Date.parse(v)) && /^\d{4}-\d{2}-\d{2}T/.test(v));
});

/** Words of `text` spread evenly over [start, end], as a recogniser would time them. */
function wordsFor(speaker: string, text: string, start: number, end: number, confidence = 0.95): AttributedWord[] {
  const tokens = text.split(/\s+/).filter(Boolean);
  const step = (end - start) / Math.max(1, tokens.length);
  return tokens.map((word, i) => ({ word, speaker, start: start + i * step, end: start + (i + 1) * step - 0.02, confidence }));
}

const CONTEXT: ResolutionContext = {
  userDisplayName: 'Maria Lopez',
  contactName: 'Daniel Okafor',
  phoneNumber: '+1 555 310 2284',
  direction: 'OUTGOING',
  voiceEmbeddingEnabled: false,
};

function build(words: AttributedWord[], context: ResolutionContext = CONTEXT, durationSeconds = 12.6) {
  const resolution = resolveSpeakers(speakerUtterancesOf(words), context);
  return buildTranscript({
    callId: randomUUID(),
    words,
    diarization: { provider: 'embedded', model: 'gmm-v1' },
    recognition: { provider: 'pocketsphinx', model: 'en-us', language: 'en' },
    resolution,
    durationSeconds,
    createdAt: new Date('2025-04-08T16:05:00Z'),
  });
}

function assertValid(t: unknown) {
  const errors = [...Value.Errors(Transcript, t)].map((e) => `${e.path}: ${e.message}`);
  assert.deepEqual(errors, []);
  assert.equal(Value.Check(Transcript, t), true);
}

const DIALOGUE: AttributedWord[] = [
  ...wordsFor('S1', "hi daniel it's maria i'm calling about the roof", 0.3, 3.1),
  ...wordsFor('S0', 'of course the quote is ready', 3.6, 5.4),
  // A 2-second pause inside the same speaker's speech.
  ...wordsFor('S0', 'i can email it today', 7.4, 8.9),
  ...wordsFor('S1', 'great thanks', 9.3, 10.0),
];

describe('buildTranscript', () => {
  it('numbers segments in time order and splits at speaker changes and long pauses', () => {
    const shuffled = [...DIALOGUE].reverse();
    const t = build(shuffled);
    assert.deepEqual(t.segments.map((s) => s.id), ['seg_0001', 'seg_0002', 'seg_0003', 'seg_0004']);
    assert.deepEqual(t.segments.map((s) => s.sourceSpeakerId), ['S1', 'S0', 'S0', 'S1']);
    for (let i = 1; i < t.segments.length; i++) assert.ok(t.segments[i].startSeconds >= t.segments[i - 1].endSeconds);
    assert.equal(t.segments[0].startSeconds, 0.3);
    assertValid(t);
  });

  it('keeps a short pause inside one segment', () => {
    const words = [...wordsFor('S0', 'of course', 0, 1), ...wordsFor('S0', 'the quote is ready', 2.0, 3.5)];
    assert.equal(groupWords(words).length, 1);
    assert.equal(groupWords(words, { pauseSeconds: 0.5 }).length, 2);
  });

  it('splits very long monologues', () => {
    const words = wordsFor('S0', Array.from({ length: 200 }, (_, i) => `word${i}`).join(' '), 0, 70);
    const groups = groupWords(words);
    assert.ok(groups.length >= 3, `got ${groups.length}`);
    for (const g of groups) assert.ok(g.words[g.words.length - 1].end - g.words[0].start <= 30);
  });

  it('maps diarization ids to spk_<n> in order of first appearance and applies the resolution', () => {
    const t = build(DIALOGUE);
    assert.deepEqual(t.speakers.map((s) => [s.speakerId, s.sourceSpeakerId, s.role, s.displayName]), [
      ['spk_1', 'S1', 'USER', 'Maria Lopez'],
      ['spk_2', 'S0', 'CONTACT', 'Daniel Okafor'],
    ]);
    const seg = t.segments[1];
    assert.deepEqual(
      [seg.speaker, seg.speakerId, seg.sourceSpeakerId, seg.speakerLabel, seg.speakerDisplayName, seg.role],
      ['spk_2', 'spk_2', 'S0', 'Daniel Okafor', 'Daniel Okafor', 'CONTACT'],
    );
    assert.equal(t.speakers[0].labelSource, 'GREETING_MATCH');
    assert.equal(t.speakerResolution.strategyVersion, 2);
  });

  it('writes cleanText as `[MM:SS - MM:SS] Name: text` lines', () => {
    const t = build(DIALOGUE);
    assert.equal(
      t.cleanText,
      [
        "[00:00 - 00:03] Maria Lopez: Hi daniel it's maria I'm calling about the roof.",
        '[00:03 - 00:05] Daniel Okafor: Of course the quote is ready.',
        '[00:07 - 00:08] Daniel Okafor: I can email it today.',
        '[00:09 - 00:09] Maria Lopez: Great thanks.',
      ].join('\n'),
    );
    for (const line of t.cleanText.split('\n')) assert.match(line, /^\[\d{2}:\d{2} - \d{2}:\d{2}\] [^:]+: \S.*$/);
  });

  it('fills pipeline provenance, versions, duration and language', () => {
    const t = build(DIALOGUE);
    assert.equal(t.schemaVersion, 2);
    assert.equal(t.language, 'en');
    assert.equal(t.durationSeconds, 13);
    assert.equal(t.createdAt, '2025-04-08T16:05:00.000Z');
    assert.deepEqual(t.pipeline, {
      transcriptionProvider: 'pocketsphinx',
      transcriptionModel: 'en-us',
      diarizationProvider: 'embedded',
      diarizationModel: 'gmm-v1',
      alignmentVersion: '1',
      normalizationVersion: 3,
      status: 'COMPLETED',
    });
  });

  it('grades alignmentConfidence from word confidence', () => {
    const words = [
      ...wordsFor('S0', 'clear words here', 0, 1, 0.97),
      ...wordsFor('S1', 'somewhat unsure words', 1.5, 2.5, 0.7),
      ...wordsFor('S0', 'mumbled noise', 3, 4, 0.3),
    ];
    assert.deepEqual(build(words).segments.map((s) => s.alignmentConfidence), ['HIGH', 'MEDIUM', 'LOW']);
  });

  it('drops recogniser markup and keeps supplied punctuation with its word', () => {
    const words: AttributedWord[] = [
      { word: '<s>', speaker: 'S0', start: 0, end: 0.1, confidence: 1 },
      { word: 'hello', speaker: 'S0', start: 0.1, end: 0.5, confidence: 1 },
      { word: ',', speaker: 'S0', start: 0.5, end: 0.5, confidence: 1 },
      { word: 'the(2)', speaker: 'S0', start: 0.6, end: 0.8, confidence: 1 },
      { word: '[NOISE]', speaker: 'S0', start: 0.8, end: 0.9, confidence: 1 },
      { word: 'office', speaker: 'S0', start: 0.9, end: 1.3, confidence: 1 },
    ];
    assert.equal(build(words).segments[0].text, 'Hello, the office.');
  });

  it('produces an empty but valid transcript without words', () => {
    const t = build([], CONTEXT, 4.4);
    assert.deepEqual(t.segments, []);
    assert.equal(t.cleanText, '');
    assert.equal(t.durationSeconds, 4);
    assertValid(t);
  });

  it('validates against the Transcript schema for all label sources of the resolver', () => {
    const unknown = build(DIALOGUE, { ...CONTEXT, userDisplayName: null, contactName: null, phoneNumber: null, direction: null });
    assert.ok(unknown.speakers.every((s) => s.labelSource === 'DIARIZATION' || s.labelSource === 'BY_ELIMINATION' || s.role === 'UNKNOWN'));
    assertValid(unknown);
    assertValid(build(DIALOGUE, { ...CONTEXT, voiceEmbeddingEnabled: true, voice: { status: 'MATCHED', scores: { S0: 0.2, S1: 0.91 }, threshold: 0.7 } }));
  });
});

describe('formatSegmentText', () => {
  it('capitalises, fixes "i" and adds closing punctuation', () => {
    assert.equal(formatSegmentText(['yes', 'i', 'think', "i'll", 'be', 'there']), "Yes I think I'll be there.");
    assert.equal(formatSegmentText(['how', 'much', 'will', 'that', 'be']), 'How much will that be?');
    assert.equal(formatSegmentText(['will', 'do']), 'Will do.');
    assert.equal(formatSegmentText(['Okay.', 'see', 'you', 'then!']), 'Okay. See you then!');
    assert.equal(formatSegmentText(['sure', ',']), 'Sure.');
    assert.equal(formatSegmentText([]), '');
  });
});

describe('utterancesOf', () => {
  it('gives the segments as utterances, grouped by speaker in order of first appearance', () => {
    const u = utterancesOf(DIALOGUE);
    assert.equal(u.length, 4);
    assert.equal(u[0].sourceSpeakerId, 'S1');
    const grouped = speakerUtterancesOf(DIALOGUE);
    assert.deepEqual(grouped.map((g) => [g.sourceSpeakerId, g.utterances.length]), [['S1', 2], ['S0', 2]]);
  });
});

describe('applyResolution', () => {
  it('renames speakers and segments and rewrites cleanText', () => {
    const t = build(DIALOGUE, { ...CONTEXT, userDisplayName: null, contactName: null, phoneNumber: null, direction: null });
    assert.equal(t.speakers[0].role, 'UNKNOWN');
    const again: SpeakerResolutionResult = resolveSpeakers(speakerUtterancesOfTranscript(t), CONTEXT);
    const updated = applyResolution(t, again);
    assert.deepEqual(updated.speakers.map((s) => [s.speakerId, s.role, s.displayName]), [
      ['spk_1', 'USER', 'Maria Lopez'],
      ['spk_2', 'CONTACT', 'Daniel Okafor'],
    ]);
    assert.ok(updated.segments.every((s) => s.speakerDisplayName === (s.speakerId === 'spk_1' ? 'Maria Lopez' : 'Daniel Okafor')));
    assert.match(updated.cleanText, /^\[00:00 - 00:03\] Maria Lopez: /);
    assert.deepEqual(updated.segments.map((s) => s.text), t.segments.map((s) => s.text));
    assert.equal(t.speakers[0].role, 'UNKNOWN', 'the input is not modified');
    assertValid(updated);
  });
});

describe('corpus dialogues through normalisation and the scorer', () => {
  function transcriptOf(truth: Truth) {
    const words = truth.turns.flatMap((turn) => wordsFor(turn.speaker === 'A' ? 'S0' : 'S1', turn.text.toLowerCase().replace(/[^a-z0-9' ]+/g, ' '), turn.startSeconds, turn.endSeconds));
    const context: ResolutionContext = {
      userDisplayName: truth.user.displayName,
      contactName: truth.upload.contactName,
      phoneNumber: truth.upload.phoneNumber,
      direction: truth.upload.direction,
      voiceEmbeddingEnabled: false,
    };
    const resolution = resolveSpeakers(speakerUtterancesOf(words), context);
    return buildTranscript({
      callId: randomUUID(),
      words,
      diarization: { provider: 'truth', model: 'truth' },
      recognition: { provider: 'truth', model: 'truth', language: 'en' },
      resolution,
      durationSeconds: truth.durationSeconds,
      createdAt: truth.upload.recordedAt,
    });
  }

  for (const id of corpusIds()) {
    it(`${id}: valid transcript with full role and naming scores`, async () => {
      const truth = loadTruth(id);
      const t = transcriptOf(truth);
      assertValid(t);
      const { scoreTranscript } = await loadScorer();
      const score = scoreTranscript(truth, t);
      assert.equal(score.wer, 0, JSON.stringify(score.details?.errors ?? score));
      assert.equal(score.attribution, 1);
      assert.equal(score.roleAccuracy, 1, JSON.stringify(score.details?.roles ?? score));
      assert.equal(score.naming, 1, JSON.stringify(score.details?.naming ?? score));
    });
  }
});

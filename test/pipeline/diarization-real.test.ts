// Speaker count and word attribution of the mono diarizer on real human voices (the real-voice
// set, test/support/real-voices.ts), without the recogniser: the truth turns' words spread over
// each turn stand in for recognised words, so only diarization is tested.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decodeAudio } from '../../src/pipeline/audio/decode.js';
import { createDiarizer } from '../../src/pipeline/diarization/index.js';
import type { RecognizedWord } from '../../src/pipeline/types.js';
import { loadScorer } from '../support/corpus.js';
import { ensureRealVoices, loadRealVoiceTruth, realVoiceFile, speechShares, type RealVoiceFile, type RealVoiceTruth } from '../support/real-voices.js';

const CASES: Array<{ id: string; file: RealVoiceFile; speakers: number }> = [
  // The report: a reader and a person answering in single words into a desk microphone.
  { id: 'rv-allison-tux-short', file: 'mono16k.wav', speakers: 2 },
  { id: 'rv-allison-tux-short', file: 'call.m4a', speakers: 2 },
  { id: 'rv-carlo-tux-short', file: 'mono16k.wav', speakers: 2 },
  { id: 'rv-allison-june', file: 'call.m4a', speakers: 2 },
  // One voice stays one speaker, on the encoding that used to split it.
  { id: 'rv-voicemail-allison', file: 'call.m4a', speakers: 1 },
  { id: 'rv-dictation-carlo', file: 'mono16k.wav', speakers: 1 },
  // 8 kHz telephone band: the voices differ less, and the line's noise fills the pauses.
  // Two women (merged into one before), short answers in digits, and two one-voice recordings,
  // one of which a split by turns used to separate better than some two-voice calls.
  { id: 'rv-allison-june', file: 'phone8k.wav', speakers: 2 },
  { id: 'rv-irina-carlo-numbers', file: 'phone8k.wav', speakers: 2 },
  { id: 'rv-voicemail-june', file: 'phone8k.wav', speakers: 1 },
  { id: 'rv-dictation-carlo', file: 'phone8k.wav', speakers: 1 },
];

let tmp: string;
before(() => {
  ensureRealVoices([...new Set(CASES.map((c) => c.id))]);
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'diarization-real-'));
});
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

function truthWords(truth: RealVoiceTruth): RecognizedWord[] {
  return truth.turns.flatMap((t) => {
    const toks = t.text.split(/\s+/).filter(Boolean);
    const step = (t.endSeconds - t.startSeconds) / toks.length;
    return toks.map((word, k) => ({ word, start: t.startSeconds + k * step, end: t.startSeconds + (k + 1) * step, confidence: 1 }));
  });
}

describe('diarization on real voices', () => {
  it('the short-answer party has 10 % or more of the speech, as the set promises', () => {
    for (const id of ['rv-allison-tux-short', 'rv-carlo-tux-short']) {
      const shares = speechShares(loadRealVoiceTruth(id));
      assert.ok(shares.B >= 0.1 && shares.B <= 0.16, `${id}: B has ${(100 * shares.B).toFixed(0)} %`);
    }
  });

  for (const c of CASES) {
    it(`${c.id} (${c.file}): ${c.speakers} speaker${c.speakers > 1 ? 's' : ''}, words on the right speaker`, async () => {
      const truth = loadRealVoiceTruth(c.id);
      const audio = await decodeAudio(realVoiceFile(c.id, c.file), fs.mkdtempSync(path.join(tmp, `${c.id}-`)), { timeoutMs: 60_000, maxSeconds: 600 });
      const words = truthWords(truth);
      const d = await createDiarizer().diarize(audio, words);
      assert.equal(d.speakers.length, c.speakers, `speakers found: ${d.speakers.join(', ')}`);
      assert.equal(d.words.length, words.length, 'every word attributed');
      if (c.speakers === 2) {
        const scorer = await loadScorer();
        const transcript = {
          segments: d.words.map((w, i) => ({ id: `seg_${i}`, speakerId: w.speaker, role: 'UNKNOWN', startSeconds: w.start, endSeconds: w.end, text: w.word })),
          speakers: d.speakers.map((s) => ({ speakerId: s, role: 'UNKNOWN', displayName: s, labelSource: 'DIARIZATION' })),
        };
        const { attribution } = scorer.scoreTranscript(truth, transcript);
        assert.ok(attribution >= 0.9, `attribution ${attribution.toFixed(3)}`);
      }
    });
  }
});

// Diarization on the synthetic corpus: VAD, the mono voice-clustering diarizer, the per-channel
// diarizer and the automatic choice between them, scored with the corpus scorer's word-level
// speaker attribution. Words come from the truth turns (spread over each turn by length) so the
// tests do not depend on the speech recogniser and stay fast.
import assert from 'node:assert/strict';
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { decodeAudio, readWavMono } from '../../src/pipeline/audio/decode.js';
import { ArrayPcm, readAllPcm } from '../../src/pipeline/audio/pcm.js';
import { assembleDiarization, viterbiWords } from '../../src/pipeline/diarization/attribution.js';
import { frameEnergy, mfccFrames } from '../../src/pipeline/diarization/features.js';
import { ChannelDiarizer, createDiarizer, detectSpeech, MfccClusterDiarizer } from '../../src/pipeline/diarization/index.js';
import { DEFAULT_MONO_OPTIONS, speechFloor, turnFolds } from '../../src/pipeline/diarization/mono.js';
import type { AttributedWord, DecodedAudio, Diarization, RecognizedWord } from '../../src/pipeline/types.js';
import { corpusFile, ensureCorpus, loadScorer, loadTruth, type Truth } from '../support/corpus.js';

const SR = 16000;
const range = (a: number, b: number) => Array.from({ length: b - a }, (_, i) => a + i);

function truthWords(truth: Truth, speakers: Array<'A' | 'B'> = ['A', 'B']): RecognizedWord[] {
  return truth.turns
    .filter((t) => speakers.includes(t.speaker))
    .flatMap((t) => {
      const toks = t.text.split(/\s+/).filter(Boolean);
      const total = toks.reduce((a, w) => a + w.length + 1, 0);
      let acc = 0;
      return toks.map((word) => {
        const start = t.startSeconds + ((t.endSeconds - t.startSeconds) * acc) / total;
        acc += word.length + 1;
        return { word, start, end: t.startSeconds + ((t.endSeconds - t.startSeconds) * acc) / total, confidence: 1 };
      });
    });
}

function transcriptOf(d: Diarization) {
  return {
    segments: d.words.map((w: AttributedWord, i) => ({
      id: `seg_${String(i).padStart(4, '0')}`,
      speakerId: w.speaker,
      role: 'UNKNOWN',
      startSeconds: w.start,
      endSeconds: w.end,
      text: w.word,
    })),
    speakers: d.speakers.map((s) => ({ speakerId: s, role: 'UNKNOWN', displayName: s, labelSource: 'DIARIZATION' })),
  };
}

async function monoAudio(id: string): Promise<DecodedAudio> {
  const wavPath = corpusFile(id, 'mono16k.wav');
  const { samples } = await readWavMono(wavPath);
  return { sampleRate: SR, mono: new ArrayPcm(samples, SR), durationSeconds: samples.length / SR, wavPath };
}

let scorer: Awaited<ReturnType<typeof loadScorer>>;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'diarization-test-'));
before(async () => {
  ensureCorpus();
  scorer = await loadScorer();
});
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('detectSpeech', () => {
  it('finds each turn of a corpus call and little else', async () => {
    const truth = loadTruth('car-repair');
    const { samples } = await readWavMono(corpusFile('car-repair', 'mono16k.wav'));
    const regions = await detectSpeech(samples, SR);
    assert.ok(regions.length >= 4, `regions: ${regions.length}`);
    for (const t of truth.turns) {
      const covered = regions.reduce((s, r) => s + Math.max(0, Math.min(r.end, t.endSeconds) - Math.max(r.start, t.startSeconds)), 0);
      assert.ok(covered >= 0.9 * (t.endSeconds - t.startSeconds), `turn ${t.index} covered ${covered.toFixed(2)} s`);
    }
    const speech = regions.reduce((s, r) => s + r.end - r.start, 0);
    const truthSpeech = truth.turns.reduce((s, t) => s + t.endSeconds - t.startSeconds, 0);
    assert.ok(speech < truthSpeech + 1.5, `detected ${speech.toFixed(1)} s against ${truthSpeech.toFixed(1)} s of turns`);
  });

  it('finds no speech in silence or near-silence', async () => {
    assert.deepEqual(await detectSpeech(new Float32Array(SR * 3), SR), []);
    const hiss = Float32Array.from({ length: SR * 3 }, (_, i) => 1e-5 * Math.sin(i * 1.7));
    assert.deepEqual(await detectSpeech(hiss, SR), []);
  });

  it('accepts other sample rates', async () => {
    const { samples } = await readWavMono(corpusFile('car-repair', 'mono16k.wav'));
    const at8k = Float32Array.from({ length: Math.floor(samples.length / 2) }, (_, i) => samples[2 * i]);
    const regions = await detectSpeech(at8k, 8000);
    assert.ok(regions.length >= 4);
    assert.ok(Math.abs(regions[0].start - loadTruth('car-repair').turns[0].startSeconds) < 0.15);
  });
});

describe('frame features', () => {
  it('gives aligned MFCC and energy frames on a 10 ms grid', () => {
    const tone = Float32Array.from({ length: SR }, (_, i) => 0.3 * Math.sin((2 * Math.PI * 220 * i) / SR));
    const mfcc = mfccFrames(tone, SR);
    const energy = frameEnergy(tone, SR);
    assert.equal(mfcc.length, Math.floor((SR - 400) / 160) + 1);
    assert.equal(energy.length, mfcc.length);
    assert.equal(mfcc[0].length, 13);
    // A steady tone has the same cepstrum everywhere, and its level is -13.5 dBFS (0.3^2/2).
    assert.ok(Math.abs(mfcc[10][3] - mfcc[80][3]) < 1e-3 * Math.max(1, Math.abs(mfcc[10][3])));
    assert.ok(Math.abs(energy[50] - 10 * Math.log10(0.045)) < 0.2, `energy ${energy[50]}`);
  });

  it('counts telephone-line noise in the pauses as non-speech, and keeps a quiet party', () => {
    // Frame energies of a call: pauses, a loud party near -18 dBFS and a party 20 dB quieter.
    const call = (pause: number) => Float32Array.from([...Array(300).fill(pause), ...Array(500).fill(-18), ...Array(200).fill(-38)]);
    const loud = -17;
    const line = speechFloor(call(-55), loud, DEFAULT_MONO_OPTIONS);
    assert.ok(line > -55 && line < -38, `phone line: speech above ${line} dB`);
    // On a clean recording the pauses are digital silence and the usual 40 dB range applies.
    assert.equal(speechFloor(call(-120), loud, DEFAULT_MONO_OPTIONS), loud - DEFAULT_MONO_OPTIONS.energyRangeDb);
  });

  it('holds out whole turns: each cluster\'s pause-delimited runs alternate between the folds', () => {
    // Speech frames (10 ms grid indexes): A 0-49, pause, B 100-119, A 120-169 (no pause: a label
    // change), pause, B 300-319, A 320-339.
    const idx = [...range(0, 50), ...range(100, 170), ...range(300, 340)];
    const lab = Int32Array.from(idx, (f) => (f >= 100 && f < 120) || (f >= 300 && f < 320) ? 1 : 0);
    const fold = turnFolds(idx, lab);
    const foldAt = (f: number) => fold[idx.indexOf(f)];
    assert.deepEqual([foldAt(0), foldAt(49), foldAt(120), foldAt(169), foldAt(320)], [0, 0, 1, 1, 0]);
    assert.deepEqual([foldAt(100), foldAt(119), foldAt(300)], [0, 0, 1]);
  });
});

describe('mono diarization', () => {
  // One mixed-gender call and the two male/male pairings of the corpus (kal16/awb, rms/kal16).
  for (const id of ['doctor-results', 'car-repair', 'landlord-repair']) {
    it(`separates the two voices of ${id}`, async () => {
      const truth = loadTruth(id);
      const d = await new MfccClusterDiarizer().diarize(await monoAudio(id), truthWords(truth));
      assert.equal(d.provider, 'embedded');
      assert.equal(d.model, 'vad-mfcc-gmm-v1');
      assert.deepEqual(d.speakers, ['S0', 'S1']);
      assert.equal(d.words[0].speaker, 'S0', 'ids follow order of first appearance');
      const r = scorer.scoreTranscript(truth, transcriptOf(d));
      assert.ok(r.attribution >= 0.95, `attribution ${r.attribution}`);
      // Regions: the speaker of the first turn owns its audio.
      const t0 = truth.turns[0];
      const own = d.speakerRegions.S0.reduce((s, g) => s + Math.max(0, Math.min(g.end, t0.endSeconds) - Math.max(g.start, t0.startSeconds)), 0);
      assert.ok(own >= 0.8 * (t0.endSeconds - t0.startSeconds), `S0 covers ${own.toFixed(2)} s of the first turn`);
    });
  }

  it('finds a third voice spliced into a call', async () => {
    // doctor-results (rms/slt) with four turns of kal16 from car-repair placed between its turns.
    const base = loadTruth('doctor-results');
    const other = loadTruth('car-repair');
    const baseAudio = (await readWavMono(corpusFile(base.id, 'mono16k.wav'))).samples;
    const otherAudio = (await readWavMono(corpusFile(other.id, 'mono16k.wav'))).samples;
    const cut = (x: Float32Array, t: { startSeconds: number; endSeconds: number }) => x.subarray(Math.round(t.startSeconds * SR), Math.round(t.endSeconds * SR));
    const pieces = base.turns.map((t) => ({ x: cut(baseAudio, t), turn: t }));
    other.turns
      .filter((t) => t.speaker === 'A')
      .slice(0, 4)
      .forEach((t, k) => pieces.splice(2 + 3 * k, 0, { x: cut(otherAudio, t), turn: { ...t, speaker: 'C' as 'A' } }));
    const gap = Math.round(0.4 * SR);
    const mono = new Float32Array(pieces.reduce((a, p) => a + p.x.length + gap, gap));
    let at = gap;
    const turns = pieces.map((p, index) => {
      mono.set(p.x, at);
      const turn = { ...p.turn, index, startSeconds: at / SR, endSeconds: (at + p.x.length) / SR };
      at += p.x.length + gap;
      return turn;
    });
    const truth = { ...base, turns, speakers: { ...base.speakers, C: { name: null, role: 'CONTACT', voice: 'kal16' } } } as Truth;
    const d = await new MfccClusterDiarizer().diarize({ sampleRate: SR, mono: new ArrayPcm(mono, SR), durationSeconds: mono.length / SR, wavPath: '' }, truthWords(truth, ['A', 'B', 'C' as 'A']));
    assert.deepEqual(d.speakers, ['S0', 'S1', 'S2']);
    assert.ok(scorer.scoreTranscript(truth, transcriptOf(d)).attribution >= 0.95);
  });

  it('finds one speaker when only one person talks', async () => {
    // The left channel of stereo.wav is speaker A alone, with silence where B talks.
    const truth = loadTruth('sales-demo-booking');
    const audio = await decodeAudio(corpusFile('sales-demo-booking', 'stereo.wav'), path.join(tmp, 'single'), { timeoutMs: 60_000, maxSeconds: 600 });
    const left = audio.channels![0];
    const d = await new MfccClusterDiarizer().diarize({ sampleRate: SR, mono: left, durationSeconds: left.length / SR, wavPath: '' }, truthWords(truth, ['A']));
    assert.deepEqual(d.speakers, ['S0']);
    assert.ok(d.words.every((w) => w.speaker === 'S0'));
    assert.ok(d.speakerRegions.S0.length > 0);
  });

  // A short call: the first turns of a corpus call (or of one of its voices) laid end to end with
  // 0.4 s pauses, as a new recording.
  async function shortCall(id: string, pick: (t: Truth['turns'][number]) => boolean, count: number, file: 'mono16k.wav' | 'phone8k.wav' = 'mono16k.wav'): Promise<{ audio: DecodedAudio; truth: Truth }> {
    const base = loadTruth(id);
    const master =
      file === 'mono16k.wav'
        ? (await readWavMono(corpusFile(id, file))).samples
        : await readAllPcm((await decodeAudio(corpusFile(id, file), path.join(tmp, `short-${id}`), { timeoutMs: 60_000, maxSeconds: 600 })).mono);
    const chosen = base.turns.filter(pick).slice(0, count);
    const gap = Math.round(0.4 * SR);
    const pieces = chosen.map((t) => master.subarray(Math.round(t.startSeconds * SR), Math.round(t.endSeconds * SR)));
    const mono = new Float32Array(pieces.reduce((a, p) => a + p.length + gap, gap));
    let at = gap;
    const turns = chosen.map((t, index) => {
      mono.set(pieces[index], at);
      const turn = { ...t, index, startSeconds: at / SR, endSeconds: (at + pieces[index].length) / SR };
      at += pieces[index].length + gap;
      return turn;
    });
    return { audio: { sampleRate: SR, mono: new ArrayPcm(mono, SR), durationSeconds: mono.length / SR, wavPath: '' }, truth: { ...base, turns } };
  }

  for (const id of ['job-interview-follow-up', 'sales-demo-booking']) {
    it(`keeps two voices apart on a short call where one party has two turns (${id}, first five turns)`, async () => {
      // A B A B A: the B party holds two pause-delimited stretches, one fewer than minTurns; its
      // voice is far enough from A's (13-21 nats held out) to count anyway (fewTurnsMargin).
      const { audio, truth } = await shortCall(id, () => true, 5);
      const d = await new MfccClusterDiarizer().diarize(audio, truthWords(truth));
      assert.deepEqual(d.speakers, ['S0', 'S1']);
      assert.ok(scorer.scoreTranscript(truth, transcriptOf(d)).attribution >= 0.95);
    });
  }

  it('keeps two voices apart on a short telephone-band call (sales-demo-booking phone8k, first four turns)', async () => {
    // 14 s of speech: the per-voice models fit it closely, so the in-sample margin is inflated
    // (10.4 nats) and the held-out one (4.6) is 0.44 of it; minGeneralisation 0.4 lets it count.
    const { audio, truth } = await shortCall('sales-demo-booking', () => true, 4, 'phone8k.wav');
    const d = await new MfccClusterDiarizer().diarize(audio, truthWords(truth));
    assert.deepEqual(d.speakers, ['S0', 'S1']);
    assert.ok(scorer.scoreTranscript(truth, transcriptOf(d)).attribution >= 0.9);
  });

  it('with threeWayRetry, keeps two voices apart when a lone "Hello?" is the odd stretch of a short telephone call (router-support-callback phone8k, first six turns)', async () => {
    // Clustered in two, the half-second "Hello?" made a cluster of its own and the answerer's
    // later turns joined the caller's: one speaker (as dev grocery-substitution and
    // school-office-lunch-box phone8k, and this call with the option off). Clustered in three, one
    // pairing is the two voices. Off by default: it also splits some one-voice recordings (mono.ts).
    const { audio, truth } = await shortCall('router-support-callback', () => true, 6, 'phone8k.wav');
    assert.deepEqual((await new MfccClusterDiarizer().diarize(audio, truthWords(truth))).speakers, ['S0']);
    const d = await new MfccClusterDiarizer({ threeWayRetry: true }).diarize(audio, truthWords(truth));
    assert.deepEqual(d.speakers, ['S0', 'S1']);
    assert.ok(scorer.scoreTranscript(truth, transcriptOf(d)).attribution >= 0.9);
  });

  it('keeps one voice with few turns as one speaker', async () => {
    // awb alone, four turns: its best split holds two stretches against six at 6.4 nats held out,
    // the most any one-voice split reached; two stretches need fewTurnsMargin (8).
    const { audio, truth } = await shortCall('car-repair', (t) => t.speaker === 'B', 4);
    const d = await new MfccClusterDiarizer().diarize(audio, truthWords(truth, ['B']));
    assert.deepEqual(d.speakers, ['S0']);
  });

  it('handles no speech and no words', async () => {
    const d = await new MfccClusterDiarizer().diarize({ sampleRate: SR, mono: new ArrayPcm(new Float32Array(SR * 2), SR), durationSeconds: 2, wavPath: '' }, []);
    assert.deepEqual(d.speakers, []);
    assert.deepEqual(d.words, []);
  });
});

describe('channel diarization', () => {
  it('attributes words by channel on a two-leg recording, through createDiarizer', async () => {
    const id = 'family-logistics';
    const truth = loadTruth(id);
    const audio = await decodeAudio(corpusFile(id, 'stereo.wav'), path.join(tmp, 'stereo'), { timeoutMs: 60_000, maxSeconds: 600 });
    assert.ok(audio.channels, 'stereo.wav decodes to two channels');
    const d = await createDiarizer().diarize(audio, truthWords(truth));
    assert.equal(d.model, 'channel-energy-v1');
    assert.deepEqual(d.speakers, ['S0', 'S1']);
    const r = scorer.scoreTranscript(truth, transcriptOf(d));
    assert.ok(r.attribution >= 0.99, `attribution ${r.attribution}`);
    // Speaker A is on the left leg and speaks first.
    const leftTurn = truth.turns.find((t) => t.speaker === 'A')!;
    assert.ok(d.speakerRegions.S0.some((g) => g.start < leftTurn.endSeconds && g.end > leftTurn.startSeconds));
  });

  it('falls back to voice clustering when both channels carry both voices', async () => {
    const id = 'contractor-quote';
    const truth = loadTruth(id);
    const stereo = await decodeAudio(corpusFile(id, 'stereo.wav'), path.join(tmp, 'panned'), { timeoutMs: 60_000, maxSeconds: 600 });
    const [l, r] = await Promise.all(stereo.channels!.map(readAllPcm));
    // A room recording with two microphones: each voice on both channels, 6 dB apart.
    const left = Float32Array.from(l, (v, i) => v + 0.5 * r[i]);
    const right = Float32Array.from(r, (v, i) => 0.5 * l[i] + v);
    const mono = Float32Array.from(left, (v, i) => (v + right[i]) / 2);
    const audio: DecodedAudio = { ...stereo, mono: new ArrayPcm(mono, SR), channels: [new ArrayPcm(left, SR), new ArrayPcm(right, SR)] };
    const d = await createDiarizer().diarize(audio, truthWords(truth));
    assert.equal(d.model, 'vad-mfcc-gmm-v1');
    assert.ok(scorer.scoreTranscript(truth, transcriptOf(d)).attribution >= 0.95);
  });

  it('refuses mono audio', async () => {
    await assert.rejects(new ChannelDiarizer().diarize({ sampleRate: SR, mono: new ArrayPcm(new Float32Array(SR), SR), durationSeconds: 1, wavPath: '' }, []));
  });
});

describe('word attribution', () => {
  const w = (start: number, end: number): RecognizedWord => ({ word: 'x', start, end, confidence: 1 });

  it('changes speaker on word boundaries and lets a word without speech follow the nearest frame', () => {
    // Frames every 10 ms from 0 to 2 s; speaker 0 until 1.0 s, speaker 1 after, silence 0.9-1.1 s.
    const frames: number[] = [];
    const lab: number[] = [];
    for (let f = 0; f < 200; f++) {
      if (f >= 90 && f < 110) continue;
      frames.push(f);
      lab.push(f < 100 ? 0 : 1);
    }
    const logLik = new Float64Array(frames.length * 2);
    lab.forEach((l, j) => {
      logLik[j * 2 + l] = 0;
      logLik[j * 2 + 1 - l] = -2;
    });
    const words = [w(0.1, 0.5), w(0.5, 0.88), w(0.91, 0.96), w(1.12, 1.5), w(1.5, 1.9)];
    const out = viterbiWords(words, { frames, logLik, labels: lab, k: 2, offset: 0, hop: 0.01 }, 30, 0.2, 0.2);
    assert.deepEqual(out, [0, 0, 0, 1, 1]);
  });

  it('names speakers by first appearance', () => {
    const words = [w(0, 1), w(1, 2), w(2, 3)];
    const regions = new Map([
      [1, [{ start: 0, end: 1 }]],
      [0, [{ start: 1, end: 3 }]],
    ]);
    const d = assembleDiarization(words, [1, 0, 1], regions);
    assert.deepEqual(d.speakers, ['S0', 'S1']);
    assert.deepEqual(d.words.map((x) => x.speaker), ['S0', 'S1', 'S0']);
    assert.deepEqual(d.speakerRegions.S0, [{ start: 0, end: 1 }]);
  });
});

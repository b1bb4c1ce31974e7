import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decodeAudio, readWavMono } from '../../src/pipeline/audio/decode.js';
import { ArrayPcm } from '../../src/pipeline/audio/pcm.js';
import {
  EMBEDDED_PROVIDER,
  EmbeddingError,
  FEATURE_DIM,
  FUSED_V1_GATE,
  FusedStatsEmbedder,
  MfccStatsEmbedder,
  ProjectedStatsEmbedder,
  V1_FEATURE_DIM,
  V1_PROVIDER,
  createSpeakerEmbedder,
  deserializeEmbedding,
  serializeEmbedding,
} from '../../src/pipeline/voice/embedder.js';
import {
  DEFAULT_VOICE_MATCH_MARGIN,
  DEFAULT_VOICE_MATCH_THRESHOLD,
  embedCallSpeakers,
  fusedMatch,
  matchUserVoice,
  scoreSpeakers,
} from '../../src/pipeline/voice/match.js';
import type { SpeakerEmbedder } from '../../src/pipeline/types.js';
import { VOICE_MODEL } from '../../src/pipeline/voice/voice-model.js';
import { corpusFile, ensureCorpus, loadTruth, type Truth } from '../support/corpus.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'voice-test-'));
process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));

// Harvard sentences: text the corpus never says, so matching has to be text-independent.
const ENROLLMENT =
  'The stale smell of old beer lingers. It takes heat to bring out the odor. A cold dip restores health and zest. ' +
  'A salt pickle tastes fine with ham. Tacos al pastor are my favorite. A zestful food is the hot cross bun.';

/** A flite enrollment sample converted like the corpus render (16 kHz mono 16-bit, trimmed, -3 dBFS). */
function synthesize(voice: string, text: string): string {
  const raw = path.join(tmp, `${voice}.raw.wav`);
  const out = path.join(tmp, `${voice}.wav`);
  execFileSync('flite', ['-voice', voice, '-t', text, '-o', raw]);
  execFileSync('sox', ['-R', '-D', '-V1', raw, '-r', '16000', '-c', '1', '-b', '16', '-e', 'signed-integer', out,
    'silence', '1', '0.005', '-50d', 'reverse', 'silence', '1', '0.005', '-50d', 'reverse', 'norm', '-3']);
  return out;
}

function regions(truth: Truth) {
  const of = (sp: 'A' | 'B') => truth.turns.filter((t) => t.speaker === sp).map((t) => ({ start: t.startSeconds, end: t.endSeconds }));
  return { A: of('A'), B: of('B') };
}

async function callSpeakers(id: string, file: 'mono16k.wav' | 'stereo.wav' | 'call.m4a', embedder: SpeakerEmbedder = new MfccStatsEmbedder()) {
  const truth = loadTruth(id);
  const audio = await decodeAudio(corpusFile(id, file), fs.mkdtempSync(path.join(tmp, 'call-')), { timeoutMs: 30_000, maxSeconds: 600 });
  return { truth, audio, embeddings: await embedCallSpeakers(embedder, audio, regions(truth)) };
}

function norm(v: Float32Array): number {
  return Math.sqrt(v.reduce((s, x) => s + x * x, 0));
}

let rmsProfile: Float32Array | undefined;
async function profileOf(voice: 'rms'): Promise<Float32Array> {
  if (!rmsProfile) {
    const { samples, sampleRate } = await readWavMono(synthesize(voice, ENROLLMENT));
    assert.ok(samples.length / sampleRate >= 10, 'enrollment sample should be at least 10 s');
    rmsProfile = await new MfccStatsEmbedder().embed(samples, sampleRate);
  }
  return rmsProfile;
}

test('embeddings have a constant dimension and unit length', async () => {
  ensureCorpus();
  const embedder = new MfccStatsEmbedder();
  assert.equal(embedder.provider, V1_PROVIDER);
  const profile = await profileOf('rms');
  const { samples } = await readWavMono(corpusFile('car-repair', 'mono16k.wav'));
  const whole = await embedder.embed(samples, 16000);
  const partial = await embedder.embed(samples, 16000, [{ start: 0, end: 8 }]);
  for (const v of [profile, whole, partial]) {
    assert.equal(v.length, V1_FEATURE_DIM);
    assert.ok(v.every(Number.isFinite));
    assert.ok(Math.abs(norm(v) - 1) < 1e-5, `norm ${norm(v)}`);
  }
  // Deterministic: stored profiles must stay comparable with later call embeddings.
  assert.deepEqual(await embedder.embed(samples, 16000, [{ start: 0, end: 8 }]), partial);
});

test('serialize/deserialize round-trips and rejects foreign bytes', async () => {
  const v = await profileOf('rms');
  const buf = serializeEmbedding(v);
  assert.equal(buf.length, 8 + 4 * v.length);
  assert.deepEqual(deserializeEmbedding(buf), v);
  assert.deepEqual(deserializeEmbedding(new Uint8Array(buf)), v);
  assert.throws(() => deserializeEmbedding(Buffer.from('not an embedding at all')), /not a serialized voice embedding/);
  assert.throws(() => deserializeEmbedding(buf.subarray(0, buf.length - 4)), /length/);
  const future = Buffer.from(buf);
  future.writeUInt16LE(99, 4);
  assert.throws(() => deserializeEmbedding(future), /version 99/);
});

test('a separate flite sample of a voice matches that speaker in a call where it speaks', async () => {
  const profile = await profileOf('rms');
  // landlord-repair: A = rms, B = kal16.
  const { truth, embeddings } = await callSpeakers('landlord-repair', 'mono16k.wav');
  assert.equal(truth.speakers.A.voice, 'rms');
  const scores = scoreSpeakers(profile, embeddings);
  assert.deepEqual(Object.keys(scores).sort(), ['A', 'B']);
  assert.ok(scores.A >= DEFAULT_VOICE_MATCH_THRESHOLD, `rms scored ${scores.A}`);
  assert.ok(scores.A - scores.B >= DEFAULT_VOICE_MATCH_MARGIN);
  assert.deepEqual(matchUserVoice(scores, DEFAULT_VOICE_MATCH_THRESHOLD), { status: 'MATCHED', matchedSpeaker: 'A' });
});

test('the same profile matches from the separate channels of a stereo call and from AAC', async () => {
  const profile = await profileOf('rms');
  // doctor-results: A = rms, B = slt.
  const stereo = await callSpeakers('doctor-results', 'stereo.wav');
  assert.ok(stereo.audio.channels, 'stereo.wav should decode to two channels');
  assert.equal(stereo.truth.speakers.A.voice, 'rms');
  assert.deepEqual(matchUserVoice(scoreSpeakers(profile, stereo.embeddings)), { status: 'MATCHED', matchedSpeaker: 'A' });
  const aac = await callSpeakers('doctor-results', 'call.m4a');
  assert.deepEqual(matchUserVoice(scoreSpeakers(profile, aac.embeddings)), { status: 'MATCHED', matchedSpeaker: 'A' });
});

test('the profile gives NO_MATCH for a call without that voice', async () => {
  const profile = await profileOf('rms');
  // car-repair: kal16 and awb; awb is the corpus voice closest to rms.
  const { truth, embeddings } = await callSpeakers('car-repair', 'mono16k.wav');
  assert.ok(truth.speakers.A.voice !== 'rms' && truth.speakers.B.voice !== 'rms');
  const scores = scoreSpeakers(profile, embeddings);
  assert.ok(Math.max(scores.A, scores.B) < DEFAULT_VOICE_MATCH_THRESHOLD, JSON.stringify(scores));
  assert.deepEqual(matchUserVoice(scores), { status: 'NO_MATCH', matchedSpeaker: null });
});

test('scores lie in [0,1]: identical vectors 1, opposite 0, orthogonal 0.5', () => {
  const a = Float32Array.from([0.6, 0.8, 0]);
  const scores = scoreSpeakers(a, {
    same: a,
    opposite: Float32Array.from(a, (x) => -x),
    orthogonal: Float32Array.from([0.8, -0.6, 0]),
    zero: new Float32Array(3),
  });
  assert.ok(Math.abs(scores.same - 1) < 1e-6);
  assert.ok(Math.abs(scores.opposite) < 1e-6);
  assert.ok(Math.abs(scores.orthogonal - 0.5) < 1e-6);
  assert.equal(scores.zero, 0.5);
  let seed = 7;
  const rand = () => ((seed = (seed * 48271) % 2147483647) / 2147483647) * 2 - 1;
  for (let i = 0; i < 50; i++) {
    const s = scoreSpeakers(Float32Array.from({ length: 17 }, rand), { x: Float32Array.from({ length: 17 }, rand) }).x;
    assert.ok(s >= 0 && s <= 1, String(s));
  }
  assert.throws(() => scoreSpeakers(a, { short: new Float32Array(2) }), /dimensions differ/);
});

test('matchUserVoice needs the threshold and a margin over the runner-up', () => {
  assert.deepEqual(matchUserVoice({ S0: 0.95, S1: 0.4 }, 0.85), { status: 'MATCHED', matchedSpeaker: 'S0' });
  assert.deepEqual(matchUserVoice({ S0: 0.4, S1: 0.9 }, 0.85), { status: 'MATCHED', matchedSpeaker: 'S1' });
  assert.deepEqual(matchUserVoice({ S0: 0.8, S1: 0.4 }, 0.85), { status: 'NO_MATCH', matchedSpeaker: null });
  // Both speakers sound like the user: too close to call, so no guess.
  assert.deepEqual(matchUserVoice({ S0: 0.93, S1: 0.91 }, 0.85, 0.05), { status: 'NO_MATCH', matchedSpeaker: null });
  assert.deepEqual(matchUserVoice({ S0: 0.9 }, 0.85), { status: 'MATCHED', matchedSpeaker: 'S0' });
  assert.deepEqual(matchUserVoice({}, 0.85), { status: 'NO_MATCH', matchedSpeaker: null });
  assert.deepEqual(matchUserVoice({ S0: Number.NaN, S1: 0.9 }, 0.85), { status: 'MATCHED', matchedSpeaker: 'S1' });
  assert.ok(DEFAULT_VOICE_MATCH_THRESHOLD > 0.5 && DEFAULT_VOICE_MATCH_THRESHOLD < 1);
});

test('too little speech is an EmbeddingError, and embedCallSpeakers leaves such speakers out', async () => {
  const embedder = new MfccStatsEmbedder();
  await assert.rejects(embedder.embed(new Float32Array(16000 * 3), 16000), (err: unknown) => err instanceof EmbeddingError && err.reason === 'not_enough_speech');
  const { samples } = await readWavMono(corpusFile('car-repair', 'mono16k.wav'));
  const truth = loadTruth('car-repair');
  const audio = { sampleRate: 16000, mono: new ArrayPcm(samples, 16000), durationSeconds: samples.length / 16000, wavPath: corpusFile('car-repair', 'mono16k.wav') };
  const [long, short] = [truth.turns[1], truth.turns[0]]; // 6.8 s and 0.4 s
  const out = await embedCallSpeakers(embedder, audio, {
    S0: [{ start: long.startSeconds, end: long.endSeconds }],
    S1: [{ start: short.startSeconds, end: short.endSeconds }],
    S2: [],
  });
  assert.deepEqual(Object.keys(out), ['S0']);
});

test('the fused embedder stores the fitted and the statistics embedding of one analysis, one after the other', async () => {
  ensureCorpus();
  const { samples } = await readWavMono(corpusFile('car-repair', 'mono16k.wav'));
  const regions = [{ start: 0, end: 8 }];
  const fused = new FusedStatsEmbedder();
  const v = await fused.embed(samples, 16000, regions);
  assert.equal(fused.dimension, VOICE_MODEL.projection.length + V1_FEATURE_DIM);
  assert.equal(v.length, fused.dimension);
  const fitted = await new ProjectedStatsEmbedder().embed(samples, 16000, regions);
  const plain = await new MfccStatsEmbedder().embed(samples, 16000, regions);
  assert.equal(fused.fusion.fittedDim, fitted.length);
  assert.deepEqual(v, Float32Array.from([...fitted, ...plain]));
  assert.equal(fused.fusion.gate, FUSED_V1_GATE);
  // A profile of this embedder means both vectors: its id names both, and differs from each alone.
  assert.notEqual(fused.provider, V1_PROVIDER);
  assert.notEqual(fused.provider, new ProjectedStatsEmbedder().provider);
  assert.ok(fused.provider.includes(V1_PROVIDER) && fused.provider.includes(new ProjectedStatsEmbedder().provider));
});

test('the fused decision on corpus voices: the own voice matched, an absent voice matches nobody', async () => {
  const fused = new FusedStatsEmbedder();
  const { samples, sampleRate } = await readWavMono(synthesize('rms', ENROLLMENT));
  const profile = await fused.embed(samples, sampleRate);
  // landlord-repair: A = rms, B = kal16.
  const { embeddings } = await callSpeakers('landlord-repair', 'mono16k.wav', fused);
  const own = fusedMatch(profile, embeddings, fused.normalization, fused.fusion);
  assert.deepEqual(own.match, { status: 'MATCHED', matchedSpeaker: 'A' });
  assert.ok(own.scores.A >= DEFAULT_VOICE_MATCH_THRESHOLD && own.scores.B < own.scores.A);
  const kalSample = await readWavMono(synthesize('kal16', ENROLLMENT));
  const kal = await fused.embed(kalSample.samples, kalSample.sampleRate);
  // A call without kal16: slt and rms.
  const other = await callSpeakers('contractor-quote', 'mono16k.wav', fused);
  assert.ok(!Object.values(other.truth.speakers).some((s) => s.voice === 'kal16'));
  assert.equal(fusedMatch(kal, other.embeddings, fused.normalization, fused.fusion).match.status, 'NO_MATCH');
});

test('createSpeakerEmbedder: embedded by default, a clear error for an unavailable neural model', async () => {
  const embedded = await createSpeakerEmbedder({ provider: 'embedded' });
  assert.equal(embedded.provider, EMBEDDED_PROVIDER);
  assert.ok(embedded instanceof FusedStatsEmbedder, 'the default is the fused decision');
  assert.ok((await createSpeakerEmbedder({ provider: 'embedded-fused' })) instanceof FusedStatsEmbedder);
  assert.ok((await createSpeakerEmbedder({ provider: 'embedded-stats' })) instanceof MfccStatsEmbedder);
  await assert.rejects(createSpeakerEmbedder({ provider: 'onnx' }), /needs a model path/);
  await assert.rejects(createSpeakerEmbedder({ provider: 'onnx', modelPath: path.join(tmp, 'missing.onnx') }), (err: unknown) => {
    assert.ok(err instanceof EmbeddingError);
    assert.equal(err.reason, 'provider_unavailable');
    assert.match(err.message, /model file not found/);
    assert.ok(!err.message.includes(tmp), 'the message should not echo the path');
    return true;
  });
});

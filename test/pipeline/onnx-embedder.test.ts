// The ONNX speaker-embedding adapter against onnxruntime-node with tiny models built at test time
// in the WeSpeaker format (test/support/onnx-model.ts), and its Kaldi fbank against the formulas.
import { ArrayPcm } from '../../src/pipeline/audio/pcm.js';
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { readWavMono } from '../../src/pipeline/audio/decode.js';
import { EmbeddingError, createSpeakerEmbedder } from '../../src/pipeline/voice/embedder.js';
import { KALDI_FBANK_80, KaldiFbank, LOG_FLOOR, frameGeometry, kaldiMelBands, melScale, poveyWindow, subtractMean } from '../../src/pipeline/voice/fbank.js';
import { cosine, embedCallSpeakers } from '../../src/pipeline/voice/match.js';
import { MAX_SPEECH_SECONDS, OnnxSpeakerEmbedder, readModelMetadata } from '../../src/pipeline/voice/onnx-embedder.js';
import { buildTestModel, writeTestModel, type TestModelOptions } from '../support/onnx-model.js';
import { ensureCorpus, type Truth } from '../support/corpus.js';
import { startTestService, TestIdp, uploadForm, type TestService } from '../support/service.js';
import { loadConfig } from '../../src/config.js';
import { createPipeline } from '../../src/pipeline/index.js';
import { EMBEDDED_PROVIDER, deserializeEmbedding } from '../../src/pipeline/voice/embedder.js';
import pino from 'pino';
import { voiceSample, type FliteVoice } from '../support/voices.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'onnx-embedder-test-'));
process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));

function norm(v: Float32Array): number {
  return Math.sqrt(v.reduce((s, x) => s + x * x, 0));
}

/** A deterministic test signal in [-1, 1]: two tones and pseudo-random noise. */
function testSignal(n: number, seed = 1): Float32Array {
  let s = seed;
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    s = (s * 1103515245 + 12345) % 2147483648;
    out[i] = 0.3 * Math.sin((2 * Math.PI * 440 * i) / 16000) + 0.2 * Math.sin((2 * Math.PI * 2500 * i) / 16000) + 0.1 * (s / 2147483648 - 0.5);
  }
  return out;
}

/**
 * Kaldi's compute-fbank-feats for one frame written out directly, with an O(N^2) DFT: the
 * reference the FFT-based implementation must reproduce.
 */
function referenceFrame(x: Float32Array, start: number): number[] {
  const N = 400;
  const P = 512;
  const frame = Array.from(x.subarray(start, start + N), (v) => v * 32768);
  const mean = frame.reduce((a, b) => a + b, 0) / N;
  const dc = frame.map((v) => v - mean);
  const pre = dc.map((v, i) => v - 0.97 * dc[i === 0 ? 0 : i - 1]);
  const win = pre.map((v, i) => v * Math.pow(0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (N - 1)), 0.85));
  const power: number[] = [];
  for (let k = 0; k < P / 2; k++) {
    let re = 0;
    let im = 0;
    for (let i = 0; i < N; i++) {
      re += win[i] * Math.cos((2 * Math.PI * k * i) / P);
      im -= win[i] * Math.sin((2 * Math.PI * k * i) / P);
    }
    power.push(re * re + im * im);
  }
  const mel = (f: number) => 1127 * Math.log(1 + f / 700);
  const lo = mel(20);
  const delta = (mel(8000) - lo) / 81;
  const out: number[] = [];
  for (let b = 0; b < 80; b++) {
    const [l, c, r] = [lo + b * delta, lo + (b + 1) * delta, lo + (b + 2) * delta];
    let e = 0;
    for (let k = 0; k < P / 2; k++) {
      const m = mel((k * 16000) / P);
      if (m > l && m < r) e += power[k] * (m <= c ? (m - l) / (c - l) : (r - m) / (r - c));
    }
    out.push(Math.log(Math.max(e, 1.1920928955078125e-7)));
  }
  return out;
}

describe('Kaldi fbank', () => {
  const fbank = new KaldiFbank();

  test('frame geometry at 16 kHz: 400-sample frames every 160 samples, FFT of 512, whole frames only', () => {
    assert.deepEqual(frameGeometry(KALDI_FBANK_80), { length: 400, shift: 160, paddedLength: 512 });
    assert.equal(fbank.frameCount(16000), 98); // 1 + floor((16000 - 400) / 160)
    assert.equal(fbank.frameCount(400), 1);
    assert.equal(fbank.frameCount(399), 0);
    assert.equal(fbank.compute(new Float32Array(16000)).frames, 98);
  });

  test('mel scale and band edges match hand-computed values', () => {
    assert.ok(Math.abs(melScale(1000) - 1127 * Math.log(1 + 1000 / 700)) < 1e-12);
    assert.ok(Math.abs(melScale(700) - 1127 * Math.LN2) < 1e-9);
    const bands = kaldiMelBands(KALDI_FBANK_80, 512);
    assert.equal(bands.length, 80);
    // mel(20 Hz) = 31.748, mel(8000 Hz) = 2840.04; 81 equal steps of 34.670.
    assert.ok(Math.abs(bands[0].leftMel - 31.748) < 1e-3, String(bands[0].leftMel));
    assert.ok(Math.abs(bands[79].rightMel - 2840.04) < 1e-2, String(bands[79].rightMel));
    assert.ok(Math.abs(bands[0].centerMel - bands[0].leftMel - 34.670) < 1e-3);
    // 31.25 Hz per bin: band 0 spans 20-~43 Hz on the mel axis, which holds bin 1 (31.25 Hz) only.
    assert.equal(bands[0].first, 1);
    for (const b of bands) {
      assert.ok(b.weights.every((w) => w > 0 && w <= 1));
      assert.ok(b.first + b.weights.length <= 256, 'the Nyquist bin gets no weight');
    }
    // Between the first and the last centre, neighbouring triangles add up to one at every bin.
    for (let k = 0; k < 256; k++) {
      const m = melScale((k * 16000) / 512);
      if (m < bands[0].centerMel || m > bands[79].centerMel) continue;
      const sum = bands.reduce((s, b) => s + (k >= b.first && k < b.first + b.weights.length ? b.weights[k - b.first] : 0), 0);
      assert.ok(Math.abs(sum - 1) < 1e-9, `bin ${k}: ${sum}`);
    }
  });

  test('povey window: zero at both ends, one in the middle, (Hann)^0.85 between', () => {
    const w = poveyWindow(400);
    assert.equal(w[0], 0);
    assert.ok(Math.abs(w[399]) < 1e-12);
    assert.ok(w[199] > 0.9999 && w[200] > 0.9999);
    assert.ok(Math.abs(w[100] - Math.pow(0.5 - 0.5 * Math.cos((2 * Math.PI * 100) / 399), 0.85)) < 1e-15);
  });

  test('silence and a constant offset give the log floor (ln of float32 epsilon) in every band', () => {
    assert.ok(Math.abs(LOG_FLOOR - -15.942385152878742) < 1e-12);
    for (const signal of [new Float32Array(800), new Float32Array(800).fill(0.25)]) {
      const m = fbank.compute(signal);
      assert.equal(m.frames, 3);
      assert.ok(m.data.every((v) => Math.abs(v - LOG_FLOOR) < 1e-5));
    }
  });

  test('agrees with a direct transcription of the Kaldi formulas (naive DFT) to 1e-3', () => {
    const x = testSignal(1600);
    const m = fbank.compute(x);
    assert.equal(m.frames, 8);
    let worst = 0;
    for (const f of [0, 3, 7]) {
      const ref = referenceFrame(x, f * 160);
      for (let b = 0; b < 80; b++) worst = Math.max(worst, Math.abs(ref[b] - m.data[f * 80 + b]));
    }
    assert.ok(worst < 1e-3, `largest difference ${worst}`);
  });

  test('a sine puts its energy in the band around its frequency', () => {
    const bands = kaldiMelBands(KALDI_FBANK_80, 512);
    for (const hz of [300, 1000, 3000, 6000]) {
      const x = new Float32Array(4000).map((_, i) => 0.5 * Math.sin((2 * Math.PI * hz * i) / 16000));
      const m = fbank.compute(x);
      const row = Array.from(m.data.subarray(5 * 80, 6 * 80));
      const loudest = row.indexOf(Math.max(...row));
      const nearest = bands.reduce((best, b, i) => (Math.abs(b.centerMel - melScale(hz)) < Math.abs(bands[best].centerMel - melScale(hz)) ? i : best), 0);
      assert.ok(Math.abs(loudest - nearest) <= 1, `${hz} Hz: loudest band ${loudest}, nearest centre ${nearest}`);
      // Far bands get only window leakage: at least 40 dB (ln 10^4 = 9.2) below.
      assert.ok(row[loudest] - row[(loudest + 40) % 80] > 9.2, `${hz} Hz`);
    }
  });

  test('frames are placed every 10 ms: a click shows only in the frames that cover it', () => {
    const x = new Float32Array(1600);
    x[800] = 0.5; // inside frames 3 (480-879), 4 (640-1039) and 5 (800-1199)
    const m = fbank.compute(x);
    for (let f = 0; f < m.frames; f++) {
      const silent = m.data.subarray(f * 80, (f + 1) * 80).every((v) => Math.abs(v - LOG_FLOOR) < 1e-5);
      assert.equal(silent, !(f >= 3 && f <= 5), `frame ${f}`);
    }
  });

  test('mean normalisation leaves every band with zero mean over time', () => {
    const m = subtractMean(fbank.compute(testSignal(8000)));
    for (let d = 0; d < 80; d++) {
      let s = 0;
      for (let f = 0; f < m.frames; f++) s += m.data[f * 80 + d];
      assert.ok(Math.abs(s / m.frames) < 1e-4);
    }
  });
});

describe('ONNX speaker embedder (tiny WeSpeaker-format model)', () => {
  const voices: FliteVoice[] = ['slt', 'kal16', 'rms', 'awb'];
  const samples: Record<string, Float32Array> = {};
  let modelPath: string;
  let embedder: OnnxSpeakerEmbedder;

  before(async () => {
    modelPath = writeTestModel(tmp, 'speaker.onnx');
    embedder = await OnnxSpeakerEmbedder.create({ modelPath });
    const dir = path.join(tmp, 'voices');
    for (const v of voices) {
      for (const offset of [0, 2]) samples[`${v}-${offset}`] = (await readWavMono(voiceSample(dir, v, { seconds: 8, textOffset: offset }))).samples;
    }
  });
  after(() => embedder?.close());

  test('loads the model: provider names the feature version, the model file and its hash; the dimension comes from the model', () => {
    const digest = createHash('sha256').update(fs.readFileSync(modelPath)).digest('hex');
    assert.equal(embedder.provider, `onnx-fbank80-v1:speaker:${digest.slice(0, 12)}`);
    assert.equal(embedder.dimension, 32);
  });

  test('a voice sample embeds to a finite unit vector of the model dimension, the same every time', async () => {
    const a = await embedder.embed(samples['slt-0'], 16000);
    assert.equal(a.length, 32);
    assert.ok(a.every(Number.isFinite));
    assert.ok(Math.abs(norm(a) - 1) < 1e-5);
    assert.deepEqual(await embedder.embed(samples['slt-0'], 16000), a);
  });

  test('two samples of one flite voice score higher than that voice against any other voice', async () => {
    const e: Record<string, Float32Array> = {};
    for (const [k, s] of Object.entries(samples)) e[k] = await embedder.embed(s, 16000);
    for (const v of voices) {
      const same = cosine(e[`${v}-0`], e[`${v}-2`]);
      for (const o of voices.filter((x) => x !== v)) {
        for (const k of [`${o}-0`, `${o}-2`]) assert.ok(same > cosine(e[`${v}-0`], e[k]), `${v}: same ${same.toFixed(3)} vs ${k} ${cosine(e[`${v}-0`], e[k]).toFixed(3)}`);
      }
    }
  });

  test('only the given regions are used, and too little speech is refused as not_enough_speech', async () => {
    // slt for 8 s, then rms for 8 s: the first 8 s alone must embed like the slt sample alone.
    const both = new Float32Array(16000 * 16);
    both.set(samples['slt-0'].subarray(0, 16000 * 8));
    both.set(samples['rms-0'].subarray(0, 16000 * 8), 16000 * 8);
    const first = await embedder.embed(both, 16000, [{ start: 0, end: 8 }]);
    assert.ok(cosine(first, await embedder.embed(samples['slt-0'], 16000)) > 0.999);
    assert.ok(cosine(first, await embedder.embed(both, 16000, [{ start: 8, end: 16 }])) < 0.95);
    await assert.rejects(embedder.embed(both, 16000, [{ start: 1, end: 1.6 }]), (err: unknown) => err instanceof EmbeddingError && err.reason === 'not_enough_speech');
  });

  test(`at most ${MAX_SPEECH_SECONDS} s of speech is embedded: what follows does not change the vector`, async () => {
    const voice = samples['kal16-0'].subarray(0, 16000 * 8);
    const long = new Float32Array(16000 * 80);
    for (let i = 0; i < 8; i++) long.set(voice, i * voice.length); // 64 s of kal16
    long.set(samples['rms-0'].subarray(0, 16000 * 8), 16000 * 72); // then rms at 72-80 s
    const all = await embedder.embed(long, 16000);
    const head = await embedder.embed(long.subarray(0, 16000 * 64), 16000);
    assert.ok(cosine(all, head) > 0.99999, String(cosine(all, head)));
  });

  test('embeds the diarized speakers of a corpus call; the enrolled voice scores higher on its own speaker', async () => {
    const id = 'car-repair'; // A speaks in flite voice kal16, B in awb
    const dir = path.join(ensureCorpus([id]), id);
    const truth = JSON.parse(fs.readFileSync(path.join(dir, 'truth.json'), 'utf8')) as Truth;
    const { samples: mono } = await readWavMono(path.join(dir, 'mono16k.wav'));
    const regionsOf = (sp: 'A' | 'B') => truth.turns.filter((t) => t.speaker === sp).map((t) => ({ start: t.startSeconds, end: t.endSeconds }));
    const audio = { sampleRate: 16000, mono: new ArrayPcm(mono, 16000), durationSeconds: mono.length / 16000, wavPath: path.join(dir, 'mono16k.wav') };
    const speakers = await embedCallSpeakers(embedder, audio, { A: regionsOf('A'), B: regionsOf('B') });
    assert.deepEqual(Object.keys(speakers).sort(), ['A', 'B']);
    for (const v of Object.values(speakers)) assert.ok(v.length === 32 && Math.abs(norm(v) - 1) < 1e-5);
    const profile = await embedder.embed(samples['kal16-0'], 16000);
    assert.ok(cosine(profile, speakers.A) > cosine(profile, speakers.B), `A ${cosine(profile, speakers.A)} B ${cosine(profile, speakers.B)}`);
  });

  test('a model taking [batch, 80, frames] gets transposed features and gives the same embedding', async () => {
    const transposed = await OnnxSpeakerEmbedder.create({ modelPath: writeTestModel(tmp, 'features-first.onnx', { featuresFirst: true, inputName: 'x', outputName: 'embedding' }) });
    try {
      const a = await transposed.embed(samples['awb-0'], 16000);
      const b = await embedder.embed(samples['awb-0'], 16000);
      assert.ok(cosine(a, b) > 0.99999);
      assert.notEqual(transposed.provider, embedder.provider, 'another model file is another provider');
    } finally {
      await transposed.close();
    }
  });

  test('createSpeakerEmbedder builds it for provider onnx', async () => {
    const e = await createSpeakerEmbedder({ provider: 'onnx', modelPath });
    assert.ok(e instanceof OnnxSpeakerEmbedder);
    assert.equal(e.provider, embedder.provider);
    await e.close();
  });

  test('sherpa-onnx metadata is read from the model file', () => {
    const meta = { framework: 'wespeaker', sample_rate: '16000', output_dim: '32', normalize_samples: '0', language: 'English' };
    assert.deepEqual(readModelMetadata(buildTestModel({ metadata: meta })), meta);
    assert.deepEqual(readModelMetadata(buildTestModel()), {});
  });

  test('a model with matching metadata loads (3D-Speaker conventions included)', async () => {
    const variants: Array<Record<string, string>> = [
      { framework: 'wespeaker', sample_rate: '16000', output_dim: '32', normalize_samples: '0' },
      { framework: '3d-speaker', sample_rate: '16000', output_dim: '32', normalize_samples: '1', feature_normalize_type: 'global-mean' },
    ];
    for (const metadata of variants) {
      const e = await OnnxSpeakerEmbedder.create({ modelPath: writeTestModel(tmp, `meta-${metadata.framework}.onnx`, { metadata }) });
      assert.equal((await e.embed(samples['slt-0'], 16000)).length, 32);
      await e.close();
    }
  });

  const refused: Array<[string, TestModelOptions, RegExp]> = [
    ['two inputs', { extraInput: 'feats_lengths' }, /has 2 inputs \(feats, feats_lengths\); expected one float input \[batch, frames, 80\]/],
    ['40-dim features', { inputShape: [1, 'T', 40] }, /input 'feats' has shape \[1, T, 40\]; expected \[batch, frames, 80\]/],
    ['a fixed frame count', { inputShape: [1, 200, 80] }, /has shape \[1, 200, 80\]; expected \[batch, frames, 80\] with a free frame count/],
    ['a rank-2 input', { inputShape: ['T', 80] }, /has shape \[T, 80\]; expected \[batch, frames, 80\]/],
    ['an 8 kHz model', { metadata: { framework: 'wespeaker', sample_rate: '8000' } }, /is for 8000 Hz audio/],
    ['a NeMo export', { metadata: { framework: 'nemo' } }, /is a 'nemo' export; this provider supports WeSpeaker and 3D-Speaker/],
    ['a wrong output_dim', { metadata: { output_dim: '256' } }, /returns 32 values where its metadata says 256/],
  ];
  for (const [what, opts, message] of refused) {
    test(`a model with ${what} is refused with a clear EmbeddingError`, async () => {
      const file = writeTestModel(tmp, `bad-${what.replace(/\W+/g, '-')}.onnx`, opts);
      await assert.rejects(OnnxSpeakerEmbedder.create({ modelPath: file }), (err: unknown) => {
        assert.ok(err instanceof EmbeddingError, String(err));
        assert.equal(err.reason, 'provider_unavailable');
        assert.match(err.message, message);
        return true;
      });
    });
  }

  test('a file that is not a model, a missing file, a wrong hash and a missing runtime fail clearly', async () => {
    const junk = path.join(tmp, 'junk.onnx');
    fs.writeFileSync(junk, 'this is not a protobuf model\n');
    const expectUnavailable = (message: RegExp) => (err: unknown) => {
      assert.ok(err instanceof EmbeddingError, String(err));
      assert.equal(err.reason, 'provider_unavailable');
      assert.match(err.message, message);
      assert.ok(!err.message.includes(tmp), 'the message does not echo local paths');
      return true;
    };
    await assert.rejects(OnnxSpeakerEmbedder.create({ modelPath: junk }), expectUnavailable(/not an ONNX model|does not load in onnxruntime/));
    await assert.rejects(OnnxSpeakerEmbedder.create({ modelPath: path.join(tmp, 'absent.onnx') }), expectUnavailable(/model file not found/));
    await assert.rejects(OnnxSpeakerEmbedder.create({ modelPath, modelSha256: '0'.repeat(64) }), expectUnavailable(/has sha256 [0-9a-f]{64}, expected 0{64}/));
    await assert.rejects(OnnxSpeakerEmbedder.create({ modelPath, runtimeModule: 'onnxruntime-node-absent' }), expectUnavailable(/needs the onnxruntime-node package, which does not load here/));
    const digest = createHash('sha256').update(fs.readFileSync(modelPath)).digest('hex');
    const checked = await OnnxSpeakerEmbedder.create({ modelPath, modelSha256: digest.toUpperCase() });
    await checked.close();
  });

  describe('model download', () => {
    const model = buildTestModel({ dimension: 16 });
    const digest = createHash('sha256').update(model).digest('hex');
    let server: http.Server;
    let base = '';
    let hits = 0;
    before(async () => {
      server = http.createServer((req, res) => {
        hits++;
        if (req.url === '/models/speaker.onnx') res.writeHead(200, { 'content-length': model.length }).end(model);
        else if (req.url === '/models/chunked.onnx') {
          // No length announced: the limit has to hold while the bytes arrive.
          res.writeHead(200);
          res.write(model.subarray(0, 64));
          res.end(model.subarray(64));
        } else if (req.url === '/models/stalled.onnx') {
          res.writeHead(200, { 'content-length': model.length });
          res.write(model.subarray(0, 64)); // and nothing more
        } else res.writeHead(404).end();
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    after(() => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    });

    test('downloads once into the model folder, checks the sha256, then uses the file', async () => {
      const modelDir = path.join(tmp, 'downloads');
      const cfg = { provider: 'onnx' as const, modelUrl: `${base}/models/speaker.onnx`, modelSha256: digest, modelDir };
      const first = (await createSpeakerEmbedder(cfg)) as OnnxSpeakerEmbedder;
      assert.equal(first.dimension, 16);
      assert.deepEqual(fs.readdirSync(modelDir), ['speaker.onnx']);
      const second = (await createSpeakerEmbedder(cfg)) as OnnxSpeakerEmbedder;
      assert.equal(second.provider, first.provider);
      assert.equal(hits, 1, 'the second start uses the downloaded file');
      await Promise.all([first.close(), second.close()]);
    });

    test('a download with another hash, over the size limit (announced or not), stalled, missing or unreachable fails clearly and leaves no file', async () => {
      const modelDir = path.join(tmp, 'refused-downloads');
      const unavailable = (message: RegExp) => (err: unknown) => err instanceof EmbeddingError && err.reason === 'provider_unavailable' && message.test(err.message);
      const url = `${base}/models/speaker.onnx`;
      await assert.rejects(OnnxSpeakerEmbedder.create({ modelUrl: url, modelDir, modelSha256: 'f'.repeat(64) }), unavailable(/download has sha256 [0-9a-f]{64}, expected f{64}/));
      await assert.rejects(OnnxSpeakerEmbedder.create({ modelUrl: url, modelDir, maxModelBytes: 100 }), unavailable(/over the 100-byte limit/));
      await assert.rejects(OnnxSpeakerEmbedder.create({ modelUrl: `${base}/models/chunked.onnx`, modelDir, maxModelBytes: 100 }), unavailable(/download interrupted \(over the 100-byte limit\)/));
      await assert.rejects(OnnxSpeakerEmbedder.create({ modelUrl: `${base}/models/stalled.onnx`, modelDir, idleTimeoutMs: 300 }), unavailable(/download interrupted \(no data for too long\)/));
      await assert.rejects(OnnxSpeakerEmbedder.create({ modelUrl: `${base}/models/none.onnx`, modelDir }), unavailable(/download failed \(HTTP 404\)/));
      // A closed port stands for a machine without network access.
      const closed = http.createServer();
      await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
      const port = (closed.address() as AddressInfo).port;
      await new Promise<void>((r) => closed.close(() => r()));
      await assert.rejects(
        createSpeakerEmbedder({ provider: 'onnx', modelUrl: `http://127.0.0.1:${port}/speaker.onnx`, modelDir }),
        unavailable(/voice embedding model download failed \(ECONNREFUSED\); place the model file at the configured path or check network access/),
      );
      assert.deepEqual(fs.existsSync(modelDir) ? fs.readdirSync(modelDir) : [], []);
    });
  });
});

describe('the onnx provider in the service', () => {
  const modelPath = writeTestModel(tmp, 'service-speaker.onnx', { dimension: 24 });
  const provider = `onnx-fbank80-v1:service-speaker:${createHash('sha256').update(fs.readFileSync(modelPath)).digest('hex').slice(0, 12)}`;
  let t: TestService;
  let idp: TestIdp;
  before(async () => {
    idp = await TestIdp.start();
    t = await startTestService({ env: { ...idp.env(), VOICE_EMBEDDING_PROVIDER: 'onnx', VOICE_EMBEDDING_MODEL_PATH: modelPath } });
  });
  after(async () => {
    await t?.stop();
    await idp?.stop();
  });

  test('an enrollment is embedded by the model; the spec responses carry its provider id', async () => {
    assert.equal(t.service.pipeline.embedder.provider, provider);
    const token = await idp.token({ sub: 'onnx-voice', email: 'onnx-voice@example.test' });
    const sample = voiceSample(path.join(tmp, 'voices'), 'rms', { seconds: 8 });
    const created = await t.request('POST', '/api/users/me/voice-profile', { token, form: uploadForm(sample, undefined, {}, 'sample.wav', 'audio/wav') });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(Object.keys(created.body).sort(), ['consentVersion', 'createdAt', 'provider', 'sampleDurationSeconds', 'status']);
    assert.equal(created.body.provider, provider);
    const status = await t.request('GET', '/api/users/me/voice-profile/status', { token });
    assert.equal(status.status, 200);
    assert.equal(status.body.provider, provider);
    const row = await t.service.ctx.database.db.selectFrom('voiceProfiles').select(['embedding', 'provider']).executeTakeFirstOrThrow();
    assert.equal(row.provider, provider);
    const stored = deserializeEmbedding(row.embedding);
    assert.equal(stored.length, 24);
    assert.ok(Math.abs(norm(stored) - 1) < 1e-5);
  });
});

test('a configured model that cannot be had: the pipeline logs why and keeps the embedded embedder', async () => {
  const lines: Array<{ msg: string; err?: string }> = [];
  const log = pino({ level: 'warn' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  const config = loadConfig({ SERVICE_ENV: 'test', DATA_DIR: tmp, VOICE_EMBEDDING_PROVIDER: 'onnx', VOICE_EMBEDDING_MODEL_PATH: path.join(tmp, 'not-there.onnx') });
  const pipeline = await createPipeline(config, log);
  assert.equal(pipeline.embedder.provider, EMBEDDED_PROVIDER);
  const warning = lines.find((l) => l.msg === 'voice embedding provider unavailable; using the embedded extractor');
  assert.ok(warning, JSON.stringify(lines));
  assert.match(warning.err ?? '', /model file not found/);
});

test('the built-in providers need no VOICE_MATCH_THRESHOLD: the default is calibrated for them (no warning)', async () => {
  for (const provider of ['embedded', 'embedded-stats', 'embedded-lda'] as const) {
    const lines: Array<{ msg: string }> = [];
    const log = pino({ level: 'warn' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const pipeline = await createPipeline(loadConfig({ SERVICE_ENV: 'test', DATA_DIR: tmp, VOICE_EMBEDDING_PROVIDER: provider }), log);
    assert.ok(pipeline.embedder.provider.startsWith('embedded-'), provider);
    assert.deepEqual(lines.filter((l) => l.msg.startsWith('VOICE_MATCH_THRESHOLD is not set')), [], provider);
  }
});

test('configuration: VOICE_EMBEDDING_MODEL_URL must be a URL, VOICE_EMBEDDING_MODEL_SHA256 a sha256; the model folder is DATA_DIR/models', () => {
  const c = loadConfig({ DATA_DIR: '/tmp/cas-onnx-config', VOICE_EMBEDDING_PROVIDER: 'onnx', VOICE_EMBEDDING_MODEL_URL: 'https://models.example/speaker.onnx', VOICE_EMBEDDING_MODEL_SHA256: 'AB'.repeat(32) });
  assert.deepEqual([c.voice.provider, c.voice.modelUrl, c.voice.modelSha256, c.voice.modelDir], ['onnx', 'https://models.example/speaker.onnx', 'ab'.repeat(32), '/tmp/cas-onnx-config/models']);
  assert.equal(loadConfig({}).voice.modelUrl, null);
  assert.throws(() => loadConfig({ VOICE_EMBEDDING_MODEL_URL: 'speaker.onnx' }), /VOICE_EMBEDDING_MODEL_URL must be a URL/);
  assert.throws(() => loadConfig({ VOICE_EMBEDDING_MODEL_SHA256: 'abc' }), /VOICE_EMBEDDING_MODEL_SHA256 must be a sha256 digest/);
});

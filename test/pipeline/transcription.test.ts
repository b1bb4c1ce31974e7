import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {
  NARROWBAND_DECODER_ARGS,
  PocketsphinxTranscriber,
  acousticConfidence,
  checkPocketsphinx,
  controlFile,
  controlPieces,
  parseHypseg,
  withoutFlag,
} from '../../src/pipeline/transcription/pocketsphinx.js';
import { WhisperCppTranscriber, WhisperInitError, wordsFromWhisperSegments } from '../../src/pipeline/transcription/whisper.js';
import { createTranscriber, type TranscriptionLog } from '../../src/pipeline/transcription/index.js';
import { decodeAudio, readWavMono, writeWav16 } from '../../src/pipeline/audio/decode.js';
import { detectSpeech, speechUtterances } from '../../src/pipeline/diarization/vad.js';
import { PipelineError } from '../../src/pipeline/types.js';
import { corpusFile, ensureCorpus, loadScorer, loadTruth } from '../support/corpus.js';

let tmp: string;
before(() => {
  ensureCorpus();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'transcription-test-'));
});
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

function memoryLog() {
  const entries: Array<{ level: string; obj: object; msg?: string }> = [];
  const log: TranscriptionLog = {
    info: (obj, msg) => void entries.push({ level: 'info', obj, msg }),
    warn: (obj, msg) => void entries.push({ level: 'warn', obj, msg }),
  };
  return { log, entries };
}

describe('pocketsphinx_batch output parsing', () => {
  it('places words by their utterance offset and never outside it, dropping fillers and pronunciation variants', () => {
    const pieces = controlPieces([{ start: 0.2, end: 0.9 }, { start: 5.0, end: 6.5 }, { start: 6.4, end: 6.45 }], 7);
    // The third utterance overlaps the second and is too short once cut: dropped.
    assert.deepEqual(pieces, [
      { id: 'u0', startFrame: 20, endFrame: 90 },
      { id: 'u1', startFrame: 500, endFrame: 650 },
    ]);
    assert.equal(controlFile('audio', pieces), 'audio 20 90 u0\naudio 500 650 u1\n');
    const hypseg = [
      'u0 S 0 T -100 A -90 L -10 0 -281600 0 <s> 11 -1742848 -315 hello(2) 47 -10 -46 <sil> 50 -10 -2 [NOISE] 55 -10 -2 ++BREATH++ 60 -1 -1 </s> 63',
      // A decoder reporting frames past its utterance (the drift this design rules out).
      'u1 S 0 T -100 A -90 L -10 0 -1000 0 <s> 20 -50000 -3 fine 140 -90000 -4 thanks 900',
      'u9 S 0 T -1 A -1 L -1 0 -1 0 unknown 10',
    ].join('\n');
    const words = parseHypseg(hypseg, pieces);
    assert.deepEqual(words.map((x) => [x.word, x.start, x.end]), [
      ['hello', 0.31, 0.67],
      ['fine', 5.2, 6.4],
      ['thanks', 6.4, 6.5],
    ]);
    for (const x of words) assert.ok(x.confidence >= 0 && x.confidence <= 1);
    // A word the acoustic model fits well is more likely right than one it fits badly.
    assert.ok(acousticConfidence(-15000, 10) > 0.9);
    assert.ok(acousticConfidence(-100000 * 10, 10) < 0.2);
    assert.deepEqual(parseHypseg('', pieces), []);
  });
});

describe('PocketsphinxTranscriber', () => {
  it('is installed here', () => {
    const c = checkPocketsphinx();
    assert.equal(c.ok, true, c.problems.join('; '));
    const bad = checkPocketsphinx({ binary: 'no-such-pocketsphinx', modelDir: path.join(tmp, 'none') });
    assert.equal(bad.ok, false);
    assert.match(bad.problems.join('\n'), /pocketsphinx-en-us/);
  });

  it('recognises a corpus excerpt with usable accuracy and timings', async () => {
    const id = 'car-repair';
    const truth = loadTruth(id);
    // The first three turns keep the test short while covering two voices.
    const turns = truth.turns.slice(0, 3);
    const clipEnd = turns[turns.length - 1].endSeconds + 0.3;
    const { samples } = await readWavMono(corpusFile(id, 'mono16k.wav'));
    const clip = path.join(tmp, 'clip.wav');
    await writeWav16(clip, samples.subarray(0, Math.round(clipEnd * 16000)), 16000);

    const t = new PocketsphinxTranscriber();
    assert.equal(t.provider, 'pocketsphinx');
    assert.match(t.model, /^cmusphinx-en-us-ptm/);
    const r = await t.transcribe({ wavPath: clip, durationSeconds: clipEnd });
    assert.equal(r.language, 'en');
    assert.ok(r.words.length > 10);
    const scorer = await loadScorer();
    const ref = turns.flatMap((x) => scorer.normalizeText(x.text));
    const hyp = scorer.normalizeText(r.words.map((w) => w.word).join(' '));
    const { wer } = (scorer as any).wordErrors(ref, hyp);
    assert.ok(wer < 0.45, `WER ${wer}`);
    for (let i = 0; i < r.words.length; i++) {
      const w = r.words[i];
      assert.ok(w.start >= 0 && w.end >= w.start && w.end <= clipEnd + 0.5, JSON.stringify(w));
      assert.ok(w.confidence >= 0 && w.confidence <= 1);
      assert.doesNotMatch(w.word, /[<>[\]()]/);
      if (i > 0) assert.ok(w.start >= r.words[i - 1].start);
    }
    // Words fall inside the spoken turns, not in the silences between them.
    const inside = r.words.filter((w) => turns.some((x) => (w.start + w.end) / 2 >= x.startSeconds - 0.3 && (w.start + w.end) / 2 <= x.endSeconds + 0.3));
    assert.ok(inside.length >= r.words.length * 0.9);
    // By construction, every word lies inside an utterance the project's VAD found.
    const { samples: clipSamples } = await readWavMono(clip);
    const utterances = await speechUtterances(clipSamples, 16000, await detectSpeech(clipSamples, 16000));
    for (const w of r.words) assert.ok(utterances.some((u) => w.start >= u.start - 0.01 && w.end <= u.end + 0.01), JSON.stringify(w));
  });

  it('decodes telephone-band audio with the narrowband settings and wideband audio without them', async () => {
    // A front-end flag that feat.params sets (pocketsphinx would ignore it on the command line) must
    // change a telephone clip's words, and nothing on a wideband clip.
    const id = 'car-repair';
    const clipEnd = loadTruth(id).turns[0].endSeconds + 0.3;
    const clips: Record<string, string> = {};
    for (const tier of ['mono16k.wav', 'phone8k.wav'] as const) {
      const decoded = await decodeAudio(corpusFile(id, tier), fs.mkdtempSync(path.join(tmp, 'nb-')), { timeoutMs: 60_000, maxSeconds: 120 });
      const { samples } = await readWavMono(decoded.wavPath);
      clips[tier] = path.join(tmp, `nb-${tier}`);
      await writeWav16(clips[tier], samples.subarray(0, Math.round(clipEnd * 16000)), 16000);
    }
    const plain = new PocketsphinxTranscriber({ narrowbandArgs: [], narrowbandFoldGain: 0 });
    const odd = new PocketsphinxTranscriber({ narrowbandArgs: ['-upperf', '3000'], narrowbandFoldGain: 0 });
    const text = async (t: PocketsphinxTranscriber, wav: string) => (await t.transcribe({ wavPath: wav, durationSeconds: clipEnd })).words.map((w) => w.word).join(' ');
    assert.equal(await text(odd, clips['mono16k.wav']), await text(plain, clips['mono16k.wav']));
    assert.notEqual(await text(odd, clips['phone8k.wav']), await text(plain, clips['phone8k.wav']));
    // The telephone MLLR transform is applied to the telephone clip only: its words' times or
    // acoustic confidences change (the clip's one word is heard either way).
    const adapted = new PocketsphinxTranscriber();
    const unadapted = new PocketsphinxTranscriber({ narrowbandArgs: withoutFlag(NARROWBAND_DECODER_ARGS, '-mllr') });
    const words = async (t: PocketsphinxTranscriber, wav: string) => JSON.stringify((await t.transcribe({ wavPath: wav, durationSeconds: clipEnd })).words);
    assert.equal(await words(adapted, clips['mono16k.wav']), await words(unadapted, clips['mono16k.wav']));
    assert.notEqual(await words(adapted, clips['phone8k.wav']), await words(unadapted, clips['phone8k.wav']));
  });

  it('names the Debian packages when the binary is missing', async () => {
    const t = new PocketsphinxTranscriber({ binary: 'no-such-pocketsphinx-binary' });
    await assert.rejects(t.transcribe({ wavPath: path.join(tmp, 'x.wav'), durationSeconds: 1 }), (e: unknown) => {
      assert.ok(e instanceof PipelineError);
      assert.equal(e.reason, 'transcription_failed');
      assert.match(e.message, /pocketsphinx pocketsphinx-en-us/);
      return true;
    });
  });

  it('fails cleanly on a file it cannot read', async () => {
    await assert.rejects(new PocketsphinxTranscriber().transcribe({ wavPath: path.join(tmp, 'missing.wav'), durationSeconds: 1 }), (e: unknown) => {
      assert.ok(e instanceof PipelineError);
      assert.equal(e.reason, 'transcription_failed');
      assert.doesNotMatch(e.message, /missing\.wav/);
      return true;
    });
  });
});

describe('whisper.cpp', () => {
  it('merges token segments into words and drops annotations', () => {
    const words = wordsFromWhisperSegments([
      { text: ' Hel', t0: 100, t1: 200 },
      { text: 'lo', t0: 200, t1: 300 },
      { text: ' [BLANK_AUDIO]', t0: 300, t1: 900 },
      { text: ' world', t0: 900, t1: 1400 },
      { text: '.', t0: 1400, t1: 1450 },
      { text: ' two words', t0: 2000, t1: 3000 },
    ]);
    assert.deepEqual(words, [
      { word: 'Hello', start: 0.1, end: 0.3, confidence: 1 },
      { word: 'world.', start: 0.9, end: 1.45, confidence: 1 },
      { word: 'two', start: 2, end: 2.5, confidence: 1 },
      { word: 'words', start: 2.5, end: 3, confidence: 1 },
    ]);
  });

  it('fails with a clear error without a model file', async () => {
    await assert.rejects(WhisperCppTranscriber.create({ language: 'en' }, memoryLog().log), (e: unknown) => {
      assert.ok(e instanceof WhisperInitError);
      assert.match(e.message, /model/);
      return true;
    });
    await assert.rejects(WhisperCppTranscriber.create({ language: 'en', modelPath: path.join(tmp, 'ggml-none.bin') }, memoryLog().log), /not found/);
  });

  it('rejects a corrupt model file without crashing the process', async () => {
    const bad = path.join(tmp, 'ggml-bad.bin');
    fs.writeFileSync(bad, Buffer.alloc(4096, 7));
    await assert.rejects(WhisperCppTranscriber.create({ language: 'en', modelPath: bad }, memoryLog().log), (e: unknown) => {
      assert.ok(e instanceof WhisperInitError);
      assert.match(e.message, /could not be loaded|does not load/);
      return true;
    });
  });

  it('downloads a configured model with a checksum check', async () => {
    const payload = Buffer.alloc(300_000, 3);
    const server = http.createServer((req, res) => {
      res.writeHead(200, { 'content-length': String(payload.length) });
      res.end(payload);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/models/ggml-test.bin`;
    try {
      const dir = path.join(tmp, 'models');
      const { log, entries } = memoryLog();
      await assert.rejects(WhisperCppTranscriber.create({ language: 'en', modelUrl: url, modelSha256: 'ab'.repeat(32), modelDir: dir }, log), /sha256/);
      assert.equal(fs.existsSync(path.join(dir, 'ggml-test.bin')), false);
      assert.deepEqual(fs.readdirSync(dir), [], 'no partial download left behind');

      const good = createHash('sha256').update(payload).digest('hex');
      // The download succeeds; the bytes are not a real model, so loading it then fails.
      await assert.rejects(WhisperCppTranscriber.create({ language: 'en', modelUrl: url, modelSha256: good, modelDir: dir }, log), /could not be loaded/);
      assert.equal(fs.statSync(path.join(dir, 'ggml-test.bin')).size, payload.length);
      assert.ok(entries.some((e) => e.msg === 'whisper model download progress'));
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it('fails fast when the model cannot be downloaded', async () => {
    const t0 = Date.now();
    await assert.rejects(
      WhisperCppTranscriber.create({ language: 'en', modelUrl: 'http://127.0.0.1:9/ggml-base.en.bin', modelDir: path.join(tmp, 'm2') }, memoryLog().log),
      /download failed/,
    );
    assert.ok(Date.now() - t0 < 5000);
  });
});

describe('createTranscriber', () => {
  it('falls back to pocketsphinx with a warning when whisper cannot start', async () => {
    const { log, entries } = memoryLog();
    const t = await createTranscriber({ provider: 'whisper', whisper: { language: 'en', modelPath: path.join(tmp, 'absent.bin') } }, log);
    assert.ok(t instanceof PocketsphinxTranscriber);
    const warn = entries.find((e) => e.level === 'warn');
    assert.ok(warn);
    assert.match(warn.msg ?? '', /pocketsphinx/);
  });

  it('builds the configured provider', async () => {
    const { log, entries } = memoryLog();
    const ps = await createTranscriber({ provider: 'pocketsphinx' }, log);
    assert.equal(ps.provider, 'pocketsphinx');
    const oa = await createTranscriber({ provider: 'openai', openai: { baseUrl: 'http://127.0.0.1:9', model: 'whisper-1', timeoutMs: 1000 } }, log);
    assert.equal(oa.provider, 'openai-compatible');
    assert.equal(oa.model, 'whisper-1');
    await assert.rejects(createTranscriber({ provider: 'openai' }, log), /base URL/);
    assert.equal(entries.filter((e) => e.level === 'warn').length, 0);
  });
});

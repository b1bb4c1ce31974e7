import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ChildProcessError, runChild } from '../../src/pipeline/audio/child.js';
import { acceptAudioUpload, declaredAudioFormat, sniffAudio, SNIFF_BYTES } from '../../src/pipeline/audio/sniff.js';
import { classifyStereo, decodeAudio, probeDurationSeconds, readWavMono, writeWav16 } from '../../src/pipeline/audio/decode.js';
import { readAllPcm } from '../../src/pipeline/audio/pcm.js';
import { PipelineError } from '../../src/pipeline/types.js';
import { corpusFile, ensureCorpus, loadTruth } from '../support/corpus.js';

const ID = 'car-repair';
let tmp: string;

before(() => {
  ensureCorpus();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'audio-test-'));
});
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

function head(file: string): Buffer {
  const fd = fs.openSync(file, 'r');
  try {
    const b = Buffer.alloc(SNIFF_BYTES);
    return b.subarray(0, fs.readSync(fd, b, 0, SNIFF_BYTES, 0));
  } finally {
    fs.closeSync(fd);
  }
}

function ffmpeg(...args: string[]) {
  execFileSync('ffmpeg', ['-nostdin', '-hide_banner', '-loglevel', 'error', '-y', ...args]);
}

async function rejectsWith<T>(p: Promise<T>, check: (e: any) => void) {
  let caught: unknown = null;
  try {
    await p;
  } catch (e) {
    caught = e;
  }
  assert.ok(caught, 'expected a rejection');
  check(caught);
}

describe('runChild', () => {
  it('returns stdout and passes arguments without a shell', async () => {
    const r = await runChild('echo', ['$(id)', '; ls', '*'], { timeoutMs: 5000, maxStdoutBytes: 1000 });
    assert.equal(r.stdout.toString(), '$(id) ; ls *\n');
    assert.equal(r.exitCode, 0);
  });

  it('does not hand the service environment to the child', async () => {
    process.env.CHILD_TEST_SECRET = 'top-secret-value';
    try {
      const r = await runChild('env', [], { timeoutMs: 5000, maxStdoutBytes: 100_000 });
      const out = r.stdout.toString();
      assert.doesNotMatch(out, /CHILD_TEST_SECRET/);
      assert.match(out, /^PATH=/m);
    } finally {
      delete process.env.CHILD_TEST_SECRET;
    }
  });

  it('kills a child that exceeds its time limit', async () => {
    const t0 = Date.now();
    await rejectsWith(runChild('sleep', ['10'], { timeoutMs: 200, maxStdoutBytes: 1000 }), (e) => {
      assert.ok(e instanceof ChildProcessError);
      assert.equal(e.kind, 'timeout');
    });
    assert.ok(Date.now() - t0 < 3000, 'timeout took too long');
  });

  it('kills a child that prints too much', async () => {
    await rejectsWith(runChild('yes', [], { timeoutMs: 10_000, maxStdoutBytes: 10_000 }), (e) => {
      assert.equal(e.kind, 'output_limit');
    });
    const missing = Array.from({ length: 300 }, (_, i) => `/no/such/path-${i}`);
    await rejectsWith(runChild('ls', missing, { timeoutMs: 10_000, maxStdoutBytes: 1e6, maxStderrBytes: 200 }), (e) => {
      assert.equal(e.kind, 'output_limit');
    });
  });

  it('reports a non-zero exit with its code and stderr tail, without arguments in the message', async () => {
    await rejectsWith(runChild('ls', ['/definitely/not/here-secret-name'], { timeoutMs: 5000, maxStdoutBytes: 1000 }), (e) => {
      assert.equal(e.kind, 'exit');
      assert.equal(e.exitCode, 2);
      assert.match(e.stderrTail, /not here-secret-name|No such file/);
      assert.doesNotMatch(e.message, /secret-name/);
    });
  });

  it('reports a missing binary as a spawn error', async () => {
    await rejectsWith(runChild('no-such-binary-xyz', [], { timeoutMs: 5000, maxStdoutBytes: 1000 }), (e) => {
      assert.equal(e.kind, 'spawn');
      assert.equal(e.code, 'ENOENT');
    });
  });

  it('stops on abort', async () => {
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    await rejectsWith(runChild('sleep', ['10'], { timeoutMs: 10_000, maxStdoutBytes: 1000, signal: ac.signal }), (e) => {
      assert.equal(e.kind, 'aborted');
    });
  });
});

describe('sniffAudio / acceptAudioUpload', () => {
  const cases: Array<[Parameters<typeof corpusFile>[1], string]> = [
    ['mono16k.wav', 'wav'],
    ['stereo.wav', 'wav'],
    ['phone8k.wav', 'wav'],
    ['call.m4a', 'm4a'],
    ['call.mp3', 'mp3'],
    ['call.ogg', 'ogg'],
    ['call.aac', 'aac'],
  ];
  for (const [file, fmt] of cases) {
    it(`recognises ${file} as ${fmt}`, () => {
      assert.equal(sniffAudio(head(corpusFile(ID, file))), fmt);
    });
  }

  it('recognises an mp3 without ID3 tag by its frame headers', () => {
    const b = head(corpusFile(ID, 'call.mp3'));
    const tagEnd = 10 + ((b[6] << 21) | (b[7] << 14) | (b[8] << 7) | b[9]);
    assert.equal(sniffAudio(b.subarray(tagEnd)), 'mp3');
  });

  it('refuses junk', () => {
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452000000100000001008060000001ff3ff61', 'hex');
    assert.equal(sniffAudio(png), null);
    assert.equal(sniffAudio(Buffer.alloc(0)), null);
    assert.equal(sniffAudio(Buffer.from('Hello, this is just a text file pretending to be audio.\n'.repeat(50))), null);
    assert.equal(sniffAudio(Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1')), null);
    assert.equal(sniffAudio(Buffer.alloc(4096)), null);
    // A plausible MPEG header followed by garbage where the next frame should start.
    const fake = Buffer.alloc(2000, 0x41);
    fake.set([0xff, 0xfb, 0x90, 0x64], 0);
    assert.equal(sniffAudio(fake), null);
    // "RIFF" of a non-audio RIFF (AVI) is not WAV.
    assert.equal(sniffAudio(Buffer.from('RIFF\x00\x00\x00\x00AVI LIST', 'latin1')), null);
  });

  it('decides on content, not on name or MIME type', () => {
    const text = Buffer.from('not audio at all\n'.repeat(100));
    assert.equal(acceptAudioUpload({ filename: 'call.mp3', mimetype: 'audio/mpeg', head: text }, ['mp3', 'wav']), null);
    const m4a = head(corpusFile(ID, 'call.m4a'));
    assert.equal(acceptAudioUpload({ filename: 'call.mp3', mimetype: 'audio/mpeg', head: m4a }, ['mp3', 'm4a']), 'm4a');
    assert.equal(acceptAudioUpload({ filename: 'x.bin', mimetype: 'application/octet-stream', head: m4a }), 'm4a');
    const ogg = head(corpusFile(ID, 'call.ogg'));
    assert.equal(acceptAudioUpload({ filename: 'sample.ogg', mimetype: 'audio/ogg', head: ogg }, ['wav', 'mp3', 'm4a']), null);
    assert.equal(declaredAudioFormat('Voice Memo.M4A', null), 'm4a');
    assert.equal(declaredAudioFormat(null, 'audio/x-wav; codecs=1'), 'wav');
    assert.equal(declaredAudioFormat('notes.txt', 'text/plain'), null);
  });
});

describe('decodeAudio', () => {
  it('decodes every corpus format to 16 kHz mono with the true duration', async () => {
    const truth = loadTruth(ID);
    for (const file of ['mono16k.wav', 'call.m4a', 'call.mp3', 'call.ogg', 'call.aac', 'phone8k.wav'] as const) {
      const d = await decodeAudio(corpusFile(ID, file), path.join(tmp, file), { timeoutMs: 30_000, maxSeconds: 600 });
      assert.equal(d.sampleRate, 16000);
      assert.equal(d.channels, undefined, file);
      assert.equal(d.mono.length, Math.round(d.durationSeconds * 16000));
      assert.ok(Math.abs(d.durationSeconds - truth.durationSeconds) < 0.05, `${file}: ${d.durationSeconds} vs ${truth.durationSeconds}`);
      const w = await readWavMono(d.wavPath);
      assert.equal(w.sampleRate, 16000);
      assert.equal(w.samples.length, d.mono.length);
    }
  });

  it('keeps both channels of a two-party stereo recording', async () => {
    const truth = loadTruth(ID);
    const d = await decodeAudio(corpusFile(ID, 'stereo.wav'), path.join(tmp, 'stereo'), { timeoutMs: 30_000, maxSeconds: 600 });
    assert.ok(d.channels);
    assert.equal(d.channels[0].length, d.mono.length);
    const [left, right, mono] = await Promise.all([...d.channels, d.mono].map(readAllPcm));
    assert.equal((await readWavMono(d.wavPath)).samples.length, left.length);
    // Speaker A is on the left: during A's first turn the left channel carries the energy.
    const turn = truth.turns.find((t) => t.speaker === 'A')!;
    const energy = (x: Float32Array) => {
      let e = 0;
      for (let i = Math.floor(turn.startSeconds * 16000); i < Math.floor(turn.endSeconds * 16000); i++) e += x[i] * x[i];
      return e;
    };
    assert.ok(energy(left) > 100 * energy(right));
    const mid = Math.floor(((turn.startSeconds + turn.endSeconds) / 2) * 16000);
    assert.ok(Math.abs(mono[mid] - (left[mid] + right[mid]) / 2) < 1e-6);
  });

  it('treats identical or one-sided stereo as mono', async () => {
    const dup = path.join(tmp, 'dup.mp3');
    ffmpeg('-i', corpusFile(ID, 'mono16k.wav'), '-t', '8', '-ac', '2', '-b:a', '64k', dup);
    const d = await decodeAudio(dup, path.join(tmp, 'dup'), { timeoutMs: 30_000, maxSeconds: 600 });
    assert.equal(d.channels, undefined);
    assert.ok(Math.abs(d.durationSeconds - 8) < 0.1);

    const oneSided = path.join(tmp, 'left-only.wav');
    ffmpeg('-i', corpusFile(ID, 'mono16k.wav'), '-t', '5', '-af', 'pan=stereo|c0=c0|c1=0*c0', oneSided);
    const o = await decodeAudio(oneSided, path.join(tmp, 'left-only'), { timeoutMs: 30_000, maxSeconds: 600 });
    assert.equal(o.channels, undefined);
    const peak = (await readAllPcm(o.mono)).reduce((m, v) => Math.max(m, Math.abs(v)), 0);
    assert.ok(peak > 0.5, 'the audible channel is used at full level, not halved');

    assert.equal(classifyStereo(1, 1, 1), 'same');
    assert.equal(classifyStereo(1, 1, -1), 'same');
    assert.equal(classifyStereo(1, 1, 0.1), 'distinct');
    assert.equal(classifyStereo(1, 1e-6, 0), 'left');
    assert.equal(classifyStereo(1e-6, 1, 0), 'right');
  });

  it('refuses undecodable input and audio over the limit', async () => {
    const junk = path.join(tmp, 'junk.mp3');
    fs.writeFileSync(junk, 'this is a text file\n'.repeat(200));
    await rejectsWith(decodeAudio(junk, path.join(tmp, 'junk'), { timeoutMs: 30_000, maxSeconds: 600 }), (e) => {
      assert.ok(e instanceof PipelineError);
      assert.equal(e.reason, 'audio_undecodable');
      assert.doesNotMatch(e.message, /junk/);
    });
    const t0 = Date.now();
    await rejectsWith(decodeAudio(corpusFile(ID, 'call.m4a'), path.join(tmp, 'long'), { timeoutMs: 30_000, maxSeconds: 10 }), (e) => {
      assert.equal(e.reason, 'audio_too_long');
    });
    assert.ok(Date.now() - t0 < 10_000);
    await rejectsWith(probeDurationSeconds(junk, { timeoutMs: 30_000 }), (e) => assert.equal(e.reason, 'audio_undecodable'));
  });

  it('measures durations by decoding, also for raw AAC', async () => {
    const truth = loadTruth(ID);
    const aac = await probeDurationSeconds(corpusFile(ID, 'call.aac'), { timeoutMs: 30_000 });
    assert.ok(Math.abs(aac - truth.durationSeconds) < 0.05, `${aac}`);
    const capped = await probeDurationSeconds(corpusFile(ID, 'call.mp3'), { timeoutMs: 30_000, maxSeconds: 5 });
    assert.ok(capped > 5 && capped <= 6.01, `${capped}`);
  });

  it('writes and reads 16-bit WAV', async () => {
    const n = 16000;
    const s = new Float32Array(n);
    for (let i = 0; i < n; i++) s[i] = 0.5 * Math.sin((2 * Math.PI * 440 * i) / 16000);
    s[10] = 2; // clipped, not wrapped
    const f = path.join(tmp, 'sine.wav');
    await writeWav16(f, s, 16000);
    assert.equal(fs.statSync(f).size, 44 + 2 * n);
    const r = await readWavMono(f);
    assert.equal(r.sampleRate, 16000);
    assert.equal(r.samples.length, n);
    assert.ok(Math.abs(r.samples[100] - s[100]) < 1e-3);
    assert.ok(r.samples[10] > 0.99);
    const probe = await probeDurationSeconds(f, { timeoutMs: 30_000 });
    assert.ok(Math.abs(probe - 1) < 0.01);
  });
});

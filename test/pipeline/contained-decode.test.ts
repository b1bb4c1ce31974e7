// ffmpeg reads only the file it is given, however the file is crafted: the tricks an attacker
// would store as "audio" (an ID3 tag in front of an HLS playlist, an ffconcat script or an SDP
// description, each naming other files or hosts; a playlist repeating one segment hundreds of
// times; a header that turns a few bytes into hours) are refused by the upload sniffer and, should
// one reach the decoder anyway (a blob stored before these rules), fail there as audio_undecodable
// without a byte of the named files. A full disk while decoding is the machine's fault, not the
// file's: it is retryable. (The same attacks through the HTTP API: test/e2e/contained-media.test.ts.)
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MAX_ID3_BYTES, SNIFF_BYTES, sniffAudio, sniffBytesWanted } from '../../src/pipeline/audio/sniff.js';
import { decodeAudio, ffmpegIoFault, LocalStorageFault, plausibleSecondsFor, probeDurationSeconds } from '../../src/pipeline/audio/decode.js';
import { PipelineError } from '../../src/pipeline/types.js';
import { corpusFile, ensureCorpus, loadTruth } from '../support/corpus.js';
import { hlsPlaylist, ffconcatScript, id3Tag, sdpDescription, slowWav } from '../support/hostile-audio.js';
import { wavHeader } from '../support/wav.js';

const ID = 'car-repair';
let tmp: string;
/** The folder the hostile files sit in, beside the files they name (as a call's blob sits among others). */
let folder: string;

before(() => {
  ensureCorpus();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'contained-decode-'));
  folder = path.join(tmp, 'blobs');
  fs.mkdirSync(folder);
  fs.copyFileSync(corpusFile(ID, 'call.mp3'), path.join(folder, 'victim.mp3'));
  fs.copyFileSync(corpusFile(ID, 'mono16k.wav'), path.join(folder, 'victim.wav'));
});
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

function write(name: string, ...parts: Array<Buffer | string>): string {
  const f = path.join(folder, name);
  fs.writeFileSync(f, Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : p))));
  return f;
}

async function rejection(p: Promise<unknown>): Promise<PipelineError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof PipelineError, `not a PipelineError: ${e}`);
    return e;
  }
  assert.fail('expected a rejection');
}

const decode = (file: string, name: string, maxSeconds = 600) => decodeAudio(file, path.join(tmp, 'work', name), { timeoutMs: 60_000, maxSeconds });

describe('upload sniffer: an ID3 tag must be followed by audio frames', () => {
  it('refuses an ID3 tag followed by an HLS playlist, an ffconcat script, an SDP description or text', () => {
    for (const body of [hlsPlaylist(['victim.mp3']), hlsPlaylist(Array(300).fill('victim.mp3')), ffconcatScript(['victim.wav']), sdpDescription(), 'just some words\n'.repeat(40)]) {
      const file = Buffer.concat([id3Tag(), Buffer.from(body)]);
      assert.equal(sniffAudio(file), null, body.slice(0, 30));
      // Also when zero padding sits between the tag and the text.
      assert.equal(sniffAudio(Buffer.concat([id3Tag(64), Buffer.alloc(32), Buffer.from(body)])), null);
    }
  });

  it('accepts an ID3 tag followed by MPEG audio or ADTS frames, also behind a large tag', () => {
    const mp3 = fs.readFileSync(corpusFile(ID, 'call.mp3'));
    const aac = fs.readFileSync(corpusFile(ID, 'call.aac'));
    assert.equal(sniffAudio(mp3.subarray(0, SNIFF_BYTES)), 'mp3');
    assert.equal(sniffAudio(Buffer.concat([id3Tag(100), aac]).subarray(0, SNIFF_BYTES)), 'aac');
    // 200 kB of tag (cover art): the sniffer asks for the bytes behind it, then finds the frames.
    const big = Buffer.concat([id3Tag(200_000), mp3]);
    const wanted = sniffBytesWanted(big.subarray(0, SNIFF_BYTES));
    assert.equal(wanted, 200_010 + SNIFF_BYTES);
    assert.equal(sniffAudio(big.subarray(0, wanted)), 'mp3');
    // A tag larger than MAX_ID3_BYTES is refused rather than buffered.
    const huge = Buffer.concat([id3Tag(MAX_ID3_BYTES + 1), mp3.subarray(0, 4000)]);
    assert.equal(sniffBytesWanted(huge.subarray(0, SNIFF_BYTES)), SNIFF_BYTES, 'nothing more is buffered for it');
    assert.equal(sniffAudio(huge), null);
  });
});

describe('decodeAudio contains ffmpeg to the one file', () => {
  it('an ID3 tag and an HLS playlist naming a neighbouring recording decodes to nothing of it', async () => {
    const f = write('hls.mp3', id3Tag(), hlsPlaylist(['victim.mp3']));
    assert.ok(fs.statSync(f).size < 100, 'a few dozen bytes');
    const e = await rejection(decode(f, 'hls'));
    assert.equal(e.reason, 'audio_undecodable');
    assert.equal(e.retryable, false);
    assert.equal((await rejection(probeDurationSeconds(f, { timeoutMs: 60_000 }))).reason, 'audio_undecodable');
  });

  it('a playlist repeating one segment 300 times does not become hours of audio', async () => {
    const f = write('repeat.mp3', id3Tag(), hlsPlaylist(Array(300).fill('victim.mp3')));
    const e = await rejection(decode(f, 'repeat', 1800));
    assert.equal(e.reason, 'audio_undecodable');
  });

  it('an ID3 tag and an ffconcat script naming a neighbouring recording decodes to nothing of it', async () => {
    const f = write('concat.mp3', id3Tag(), ffconcatScript(['victim.wav', 'victim.wav']));
    const e = await rejection(decode(f, 'concat'));
    assert.equal(e.reason, 'audio_undecodable');
  });

  it('a playlist without any tag, stored under an audio name, is not read either', async () => {
    const f = write('bare.aac', hlsPlaylist(['victim.mp3']));
    assert.equal((await rejection(decode(f, 'bare'))).reason, 'audio_undecodable');
  });

  it('every accepted format still decodes to its true duration, with or without an ID3 tag in front', async () => {
    const truth = loadTruth(ID).durationSeconds;
    const tagged = write('tagged.aac', id3Tag(300), fs.readFileSync(corpusFile(ID, 'call.aac')));
    const bigTag = write('big-tag.mp3', id3Tag(200_000), fs.readFileSync(corpusFile(ID, 'call.mp3')));
    for (const f of [corpusFile(ID, 'mono16k.wav'), corpusFile(ID, 'phone8k.wav'), corpusFile(ID, 'call.mp3'), corpusFile(ID, 'call.m4a'), corpusFile(ID, 'call.ogg'), corpusFile(ID, 'call.aac'), tagged, bigTag]) {
      const d = await decode(f, `ok-${path.basename(f)}`);
      assert.ok(Math.abs(d.durationSeconds - truth) < 0.2, `${path.basename(f)}: ${d.durationSeconds} s, expected ${truth}`);
    }
  });
});

describe('decoded length bounded by what the file can hold', () => {
  it('a 4 kB WAV declaring a sample rate of 10 Hz (400 s of "audio") fails as audio_undecodable, quickly', async () => {
    const f = write('slow.wav', slowWav(10, 4000));
    assert.ok(plausibleSecondsFor('wav', fs.statSync(f).size) < 30);
    const e = await rejection(decode(f, 'slow'));
    assert.equal(e.reason, 'audio_undecodable');
    assert.match(e.message, /more audio than/);
    assert.doesNotMatch(e.message, /slow|blobs/, 'no path in the message');
    // The decoder stopped at the bound: nothing of the 400 s was left behind.
    assert.deepEqual(fs.readdirSync(path.join(tmp, 'work', 'slow')), []);
  });

  it('real recordings sit far inside their bounds; a too-long real file is still audio_too_long', async () => {
    for (const [file, fmt] of [['call.mp3', 'mp3'], ['call.m4a', 'm4a'], ['call.ogg', 'ogg'], ['call.aac', 'aac'], ['phone8k.wav', 'wav']] as const) {
      const bytes = fs.statSync(corpusFile(ID, file)).size;
      assert.ok(plausibleSecondsFor(fmt, bytes) > 4 * loadTruth(ID).durationSeconds, file);
    }
    assert.equal((await rejection(decode(corpusFile(ID, 'call.ogg'), 'too-long', 10))).reason, 'audio_too_long');
  });
});

describe('decoding memory bounded whatever rate the header declares', () => {
  // A WAV header may declare any sample rate up to 4 GHz. Resampling to 16 kHz builds a filter
  // whose length grows with the ratio: a 40 kB file declaring 100 MHz made ffmpeg allocate and
  // compute a 470 MB filter bank (150 MHz: 670 MB and 3 s of CPU), per decoding, on the upload path
  // of calls and of voice samples alike. No recording has such a rate.
  const HUGE_RATE = 24_999_991;
  /** ffmpeg run under /usr/bin/time, its peak resident size (kB) appended to `log`; null without /usr/bin/time. */
  function measuredFfmpeg(dir: string): { path: string; peakKb(): number } | null {
    if (!fs.existsSync('/usr/bin/time')) return null;
    const log = path.join(dir, 'rss.log');
    const wrapper = path.join(dir, 'ffmpeg-measured');
    fs.writeFileSync(wrapper, `#!/bin/sh\nexec /usr/bin/time -f '%M' -a -o '${log}' ffmpeg "$@"\n`, { mode: 0o755 });
    return { path: wrapper, peakKb: () => Math.max(...fs.readFileSync(log, 'utf8').split('\n').filter((l) => /^\d+$/.test(l)).map(Number)) };
  }

  it('a WAV declaring 25 MHz fails as audio_undecodable without ffmpeg taking hundreds of MB', async (t) => {
    // 0.06 s at that rate: before the cap ffmpeg decoded it (to 1 000 samples) at a 156 MB peak.
    const bytes = 3_000_000;
    const f = write('fast.wav', wavHeader(bytes, { sampleRate: HUGE_RATE }), Buffer.alloc(bytes, 7));
    const measured = measuredFfmpeg(tmp);
    const e = await rejection(decodeAudio(f, path.join(tmp, 'work', 'fast'), { timeoutMs: 60_000, maxSeconds: 600, ...(measured ? { ffmpegPath: measured.path } : {}) }));
    assert.equal(e.reason, 'audio_undecodable');
    if (!measured) return t.diagnostic('no /usr/bin/time: peak memory not measured');
    assert.ok(measured.peakKb() < 200_000, `ffmpeg peaked at ${measured.peakKb()} kB`);
  });

  it('the highest rates real recorders use (384 kHz) still decode', async () => {
    const f = write('hires.wav', wavHeader(384_000 * 2, { sampleRate: 384_000 }), Buffer.alloc(384_000 * 2, 3));
    const d = await decode(f, 'hires');
    assert.ok(Math.abs(d.durationSeconds - 1) < 0.05, `${d.durationSeconds} s`);
  });
});

describe('local storage failures while decoding are retryable', () => {
  it('names ENOSPC and the like from ffmpeg diagnostics, and nothing a bad file makes it say', () => {
    assert.equal(ffmpegIoFault('av_interleaved_write_frame(): No space left on device\nError writing trailer of x.wav: No space left on device'), 'ENOSPC');
    assert.equal(ffmpegIoFault('Error closing file x.wav: Disk quota exceeded'), 'EDQUOT');
    assert.equal(ffmpegIoFault('x.wav: Read-only file system'), 'EROFS');
    assert.equal(ffmpegIoFault('[mp3 @ 0x1] Failed to read frame size: Could not seek to 1094.\nx.mp3: Invalid argument'), null);
    assert.equal(ffmpegIoFault('[mov,mp4,m4a,3gp,3g2,mj2 @ 0x1] moov atom not found\nx.m4a: Invalid data found when processing input'), null);
    assert.equal(ffmpegIoFault('Cannot allocate memory'), null);
  });

  it('a disk that is full under the decoder (the output on /dev/full) is a retryable local fault, not audio_undecodable', async () => {
    const work = path.join(tmp, 'work', 'full');
    fs.mkdirSync(work, { recursive: true });
    // ffmpeg's output goes to /dev/full: every write fails with ENOSPC, and ffmpeg even exits 0.
    fs.symlinkSync('/dev/full', path.join(work, 'decoded16k.wav'));
    const e = await rejection(decodeAudio(corpusFile(ID, 'call.mp3'), work, { timeoutMs: 60_000, maxSeconds: 600 }));
    assert.ok(e instanceof LocalStorageFault, `${e.reason}: ${e.message}`);
    assert.equal(e.reason, 'internal_error');
    assert.equal(e.retryable, true);
    assert.equal(e.code, 'ENOSPC');
  });

  it('a work folder on a full file system (a 64 kB tmpfs) is a retryable local fault', async (t) => {
    const mnt = path.join(tmp, 'tiny');
    fs.mkdirSync(mnt);
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', mnt], { stdio: 'ignore' });
    } catch {
      t.skip('mounting a tmpfs is not permitted here (the /dev/full case covers the classification)');
      return;
    }
    try {
      const e = await rejection(decodeAudio(corpusFile(ID, 'call.mp3'), path.join(mnt, 'call'), { timeoutMs: 60_000, maxSeconds: 600 }));
      assert.ok(e instanceof LocalStorageFault, `${e.reason}: ${e.message}`);
      assert.equal(e.retryable, true);
    } finally {
      execFileSync('umount', [mnt]);
    }
  });
});

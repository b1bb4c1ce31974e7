// Audio decoding: whatever the upload is, ffmpeg turns it into 16 kHz 16-bit PCM, which every
// later stage (recognisers, diarization, voice embedding) consumes. ffmpeg is contained to the one
// file (forced demuxer, protocol and format allow-lists; see containedInput), and decoding is
// capped at the duration limit and at what the file's size can plausibly hold, so that a small file
// claiming hours of audio costs little. The decoded call stays on disk: stages read it window by
// window (pcm.ts), never as one whole-call array.
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PIPELINE_SAMPLE_RATE, PipelineError, type DecodedAudio } from '../types.js';
import { ChildProcessError, runChild, type ChildResult } from './child.js';
import { WavFilePcm, type PcmSource } from './pcm.js';
import { MAX_SNIFF_BYTES, SNIFF_BYTES, sniffAudio, sniffBytesWanted, type AudioFormat } from './sniff.js';

export interface DecodeOptions {
  timeoutMs: number;
  /** Longer input fails with audio_too_long. */
  maxSeconds: number;
  signal?: AbortSignal;
  /** ffmpeg binary; default `ffmpeg` from PATH. */
  ffmpegPath?: string;
}

/**
 * Channels at least this correlated (or with the quieter one this far below the louder one) are
 * one signal recorded twice, not two parties on their own channels. Lossy joint-stereo coding of
 * a duplicated mono signal still correlates above 0.99; separate call legs are near 0.
 */
const SAME_SIGNAL_CORRELATION = 0.95;
const SILENT_CHANNEL_ENERGY_RATIO = 1e-3;
const READ_CHUNK_BYTES = 4 * 1024 * 1024;

// ---------------------------------------------------------------- containment
// ffmpeg reads exactly the one file it is given: its demuxer is forced from what the bytes sniff as
// (so no probe can pick the HLS, concat, SDP or image2 demuxers, which open other files or hosts),
// only that demuxer is allowed (nested opens included), and only the `file` protocol.

/** The ffmpeg demuxer for each accepted format (`mov` is the ISO-BMFF demuxer: m4a, mp4, 3gp). */
const DEMUXERS: Record<AudioFormat, string> = { wav: 'wav', mp3: 'mp3', m4a: 'mov', aac: 'aac', ogg: 'ogg' };

/**
 * The lowest average rate, in bytes of file per second of audio, that a real recording in each
 * format has: decoded audio longer than the file allows at this rate is not what the file holds (a
 * header claiming a sample rate of 10 Hz, one segment played hundreds of times) and fails as
 * audio_undecodable; decoding stops there, so such a file costs seconds, not the duration limit. The
 * floors sit well below real encoders: MP3 has no frame below 8 kbit/s (1000 B/s); WAV's lowest
 * codecs (G.723.1, GSM) exceed 5 kbit/s; AAC, Opus and Vorbis encoders spend about 64 B/s on pure
 * digital silence and far more on a call, so those floors are half of that.
 */
export const MIN_BYTES_PER_SECOND: Record<AudioFormat, number> = { wav: 250, mp3: 500, m4a: 32, aac: 32, ogg: 32 };
/** Added to every bound so that very short files (a header and a second of audio) are never refused by it. */
const BOUND_GRACE_SECONDS = 5;

/** Most seconds of audio a file of `bytes` bytes in `format` may decode to. */
export function plausibleSecondsFor(format: AudioFormat, bytes: number): number {
  return BOUND_GRACE_SECONDS + bytes / MIN_BYTES_PER_SECOND[format];
}

interface ContainedInput {
  format: AudioFormat;
  bytes: number;
  /** ffmpeg input options and the input itself: `... -f <demuxer> -i file:<path>`. */
  args: string[];
}

/**
 * What the file is, sniffed from its own bytes with the upload's rules (a blob stored before those
 * rules, or a file swapped on disk, gets no more trust than an upload), and the ffmpeg input
 * arguments that read it and nothing else.
 */
async function containedInput(inputPath: string): Promise<ContainedInput> {
  const fh = await fsp.open(inputPath, 'r');
  let head: Buffer;
  let bytes: number;
  try {
    bytes = (await fh.stat()).size;
    head = Buffer.alloc(Math.min(bytes, SNIFF_BYTES));
    let got = (await fh.read(head, 0, head.length, 0)).bytesRead;
    const wanted = Math.min(bytes, sniffBytesWanted(head.subarray(0, got)), MAX_SNIFF_BYTES);
    if (wanted > got) {
      const more = Buffer.alloc(wanted);
      head.copy(more, 0, 0, got);
      got += (await fh.read(more, got, wanted - got, got)).bytesRead;
      head = more;
    }
    head = head.subarray(0, got);
  } finally {
    await fh.close();
  }
  const format = sniffAudio(head);
  if (!format) throw new PipelineError('audio_undecodable', 'the file is not in a supported audio format');
  const demuxer = DEMUXERS[format];
  const args = ['-protocol_whitelist', 'file', '-format_whitelist', demuxer, '-f', demuxer];
  // The ISO-BMFF demuxer can follow data references to other files; off by default, kept off here.
  if (demuxer === 'mov') args.push('-enable_drefs', '0');
  // `file:` so that no part of the path is ever read as a protocol name.
  args.push('-i', `file:${path.resolve(inputPath)}`);
  return { format, bytes, args };
}

/**
 * Failures of this machine rather than of the file: the disk full, a quota, an I/O error, a
 * read-only or vanished work folder, too many open files. A job hitting one is retried; it says
 * nothing about the upload.
 */
const LOCAL_IO_ERRNOS = new Set(['ENOSPC', 'EDQUOT', 'EIO', 'EROFS', 'EMFILE', 'ENFILE', 'EACCES', 'EPERM', 'EBUSY']);
/**
 * The same failures in ffmpeg's words (the C library's strerror). Only wordings no demuxer or
 * decoder uses for bad input are matched (not EIO or ENOMEM, which a hostile file can provoke), so a
 * crafted file cannot earn retries. Writing to a full disk ffmpeg may even exit 0, so its
 * diagnostics are checked on success as well.
 */
const FFMPEG_IO_FAULTS: Array<[RegExp, string]> = [
  [/No space left on device/i, 'ENOSPC'],
  [/Disk quota exceeded/i, 'EDQUOT'],
  [/Read-only file system/i, 'EROFS'],
  [/Too many open files/i, 'EMFILE'],
];

/** A local storage failure while decoding: retryable, and never the upload's fault. */
export class LocalStorageFault extends PipelineError {
  constructor(
    what: string,
    readonly code: string,
  ) {
    super('internal_error', `${what} failed on local storage (${code}); will retry`, true);
  }
}

function localIoFailure(what: string, code: string): PipelineError {
  return new LocalStorageFault(what, code);
}

/** The transient error for a Node file-system error of our own reads and writes, or null when `err` is not one. */
export function localIoError(err: unknown, what: string): PipelineError | null {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return typeof code === 'string' && LOCAL_IO_ERRNOS.has(code) ? localIoFailure(what, code) : null;
}

/** The errno name of a local I/O failure ffmpeg's diagnostics report, or null. */
export function ffmpegIoFault(stderr: string): string | null {
  for (const [re, code] of FFMPEG_IO_FAULTS) if (re.test(stderr)) return code;
  return null;
}

/** Runs ffmpeg on a contained input; a local I/O fault it reports, even on exit 0, is a retryable failure. */
async function runFfmpeg(args: string[], opts: { timeoutMs: number; signal?: AbortSignal; ffmpegPath?: string }, what: string): Promise<ChildResult> {
  let result: ChildResult;
  try {
    result = await runChild(opts.ffmpegPath ?? 'ffmpeg', args, {
      timeoutMs: opts.timeoutMs,
      maxStdoutBytes: 64 * 1024,
      maxStderrBytes: 256 * 1024,
      signal: opts.signal,
    });
  } catch (err) {
    const fault = err instanceof ChildProcessError && err.kind === 'exit' ? ffmpegIoFault(err.stderrTail) : null;
    if (fault) throw localIoFailure(what, fault);
    throw ffmpegFailure(err, what);
  }
  const fault = ffmpegIoFault(result.stderr.toString('utf8'));
  if (fault) throw localIoFailure(what, fault);
  return result;
}

function ffmpegFailure(err: unknown, what: string): PipelineError {
  if (err instanceof PipelineError) return err;
  if (err instanceof ChildProcessError) {
    if (err.kind === 'spawn') {
      return new PipelineError('internal_error', `ffmpeg is not available (${err.code ?? 'spawn failed'}); install the Debian package ffmpeg`, true);
    }
    if (err.kind === 'timeout') return new PipelineError('audio_undecodable', `${what} timed out`, true);
    if (err.kind === 'aborted') return new PipelineError('internal_error', `${what} was aborted`, true);
    if (err.kind === 'output_limit') return new PipelineError('audio_undecodable', `${what} produced too much output`);
    return new PipelineError('audio_undecodable', `${what} failed: the file is not decodable audio`);
  }
  return new PipelineError('internal_error', `${what} failed unexpectedly`);
}

/**
 * The largest single block ffmpeg may allocate (its `-max_alloc`; ffmpeg's own default is 2 GiB).
 * A header may declare any sample rate (WAV and Ogg up to 4 GHz, ISO-BMFF a float), and the
 * resampler's filter grows with the ratio to 16 kHz: a 40 kB WAV declaring 100 MHz made ffmpeg
 * build a 470 MB filter bank (150 MHz: 670 MB and 3 s of CPU) for every decoding. The largest
 * block a real upload needs is the ISO-BMFF sample index, 24 bytes per AAC frame: 4 hours of
 * 96 kHz AAC (1.35 M frames) is a 33 MB block (2 hours at 48 kHz decode with 16 MiB and fail
 * with 4 MiB).
 */
export const FFMPEG_MAX_ALLOC_BYTES = 64 * 1024 * 1024;

/** ffmpeg arguments decoding the first audio stream of a contained input to 16 kHz 16-bit PCM. */
function ffmpegArgs(input: ContainedInput, output: string, format: 'wav' | 's16le', layouts: string, limitSeconds: number): string[] {
  return [
    '-nostdin', '-hide_banner', '-loglevel', 'error', '-y',
    '-max_alloc', String(FFMPEG_MAX_ALLOC_BYTES),
    ...input.args,
    '-map', '0:a:0', '-vn', '-sn', '-dn',
    // aformat picks the closest allowed layout, so 5.1 and other layouts fold down to stereo.
    '-af', `aformat=channel_layouts=${layouts}`,
    '-ar', String(PIPELINE_SAMPLE_RATE),
    '-c:a', 'pcm_s16le',
    // Stop just past the limit: enough to tell "too long" without decoding hours of audio.
    '-t', String(limitSeconds + 1),
    '-f', format, output,
  ];
}

export interface WavInfo {
  channels: number;
  sampleRate: number;
  bitsPerSample: number;
  /** 1 = integer PCM, 3 = IEEE float. */
  formatTag: number;
  dataOffset: number;
  dataBytes: number;
}

/** Format and data position of a WAV file (RIFF chunks walked, so extra chunks before `data` are fine). */
export async function readWavInfo(file: string): Promise<WavInfo> {
  const fh = await fsp.open(file, 'r');
  try {
    const { size } = await fh.stat();
    const head = Buffer.alloc(12);
    await fh.read(head, 0, 12, 0);
    const riff = head.toString('latin1', 0, 4);
    if ((riff !== 'RIFF' && riff !== 'RF64') || head.toString('latin1', 8, 12) !== 'WAVE') throw new Error('not a WAV file');
    let pos = 12;
    let fmt: Omit<WavInfo, 'dataOffset' | 'dataBytes'> | null = null;
    const hdr = Buffer.alloc(8);
    while (pos + 8 <= size) {
      await fh.read(hdr, 0, 8, pos);
      const id = hdr.toString('latin1', 0, 4);
      const len = hdr.readUInt32LE(4);
      if (id === 'fmt ') {
        const b = Buffer.alloc(Math.min(len, 40));
        await fh.read(b, 0, b.length, pos + 8);
        let formatTag = b.readUInt16LE(0);
        // WAVE_FORMAT_EXTENSIBLE carries the real format in its sub-format GUID.
        if (formatTag === 0xfffe && b.length >= 26) formatTag = b.readUInt16LE(24);
        fmt = { formatTag, channels: b.readUInt16LE(2), sampleRate: b.readUInt32LE(4), bitsPerSample: b.readUInt16LE(14) };
      } else if (id === 'data') {
        if (!fmt) throw new Error('WAV data before format');
        // Streamed or RF64 writers leave the size unknown; the file length bounds it either way.
        const available = size - (pos + 8);
        const dataBytes = len === 0 || len === 0xffffffff || len > available ? available : len;
        return { ...fmt, dataOffset: pos + 8, dataBytes };
      }
      pos += 8 + len + (len & 1);
    }
    throw new Error('WAV without data');
  } finally {
    await fh.close();
  }
}

/**
 * Streams the frames of a WAV file as float samples in [-1, 1]: `onChunk` receives interleaved
 * frames for at most READ_CHUNK_BYTES at a time.
 */
async function streamWav(file: string, info: WavInfo, onChunk: (interleaved: Float32Array) => void): Promise<void> {
  const bytesPerSample = info.bitsPerSample / 8;
  const frameBytes = bytesPerSample * info.channels;
  if (![1, 2, 3, 4].includes(bytesPerSample) || (bytesPerSample === 4 && info.formatTag !== 1 && info.formatTag !== 3)) {
    throw new Error('unsupported WAV sample format');
  }
  const chunkBytes = Math.max(frameBytes, Math.floor(READ_CHUNK_BYTES / frameBytes) * frameBytes);
  const buf = Buffer.alloc(chunkBytes);
  const fh = await fsp.open(file, 'r');
  try {
    let remaining = info.dataBytes - (info.dataBytes % frameBytes);
    let pos = info.dataOffset;
    while (remaining > 0) {
      const want = Math.min(chunkBytes, remaining);
      const { bytesRead } = await fh.read(buf, 0, want, pos);
      const usable = bytesRead - (bytesRead % frameBytes);
      if (usable <= 0) break;
      const n = usable / bytesPerSample;
      const out = new Float32Array(n);
      if (bytesPerSample === 2 && buf.byteOffset % 2 === 0 && os.endianness() === 'LE') {
        const pcm = new Int16Array(buf.buffer, buf.byteOffset, n);
        for (let i = 0; i < n; i++) out[i] = pcm[i] / 32768;
      } else if (bytesPerSample === 2) for (let i = 0; i < n; i++) out[i] = buf.readInt16LE(i * 2) / 32768;
      else if (bytesPerSample === 1) for (let i = 0; i < n; i++) out[i] = (buf[i] - 128) / 128;
      else if (bytesPerSample === 3) for (let i = 0; i < n; i++) out[i] = buf.readIntLE(i * 3, 3) / 8388608;
      else if (info.formatTag === 3) for (let i = 0; i < n; i++) out[i] = buf.readFloatLE(i * 4);
      else for (let i = 0; i < n; i++) out[i] = buf.readInt32LE(i * 4) / 2147483648;
      onChunk(out);
      pos += usable;
      remaining -= usable;
    }
  } finally {
    await fh.close();
  }
}

/** Reads a PCM WAV file (8/16/24/32-bit integer or 32-bit float), averaging its channels. */
export async function readWavMono(file: string): Promise<{ samples: Float32Array; sampleRate: number }> {
  const info = await readWavInfo(file);
  const frames = Math.floor(info.dataBytes / ((info.bitsPerSample / 8) * info.channels));
  const samples = new Float32Array(frames);
  let at = 0;
  await streamWav(file, info, (chunk) => {
    const c = info.channels;
    for (let i = 0; i + c <= chunk.length; i += c) {
      let s = 0;
      for (let k = 0; k < c; k++) s += chunk[i + k];
      samples[at++] = s / c;
    }
  });
  return { samples: at === frames ? samples : samples.subarray(0, at), sampleRate: info.sampleRate };
}

/**
 * Samples of [startSeconds, endSeconds) of a PCM WAV file, channels averaged: a window of a long
 * call read from disk, so a stage that needs only part of the call never holds all of it.
 */
export async function readWavWindow(file: string, startSeconds: number, endSeconds: number): Promise<{ samples: Float32Array; sampleRate: number }> {
  const info = await readWavInfo(file);
  const frameBytes = (info.bitsPerSample / 8) * info.channels;
  const totalFrames = Math.floor(info.dataBytes / frameBytes);
  const a = Math.min(totalFrames, Math.max(0, Math.floor(startSeconds * info.sampleRate)));
  const b = Math.min(totalFrames, Math.max(a, Math.ceil(endSeconds * info.sampleRate)));
  const samples = new Float32Array(b - a);
  let at = 0;
  const window: WavInfo = { ...info, dataOffset: info.dataOffset + a * frameBytes, dataBytes: (b - a) * frameBytes };
  await streamWav(file, window, (chunk) => {
    const c = info.channels;
    for (let i = 0; i + c <= chunk.length; i += c) {
      let s = 0;
      for (let k = 0; k < c; k++) s += chunk[i + k];
      samples[at++] = s / c;
    }
  });
  return { samples: at === samples.length ? samples : samples.subarray(0, at), sampleRate: info.sampleRate };
}

function wavHeader16(dataBytes: number, sampleRate: number, channels = 1): Buffer {
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'latin1');
  h.writeUInt32LE(36 + dataBytes, 4);
  h.write('WAVE', 8, 'latin1');
  h.write('fmt ', 12, 'latin1');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(channels, 22);
  h.writeUInt32LE(sampleRate, 24);
  h.writeUInt32LE(sampleRate * channels * 2, 28);
  h.writeUInt16LE(channels * 2, 32);
  h.writeUInt16LE(16, 34);
  h.write('data', 36, 'latin1');
  h.writeUInt32LE(dataBytes, 40);
  return h;
}

/** Writes float samples in [-1, 1] as a mono 16-bit PCM WAV file (clipping out-of-range values). */
export async function writeWav16(file: string, samples: Float32Array, sampleRate: number): Promise<void> {
  const fh = await fsp.open(file, 'w');
  try {
    await fh.write(wavHeader16(samples.length * 2, sampleRate));
    const step = 1 << 20;
    const buf = Buffer.alloc(step * 2);
    for (let off = 0; off < samples.length; off += step) {
      const n = Math.min(step, samples.length - off);
      for (let i = 0; i < n; i++) {
        const v = samples[off + i];
        const s = v >= 1 ? 32767 : v <= -1 ? -32768 : Math.round(v * 32767);
        buf.writeInt16LE(s, i * 2);
      }
      await fh.write(buf, 0, n * 2);
    }
  } finally {
    await fh.close();
  }
}

/**
 * Decodes any supported upload to 16 kHz 16-bit PCM files in workDir: `audio16k.wav` (mono, what
 * the recognisers read) and, for a two-channel upload, `decoded16k.wav` (both channels) that the
 * channel sources read. The returned audio reads its samples from those files on demand.
 */
export async function decodeAudio(inputPath: string, workDir: string, opts: DecodeOptions): Promise<DecodedAudio> {
  try {
    return await decodeContained(inputPath, workDir, opts);
  } catch (err) {
    if (err instanceof PipelineError) throw err;
    throw localIoError(err, 'audio decoding') ?? err;
  }
}

async function decodeContained(inputPath: string, workDir: string, opts: DecodeOptions): Promise<DecodedAudio> {
  const sr = PIPELINE_SAMPLE_RATE;
  await fsp.mkdir(workDir, { recursive: true, mode: 0o700 });
  const input = await containedInput(inputPath);
  const plausibleSeconds = plausibleSecondsFor(input.format, input.bytes);
  const decodedPath = path.join(workDir, 'decoded16k.wav');
  try {
    await runFfmpeg(ffmpegArgs(input, decodedPath, 'wav', 'mono|stereo', Math.min(opts.maxSeconds, plausibleSeconds)), opts, 'audio decoding');
  } catch (err) {
    await fsp.rm(decodedPath, { force: true });
    throw err;
  }

  let info: WavInfo;
  try {
    info = await readWavInfo(decodedPath);
  } catch (err) {
    throw localIoError(err, 'audio decoding') ?? new PipelineError('audio_undecodable', 'audio decoding produced no readable audio');
  }
  const frames = Math.floor(info.dataBytes / (2 * info.channels));
  if (info.bitsPerSample !== 16 || info.sampleRate !== sr || (info.channels !== 1 && info.channels !== 2)) {
    throw new PipelineError('internal_error', 'audio decoding produced an unexpected PCM format');
  }
  if (frames === 0) throw new PipelineError('audio_undecodable', 'the file contains no audio samples');
  // Past the plausible length only counts where that length, not the duration limit, stopped ffmpeg.
  if (frames > plausibleSeconds * sr && plausibleSeconds < opts.maxSeconds) {
    await fsp.rm(decodedPath, { force: true });
    throw new PipelineError('audio_undecodable', `the file decodes to more audio than ${input.bytes} bytes of ${input.format} can hold`);
  }
  if (frames > opts.maxSeconds * sr) {
    await fsp.rm(decodedPath, { force: true });
    throw new PipelineError('audio_too_long', `audio is longer than the limit of ${opts.maxSeconds} s`);
  }
  const durationSeconds = frames / sr;
  const wavPath = path.join(workDir, 'audio16k.wav');

  if (info.channels === 1) {
    // ffmpeg's output already is the mono 16-bit file the recognisers want.
    await fsp.rename(decodedPath, wavPath);
    return { sampleRate: sr, mono: await WavFilePcm.open(wavPath), durationSeconds, wavPath };
  }

  // Two channels: their energies and correlation in one streamed pass, then the mono file written
  // from the channel(s) that carry the call. The two-channel file stays as the channels' source.
  let ll = 0;
  let rr = 0;
  let lr = 0;
  // The 16-bit samples as they are (s / 32768 is exact, so the sums are those of the float samples).
  await streamWavInt16(decodedPath, info, (pcm) => {
    for (let i = 0; i + 1 < pcm.length; i += 2) {
      const l = pcm[i] / 32768;
      const r = pcm[i + 1] / 32768;
      ll += l * l;
      rr += r * r;
      lr += l * r;
    }
  });
  const kind = classifyStereo(ll, rr, lr);
  // One empty leg: a mono recording, not a conversation split in two. A phase-inverted duplicate
  // would average to silence, so that one keeps the left channel as is.
  const channel = kind === 'left' || (kind === 'same' && lr < 0) ? 0 : kind === 'right' ? 1 : 'mix';
  const mono = await WavFilePcm.open(decodedPath, channel);
  await writeMonoWav16(decodedPath, info, wavPath, channel);
  if (kind !== 'distinct') return { sampleRate: sr, mono, durationSeconds, wavPath };
  return { sampleRate: sr, mono, channels: [await WavFilePcm.open(decodedPath, 0), await WavFilePcm.open(decodedPath, 1)], durationSeconds, wavPath };
}

/**
 * Streams the interleaved 16-bit samples of a 16-bit PCM WAV file, READ_CHUNK_BYTES at a time
 * (the view is reused: `onChunk` must not keep it).
 */
async function streamWavInt16(file: string, info: WavInfo, onChunk: (interleaved: Int16Array) => void | Promise<void>): Promise<void> {
  const frameBytes = 2 * info.channels;
  const chunkBytes = Math.max(frameBytes, Math.floor(READ_CHUNK_BYTES / frameBytes) * frameBytes);
  const buf = Buffer.alloc(chunkBytes);
  const view = os.endianness() === 'LE' && buf.byteOffset % 2 === 0 ? new Int16Array(buf.buffer, buf.byteOffset, chunkBytes / 2) : null;
  const fh = await fsp.open(file, 'r');
  try {
    let remaining = info.dataBytes - (info.dataBytes % frameBytes);
    let pos = info.dataOffset;
    while (remaining > 0) {
      const { bytesRead } = await fh.read(buf, 0, Math.min(chunkBytes, remaining), pos);
      const usable = bytesRead - (bytesRead % frameBytes);
      if (usable <= 0) break;
      const n = usable / 2;
      if (view) await onChunk(view.subarray(0, n));
      else {
        const copy = new Int16Array(n);
        for (let i = 0; i < n; i++) copy[i] = buf.readInt16LE(i * 2);
        await onChunk(copy);
      }
      pos += usable;
      remaining -= usable;
    }
  } finally {
    await fh.close();
  }
}

/**
 * The mono file of a two-channel 16-bit WAV file: one channel, or the channels' average, written
 * straight from the 16-bit samples. Sample for sample what writeWav16From(WavFilePcm.open(decoded,
 * channel)) writes (the same float32 average, rounded the same way), in one pass with no per-window
 * float arrays: on a two-hour call that was most of decoding's own time besides ffmpeg's.
 */
async function writeMonoWav16(decodedPath: string, info: WavInfo, file: string, channel: 0 | 1 | 'mix'): Promise<void> {
  const frames = Math.floor(info.dataBytes / 4);
  const fh = await fsp.open(file, 'w');
  try {
    await fh.write(wavHeader16(frames * 2, info.sampleRate));
    const out = Buffer.alloc(READ_CHUNK_BYTES / 2);
    const le = os.endianness() === 'LE' && out.byteOffset % 2 === 0;
    const outView = le ? new Int16Array(out.buffer, out.byteOffset, out.length / 2) : null;
    await streamWavInt16(decodedPath, { ...info, dataBytes: frames * 4 }, async (pcm) => {
      const n = pcm.length >> 1;
      for (let i = 0, j = 0; i < n; i++, j += 2) {
        let s: number;
        if (channel === 'mix') {
          // As WavFilePcm stores it: the float64 average rounded to float32.
          const v = Math.fround((pcm[j] / 32768 + pcm[j + 1] / 32768) / 2);
          s = v >= 1 ? 32767 : v <= -1 ? -32768 : Math.round(v * 32767);
        } else {
          const v = pcm[j + channel] / 32768;
          s = v >= 1 ? 32767 : v <= -1 ? -32768 : Math.round(v * 32767);
        }
        if (outView) outView[i] = s;
        else out.writeInt16LE(s, i * 2);
      }
      await fh.write(out, 0, n * 2);
    });
  } finally {
    await fh.close();
  }
}

/** Writes a source as a mono 16-bit PCM WAV file window by window (as writeWav16 would write the whole array). */
export async function writeWav16From(file: string, source: PcmSource): Promise<void> {
  const fh = await fsp.open(file, 'w');
  try {
    await fh.write(wavHeader16(source.length * 2, source.sampleRate));
    const step = 1 << 20;
    const buf = Buffer.alloc(step * 2);
    for (let off = 0; off < source.length; off += step) {
      const samples = await source.read(off, step);
      for (let i = 0; i < samples.length; i++) {
        const v = samples[i];
        buf.writeInt16LE(v >= 1 ? 32767 : v <= -1 ? -32768 : Math.round(v * 32767), i * 2);
      }
      await fh.write(buf, 0, samples.length * 2);
    }
  } finally {
    await fh.close();
  }
}

/** Whether two channels carry two different signals, or which single one carries the audio. */
export function classifyStereo(ll: number, rr: number, lr: number): 'distinct' | 'same' | 'left' | 'right' {
  const loud = Math.max(ll, rr);
  if (loud === 0) return 'same';
  if (rr < ll * SILENT_CHANNEL_ENERGY_RATIO) return 'left';
  if (ll < rr * SILENT_CHANNEL_ENERGY_RATIO) return 'right';
  const corr = lr / Math.sqrt(ll * rr);
  return Math.abs(corr) >= SAME_SIGNAL_CORRELATION ? 'same' : 'distinct';
}

export interface ProbeOptions {
  timeoutMs: number;
  /** When set, decoding stops one second past it, so longer input reports a value above it rather than its full length. */
  maxSeconds?: number;
  signal?: AbortSignal;
  ffmpegPath?: string;
}

/**
 * Duration of an audio file in seconds, measured by decoding it and counting samples (container
 * durations are unreliable, notably for raw AAC). Fails with audio_undecodable like decodeAudio.
 */
export async function probeDurationSeconds(inputPath: string, opts: ProbeOptions): Promise<number> {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'probe-'));
  const out = path.join(dir, 'probe.pcm');
  try {
    const input = await containedInput(inputPath);
    const plausibleSeconds = plausibleSecondsFor(input.format, input.bytes);
    await runFfmpeg(ffmpegArgs(input, out, 's16le', 'mono', Math.min(opts.maxSeconds ?? 24 * 3600, plausibleSeconds)), opts, 'audio duration probe');
    const { size } = await fsp.stat(out);
    if (size === 0) throw new PipelineError('audio_undecodable', 'the file contains no audio samples');
    const seconds = size / 2 / PIPELINE_SAMPLE_RATE;
    if (seconds > plausibleSeconds && plausibleSeconds < (opts.maxSeconds ?? Infinity)) throw new PipelineError('audio_undecodable', `the file decodes to more audio than ${input.bytes} bytes of ${input.format} can hold`);
    return seconds;
  } catch (err) {
    if (err instanceof PipelineError) throw err;
    throw localIoError(err, 'audio duration probe') ?? ffmpegFailure(err, 'audio duration probe');
  } finally {
    await fsp.rm(dir, { recursive: true, force: true });
  }
}

// Long calls for recognisers with a request size limit: the call is cut into parts at pauses the
// VAD finds, each part is sent compressed with a little audio of its neighbours on either side,
// and the words come back to call time with the overlap removed. Only a window around each cut
// is read from disk, so planning costs the same memory for two minutes as for four hours.
import fsp from 'node:fs/promises';
import { readWavWindow } from '../audio/decode.js';
import { ChildProcessError, runChild } from '../audio/child.js';
import { detectSpeech } from '../diarization/vad.js';
import { PIPELINE_SAMPLE_RATE, PipelineError, type RecognizedWord } from '../types.js';

export type ChunkAudioFormat = 'flac' | 'mp3' | 'opus';

export interface ChunkFormatInfo {
  extension: string;
  mime: string;
  ffmpegCodecArgs: string[];
  /**
   * Bytes per second of audio the encoder cannot exceed (with container overhead), so a part of
   * `maxBytes / bound` seconds always fits. FLAC falls back to verbatim frames on noise, so its
   * bound is 16-bit PCM; the lossy codecs run at a fixed speech bitrate.
   */
  maxBytesPerSecond: number;
}

export const CHUNK_FORMATS: Record<ChunkAudioFormat, ChunkFormatInfo> = {
  // Lossless: the recogniser hears exactly what the pipeline decoded, at about half the WAV size.
  flac: { extension: 'flac', mime: 'audio/flac', ffmpegCodecArgs: ['-c:a', 'flac', '-compression_level', '5'], maxBytesPerSecond: 33_000 },
  mp3: { extension: 'mp3', mime: 'audio/mpeg', ffmpegCodecArgs: ['-c:a', 'libmp3lame', '-b:a', '48k'], maxBytesPerSecond: 6_500 },
  opus: { extension: 'ogg', mime: 'audio/ogg', ffmpegCodecArgs: ['-c:a', 'libopus', '-b:a', '24k', '-vbr', 'constrained', '-application', 'voip'], maxBytesPerSecond: 4_500 },
};

/** One part of the call: `start`..`end` is the part's own span; `sendStart`..`sendEnd` adds the overlap. */
export interface CallChunk {
  index: number;
  start: number;
  end: number;
  sendStart: number;
  sendEnd: number;
}

export interface ChunkPlanOptions {
  /** Longest audio per request, overlap included. */
  maxChunkSeconds: number;
  /** Audio of the neighbouring part sent on each side of a cut. */
  overlapSeconds: number;
  /** How far before the longest allowed cut to look for a pause. Default a quarter of a part, at most 60 s. */
  searchSeconds?: number;
}

/** Where in [lo, hi] to cut: the middle of the longest pause, later ones winning ties; `hi` when there is none. */
export async function findPause(wavPath: string, lo: number, hi: number): Promise<number> {
  const { samples, sampleRate } = await readWavWindow(wavPath, lo, hi);
  const regions = await detectSpeech(samples, sampleRate);
  const span = samples.length / sampleRate;
  let best = { length: -1, at: span };
  let prev = 0;
  for (const r of [...regions, { start: span, end: span }]) {
    const length = r.start - prev;
    if (length > 0 && length >= best.length) best = { length, at: (prev + r.start) / 2 };
    prev = Math.max(prev, r.end);
  }
  return lo + Math.min(span, best.at);
}

/** The parts of a call of `durationSeconds`, cut at pauses. A call that fits one request is one part. */
export async function planChunks(wavPath: string, durationSeconds: number, opts: ChunkPlanOptions): Promise<CallChunk[]> {
  const overlap = Math.max(0, opts.overlapSeconds);
  const core = opts.maxChunkSeconds - 2 * overlap;
  if (core <= 1) throw new Error('chunk length must exceed twice the overlap by more than a second');
  const search = Math.min(opts.searchSeconds ?? Math.min(60, core / 4), core / 2);
  const cuts: number[] = [];
  let pos = 0;
  // The first and last parts carry overlap on one side only; planning for two keeps it simple.
  while (durationSeconds - pos > opts.maxChunkSeconds - overlap) {
    const hi = pos + core;
    const cut = await findPause(wavPath, hi - search, hi);
    cuts.push(cut);
    pos = cut;
  }
  const bounds = [0, ...cuts, durationSeconds];
  const chunks: CallChunk[] = [];
  for (let i = 0; i + 1 < bounds.length; i++) {
    const start = bounds[i];
    const end = bounds[i + 1];
    chunks.push({ index: i, start, end, sendStart: Math.max(0, start - overlap), sendEnd: Math.min(durationSeconds, end + overlap) });
  }
  return chunks;
}

/** How far past a cut a part's words are still taken, so a word the two parts time differently is not lost. */
const CUT_TOLERANCE_SECONDS = 0.25;

/**
 * Words of all parts in call time. A part contributes the words whose middle lies in its own span
 * (widened a little at each cut); a word both parts contribute overlaps itself in time and is kept
 * once, in the earlier part's version. Distinct words never overlap by half, so nothing else goes.
 */
export function mergeChunkWords(chunks: CallChunk[], wordsPerChunk: RecognizedWord[][]): RecognizedWord[] {
  const out: RecognizedWord[] = [];
  const last = chunks.length - 1;
  for (const chunk of chunks) {
    const words = wordsPerChunk[chunk.index]
      .map((w) => ({ ...w, start: w.start + chunk.sendStart, end: w.end + chunk.sendStart }))
      .filter((w) => {
        const mid = (w.start + w.end) / 2;
        return (chunk.index === 0 || mid >= chunk.start - CUT_TOLERANCE_SECONDS) && (chunk.index === last || mid < chunk.end + CUT_TOLERANCE_SECONDS);
      });
    for (const w of words) {
      const prev = out[out.length - 1];
      if (prev) {
        const shared = Math.min(prev.end, w.end) - Math.max(prev.start, w.start);
        const shorter = Math.min(prev.end - prev.start, w.end - w.start);
        if (shared > 0 && shared >= 0.5 * shorter) continue;
        // Parts are consecutive, but a recogniser may time a word slightly before the previous one.
        if (w.start < prev.start) w.start = prev.start;
        if (w.end < w.start) w.end = w.start;
      }
      out.push(w);
    }
  }
  return out;
}

/** Encodes [sendStart, sendEnd] of the call's WAV file into `outPath` with ffmpeg, bounded in time and output. */
export async function encodeChunk(
  wavPath: string,
  chunk: Pick<CallChunk, 'sendStart' | 'sendEnd'>,
  outPath: string,
  format: ChunkAudioFormat,
  opts: { timeoutMs: number; signal?: AbortSignal; ffmpegPath?: string },
): Promise<number> {
  const f = CHUNK_FORMATS[format];
  const args = [
    '-nostdin', '-hide_banner', '-loglevel', 'error', '-y',
    // Seeking before -i on PCM WAV is exact and does not read the skipped audio.
    '-ss', chunk.sendStart.toFixed(3), '-t', (chunk.sendEnd - chunk.sendStart).toFixed(3),
    '-i', wavPath,
    '-vn', '-ac', '1', '-ar', String(PIPELINE_SAMPLE_RATE),
    ...f.ffmpegCodecArgs,
    outPath,
  ];
  try {
    await runChild(opts.ffmpegPath ?? 'ffmpeg', args, { timeoutMs: opts.timeoutMs, maxStdoutBytes: 64 * 1024, maxStderrBytes: 64 * 1024, signal: opts.signal });
  } catch (err) {
    await fsp.rm(outPath, { force: true });
    if (err instanceof ChildProcessError && err.kind === 'aborted') throw new PipelineError('internal_error', 'audio encoding for the recogniser was aborted', true);
    if (err instanceof ChildProcessError && err.kind === 'spawn') throw new PipelineError('internal_error', 'ffmpeg is not available to encode audio for the recogniser', true);
    throw new PipelineError('transcription_failed', `encoding audio for the recogniser failed (${err instanceof ChildProcessError ? err.kind : 'error'})`);
  }
  return (await fsp.stat(outPath)).size;
}

/**
 * Runs `fn` over `items` with at most `limit` at a time. The first failure stops the rest from
 * starting and is what this rejects with (later failures are often just the others being stopped).
 */
export async function mapBounded<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failure: { error: unknown } | null = null;
  const worker = async () => {
    while (!failure && next < items.length) {
      const i = next++;
      try {
        results[i] = await fn(items[i]);
      } catch (error) {
        failure ??= { error };
        return;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  if (failure) throw (failure as { error: unknown }).error;
  return results;
}

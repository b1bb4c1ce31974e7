// Voice activity detection with the WebRTC VAD (libfvad compiled to WASM). Frame decisions are
// noisy inside words (stop closures, weak fricatives), so short non-speech runs are held as speech
// (hangover), then regions closer than a gap are merged and short blips dropped. The signal is
// read window by window, so a long call is never one array in memory.
import fvadFactory, { type FvadModule } from '@echogarden/fvad-wasm';
import { ArrayPcm, pcmOf, readAllPcm, type PcmSource } from '../audio/pcm.js';

export interface SpeechRegion {
  start: number; // seconds
  end: number; // seconds
}

export interface DetectSpeechOptions {
  /** WebRTC VAD mode: 0 lets most through, 3 is the strictest. Default 2. */
  aggressiveness?: 0 | 1 | 2 | 3;
  /** Frame length in ms: 10, 20 or 30. Default 30. */
  frameMs?: 10 | 20 | 30;
  /** Regions shorter than this after merging are dropped. Default 0.15 s. */
  minSpeechSeconds?: number;
  /** Gaps shorter than this between regions are bridged. Default 0.3 s. */
  mergeGapSeconds?: number;
  /** Non-speech runs up to this long inside speech are held as speech. Default 90 ms. */
  hangoverMs?: number;
  /** Audio read at a time (rounded to whole frames); the result does not depend on it. Default 30 s. */
  windowSeconds?: number;
}

const FVAD_RATES = new Set([8000, 16000, 32000, 48000]);

let modulePromise: Promise<FvadModule> | undefined;
function loadFvad(): Promise<FvadModule> {
  // One WASM instance per process: instantiation costs far more than a detector handle.
  modulePromise ??= fvadFactory().catch((err: unknown) => {
    // Let a later call try again rather than failing every call of the process.
    modulePromise = undefined;
    throw err;
  });
  return modulePromise;
}

/** Linear-interpolation resampling; good enough for a speech/non-speech decision. */
function resampleLinear(samples: Float32Array, from: number, to: number): Float32Array {
  const n = Math.floor((samples.length * to) / from);
  const out = new Float32Array(n);
  const ratio = from / to;
  for (let i = 0; i < n; i++) {
    const x = i * ratio;
    const i0 = Math.floor(x);
    const i1 = Math.min(i0 + 1, samples.length - 1);
    const f = x - i0;
    out[i] = samples[i0] * (1 - f) + samples[i1] * f;
  }
  return out;
}

/** Frames of fvad's input handled per read of the source by default (30 s of 30 ms frames). */
const FRAMES_PER_READ = 1000;

/**
 * Raw per-frame WebRTC VAD decisions (true = speech) at `frameMs` steps. The signal is read in
 * windows of whole frames (frames do not overlap, so the decisions are those of one whole pass).
 */
export async function vadFrames(
  input: Float32Array | PcmSource,
  sampleRate: number,
  aggressiveness: 0 | 1 | 2 | 3 = 2,
  frameMs: 10 | 20 | 30 = 30,
  framesPerRead = FRAMES_PER_READ,
): Promise<{ decisions: Uint8Array; frameSeconds: number }> {
  const { decisions, frameSeconds } = await vadPass(input, sampleRate, aggressiveness, frameMs, framesPerRead, false);
  return { decisions, frameSeconds };
}

/**
 * vadFrames, and with `withQuiet` at a rate fvad takes, each frame's quietness (quietFrames) from
 * the same reads: a long call is read from disk once for both instead of twice.
 */
async function vadPass(
  input: Float32Array | PcmSource,
  sampleRate: number,
  aggressiveness: 0 | 1 | 2 | 3,
  frameMs: 10 | 20 | 30,
  framesPerRead: number,
  withQuiet: boolean,
): Promise<{ decisions: Uint8Array; frameSeconds: number; quiet: Uint8Array | null }> {
  let rate = sampleRate;
  let source = pcmOf(input, sampleRate);
  if (!FVAD_RATES.has(rate)) {
    // Only short audio comes at other rates (the pipeline decodes to 16 kHz).
    source = new ArrayPcm(resampleLinear(await readAllPcm(source), rate, 16000), 16000);
    rate = 16000;
  }
  const frameLen = (rate * frameMs) / 1000;
  const frames = Math.floor(source.length / frameLen);
  const decisions = new Uint8Array(frames);
  // Only where no resampling happened are the frames fvad sees the frames quietFrames measures.
  const quiet = withQuiet && rate === sampleRate ? new Uint8Array(frames) : null;
  if (frames === 0) return { decisions, frameSeconds: frameMs / 1000, quiet };
  const mod = await loadFvad();
  const inst = mod._fvad_new();
  if (!inst) throw new Error('fvad_new failed');
  const ptr = mod._malloc(frameLen * 2);
  try {
    if (mod._fvad_set_mode(inst, aggressiveness) !== 0) throw new Error('fvad_set_mode failed');
    if (mod._fvad_set_sample_rate(inst, rate) !== 0) throw new Error('fvad_set_sample_rate failed');
    for (let f0 = 0; f0 < frames; f0 += framesPerRead) {
      const f1 = Math.min(frames, f0 + framesPerRead);
      const samples = await source.read(f0 * frameLen, (f1 - f0) * frameLen);
      for (let f = f0; f < f1; f++) {
        // HEAP16 may be replaced when the WASM memory grows, so look it up per frame.
        const heap = mod.HEAP16;
        const base = ptr >> 1;
        const off = (f - f0) * frameLen;
        for (let i = 0; i < frameLen; i++) {
          const v = samples[off + i];
          heap[base + i] = v >= 1 ? 32767 : v <= -1 ? -32768 : Math.round(v * 32767);
        }
        const r = mod._fvad_process(inst, ptr, frameLen);
        if (r < 0) throw new Error('fvad_process failed');
        decisions[f] = r;
        if (quiet) quiet[f] = isQuiet(samples, off, frameLen) ? 1 : 0;
      }
    }
  } finally {
    mod._free(ptr);
    mod._fvad_free(inst);
  }
  return { decisions, frameSeconds: frameMs / 1000, quiet };
}

/** Whether the `length` samples from `off` are below about -70 dBFS (mean square < 1e-7). */
function isQuiet(samples: Float32Array, off: number, length: number): boolean {
  let e = 0;
  for (let i = off; i < off + length; i++) e += samples[i] * samples[i];
  return e / Math.max(1, length) < 1e-7;
}

/** Whether each frame of `frameLen` samples is below about -70 dBFS (mean square < 1e-7). */
async function quietFrames(source: PcmSource, frameLen: number, frames: number, framesPerRead: number): Promise<Uint8Array> {
  const quiet = new Uint8Array(frames);
  for (let f0 = 0; f0 < frames; f0 += framesPerRead) {
    const f1 = Math.min(frames, f0 + framesPerRead);
    const base = f0 * frameLen;
    const samples = await source.read(base, (f1 - f0) * frameLen);
    for (let f = f0; f < f1; f++) {
      const off = f * frameLen;
      const end = Math.min(off + frameLen, source.length);
      let e = 0;
      for (let i = off; i < end; i++) e += samples[i - base] * samples[i - base];
      quiet[f] = e / Math.max(1, end - off) < 1e-7 ? 1 : 0;
    }
  }
  return quiet;
}

/** Speech regions (seconds) of a mono signal. */
export async function detectSpeech(
  input: Float32Array | PcmSource,
  sampleRate: number,
  opts: DetectSpeechOptions = {},
): Promise<SpeechRegion[]> {
  const source = pcmOf(input, sampleRate);
  const frameMs = opts.frameMs ?? 30;
  const minSpeech = opts.minSpeechSeconds ?? 0.15;
  const mergeGap = opts.mergeGapSeconds ?? 0.3;
  const hangoverFrames = Math.round((opts.hangoverMs ?? 90) / frameMs);
  const framesPerRead = Math.max(1, Math.round((opts.windowSeconds ?? 30) / (frameMs / 1000)));
  const pass = await vadPass(source, sampleRate, opts.aggressiveness ?? 2, frameMs, framesPerRead, true);
  const { decisions, frameSeconds } = pass;

  // Digital silence and near-silence can still trip the detector in mode 0-1; require a minimal
  // level so a silent file never yields speech.
  const frameLen = Math.round(sampleRate * frameSeconds);
  const quiet = pass.quiet ?? (await quietFrames(source, frameLen, decisions.length, framesPerRead));
  const regions: SpeechRegion[] = [];
  let inSpeech = false;
  let start = 0;
  let hang = 0;
  for (let f = 0; f < decisions.length; f++) {
    const speech = decisions[f] === 1 && quiet[f] === 0;
    if (speech) {
      if (!inSpeech) {
        inSpeech = true;
        start = f;
      }
      hang = hangoverFrames;
    } else if (inSpeech) {
      if (hang > 0) hang--;
      else {
        inSpeech = false;
        regions.push({ start: start * frameSeconds, end: (f - hangoverFrames) * frameSeconds });
      }
    }
  }
  if (inSpeech) regions.push({ start: start * frameSeconds, end: (decisions.length - (hangoverFrames - hang)) * frameSeconds });
  return mergeRegions(regions, mergeGap, minSpeech);
}

/** Bridges gaps shorter than `mergeGap` and drops regions shorter than `minLength`. */
export function mergeRegions(regions: SpeechRegion[], mergeGap: number, minLength: number): SpeechRegion[] {
  const sorted = [...regions].sort((a, b) => a.start - b.start);
  const merged: SpeechRegion[] = [];
  for (const r of sorted) {
    const last = merged[merged.length - 1];
    if (last && r.start - last.end < mergeGap) last.end = Math.max(last.end, r.end);
    else merged.push({ ...r });
  }
  return merged.filter((r) => r.end - r.start >= minLength);
}

export interface UtteranceOptions {
  /** Audio kept before and after each speech region, so word onsets and tails the VAD trims stay in. Default 0.15 s. */
  padSeconds?: number;
  /** Longer regions are cut at their quietest point between half this and this. Default 30 s. */
  maxSeconds?: number;
}

/**
 * Recogniser inputs from speech regions: each region padded (never past the middle of the gap to
 * its neighbour, nor outside the audio) and long ones cut at their quietest 20 ms, so a recogniser
 * decodes bounded pieces with known offsets and no word can leave its piece.
 */
export async function speechUtterances(input: Float32Array | PcmSource, sampleRate: number, regions: SpeechRegion[], opts: UtteranceOptions = {}): Promise<SpeechRegion[]> {
  const source = pcmOf(input, sampleRate);
  const pad = opts.padSeconds ?? 0.15;
  const maxSeconds = Math.max(1, opts.maxSeconds ?? 30);
  const duration = source.length / sampleRate;
  const sorted = [...regions].filter((r) => r.end > r.start).sort((a, b) => a.start - b.start);
  const out: SpeechRegion[] = [];
  for (let i = 0; i < sorted.length; i++) {
    const r = sorted[i];
    const prev = sorted[i - 1];
    const next = sorted[i + 1];
    const lo = Math.max(0, prev ? (prev.end + r.start) / 2 : 0);
    const hi = Math.min(duration, next ? (r.end + next.start) / 2 : duration);
    let start = Math.max(lo, r.start - pad);
    const end = Math.min(hi, r.end + pad);
    while (end - start > maxSeconds) {
      const cut = await quietestPoint(source, sampleRate, start + maxSeconds / 2, start + maxSeconds);
      out.push({ start, end: cut });
      start = cut;
    }
    if (end > start) out.push({ start, end });
  }
  return out;
}

/** Centre (seconds) of the lowest-energy 20 ms window in [from, to]. */
async function quietestPoint(source: PcmSource, sampleRate: number, from: number, to: number): Promise<number> {
  const win = Math.round(sampleRate * 0.02);
  const first = Math.round(from * sampleRate);
  const stop = Math.min(source.length, Math.round(to * sampleRate));
  const samples = await source.read(first, Math.max(0, stop - first));
  let best = to;
  let bestEnergy = Infinity;
  for (let i = first; i + win <= stop; i += win) {
    let e = 0;
    for (let k = i; k < i + win; k++) e += samples[k - first] * samples[k - first];
    if (e < bestEnergy) {
      bestEnergy = e;
      best = (i + win / 2) / sampleRate;
    }
  }
  return best;
}

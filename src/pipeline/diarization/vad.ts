// Voice activity detection with the WebRTC VAD (libfvad compiled to WASM). Frame decisions are
// noisy inside words (stop closures, weak fricatives), so short non-speech runs are held as speech
// (hangover), then regions closer than a gap are merged and short blips dropped.
import fvadFactory, { type FvadModule } from '@echogarden/fvad-wasm';

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

/** Raw per-frame WebRTC VAD decisions (true = speech) at `frameMs` steps. */
export async function vadFrames(
  samples: Float32Array,
  sampleRate: number,
  aggressiveness: 0 | 1 | 2 | 3 = 2,
  frameMs: 10 | 20 | 30 = 30,
): Promise<{ decisions: Uint8Array; frameSeconds: number }> {
  let rate = sampleRate;
  let input = samples;
  if (!FVAD_RATES.has(rate)) {
    input = resampleLinear(samples, rate, 16000);
    rate = 16000;
  }
  const frameLen = (rate * frameMs) / 1000;
  const frames = Math.floor(input.length / frameLen);
  const decisions = new Uint8Array(frames);
  if (frames === 0) return { decisions, frameSeconds: frameMs / 1000 };
  const mod = await loadFvad();
  const inst = mod._fvad_new();
  if (!inst) throw new Error('fvad_new failed');
  const ptr = mod._malloc(frameLen * 2);
  try {
    if (mod._fvad_set_mode(inst, aggressiveness) !== 0) throw new Error('fvad_set_mode failed');
    if (mod._fvad_set_sample_rate(inst, rate) !== 0) throw new Error('fvad_set_sample_rate failed');
    for (let f = 0; f < frames; f++) {
      // HEAP16 may be replaced when the WASM memory grows, so look it up per frame.
      const heap = mod.HEAP16;
      const base = ptr >> 1;
      const off = f * frameLen;
      for (let i = 0; i < frameLen; i++) {
        const v = input[off + i];
        heap[base + i] = v >= 1 ? 32767 : v <= -1 ? -32768 : Math.round(v * 32767);
      }
      const r = mod._fvad_process(inst, ptr, frameLen);
      if (r < 0) throw new Error('fvad_process failed');
      decisions[f] = r;
    }
  } finally {
    mod._free(ptr);
    mod._fvad_free(inst);
  }
  return { decisions, frameSeconds: frameMs / 1000 };
}

/** Speech regions (seconds) of a mono signal. */
export async function detectSpeech(
  samples: Float32Array,
  sampleRate: number,
  opts: DetectSpeechOptions = {},
): Promise<SpeechRegion[]> {
  const frameMs = opts.frameMs ?? 30;
  const minSpeech = opts.minSpeechSeconds ?? 0.15;
  const mergeGap = opts.mergeGapSeconds ?? 0.3;
  const hangoverFrames = Math.round((opts.hangoverMs ?? 90) / frameMs);
  const { decisions, frameSeconds } = await vadFrames(samples, sampleRate, opts.aggressiveness ?? 2, frameMs);

  // Digital silence and near-silence can still trip the detector in mode 0-1; require a minimal
  // level so a silent file never yields speech.
  const frameLen = Math.round(sampleRate * frameSeconds);
  const regions: SpeechRegion[] = [];
  let inSpeech = false;
  let start = 0;
  let hang = 0;
  for (let f = 0; f < decisions.length; f++) {
    let speech = decisions[f] === 1;
    if (speech) {
      let e = 0;
      const off = f * frameLen;
      const end = Math.min(off + frameLen, samples.length);
      for (let i = off; i < end; i++) e += samples[i] * samples[i];
      if (e / Math.max(1, end - off) < 1e-7) speech = false; // below about -70 dBFS
    }
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
export function speechUtterances(samples: Float32Array, sampleRate: number, regions: SpeechRegion[], opts: UtteranceOptions = {}): SpeechRegion[] {
  const pad = opts.padSeconds ?? 0.15;
  const maxSeconds = Math.max(1, opts.maxSeconds ?? 30);
  const duration = samples.length / sampleRate;
  const sorted = [...regions].filter((r) => r.end > r.start).sort((a, b) => a.start - b.start);
  const out: SpeechRegion[] = [];
  sorted.forEach((r, i) => {
    const prev = sorted[i - 1];
    const next = sorted[i + 1];
    const lo = Math.max(0, prev ? (prev.end + r.start) / 2 : 0);
    const hi = Math.min(duration, next ? (r.end + next.start) / 2 : duration);
    let start = Math.max(lo, r.start - pad);
    const end = Math.min(hi, r.end + pad);
    while (end - start > maxSeconds) {
      const cut = quietestPoint(samples, sampleRate, start + maxSeconds / 2, start + maxSeconds);
      out.push({ start, end: cut });
      start = cut;
    }
    if (end > start) out.push({ start, end });
  });
  return out;
}

/** Centre (seconds) of the lowest-energy 20 ms window in [from, to]. */
function quietestPoint(samples: Float32Array, sampleRate: number, from: number, to: number): number {
  const win = Math.round(sampleRate * 0.02);
  let best = to;
  let bestEnergy = Infinity;
  for (let i = Math.round(from * sampleRate); i + win <= Math.min(samples.length, Math.round(to * sampleRate)); i += win) {
    let e = 0;
    for (let k = i; k < i + win; k++) e += samples[k] * samples[k];
    if (e < bestEnergy) {
      bestEnergy = e;
      best = (i + win / 2) / sampleRate;
    }
  }
  return best;
}

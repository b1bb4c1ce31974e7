// Frame-level acoustic features shared by diarization and the voice profile: MFCCs (via meyda) and
// log energy, on the same frame grid so their indexes line up.
import Meyda from 'meyda';

export interface FrameOptions {
  /** Analysis window length. Default 0.025 s. */
  frameSeconds?: number;
  /** Step between frame starts. Default 0.010 s. */
  hopSeconds?: number;
}

export interface MfccOptions extends FrameOptions {
  /** Cepstral coefficients per frame, c0 included. Default 13. */
  coefficients?: number;
  /** Mel filters. Default 26. */
  melBands?: number;
  /** Pre-emphasis factor. Default 0.97. */
  preEmphasis?: number;
}

/** Frame grid of a signal: frame i covers samples [i*hop, i*hop + length). */
export function frameGrid(sampleCount: number, sampleRate: number, opts: FrameOptions = {}) {
  const length = Math.max(1, Math.round((opts.frameSeconds ?? 0.025) * sampleRate));
  const hop = Math.max(1, Math.round((opts.hopSeconds ?? 0.01) * sampleRate));
  const count = sampleCount < length ? 0 : Math.floor((sampleCount - length) / hop) + 1;
  return { length, hop, count, hopSeconds: hop / sampleRate, frameSeconds: length / sampleRate };
}

/** Time (seconds) of the centre of frame `i`. */
export function frameCenter(i: number, sampleRate: number, opts: FrameOptions = {}): number {
  const g = frameGrid(Number.MAX_SAFE_INTEGER, sampleRate, opts);
  return (i * g.hop + g.length / 2) / sampleRate;
}

function nextPow2(n: number): number {
  let p = 1;
  while (p < n) p <<= 1;
  return p;
}

const hammingCache = new Map<number, Float32Array>();
function hamming(n: number): Float32Array {
  let w = hammingCache.get(n);
  if (!w) {
    w = new Float32Array(n);
    for (let i = 0; i < n; i++) w[i] = 0.54 - 0.46 * Math.cos((2 * Math.PI * i) / (n - 1));
    hammingCache.set(n, w);
  }
  return w;
}

/**
 * Per-frame MFCC vectors. The signal is pre-emphasised and Hamming-windowed here, then zero-padded
 * to a power of two because meyda only accepts such buffers; meyda's own window is switched off
 * so it does not window the padding a second time. Samples are scaled to the 16-bit range first
 * because meyda takes log(1 + power), which for unit-range floats would be nearly linear.
 */
export function mfccFrames(samples: Float32Array, sampleRate: number, opts: MfccOptions = {}): Float32Array[] {
  const grid = frameGrid(samples.length, sampleRate, opts);
  const coefficients = opts.coefficients ?? 13;
  const alpha = opts.preEmphasis ?? 0.97;
  const size = nextPow2(grid.length);
  const window = hamming(grid.length);

  // meyda keeps its configuration on a shared object; set all of it on every call.
  const m = Meyda as unknown as {
    bufferSize: number;
    sampleRate: number;
    melBands: number;
    numberOfMFCCCoefficients: number;
    windowingFunction: string;
    extract: (feature: string, signal: Float32Array) => unknown;
  };
  m.bufferSize = size;
  m.sampleRate = sampleRate;
  m.melBands = Math.max(opts.melBands ?? 26, coefficients);
  m.numberOfMFCCCoefficients = coefficients;
  m.windowingFunction = 'rect';

  const out: Float32Array[] = new Array(grid.count);
  const buf = new Float32Array(size);
  for (let f = 0; f < grid.count; f++) {
    const off = f * grid.hop;
    buf.fill(0);
    for (let i = 0; i < grid.length; i++) {
      const x = samples[off + i] - (off + i > 0 ? alpha * samples[off + i - 1] : 0);
      buf[i] = x * window[i] * 32768;
    }
    const mfcc = m.extract('mfcc', buf) as number[];
    out[f] = Float32Array.from(mfcc);
  }
  return out;
}

/** Per-frame log energy (dB relative to full scale) on the same grid as `mfccFrames`. */
export function frameEnergy(samples: Float32Array, sampleRate: number, opts: FrameOptions = {}): Float32Array {
  const grid = frameGrid(samples.length, sampleRate, opts);
  const out = new Float32Array(grid.count);
  for (let f = 0; f < grid.count; f++) {
    const off = f * grid.hop;
    let e = 0;
    for (let i = 0; i < grid.length; i++) {
      const v = samples[off + i];
      e += v * v;
    }
    out[f] = 10 * Math.log10(e / grid.length + 1e-12);
  }
  return out;
}

/**
 * Share of the signal's power above `cutoffHz`, from a sample of loud frames. Telephone audio
 * resampled to 16 kHz has next to nothing above 4 kHz; its empty upper mel bands would otherwise
 * dominate the cepstrum with noise and shrink the differences between voices.
 */
export function highBandShare(samples: Float32Array, sampleRate: number, cutoffHz = 3800): number {
  const size = 512;
  const m = Meyda as unknown as { bufferSize: number; sampleRate: number; windowingFunction: string; extract: (f: string, s: Float32Array) => unknown };
  m.bufferSize = size;
  m.sampleRate = sampleRate;
  m.windowingFunction = 'hanning';
  const cutBin = Math.round((cutoffHz / sampleRate) * size);
  let hi = 0;
  let total = 0;
  const buf = new Float32Array(size);
  // Every 8th frame is plenty for a per-call average.
  for (let off = 0; off + size <= samples.length; off += size * 8) {
    buf.set(samples.subarray(off, off + size));
    const ps = m.extract('powerSpectrum', buf) as Float32Array;
    for (let b = 1; b < ps.length; b++) {
      total += ps[b];
      if (b >= cutBin) hi += ps[b];
    }
  }
  return total > 0 ? hi / total : 0;
}

/** Halves the sample rate after a windowed-sinc low-pass at 0.45 of the new rate. */
export function decimateBy2(samples: Float32Array): Float32Array {
  const taps = 63;
  const half = (taps - 1) / 2;
  const fc = 0.45 / 2; // cutoff as a fraction of the input rate
  const h = new Float32Array(taps);
  let sum = 0;
  for (let i = 0; i < taps; i++) {
    const n = i - half;
    const sinc = n === 0 ? 2 * fc : Math.sin(2 * Math.PI * fc * n) / (Math.PI * n);
    const w = 0.54 - 0.46 * Math.cos((2 * Math.PI * i) / (taps - 1));
    h[i] = sinc * w;
    sum += h[i];
  }
  for (let i = 0; i < taps; i++) h[i] /= sum;
  const out = new Float32Array(Math.floor(samples.length / 2));
  for (let j = 0; j < out.length; j++) {
    const c = 2 * j;
    let acc = 0;
    for (let i = 0; i < taps; i++) {
      const k = c + i - half;
      if (k >= 0 && k < samples.length) acc += h[i] * samples[k];
    }
    out[j] = acc;
  }
  return out;
}

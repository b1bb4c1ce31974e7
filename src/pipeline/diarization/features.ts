// Frame-level acoustic features shared by diarization and the voice profile: MFCCs (via meyda) and
// log energy, on the same frame grid so their indexes line up.
import Meyda from 'meyda';
import type { PcmSource } from '../audio/pcm.js';
import type { FeatureMatrix } from './gmm.js';

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
 * Per-frame MFCC vectors, numerically meyda's `mfcc` feature: meyda computes the spectrum and
 * supplies the mel filter bank, while the filter bank products, log and DCT are done here with
 * sparse filters and a cached cosine table, because meyda's own path allocates a spectrum-sized
 * array per filter per frame and is several times slower.
 * The signal is pre-emphasised and Hamming-windowed here, then zero-padded to a power of two
 * because meyda only accepts such buffers; meyda's own window is switched off so it does not
 * window the padding a second time. Samples are scaled to the 16-bit range first because meyda
 * takes log(1 + power), which for unit-range floats would be nearly linear.
 */
export function mfccFrames(samples: Float32Array, sampleRate: number, opts: MfccOptions = {}): Float32Array[] {
  const grid = frameGrid(samples.length, sampleRate, opts);
  const out: Float32Array[] = new Array(grid.count);
  if (grid.count === 0) return out;
  const mfcc = mfccComputer(sampleRate, opts);
  for (let f = 0; f < grid.count; f++) out[f] = mfcc.frame(samples, 0, f * grid.hop, new Float32Array(mfcc.coefficients));
  return out;
}

/** Grid frames per read of a source when computing features window by window (30 s at 10 ms); results do not depend on it. */
const FRAMES_PER_READ = 3000;

/**
 * MFCC vectors of the listed frames of the grid (ascending indexes) read window by window from
 * `source`, identical to `mfccFrames` of the whole signal at those indexes. Only coefficients
 * [keep[0], keep[1]) are kept, as row j of one matrix for frames[j]: a long call's speech frames
 * are hundreds of thousands, and a separate array (or view) per frame would cost several times the
 * numbers themselves.
 */
export async function mfccFramesAt(source: PcmSource, frames: ArrayLike<number>, opts: MfccOptions = {}, keep?: [number, number], framesPerRead = FRAMES_PER_READ): Promise<FeatureMatrix> {
  const grid = frameGrid(source.length, source.sampleRate, opts);
  const mfcc = mfccComputer(source.sampleRate, opts);
  const [from, to] = keep ?? [0, mfcc.coefficients];
  const dim = to - from;
  const flat = new Float32Array(frames.length * dim);
  const v = new Float32Array(mfcc.coefficients);
  let j = 0;
  while (j < frames.length) {
    const f0 = frames[j];
    if (f0 < 0 || f0 >= grid.count) throw new RangeError(`frame ${f0} is outside the grid`);
    // This window: frames [f0, f0 + FRAMES_PER_READ) of the grid, plus one sample before for pre-emphasis.
    const f1 = Math.min(grid.count, f0 + framesPerRead);
    const first = Math.max(0, f0 * grid.hop - 1);
    const samples = await source.read(first, (f1 - 1) * grid.hop + grid.length - first);
    for (; j < frames.length && frames[j] < f1; j++) {
      if (j > 0 && frames[j] <= frames[j - 1]) throw new RangeError('frames must be ascending');
      mfcc.frame(samples, first, frames[j] * grid.hop, v);
      const row = j * dim;
      for (let k = 0; k < dim; k++) flat[row + k] = v[from + k];
    }
  }
  return { data: flat, dim, count: frames.length };
}

/**
 * The MFCC of one frame: `frame(samples, base, off, out)` reads the frame starting at sample `off`
 * of the signal from `samples`, which holds the signal from sample `base` on (and sample off - 1,
 * for pre-emphasis, unless off is 0).
 */
function mfccComputer(sampleRate: number, opts: MfccOptions) {
  const grid = frameGrid(0, sampleRate, opts);
  const coefficients = opts.coefficients ?? 13;
  const melBands = Math.max(opts.melBands ?? 26, coefficients);
  const alpha = opts.preEmphasis ?? 0.97;
  const size = nextPow2(grid.length);
  const window = hamming(grid.length);

  // meyda keeps its configuration on a shared object; set all of it before each frame, since a
  // caller reading its signal window by window may interleave with another.
  const m = Meyda as unknown as {
    bufferSize: number;
    sampleRate: number;
    melBands: number;
    numberOfMFCCCoefficients: number;
    windowingFunction: string;
    melFilterBank?: number[][];
    extract: (feature: string, signal: Float32Array) => unknown;
  };
  const configure = () => {
    m.bufferSize = size;
    m.sampleRate = sampleRate;
    m.melBands = melBands;
    m.numberOfMFCCCoefficients = coefficients;
    m.windowingFunction = 'rect';
  };

  const buf = new Float32Array(size);
  const logMel = new Float64Array(melBands);
  let filters: Array<{ bins: Int32Array; weights: Float64Array }> | undefined;
  const cos = dctTable(melBands, coefficients);
  const frame = (samples: Float32Array, base: number, off: number, v: Float32Array): Float32Array => {
    configure();
    buf.fill(0);
    for (let i = 0; i < grid.length; i++) {
      const at = off + i - base;
      const x = samples[at] - (off + i > 0 ? alpha * samples[at - 1] : 0);
      buf[i] = x * window[i] * 32768;
    }
    const amp = m.extract('amplitudeSpectrum', buf) as Float32Array;
    // meyda (re)builds its filter bank for the current size inside extract().
    filters ??= sparseFilters(m.melFilterBank!);
    for (let b = 0; b < melBands; b++) {
      const { bins, weights } = filters[b];
      let e = 0;
      for (let j = 0; j < bins.length; j++) e += weights[j] * amp[bins[j]] * amp[bins[j]];
      logMel[b] = Math.log(e + 1);
    }
    for (let k = 0; k < coefficients; k++) {
      let acc = 0;
      for (let n = 0; n < melBands; n++) acc += logMel[n] * cos[k * melBands + n];
      v[k] = 2 * acc;
    }
    return v;
  };
  return { coefficients, frame };
}

function sparseFilters(bank: number[][]): Array<{ bins: Int32Array; weights: Float64Array }> {
  // meyda's bank rows span bufferSize/2 + 1 bins, but its own product only uses bufferSize/2.
  const half = bank[0].length - 1;
  return bank.map((row) => {
    const bins: number[] = [];
    const weights: number[] = [];
    for (let j = 0; j < half; j++) {
      if (row[j] !== 0) {
        bins.push(j);
        weights.push(row[j]);
      }
    }
    return { bins: Int32Array.from(bins), weights: Float64Array.from(weights) };
  });
}

const dctCache = new Map<string, Float64Array>();
/** cos(pi/N (n + 0.5) k), the DCT-II basis meyda uses (via the `dct` package). */
function dctTable(n: number, k: number): Float64Array {
  const key = `${n}x${k}`;
  let t = dctCache.get(key);
  if (!t) {
    t = new Float64Array(n * k);
    for (let i = 0; i < k; i++) for (let j = 0; j < n; j++) t[i * n + j] = Math.cos((Math.PI / n) * (j + 0.5) * i);
    dctCache.set(key, t);
  }
  return t;
}

/** Per-frame log energy (dB relative to full scale) on the same grid as `mfccFrames`. */
export function frameEnergy(samples: Float32Array, sampleRate: number, opts: FrameOptions = {}): Float32Array {
  const grid = frameGrid(samples.length, sampleRate, opts);
  const out = new Float32Array(grid.count);
  for (let f = 0; f < grid.count; f++) out[f] = energyDb(samples, f * grid.hop, grid.length);
  return out;
}

/** Energy in dB of `length` samples from `off`. */
function energyDb(samples: Float32Array, off: number, length: number): number {
  let e = 0;
  for (let i = 0; i < length; i++) {
    const v = samples[off + i];
    e += v * v;
  }
  return 10 * Math.log10(e / length + 1e-12);
}

/** `frameEnergy` of a source, read window by window (identical to the whole-array computation). */
export async function frameEnergyOf(source: PcmSource, opts: FrameOptions = {}, framesPerRead = FRAMES_PER_READ): Promise<Float32Array> {
  const grid = frameGrid(source.length, source.sampleRate, opts);
  const out = new Float32Array(grid.count);
  for (let f0 = 0; f0 < grid.count; f0 += framesPerRead) {
    const f1 = Math.min(grid.count, f0 + framesPerRead);
    const first = f0 * grid.hop;
    const samples = await source.read(first, (f1 - 1) * grid.hop + grid.length - first);
    for (let f = f0; f < f1; f++) out[f] = energyDb(samples, f * grid.hop - first, grid.length);
  }
  return out;
}

// Kaldi-compatible log mel filterbank ("fbank"), the input of the WeSpeaker / 3D-Speaker /
// sherpa-onnx speaker-embedding models. No maintained npm package computes Kaldi's fbank (the
// JavaScript MFCC libraries use other mel formulas, windows and no pre-emphasis), and a neural
// model only works on the features it was trained with, so this follows Kaldi's compute-fbank-feats
// (and torchaudio.compliance.kaldi.fbank, which WeSpeaker and 3D-Speaker train with) step by step:
//
//   frames of 25 ms every 10 ms, only whole frames (snip_edges) -> dither (0: none) -> remove the
//   frame's DC offset -> pre-emphasis 0.97 -> povey window -> zero-pad to a power of two -> power
//   spectrum -> triangular mel bands (mel = 1127 ln(1 + f/700), 20 Hz to Nyquist) -> natural log,
//   floored at float32 epsilon.
//
// test/pipeline/onnx-embedder.test.ts checks it against a direct transcription of those formulas
// with a naive DFT, and against hand-computed values.
import { fft } from './dsp.js';

export interface FbankOptions {
  sampleRate: number;
  numMelBins: number;
  frameLengthMs: number;
  frameShiftMs: number;
  /** Lower edge of the first mel band, Hz. */
  lowFreq: number;
  /** Upper edge of the last band, Hz; zero or negative counts back from Nyquist (Kaldi's convention). */
  highFreq: number;
  preemphasis: number;
  removeDcOffset: boolean;
  /**
   * Factor applied to the samples first. Kaldi and WeSpeaker read 16-bit PCM as integers, so
   * float samples in [-1, 1] are scaled by 32768 for them; 3D-Speaker models take [-1, 1].
   */
  sampleScale: number;
}

/** Kaldi's defaults with 80 bins at 16 kHz: what WeSpeaker and 3D-Speaker models are trained on. */
export const KALDI_FBANK_80: FbankOptions = {
  sampleRate: 16000,
  numMelBins: 80,
  frameLengthMs: 25,
  frameShiftMs: 10,
  lowFreq: 20,
  highFreq: 0,
  preemphasis: 0.97,
  removeDcOffset: true,
  sampleScale: 32768,
};

/** The log floor: float32 machine epsilon, as Kaldi and torchaudio use. */
export const LOG_FLOOR = Math.log(1.1920928955078125e-7);

/** Kaldi's mel scale. */
export function melScale(hz: number): number {
  return 1127 * Math.log(1 + hz / 700);
}

export interface FrameGeometry {
  /** Samples per frame (400 at 16 kHz / 25 ms). */
  length: number;
  /** Samples between frame starts (160 at 16 kHz / 10 ms). */
  shift: number;
  /** FFT size: the frame length rounded up to a power of two (512). */
  paddedLength: number;
}

export function frameGeometry(opts: Pick<FbankOptions, 'sampleRate' | 'frameLengthMs' | 'frameShiftMs'>): FrameGeometry {
  const length = Math.round((opts.sampleRate * opts.frameLengthMs) / 1000);
  const shift = Math.round((opts.sampleRate * opts.frameShiftMs) / 1000);
  let paddedLength = 1;
  while (paddedLength < length) paddedLength <<= 1;
  return { length, shift, paddedLength };
}

/** Frames in `numSamples` samples with snip_edges: only frames that fit entirely. */
export function fbankFrameCount(numSamples: number, geometry: FrameGeometry): number {
  return numSamples < geometry.length ? 0 : 1 + Math.floor((numSamples - geometry.length) / geometry.shift);
}

/** Kaldi's "povey" window: a Hann window raised to 0.85, which never quite reaches zero inside. */
export function poveyWindow(length: number): Float64Array {
  const w = new Float64Array(length);
  for (let i = 0; i < length; i++) w[i] = Math.pow(0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (length - 1)), 0.85);
  return w;
}

/** One triangular band: weights for the FFT bins `first .. first + weights.length - 1`. */
export interface MelBand {
  first: number;
  weights: Float64Array;
  /** Band edges and centre on the mel scale. */
  leftMel: number;
  centerMel: number;
  rightMel: number;
}

/**
 * Kaldi's mel filterbank over the FFT bins 0 .. paddedLength/2 - 1 (the Nyquist bin gets no
 * weight): bands equally spaced in mel, each rising from its left edge to its centre and falling
 * to its right edge, measured in mel at each bin's frequency.
 */
export function kaldiMelBands(opts: Pick<FbankOptions, 'sampleRate' | 'numMelBins' | 'lowFreq' | 'highFreq'>, paddedLength: number): MelBand[] {
  const nyquist = opts.sampleRate / 2;
  const highFreq = opts.highFreq > 0 ? opts.highFreq : nyquist + opts.highFreq;
  if (!(opts.lowFreq >= 0 && highFreq > opts.lowFreq && highFreq <= nyquist)) {
    throw new RangeError(`mel band edges out of range (${opts.lowFreq}-${highFreq} Hz at ${opts.sampleRate} Hz)`);
  }
  const numFftBins = paddedLength / 2;
  const binWidth = opts.sampleRate / paddedLength;
  const melLow = melScale(opts.lowFreq);
  const melDelta = (melScale(highFreq) - melLow) / (opts.numMelBins + 1);
  const bands: MelBand[] = [];
  for (let b = 0; b < opts.numMelBins; b++) {
    const leftMel = melLow + b * melDelta;
    const centerMel = leftMel + melDelta;
    const rightMel = centerMel + melDelta;
    let first = -1;
    let last = -1;
    const all = new Float64Array(numFftBins);
    for (let i = 0; i < numFftBins; i++) {
      const mel = melScale(binWidth * i);
      if (mel > leftMel && mel < rightMel) {
        all[i] = mel <= centerMel ? (mel - leftMel) / (centerMel - leftMel) : (rightMel - mel) / (rightMel - centerMel);
        if (first < 0) first = i;
        last = i;
      }
    }
    // With many bands and a small FFT a low band can fall between two bins; Kaldi refuses that.
    if (first < 0) throw new RangeError(`mel band ${b} covers no FFT bin; use fewer bands or a longer frame`);
    bands.push({ first, weights: all.slice(first, last + 1), leftMel, centerMel, rightMel });
  }
  return bands;
}

/** Row-major [frames x dim] features. */
export interface FeatureMatrix {
  frames: number;
  dim: number;
  data: Float32Array;
}

/** Precomputed window and bands for one set of options; reusable across calls. */
export class KaldiFbank {
  readonly geometry: FrameGeometry;
  readonly bands: MelBand[];
  private readonly window: Float64Array;
  private readonly re: Float64Array;
  private readonly im: Float64Array;
  private readonly power: Float64Array;

  constructor(readonly opts: FbankOptions = KALDI_FBANK_80) {
    this.geometry = frameGeometry(opts);
    this.bands = kaldiMelBands(opts, this.geometry.paddedLength);
    this.window = poveyWindow(this.geometry.length);
    this.re = new Float64Array(this.geometry.paddedLength);
    this.im = new Float64Array(this.geometry.paddedLength);
    this.power = new Float64Array(this.geometry.paddedLength / 2);
  }

  get dim(): number {
    return this.opts.numMelBins;
  }

  frameCount(numSamples: number): number {
    return fbankFrameCount(numSamples, this.geometry);
  }

  /** Log mel energies of every whole frame of `samples`. */
  compute(samples: Float32Array): FeatureMatrix {
    const frames = this.frameCount(samples.length);
    const dim = this.dim;
    const data = new Float32Array(frames * dim);
    for (let f = 0; f < frames; f++) this.computeFrame(samples, f * this.geometry.shift, data, f * dim);
    return { frames, dim, data };
  }

  /** Writes the `dim` log energies of the frame starting at sample `offset` into `out` at `outOffset`. */
  computeFrame(samples: Float32Array, offset: number, out: Float32Array, outOffset: number): void {
    const { length } = this.geometry;
    const { re, im, power, window } = this;
    const scale = this.opts.sampleScale;
    let mean = 0;
    for (let i = 0; i < length; i++) {
      re[i] = samples[offset + i] * scale;
      mean += re[i];
    }
    if (this.opts.removeDcOffset) {
      mean /= length;
      for (let i = 0; i < length; i++) re[i] -= mean;
    }
    // Pre-emphasis from the end backwards, the first sample against itself (Kaldi's convention).
    const k = this.opts.preemphasis;
    if (k !== 0) {
      for (let i = length - 1; i > 0; i--) re[i] -= k * re[i - 1];
      re[0] -= k * re[0];
    }
    for (let i = 0; i < length; i++) re[i] *= window[i];
    re.fill(0, length);
    im.fill(0);
    fft(re, im);
    for (let i = 0; i < power.length; i++) power[i] = re[i] * re[i] + im[i] * im[i];
    for (let b = 0; b < this.bands.length; b++) {
      const { first, weights } = this.bands[b];
      let e = 0;
      for (let j = 0; j < weights.length; j++) e += weights[j] * power[first + j];
      out[outOffset + b] = Math.max(Math.log(e), LOG_FLOOR);
    }
  }
}

/** Subtracts each dimension's mean over the frames (cepstral mean normalisation), in place. */
export function subtractMean(m: FeatureMatrix): FeatureMatrix {
  if (m.frames === 0) return m;
  const mean = new Float64Array(m.dim);
  for (let f = 0; f < m.frames; f++) for (let d = 0; d < m.dim; d++) mean[d] += m.data[f * m.dim + d];
  for (let d = 0; d < m.dim; d++) mean[d] /= m.frames;
  for (let f = 0; f < m.frames; f++) for (let d = 0; d < m.dim; d++) m.data[f * m.dim + d] -= mean[d];
  return m;
}

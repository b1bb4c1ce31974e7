// Frame-level analysis for the speaker embedder: log mel energies over a chosen band and an
// autocorrelation pitch track, from one FFT per frame. The shared diarization MFCCs (meyda) span
// the whole 0-8 kHz band, which makes a wideband voice profile useless against a telephone-band
// call; a band-limited filterbank here keeps the two comparable.

/** In-place iterative radix-2 complex FFT; `re.length` must be a power of two. */
export function fft(re: Float64Array, im: Float64Array): void {
  const n = re.length;
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      let t = re[i];
      re[i] = re[j];
      re[j] = t;
      t = im[i];
      im[i] = im[j];
      im[j] = t;
    }
  }
  for (let len = 2; len <= n; len <<= 1) {
    const ang = (-2 * Math.PI) / len;
    const wr = Math.cos(ang);
    const wi = Math.sin(ang);
    const half = len >> 1;
    for (let i = 0; i < n; i += len) {
      let cr = 1;
      let ci = 0;
      for (let k = 0; k < half; k++) {
        const a = i + k;
        const b = a + half;
        const xr = re[b] * cr - im[b] * ci;
        const xi = re[b] * ci + im[b] * cr;
        re[b] = re[a] - xr;
        im[b] = im[a] - xi;
        re[a] += xr;
        im[a] += xi;
        const nr = cr * wr - ci * wi;
        ci = cr * wi + ci * wr;
        cr = nr;
      }
    }
  }
}

export interface FrameAnalysisOptions {
  frameSeconds?: number; // default 0.04: long enough for a 60 Hz pitch period twice over
  hopSeconds?: number; // default 0.02: summary statistics need no finer steps
  /** Mel filterbanks to compute, each giving one log-energy row per frame. */
  banks?: MelBank[];
  minF0?: number; // default 60
  maxF0?: number; // default 400
}

export interface MelBank {
  minHz: number;
  maxHz: number;
  count: number;
}

/** 80-7600 Hz: the useful band of 16 kHz audio. */
export const WIDE_BANK: MelBank = { minHz: 80, maxHz: 7600, count: 24 };
/** 300-3400 Hz: what survives a telephone channel, so features from it compare across channels. */
export const PHONE_BANK: MelBank = { minHz: 300, maxHz: 3400, count: 24 };

export interface FrameAnalysis {
  /** Per bank, per frame: natural-log mel band energies. */
  logMel: Float32Array[][];
  /** Per frame: log of the mean frame power (for level gating). */
  logEnergy: Float32Array;
  /** Per frame: F0 in Hz, or 0 when the frame is not clearly periodic. */
  f0: Float32Array;
  /** Per frame: normalised autocorrelation peak (periodicity, 0..1). */
  periodicity: Float32Array;
  hopSeconds: number;
}

function melOf(hz: number): number {
  return 2595 * Math.log10(1 + hz / 700);
}
function hzOf(mel: number): number {
  return 700 * (10 ** (mel / 2595) - 1);
}

interface Plan {
  frameLen: number;
  hop: number;
  nfft: number;
  window: Float64Array;
  windowAcf: Float64Array;
  banks: Array<Array<{ start: number; weights: Float64Array }>>;
  minLag: number;
  maxLag: number;
}

const plans = new Map<string, Plan>();

function plan(sampleRate: number, o: Required<FrameAnalysisOptions>): Plan {
  const key = JSON.stringify([sampleRate, o]);
  const cached = plans.get(key);
  if (cached) return cached;
  const frameLen = Math.round(sampleRate * o.frameSeconds);
  const hop = Math.max(1, Math.round(sampleRate * o.hopSeconds));
  const maxLag = Math.min(frameLen - 1, Math.ceil(sampleRate / o.minF0));
  let nfft = 1;
  // Long enough that the autocorrelation computed through the FFT is not circular up to maxLag.
  while (nfft < frameLen + maxLag + 1) nfft <<= 1;
  const window = new Float64Array(frameLen);
  for (let i = 0; i < frameLen; i++) window[i] = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (frameLen - 1));
  // Autocorrelation of the window itself: dividing by it removes the taper's bias towards short lags.
  const windowAcf = new Float64Array(frameLen);
  for (let lag = 0; lag < frameLen; lag++) {
    let s = 0;
    for (let i = 0; i + lag < frameLen; i++) s += window[i] * window[i + lag];
    windowAcf[lag] = s;
  }
  const banks = o.banks.map((bank) => melFilters(bank, sampleRate, nfft));
  const p: Plan = {
    frameLen,
    hop,
    nfft,
    window,
    windowAcf,
    banks,
    minLag: Math.max(2, Math.floor(sampleRate / o.maxF0)),
    maxLag,
  };
  plans.set(key, p);
  return p;
}

function melFilters(bank: MelBank, sampleRate: number, nfft: number): Plan['banks'][number] {
  const maxHz = Math.min(bank.maxHz, sampleRate / 2 - 1);
  const lo = melOf(bank.minHz);
  const hi = melOf(maxHz);
  const edges: number[] = [];
  for (let i = 0; i < bank.count + 2; i++) edges.push(hzOf(lo + ((hi - lo) * i) / (bank.count + 1)));
  const binHz = sampleRate / nfft;
  const filters: Plan['banks'][number] = [];
  for (let b = 0; b < bank.count; b++) {
    const [l, c, r] = [edges[b], edges[b + 1], edges[b + 2]];
    const start = Math.max(1, Math.floor(l / binHz));
    const end = Math.min(nfft / 2, Math.ceil(r / binHz));
    const weights = new Float64Array(Math.max(1, end - start + 1));
    for (let k = start; k <= end; k++) {
      const f = k * binHz;
      weights[k - start] = f <= c ? Math.max(0, (f - l) / (c - l)) : Math.max(0, (r - f) / (r - c));
    }
    filters.push({ start, weights });
  }
  return filters;
}

const DEFAULTS: Required<FrameAnalysisOptions> = {
  frameSeconds: 0.04,
  hopSeconds: 0.02,
  banks: [WIDE_BANK],
  minF0: 60,
  maxF0: 400,
};

/** Below this normalised autocorrelation peak a frame counts as unvoiced. */
export const VOICING_THRESHOLD = 0.5;

/** Frame-by-frame analysis of one contiguous stretch of audio. */
export function analyzeFrames(samples: Float32Array, sampleRate: number, opts: FrameAnalysisOptions = {}): FrameAnalysis {
  const o = { ...DEFAULTS, ...opts };
  const p = plan(sampleRate, o);
  const count = samples.length >= p.frameLen ? 1 + Math.floor((samples.length - p.frameLen) / p.hop) : 0;
  const logMel: Float32Array[][] = p.banks.map(() => []);
  const logEnergy = new Float32Array(count);
  const f0 = new Float32Array(count);
  const periodicity = new Float32Array(count);
  const re = new Float64Array(p.nfft);
  const im = new Float64Array(p.nfft);
  const power = new Float64Array(p.nfft / 2 + 1);
  for (let f = 0; f < count; f++) {
    const off = f * p.hop;
    let mean = 0;
    for (let i = 0; i < p.frameLen; i++) mean += samples[off + i];
    mean /= p.frameLen;
    re.fill(0);
    im.fill(0);
    let energy = 0;
    for (let i = 0; i < p.frameLen; i++) {
      const v = (samples[off + i] - mean) * p.window[i];
      re[i] = v;
      energy += v * v;
    }
    fft(re, im);
    for (let k = 0; k <= p.nfft / 2; k++) power[k] = re[k] * re[k] + im[k] * im[k];
    logEnergy[f] = Math.log(energy / p.frameLen + 1e-12);
    for (let bi = 0; bi < p.banks.length; bi++) {
      const filters = p.banks[bi];
      const mel = new Float32Array(filters.length);
      for (let b = 0; b < filters.length; b++) {
        const { start, weights } = filters[b];
        let s = 0;
        for (let k = 0; k < weights.length; k++) s += weights[k] * power[start + k];
        mel[b] = Math.log(s + 1e-10);
      }
      logMel[bi].push(mel);
    }
    // Autocorrelation = inverse FFT of the power spectrum (real and even, so a forward FFT works).
    for (let k = 0; k < p.nfft; k++) {
      const src = k <= p.nfft / 2 ? k : p.nfft - k;
      re[k] = power[src];
      im[k] = 0;
    }
    fft(re, im);
    const r0 = re[0];
    if (r0 <= 1e-9) continue;
    let best = 0;
    let bestLag = 0;
    for (let lag = p.minLag; lag <= p.maxLag; lag++) {
      const v = re[lag] / r0 / (p.windowAcf[lag] / p.windowAcf[0]);
      if (v > best) {
        best = v;
        bestLag = lag;
      }
    }
    // Prefer the shortest lag whose peak is nearly as strong: halves octave-too-low errors.
    if (bestLag > 0) {
      for (let div = 4; div >= 2; div--) {
        const cand = Math.round(bestLag / div);
        if (cand < p.minLag) continue;
        let local = 0;
        let localLag = cand;
        for (let lag = Math.max(p.minLag, cand - 2); lag <= Math.min(p.maxLag, cand + 2); lag++) {
          const v = re[lag] / r0 / (p.windowAcf[lag] / p.windowAcf[0]);
          if (v > local) {
            local = v;
            localLag = lag;
          }
        }
        if (local >= 0.9 * best) {
          bestLag = localLag;
          best = local;
          break;
        }
      }
    }
    periodicity[f] = Math.min(1, Math.max(0, best));
    if (best >= VOICING_THRESHOLD && bestLag > 0) {
      // Parabolic interpolation around the peak for sub-sample lag precision.
      const a = re[bestLag - 1] / p.windowAcf[bestLag - 1];
      const b = re[bestLag] / p.windowAcf[bestLag];
      const c = bestLag + 1 < p.frameLen ? re[bestLag + 1] / p.windowAcf[bestLag + 1] : b;
      const d = a - 2 * b + c;
      const shift = d < 0 ? (0.5 * (a - c)) / d : 0;
      f0[f] = sampleRate / (bestLag + Math.max(-0.5, Math.min(0.5, shift)));
    }
  }
  return { logMel, logEnergy, f0, periodicity, hopSeconds: p.hop / sampleRate };
}

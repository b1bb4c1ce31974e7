// The waveform a player draws: the peaks stored when the call was decoded (pipeline/audio/peaks.ts,
// 50 a second, one byte each) reduced to the number of points the page asks for, each the largest
// peak of its stretch on a 0-1 scale.
import { PEAKS_PER_SECOND } from '../pipeline/audio/peaks.js';

export const DEFAULT_WAVEFORM_POINTS = 2000;
export const MAX_WAVEFORM_POINTS = 20000;

export interface Waveform {
  durationSeconds: number;
  /** Points per second of audio in `peaks`. */
  pointsPerSecond: number;
  peaks: number[];
}

export function waveformOf(stored: Uint8Array, points: number): Waveform {
  const durationSeconds = stored.length / PEAKS_PER_SECOND;
  const n = Math.max(1, Math.min(points, stored.length));
  const peaks = new Array<number>(n);
  for (let i = 0; i < n; i++) {
    const a = Math.floor((i * stored.length) / n);
    const b = Math.max(a + 1, Math.floor(((i + 1) * stored.length) / n));
    let max = 0;
    for (let j = a; j < b; j++) if (stored[j] > max) max = stored[j];
    peaks[i] = Math.round((max / 255) * 1000) / 1000;
  }
  return { durationSeconds: Math.round(durationSeconds * 1000) / 1000, pointsPerSecond: n / Math.max(1e-9, durationSeconds), peaks };
}

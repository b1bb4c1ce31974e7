// Waveform peaks of a decoded call, computed once while the decoded audio is at hand, so a page can
// draw a 4-hour call without downloading and decoding it (the browser's player streams the audio
// through range requests and draws from these). One byte per bucket: the largest absolute sample
// in the bucket on a 0-255 scale. At 50 buckets a second a 4-hour call is 720 kB.
import type { PcmSource } from './pcm.js';

export const PEAKS_PER_SECOND = 50;
/** Samples read at once: a few seconds of 16 kHz audio, whatever the call's length. */
const WINDOW_SAMPLES = 1 << 16;

export async function computePeaks(pcm: PcmSource, signal?: AbortSignal): Promise<Uint8Array> {
  const bucket = Math.max(1, Math.round(pcm.sampleRate / PEAKS_PER_SECOND));
  const peaks = new Uint8Array(Math.ceil(pcm.length / bucket));
  // Windows are whole buckets, so no bucket spans two reads.
  const window = Math.max(bucket, Math.floor(WINDOW_SAMPLES / bucket) * bucket);
  for (let start = 0; start < pcm.length; start += window) {
    if (signal?.aborted) throw signal.reason ?? new Error('aborted');
    const samples = await pcm.read(start, window);
    for (let i = 0; i < samples.length; i += bucket) {
      let max = 0;
      const end = Math.min(samples.length, i + bucket);
      for (let j = i; j < end; j++) {
        const v = samples[j] < 0 ? -samples[j] : samples[j];
        if (v > max) max = v;
      }
      peaks[(start + i) / bucket] = Math.min(255, Math.round(max * 255));
    }
  }
  return peaks;
}

// Diarization of a true two-channel recording (one call leg per channel): the speaker of a word
// is the channel that is louder over the word's span. No clustering is needed, and crosstalk or
// echo of the far end leaks in far below the near-end level.
import type { DecodedAudio, Diarization, Diarizer, RecognizedWord } from '../types.js';
import { assembleDiarization, labelRegions, type FrameLabels } from './attribution.js';
import { frameEnergyOf, frameGrid } from './features.js';
import { spanSquareSums, type PcmSource } from '../audio/pcm.js';
import { detectSpeech } from './vad.js';

const HOP = 0.01;
const FRAME = 0.025;

/**
 * Share of speech frames in which one channel is at least `dominanceDb` louder than the other.
 * Call legs recorded apart give nearly 1 (the far end leaks in, if at all, 20 dB or more down);
 * a stereo microphone recording of a room has both voices on both channels and gives little.
 * `mixed` is the average of the channels (the decoder's mono signal); computed when absent.
 */
export async function legSeparation(
  channels: [PcmSource, PcmSource],
  sampleRate: number,
  dominanceDb = 10,
  mixed?: PcmSource,
  energies?: ChannelEnergies,
): Promise<number> {
  const [e0, e1] = energies ?? (await channelEnergies(channels));
  const mix = mixed && mixed.length === channels[0].length ? mixed : averageOf(channels, sampleRate);
  let speech = 0;
  let dominated = 0;
  for (const r of await detectSpeech(mix, sampleRate)) {
    const a = Math.max(0, Math.floor(r.start / HOP));
    const b = Math.min(e0.length, Math.ceil(r.end / HOP));
    for (let i = a; i < b; i++) {
      // Quiet frames inside a region (pauses between words) say nothing about the channels.
      if (Math.max(e0[i], e1[i]) < -50) continue;
      speech++;
      if (Math.abs(e0[i] - e1[i]) >= dominanceDb) dominated++;
    }
  }
  return speech ? dominated / speech : 0;
}

/** Each channel's frame energies (dB) on the channel method's grid. */
export type ChannelEnergies = [Float32Array, Float32Array];

/**
 * The frame energies legSeparation and ChannelDiarizer both use: computed once and handed to both,
 * a long call's channels are read for them once rather than twice.
 */
export async function channelEnergies(channels: [PcmSource, PcmSource]): Promise<ChannelEnergies> {
  const opts = { frameSeconds: FRAME, hopSeconds: HOP };
  return [await frameEnergyOf(channels[0], opts), await frameEnergyOf(channels[1], opts)];
}

/** The average of two channels, computed as it is read. */
function averageOf(channels: [PcmSource, PcmSource], sampleRate: number): PcmSource {
  return {
    sampleRate,
    length: channels[0].length,
    async read(start: number, count: number) {
      const [a, b] = await Promise.all(channels.map((c) => c.read(start, count)));
      const out = new Float32Array(Math.min(a.length, b.length));
      for (let i = 0; i < out.length; i++) out[i] = 0.5 * (a[i] + b[i]);
      return out;
    },
  };
}

export class ChannelDiarizer implements Diarizer {
  readonly provider = 'embedded';
  readonly model = 'channel-energy-v1';

  async diarize(audio: DecodedAudio, words: RecognizedWord[]): Promise<Diarization> {
    return this.diarizeWith(audio, words);
  }

  /** diarize, given channelEnergies of the audio's channels when the caller has them already. */
  async diarizeWith(audio: DecodedAudio, words: RecognizedWord[], energies?: ChannelEnergies): Promise<Diarization> {
    if (!audio.channels) throw new Error('ChannelDiarizer needs a two-channel recording');
    const sr = audio.sampleRate;
    const chans = audio.channels;
    const channelEnergy = energies ?? (await channelEnergies(chans));

    // Frame labels: among the channels whose VAD hears speech, the louder one. They give the
    // speaker regions and the fallback for words too short to measure.
    const grid = frameGrid(audio.mono.length, sr, { frameSeconds: FRAME, hopSeconds: HOP });
    const labels = new Int32Array(grid.count).fill(-1);
    const masks: Uint8Array[] = [];
    for (const c of chans) {
      const m = new Uint8Array(grid.count);
      for (const r of await detectSpeech(c, sr)) {
        const a = Math.max(0, Math.ceil((r.start - grid.frameSeconds / 2) / HOP));
        const b = Math.min(grid.count - 1, Math.floor((r.end - grid.frameSeconds / 2) / HOP));
        for (let i = a; i <= b; i++) m[i] = 1;
      }
      masks.push(m);
    }
    for (let i = 0; i < grid.count; i++) {
      const on0 = masks[0][i] === 1;
      const on1 = masks[1][i] === 1;
      if (on0 && on1) labels[i] = channelEnergy[0][i] >= channelEnergy[1][i] ? 0 : 1;
      else if (on0) labels[i] = 0;
      else if (on1) labels[i] = 1;
    }
    const fl: FrameLabels = { labels, offset: grid.frameSeconds / 2, hop: grid.hopSeconds };

    // Each word's energy on each channel, in one pass over each channel.
    const spans = words.map((w) => {
      const from = Math.max(0, Math.floor(w.start * sr));
      return { from, to: Math.max(from, Math.min(audio.mono.length, Math.ceil(w.end * sr))) };
    });
    const [w0, w1] = [await spanSquareSums(chans[0], spans), await spanSquareSums(chans[1], spans)];
    const wordChannels = words.map((w, i) => {
      if (w0[i] === 0 && w1[i] === 0) return nearestLabel(fl, (w.start + w.end) / 2);
      return w0[i] >= w1[i] ? 0 : 1;
    });
    return { provider: this.provider, model: this.model, ...assembleDiarization(words, wordChannels, labelRegions(fl)) };
  }
}

function nearestLabel(fl: FrameLabels, t: number): number {
  const n = fl.labels.length;
  const mid = Math.min(n - 1, Math.max(0, Math.round((t - fl.offset) / fl.hop)));
  for (let d = 0; d < n; d++) {
    if (mid - d >= 0 && fl.labels[mid - d] >= 0) return fl.labels[mid - d];
    if (mid + d < n && fl.labels[mid + d] >= 0) return fl.labels[mid + d];
  }
  return 0;
}

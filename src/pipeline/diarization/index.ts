// The pipeline's diarizer: per-channel attribution when the recording has one call leg per
// channel, unsupervised voice clustering otherwise (mono, or two channels that both carry both
// voices). provider/model on the result name the method actually used for that call; the
// object's own fields describe the mono default.
import type { DecodedAudio, Diarization, Diarizer, RecognizedWord } from '../types.js';
import { ChannelDiarizer, channelEnergies, legSeparation } from './channel.js';
import { MfccClusterDiarizer, type MonoDiarizationOptions } from './mono.js';

export { detectSpeech, vadFrames, mergeRegions, type SpeechRegion, type DetectSpeechOptions } from './vad.js';
export { mfccFrames, mfccFramesAt, frameEnergy, frameEnergyOf, frameGrid } from './features.js';
export { ChannelDiarizer, legSeparation } from './channel.js';
export { MfccClusterDiarizer, DEFAULT_MONO_OPTIONS, type MonoDiarizationOptions } from './mono.js';

export interface CreateDiarizerOptions {
  mono?: Partial<MonoDiarizationOptions>;
  /** Least share of speech frames with one channel 10 dB above the other for the channel method. Default 0.6. */
  minLegSeparation?: number;
}

class AutoDiarizer implements Diarizer {
  readonly provider: string;
  readonly model: string;
  private readonly mono: MfccClusterDiarizer;
  private readonly channel = new ChannelDiarizer();

  private readonly minLegSeparation: number;

  constructor(opts: CreateDiarizerOptions) {
    this.mono = new MfccClusterDiarizer(opts.mono);
    this.minLegSeparation = opts.minLegSeparation ?? 0.6;
    this.provider = this.mono.provider;
    this.model = this.mono.model;
  }

  async diarize(audio: DecodedAudio, words: RecognizedWord[]): Promise<Diarization> {
    if (audio.channels) {
      const energies = await channelEnergies(audio.channels);
      if ((await legSeparation(audio.channels, audio.sampleRate, 10, audio.mono, energies)) >= this.minLegSeparation) return this.channel.diarizeWith(audio, words, energies);
    }
    return this.mono.diarize(audio, words);
  }
}

export function createDiarizer(opts: CreateDiarizerOptions = {}): Diarizer {
  return new AutoDiarizer(opts);
}

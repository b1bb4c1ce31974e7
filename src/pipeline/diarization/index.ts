// The pipeline's diarizer: per-channel attribution when the recording has one call leg per
// channel, unsupervised voice clustering otherwise. provider/model on the result name the method
// actually used for that call; the object's own fields describe the mono default.
import type { DecodedAudio, Diarization, Diarizer, RecognizedWord } from '../types.js';
import { ChannelDiarizer } from './channel.js';
import { MfccClusterDiarizer, type MonoDiarizationOptions } from './mono.js';

export { detectSpeech, vadFrames, mergeRegions, type SpeechRegion, type DetectSpeechOptions } from './vad.js';
export { mfccFrames, frameEnergy, frameGrid } from './features.js';
export { ChannelDiarizer } from './channel.js';
export { MfccClusterDiarizer, DEFAULT_MONO_OPTIONS, type MonoDiarizationOptions } from './mono.js';

export interface CreateDiarizerOptions {
  mono?: Partial<MonoDiarizationOptions>;
}

class AutoDiarizer implements Diarizer {
  readonly provider: string;
  readonly model: string;
  private readonly mono: MfccClusterDiarizer;
  private readonly channel = new ChannelDiarizer();

  constructor(opts: CreateDiarizerOptions) {
    this.mono = new MfccClusterDiarizer(opts.mono);
    this.provider = this.mono.provider;
    this.model = this.mono.model;
  }

  diarize(audio: DecodedAudio, words: RecognizedWord[]): Promise<Diarization> {
    return audio.channels ? this.channel.diarize(audio, words) : this.mono.diarize(audio, words);
  }
}

export function createDiarizer(opts: CreateDiarizerOptions = {}): Diarizer {
  return new AutoDiarizer(opts);
}

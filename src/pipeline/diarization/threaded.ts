// The embedded diarizer run in worker threads (src/pipeline/thread-pool.ts). Mono diarization is
// synchronous, CPU-bound work (voice clustering and resegmentation: about 3.5 s on a 35-second
// call, 20 s on a 10-minute one); on the event loop it stopped every request of every user for
// that long (a 5-minute upload held /api/health for 16.8 s). The thread reopens the decoded audio
// from its files; only the recognised words and the attribution cross between threads.
import type { DecodedAudio, Diarization, Diarizer, RecognizedWord } from '../types.js';
import { ArrayPcm, WavFilePcm, type PcmSource } from '../audio/pcm.js';
import { ThreadPool, threadEntry } from '../thread-pool.js';
import { createDiarizer, type CreateDiarizerOptions } from './index.js';

/** A PCM source as a thread can reopen it: a WAV file's channel (or mix), or the samples themselves. */
export type PcmReference = { file: string; channel: number | 'mix' } | { samples: Float32Array; sampleRate: number };

export interface DiarizationRequest {
  options: CreateDiarizerOptions;
  audio: Omit<DecodedAudio, 'mono' | 'channels'> & { mono: PcmReference; channels?: [PcmReference, PcmReference] };
  words: RecognizedWord[];
}

function referenceOf(source: PcmSource): PcmReference | null {
  if (source instanceof WavFilePcm) return { file: source.file, channel: source.channel };
  if (source instanceof ArrayPcm) return { samples: source.samples, sampleRate: source.sampleRate };
  return null;
}

export async function reopen(ref: PcmReference): Promise<PcmSource> {
  return 'file' in ref ? WavFilePcm.open(ref.file, ref.channel) : new ArrayPcm(ref.samples, ref.sampleRate);
}

export class ThreadedDiarizer implements Diarizer {
  readonly provider: string;
  readonly model: string;
  private readonly pool: ThreadPool<DiarizationRequest, Diarization>;
  /** For audio a thread could not reopen (a PCM source of another kind): the same diarizer here. */
  private readonly local: Diarizer;

  constructor(
    size = 1,
    private readonly options: CreateDiarizerOptions = {},
  ) {
    this.local = createDiarizer(options);
    this.provider = this.local.provider;
    this.model = this.local.model;
    this.pool = new ThreadPool(threadEntry(import.meta.url, 'thread'), size, { work: 'diarization', lostReason: 'diarization_failed' });
  }

  diarize(audio: DecodedAudio, words: RecognizedWord[], signal?: AbortSignal): Promise<Diarization> {
    const mono = referenceOf(audio.mono);
    const channels = audio.channels?.map(referenceOf);
    if (!mono || channels?.some((c) => c === null)) return this.local.diarize(audio, words);
    const { mono: _m, channels: _c, ...rest } = audio;
    return this.pool.run({ options: this.options, audio: { ...rest, mono, ...(channels ? { channels: channels as [PcmReference, PcmReference] } : {}) }, words }, signal);
  }

  /** Ends every thread; diarizations running or waiting fail as retryable. */
  close(): Promise<void> {
    return this.pool.close();
  }

  /** Threads alive now (for tests). */
  threads(): number {
    return this.pool.threads();
  }
}

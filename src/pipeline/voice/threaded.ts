// The embedded voice embedders run in worker threads (src/pipeline/thread-pool.ts): their frame
// analysis is synchronous, CPU-bound work (about 0.65 s for a two-minute enrolment sample, up to
// 60 s of each call speaker's speech), which on the event loop held every user's requests. The
// samples are copied to a thread, the vector comes back. The ONNX embedder is not wrapped: its
// runtime already works off the event loop.
import { ThreadPool, threadEntry } from '../thread-pool.js';
import type { SpeakerEmbedder } from '../types.js';
import { EmbeddingError } from './embedder.js';

/** The embedded providers a thread can build by name (src/pipeline/voice/embedder.ts createSpeakerEmbedder). */
export type EmbeddedVoiceProvider = 'embedded' | 'embedded-fused' | 'embedded-stats' | 'embedded-lda';

export interface EmbeddingRequest {
  provider: EmbeddedVoiceProvider;
  samples: Float32Array;
  sampleRate: number;
  regions?: Array<{ start: number; end: number }>;
}

export class ThreadedEmbedder implements SpeakerEmbedder {
  readonly provider: string;
  readonly normalization?: SpeakerEmbedder['normalization'];
  readonly fusion?: SpeakerEmbedder['fusion'];
  private readonly pool: ThreadPool<EmbeddingRequest, Float32Array>;

  /** `same` is the configured embedder built in this thread: its id and decision constants are the thread's. */
  constructor(
    private readonly configured: EmbeddedVoiceProvider,
    same: SpeakerEmbedder,
    size = 1,
  ) {
    this.provider = same.provider;
    if (same.normalization) this.normalization = same.normalization;
    if (same.fusion) this.fusion = same.fusion;
    this.pool = new ThreadPool(threadEntry(import.meta.url, 'thread'), size, {
      work: 'voice embedding',
      lostReason: 'internal_error',
      // "not enough speech" must stay an EmbeddingError: callers skip such a speaker, or answer voice_sample_too_short.
      revive: (e) => (e.name === 'EmbeddingError' ? new EmbeddingError(e.reason as EmbeddingError['reason'], e.message) : null),
    });
  }

  embed(samples: Float32Array, sampleRate: number, regions?: Array<{ start: number; end: number }>): Promise<Float32Array> {
    return this.pool.run({ provider: this.configured, samples, sampleRate, ...(regions ? { regions } : {}) });
  }

  /** Ends every thread; embeddings running or waiting fail as retryable. */
  close(): Promise<void> {
    return this.pool.close();
  }

  /** Threads alive now (for tests). */
  threads(): number {
    return this.pool.threads();
  }
}

// The worker-thread side of ThreadedEmbedder (./threaded.ts): builds the named embedded embedder
// once and embeds the samples it is sent, one request at a time.
import { serveThread } from '../thread-pool.js';
import type { SpeakerEmbedder } from '../types.js';
import { createSpeakerEmbedder } from './embedder.js';
import type { EmbeddedVoiceProvider, EmbeddingRequest } from './threaded.js';

const embedders = new Map<EmbeddedVoiceProvider, Promise<SpeakerEmbedder>>();

serveThread(
  async ({ provider, samples, sampleRate, regions }: EmbeddingRequest) => {
    if (!embedders.has(provider)) embedders.set(provider, createSpeakerEmbedder({ provider }));
    return (await embedders.get(provider)!).embed(samples, sampleRate, regions);
  },
);

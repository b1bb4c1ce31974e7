// The pipeline's components, chosen from configuration. Every stage has an offline default that
// needs no model download; outside providers are opt-in through the provider variables.
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { createTranscriber } from './transcription/index.js';
import { ThreadedDiarizer } from './diarization/threaded.js';
import { createAnalyzer } from './analysis/index.js';
import { createSpeakerEmbedder, V1_PROVIDER } from './voice/embedder.js';
import { ThreadedEmbedder, type EmbeddedVoiceProvider } from './voice/threaded.js';
import { DEFAULT_VOICE_MATCH_THRESHOLD } from './voice/match.js';
import type { Analyzer, Diarizer, SpeakerEmbedder, Transcriber } from './types.js';

export interface Pipeline {
  transcriber: Transcriber;
  diarizer: Diarizer;
  analyzer: Analyzer;
  embedder: SpeakerEmbedder;
  voiceMatchThreshold: number;
}

export async function createPipeline(config: Config, log: Logger): Promise<Pipeline> {
  const transcriber = await createTranscriber(
    {
      provider: config.transcription.provider,
      openai: { ...config.transcription.openai, apiKey: config.transcription.openai.apiKey ?? undefined },
      whisper: {
        ...config.transcription.whisper,
        modelUrl: config.transcription.whisper.modelUrl ?? undefined,
        modelSha256: config.transcription.whisper.modelSha256 ?? undefined,
      },
    },
    log,
  );
  const analyzer = createAnalyzer({ provider: config.analysis.provider, openai: config.analysis.openai, threads: config.worker.concurrency }, log);
  let embedder: SpeakerEmbedder;
  let embeddedProvider: EmbeddedVoiceProvider | null = config.voice.provider === 'onnx' ? null : config.voice.provider;
  try {
    embedder = await createSpeakerEmbedder({
      provider: config.voice.provider,
      modelPath: config.voice.modelPath ?? undefined,
      modelUrl: config.voice.modelUrl ?? undefined,
      modelSha256: config.voice.modelSha256 ?? undefined,
      modelDir: config.voice.modelDir,
      log,
    });
  } catch (err) {
    log.warn({ err: (err as Error).message }, 'voice embedding provider unavailable; using the embedded extractor');
    embedder = await createSpeakerEmbedder({ provider: 'embedded' });
    embeddedProvider = 'embedded';
  }
  if (embedder.provider !== V1_PROVIDER && !embedder.normalization && config.voice.matchThreshold === null) {
    // The default threshold is calibrated for the statistics embedder's raw cosines (docs/bench/voice.md)
    // and the fitted ones map their own threshold onto it (normalization); a neural model's scores sit
    // elsewhere, so its operator has to calibrate one (docs/voice-embedders.md).
    log.warn({ provider: embedder.provider, threshold: DEFAULT_VOICE_MATCH_THRESHOLD }, 'VOICE_MATCH_THRESHOLD is not set: the default is calibrated for the embedded embedder, not this model');
  }
  return {
    transcriber,
    // Off the event loop, one thread per concurrent job (src/pipeline/diarization/threaded.ts).
    diarizer: new ThreadedDiarizer(Math.max(1, config.worker.concurrency)),
    analyzer,
    // The embedded embedders off the event loop (src/pipeline/voice/threaded.ts); ONNX runs off it already.
    embedder: embeddedProvider ? new ThreadedEmbedder(embeddedProvider, embedder, Math.max(1, config.worker.concurrency)) : embedder,
    voiceMatchThreshold: config.voice.matchThreshold ?? DEFAULT_VOICE_MATCH_THRESHOLD,
  };
}

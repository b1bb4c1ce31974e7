// The pipeline's provider components counted and timed for the metrics (provider requests, errors
// and durations by kind and provider name; src/observability/metrics.ts). Behaviour is unchanged.
import type { Pipeline } from './index.js';
import { instrumentProvider } from '../observability/metrics.js';

export function instrumentPipeline(pipeline: Pipeline): Pipeline {
  return {
    ...pipeline,
    transcriber: instrumentProvider(pipeline.transcriber, 'transcription', 'transcribe'),
    diarizer: instrumentProvider(pipeline.diarizer, 'diarization', 'diarize'),
    analyzer: instrumentProvider(pipeline.analyzer, 'analysis', 'analyze'),
    embedder: instrumentProvider(pipeline.embedder, 'voice_embedding', 'embed'),
  };
}

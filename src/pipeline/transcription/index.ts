// Chooses the speech recogniser. pocketsphinx is the embedded offline default and the safety net:
// a misconfigured local whisper falls back to it with a warning instead of failing every call.
import type { Transcriber } from '../types.js';
import { OpenAiTranscriber, type OpenAiTranscriptionConfig } from './openai.js';
import { PocketsphinxTranscriber, checkPocketsphinx, type PocketsphinxCheck, type PocketsphinxConfig } from './pocketsphinx.js';
import { WhisperCppTranscriber, type TranscriptionLog, type WhisperConfig } from './whisper.js';

export { checkPocketsphinx, PocketsphinxTranscriber, OpenAiTranscriber, WhisperCppTranscriber };
export type { PocketsphinxCheck, PocketsphinxConfig, OpenAiTranscriptionConfig, WhisperConfig, TranscriptionLog };

export type TranscriptionProvider = 'pocketsphinx' | 'openai' | 'whisper';

export interface TranscriptionConfig {
  provider: TranscriptionProvider;
  openai?: OpenAiTranscriptionConfig;
  whisper?: WhisperConfig;
  pocketsphinx?: PocketsphinxConfig;
}

/**
 * The transcriber for `cfg`. A whisper that cannot initialise (no model, failed download, binding
 * that does not load) yields the pocketsphinx transcriber and a warning; a selected OpenAI-compatible
 * provider without its settings is a configuration error and throws.
 */
export async function createTranscriber(cfg: TranscriptionConfig, log: TranscriptionLog): Promise<Transcriber> {
  if (cfg.provider === 'openai') {
    if (!cfg.openai?.baseUrl || !cfg.openai.model) {
      throw new Error('transcription provider "openai" needs a base URL and a model');
    }
    return new OpenAiTranscriber(cfg.openai);
  }
  if (cfg.provider === 'whisper') {
    try {
      return await WhisperCppTranscriber.create(cfg.whisper ?? { language: 'en' }, log);
    } catch (err) {
      log.warn({ provider: 'whisper', fallback: 'pocketsphinx', reason: (err as Error).message }, 'whisper transcription unavailable, using the offline pocketsphinx recogniser instead');
    }
  } else if (cfg.provider !== 'pocketsphinx') {
    throw new Error(`unknown transcription provider "${String(cfg.provider)}"`);
  }
  const check = checkPocketsphinx(cfg.pocketsphinx);
  if (!check.ok) log.warn({ provider: 'pocketsphinx', problems: check.problems }, 'offline speech recogniser is not installed; transcription will fail');
  const transcriber = new PocketsphinxTranscriber(cfg.pocketsphinx);
  if (check.ok && !transcriber.usesCallModel && (cfg.pocketsphinx?.languageModel ?? 'calls') === 'calls') {
    log.warn({ provider: 'pocketsphinx' }, 'the phone-call language model has not been built (scripts/bootstrap.sh builds it); recognising with the general English model');
  }
  return transcriber;
}


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
  return new PocketsphinxTranscriber(cfg.pocketsphinx);
}

const positiveInt = (v: string | undefined): number | undefined => {
  const n = Number(v);
  return v && Number.isInteger(n) && n > 0 ? n : undefined;
};

/**
 * Transcription settings from the environment:
 * TRANSCRIPTION_PROVIDER (pocketsphinx | openai | whisper; default pocketsphinx),
 * TRANSCRIPTION_LANGUAGE (default en), TRANSCRIPTION_TIMEOUT_MS (remote requests, default 300000),
 * TRANSCRIPTION_OPENAI_BASE_URL, TRANSCRIPTION_OPENAI_API_KEY, TRANSCRIPTION_OPENAI_MODEL (default whisper-1),
 * WHISPER_MODEL_PATH, WHISPER_MODEL_URL, WHISPER_MODEL_SHA256, WHISPER_THREADS,
 * POCKETSPHINX_BINARY, POCKETSPHINX_MODEL_DIR.
 */
export function transcriptionConfigFromEnv(env: NodeJS.ProcessEnv = process.env, dataDir = env.DATA_DIR ?? './data'): TranscriptionConfig {
  const raw = (env.TRANSCRIPTION_PROVIDER ?? 'pocketsphinx').trim().toLowerCase();
  const provider: TranscriptionProvider = raw === 'openai' || raw === 'whisper' ? raw : 'pocketsphinx';
  const language = env.TRANSCRIPTION_LANGUAGE?.trim() || 'en';
  const cfg: TranscriptionConfig = {
    provider,
    pocketsphinx: {
      ...(env.POCKETSPHINX_BINARY ? { binary: env.POCKETSPHINX_BINARY } : {}),
      ...(env.POCKETSPHINX_MODEL_DIR ? { modelDir: env.POCKETSPHINX_MODEL_DIR } : {}),
    },
  };
  if (env.TRANSCRIPTION_OPENAI_BASE_URL) {
    cfg.openai = {
      baseUrl: env.TRANSCRIPTION_OPENAI_BASE_URL,
      apiKey: env.TRANSCRIPTION_OPENAI_API_KEY || undefined,
      model: env.TRANSCRIPTION_OPENAI_MODEL || 'whisper-1',
      timeoutMs: positiveInt(env.TRANSCRIPTION_TIMEOUT_MS) ?? 300_000,
      ...(env.TRANSCRIPTION_LANGUAGE ? { language } : {}),
    };
  }
  if (provider === 'whisper' || env.WHISPER_MODEL_PATH || env.WHISPER_MODEL_URL) {
    cfg.whisper = {
      language,
      modelPath: env.WHISPER_MODEL_PATH || undefined,
      modelUrl: env.WHISPER_MODEL_URL || undefined,
      modelSha256: env.WHISPER_MODEL_SHA256 || undefined,
      threads: positiveInt(env.WHISPER_THREADS),
      modelDir: `${dataDir.replace(/\/+$/, '')}/models`,
    };
  }
  return cfg;
}

// Chooses the analyzer for the configured provider. The embedded analyzer runs offline and is the
// default; the OpenAI-compatible adapter covers hosted and local LLM servers alike.
import type { Logger } from 'pino';
import type { Analyzer } from '../types.js';
import { EmbeddedAnalyzer } from './embedded/index.js';
import { ThreadedAnalyzer } from './threaded.js';
import { OpenAiChatAnalyzer, type OpenAiChatConfig } from './openai-chat.js';

export interface AnalysisConfig {
  provider: 'embedded' | 'openai';
  openai?: OpenAiChatConfig;
  /**
   * The embedded analyzer runs in up to this many worker threads (never on the event loop);
   * 0 runs it in the calling thread (benchmarks of the analyzer itself).
   */
  threads?: number;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'invalid-url';
  }
}

export function createAnalyzer(cfg: AnalysisConfig, log: Logger): Analyzer {
  if (cfg.provider === 'openai') {
    if (!cfg.openai) throw new Error('analysis provider "openai" needs its openai settings (base URL, model)');
    const analyzer = new OpenAiChatAnalyzer(cfg.openai, log);
    // Never the API key (nor URL user-info); whether a key is configured is enough to diagnose auth problems.
    log.info({ provider: analyzer.provider, model: analyzer.model, host: hostOf(cfg.openai.baseUrl), apiKey: cfg.openai.apiKey ? 'set' : 'unset' }, 'analysis provider selected');
    return analyzer;
  }
  const threads = cfg.threads ?? 1;
  const analyzer = threads > 0 ? new ThreadedAnalyzer(threads) : new EmbeddedAnalyzer();
  log.info({ provider: analyzer.provider, model: analyzer.model }, 'analysis provider selected');
  return analyzer;
}

export { OpenAiChatAnalyzer, type OpenAiChatConfig } from './openai-chat.js';
export { ThreadedAnalyzer } from './threaded.js';
export { validateAnalysis } from './validate.js';
export { finalizeAnalysis } from './finalize.js';
export { groundAnalysis } from './grounding.js';
export { isLegacyAnalysis } from './versions.js';

// What every request handler and job can reach: configuration, storage and the pipeline's entry points.
import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { DatabaseHandle } from './store/database.js';
import type { BlobStore } from './store/blobs.js';
import type { JobQueue } from './store/queue.js';
import type { IdentityVerifier } from './http/identity.js';
import type { Analyzer, SpeakerEmbedder } from './pipeline/types.js';

export interface AppContext {
  config: Config;
  database: DatabaseHandle;
  blobs: BlobStore;
  queue: JobQueue;
  identity: IdentityVerifier | null;
  log: Logger;
  /** The analyzer used by re-analysis (the same one the pipeline uses). */
  analyzer: Analyzer;
  /** The speaker embedder used for voice profiles (the same one the pipeline uses). */
  embedder: SpeakerEmbedder;
}

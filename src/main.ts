// The process entry point: `npm start` (HTTP and in-process workers) or `npm run worker`
// (workers only, sharing the queue of an external PostgreSQL with other processes).
import { ConfigError, loadConfig } from './config.js';
import { createLogger, startService } from './app.js';
import { DataDirLockedError, DataDirNotEnterableError } from './store/embedded-postgres.js';
import { isDatabaseUnavailable } from './store/database.js';

async function main() {
  const workerOnly = process.argv.includes('--worker-only');
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(2);
    }
    throw err;
  }
  const log = createLogger(config);
  // pg-boss 10 records the outcome of its internal jobs (the cron sender's) without awaiting it:
  // a database outage at that moment surfaces here, and is the database's fault, not a defect of
  // this process, so the service goes on (the queue's maintenance expires and retries that job; our
  // own jobs record their outcome themselves, src/store/queue.ts). Anything else unhandled is a
  // defect and ends the process, as Node would.
  process.on('unhandledRejection', (reason) => {
    if (reason instanceof Error && isDatabaseUnavailable(reason)) {
      log.warn({ err: reason.message }, 'a background database write failed while the database was unavailable');
      return;
    }
    log.fatal({ err: reason }, 'unhandled rejection');
    process.exit(1);
  });
  if (workerOnly && !config.databaseUrl) {
    log.warn('worker-only mode on the embedded database: other processes cannot share this queue (set DATABASE_URL)');
  } else if (workerOnly && config.blobStore.kind === 'fs') {
    log.warn('worker-only mode with BLOB_STORE=fs: audio is read from this DATA_DIR, so API processes must share it (set BLOB_STORE=s3 for processes on separate machines)');
  }
  let service;
  try {
    service = await startService(config, { http: !workerOnly, workers: workerOnly ? true : config.worker.enabled, log });
  } catch (err) {
    if (err instanceof DataDirLockedError) {
      console.error(err.message);
      process.exit(3);
    }
    if (err instanceof DataDirNotEnterableError) {
      console.error(err.message);
      process.exit(2);
    }
    log.fatal({ err }, 'service failed to start');
    process.exit(1);
  }
  log.info({ url: service.url, workerOnly, database: config.databaseUrl ? 'external' : 'embedded' }, 'service started');

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      log.error('shutdown took too long; exiting');
      process.exit(1);
    }, 90_000).unref();
    try {
      await service.stop();
      clearTimeout(force);
      log.info('stopped');
      process.exit(0);
    } catch (err) {
      log.error({ err }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

void main();

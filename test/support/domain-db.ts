// A fresh, migrated database on the external PostgreSQL for the domain-rule tests (no HTTP, no
// pipeline, no queue), with helpers that make a user and a call through the repositories. Each
// suite calls `domainDatabase()` at its top and skips itself when `available` is false.
import { after, before } from 'node:test';
import crypto from 'node:crypto';
import pino from 'pino';
import { loadConfig, type Config } from '../../src/config.js';
import { openDatabase, type DatabaseHandle } from '../../src/store/database.js';
import type { Db } from '../../src/store/database.js';
import { findOrCreateUser } from '../../src/store/repos/users.js';
import { insertCall } from '../../src/store/repos/calls.js';
import { createExternalDatabase, externalDbAvailable, tempDir } from './service.js';

export const available = await externalDbAvailable();
/** The `skip` option of a suite that needs the external database. */
export const skipWithoutDatabase = available ? false : 'no external PostgreSQL';

export interface DomainDatabase {
  db(): Db;
  config(): Config;
  user(tag: string): ReturnType<typeof findOrCreateUser>;
  /** A COMPLETED one-minute call of the user's; returns its id. */
  call(userId: string): Promise<string>;
}

/** Opens the database before the suite's tests and drops it after them. `env`: configuration on top of the test defaults. */
export function domainDatabase(env: Record<string, string> = {}): DomainDatabase {
  let handle: DatabaseHandle;
  let drop: () => Promise<void>;
  let config: Config;
  before(async () => {
    const created = await createExternalDatabase();
    drop = created.drop;
    config = loadConfig({ SERVICE_ENV: 'test', DATABASE_URL: created.url, DATA_DIR: tempDir('cas-domain-'), ...env });
    handle = await openDatabase(config, pino({ level: 'silent' }), { migrate: true });
  });
  after(async () => {
    await handle?.close();
    await drop?.();
  });
  const db = () => handle.db;
  return {
    db,
    config: () => config,
    user: (tag) => findOrCreateUser(db(), { externalUserId: `${tag}-${crypto.randomUUID()}`, email: null, name: tag, picture: null }),
    async call(userId) {
      const id = crypto.randomUUID();
      await insertCall(db(), userId, {
        id,
        status: 'COMPLETED',
        title: null,
        uploadTitle: null,
        suggestedTitle: null,
        direction: null,
        contactName: null,
        legacyContactId: null,
        phoneNumber: null,
        organization: null,
        durationSeconds: 60,
        recordedAt: null,
        updatedAt: new Date(),
        completedAt: new Date(),
        errorReason: null,
        summary: null,
        notes: null,
        serviceContactId: null,
        audioKey: `k/${id}`,
        audioFormat: 'wav',
        audioBytes: 1,
        idempotencyKey: null,
      });
      return id;
    },
  };
}

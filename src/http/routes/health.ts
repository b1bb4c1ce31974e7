// Health: GET /api/health (the specification's route: liveness with a database check, 503 while the
// database is unreachable), and for orchestrators GET /health/live (the process answers: restart it
// only when this fails) and GET /health/ready (database reachable, migrations applied, blob store
// reachable: send it traffic only while this answers 200). None needs authentication; the two
// orchestrator routes lie outside /api and are left out of the OpenAPI document (docs/deployment.md).
import fs from 'node:fs';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { pendingMigrations } from '../../store/database.js';
import { FileBlobStore, type BlobStore } from '../../store/blobs.js';

const Health = Type.Object({ status: Type.Union([Type.Literal('UP'), Type.Literal('DOWN')]), database: Type.Union([Type.Literal('UP'), Type.Literal('DOWN')]) });

/** A readiness check gives up after this long (an unreachable object store may hang a request). */
const CHECK_TIMEOUT_MS = 3000;

async function within<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([work, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('timeout')), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

async function blobStoreReachable(blobs: BlobStore): Promise<boolean> {
  if (blobs instanceof FileBlobStore) {
    await fs.promises.access(blobs.root, fs.constants.R_OK | fs.constants.W_OK);
    return true;
  }
  // A HEAD of a key that does not exist: answered (false) when the bucket is reachable with these
  // credentials, an error otherwise.
  await blobs.exists('readiness-probe');
  return true;
}

const up = (ok: boolean) => (ok ? 'UP' : 'DOWN');

export default async function healthRoutes(app: FastifyInstance, ctx: AppContext) {
  app.get(
    '/api/health',
    {
      schema: {
        tags: ['Health'],
        summary: 'Liveness; 503 while the database is unreachable',
        security: [],
        response: { 200: Health, 503: Health },
      },
    },
    async (_req, reply) => {
      const up = await ctx.database.ping();
      return reply.status(up ? 200 : 503).send({ status: up ? 'UP' : 'DOWN', database: up ? 'UP' : 'DOWN' });
    },
  );

  app.get('/health/live', { schema: { hide: true } }, async (_req, reply) => reply.header('cache-control', 'no-store').send({ status: 'UP' }));

  app.get('/health/ready', { schema: { hide: true } }, async (_req, reply) => {
    const check = (work: () => Promise<boolean>) => within(CHECK_TIMEOUT_MS, work()).catch(() => false);
    const [database, migrations, blobStore] = await Promise.all([
      check(() => ctx.database.ping()),
      check(async () => (await pendingMigrations(ctx.database.requestDb)) === 0),
      check(() => blobStoreReachable(ctx.blobs)),
    ]);
    const ready = database && migrations && blobStore;
    return reply
      .status(ready ? 200 : 503)
      .header('cache-control', 'no-store')
      .send({ status: up(ready), checks: { database: up(database), migrations: up(migrations), blobStore: up(blobStore) } });
  });
}

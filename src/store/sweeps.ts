// Periodic clean-up of what a crash can leave behind. An upload stores its audio before the
// transaction that creates the call commits; a crash in between leaves a file without a call. A
// worker killed mid-job leaves its work directory (a downloaded or decoded copy of the audio).
import fs from 'node:fs';
import path from 'node:path';
import type { Db } from './database.js';
import type { BlobStore } from './blobs.js';
import { BINDING_KEY, ensureBlobBinding } from './blob-binding.js';
import { UUID_SOURCE } from '../domain/ids.js';

/** Where a sweep reports what it refused to do (a pino logger fits). */
export interface SweepLog {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

const CALL_FILE = new RegExp(`^users/(${UUID_SOURCE})/calls/(${UUID_SOURCE})/`);

/**
 * Deletes call files older than `minAgeMs` whose call row does not exist. Returns how many calls'
 * files were removed. Runs only when the blob store is bound to this database (see
 * blob-binding.ts): against a store that belongs to another database, or whose files this
 * database has never seen, it deletes nothing and warns.
 */
export async function sweepOrphanCallFiles(db: Db, blobs: BlobStore, minAgeMs = 3600_000, log?: SweepLog): Promise<number> {
  const binding = await ensureBlobBinding(db, blobs);
  if (!binding.bound) {
    log?.warn(
      { reason: binding.reason, databaseId: binding.databaseId, markerDatabaseId: binding.markerDatabaseId, marker: BINDING_KEY },
      'orphan file sweep refused: the blob store does not belong to this database (check DATABASE_URL, DATA_DIR and S3_BUCKET); no file was deleted',
    );
    return 0;
  }
  if (binding.established) log?.info({ databaseId: binding.databaseId, how: binding.established, marker: BINDING_KEY }, 'blob store bound to this database');
  const byCall = new Map<string, string[]>();
  for (const key of await blobs.list('users')) {
    const m = CALL_FILE.exec(key);
    if (!m) continue;
    const list = byCall.get(m[2]) ?? [];
    list.push(key);
    byCall.set(m[2], list);
  }
  if (byCall.size === 0) return 0;
  const ids = [...byCall.keys()];
  const existing = new Set<string>();
  for (let i = 0; i < ids.length; i += 500) {
    const rows = await db.selectFrom('calls').select('id').where('id', 'in', ids.slice(i, i + 500)).execute();
    for (const r of rows) existing.add(r.id);
  }
  let removed = 0;
  for (const [callId, keys] of byCall) {
    if (existing.has(callId)) continue;
    const ages = await Promise.all(keys.map((k) => blobs.ageMs(k)));
    if (ages.some((a) => a !== null && a < minAgeMs)) continue; // an upload may still be committing
    for (const k of keys) await blobs.delete(k);
    removed++;
  }
  return removed;
}

const VOICE_SAMPLE = new RegExp(`^users/${UUID_SOURCE}/voice-samples/${UUID_SOURCE}/`);

/**
 * Deletes voice-profile samples older than `minAgeMs`. A sample lives only for its request (it is
 * deleted once the embedding is made or the request fails), so one found an hour later was left by
 * a process that died mid-request. Samples belong to no call row, so this needs no database.
 * Returns how many files were removed.
 */
export async function sweepStrayVoiceSamples(blobs: BlobStore, minAgeMs = 3600_000): Promise<number> {
  let removed = 0;
  for (const key of await blobs.list('users')) {
    if (!VOICE_SAMPLE.test(key)) continue;
    const age = await blobs.ageMs(key);
    if (age === null || age < minAgeMs) continue;
    await blobs.delete(key);
    removed++;
  }
  return removed;
}

/** A job's work directory is named `<callId>-<jobId>` (see src/pipeline/stages/run.ts). */
const WORK_DIR = new RegExp(`^${UUID_SOURCE}-(${UUID_SOURCE})$`);

/**
 * Removes entries of DATA_DIR/work older than `minAgeMs` (the least time any job may run): the
 * work directories of jobs whose process died. Processes sharing a DATA_DIR may be running jobs,
 * and a long call's job may run for hours, so a job's directory is kept whatever its age while
 * `jobLive` says the job is waiting, running or due for a retry (or cannot tell). Returns how many
 * were removed.
 */
export async function sweepWorkFiles(dataDir: string, minAgeMs: number, jobLive?: (jobId: string) => Promise<boolean>): Promise<number> {
  const root = path.join(dataDir, 'work');
  let entries: string[];
  try {
    entries = await fs.promises.readdir(root);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of entries) {
    const p = path.join(root, name);
    const st = await fs.promises.stat(p).catch(() => null);
    if (!st || Date.now() - st.mtimeMs < minAgeMs) continue;
    const jobId = WORK_DIR.exec(name)?.[1];
    if (jobId && jobLive && (await jobLive(jobId).catch(() => true))) continue;
    await fs.promises.rm(p, { recursive: true, force: true });
    removed++;
  }
  return removed;
}

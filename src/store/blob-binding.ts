// Binds the blob store to the database whose calls it holds. The orphan sweep deletes a call's
// files when the database has no row for the call, which is right only when the database is the
// one the files belong to: a process started on an empty or wrong DATABASE_URL next to the shared
// bucket (or DATA_DIR) would otherwise delete every recording. So the blob store holds a marker
// naming the database (the random id of migration 009), and the sweep runs only when the marker
// names this database.
//
// The marker is written (and the store thereby bound) only when that is safe:
//  - first start: the store holds no call files yet;
//  - upgrade of an install that predates the marker: the database holds a call row for at least
//    one of the call folders in the store, so it is the database those files belong to.
// Otherwise (a marker naming another database, or files of calls this database has never seen)
// the store is left unbound and the sweep deletes nothing. A restored backup carries its
// database id (the service_identity row is ordinary data), so it stays bound to its store.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { Db } from './database.js';
import type { BlobStore } from './blobs.js';
import { isUuid, UUID_SOURCE } from '../domain/ids.js';

/** Outside `users/`, so no user's prefix and no call sweep ever touches it. */
export const BINDING_KEY = 'service/database-id.json';

const CALL_FOLDER = new RegExp(`^users/${UUID_SOURCE}/calls/(${UUID_SOURCE})/`);

export type BlobBinding =
  | { bound: true; databaseId: string; established?: 'first_start' | 'existing_calls' }
  | { bound: false; databaseId: string; reason: 'marker_names_another_database' | 'files_of_unknown_calls' | 'marker_unreadable'; markerDatabaseId?: string };

/** The random id of this database (migration 009). */
export async function databaseId(db: Db): Promise<string> {
  const row = await db.selectFrom('serviceIdentity').select('databaseId').executeTakeFirstOrThrow();
  return row.databaseId;
}

/**
 * The database id the store's marker names; null when there is no marker; 'unreadable' when it
 * exists but holds something else. Storage errors propagate (the caller then deletes nothing).
 */
export async function readBindingMarker(blobs: BlobStore): Promise<string | null | 'unreadable'> {
  const workDir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'cas-binding-'));
  try {
    let text: string;
    try {
      const file = await blobs.localFile(BINDING_KEY, workDir);
      try {
        text = await fs.promises.readFile(file.path, 'utf8');
      } finally {
        await file.release();
      }
    } catch (err) {
      if ((err as { code?: string }).code === 'ENOENT') return null;
      throw err;
    }
    try {
      const id = (JSON.parse(text) as { databaseId?: unknown }).databaseId;
      return typeof id === 'string' && isUuid(id) ? id : 'unreadable';
    } catch {
      return 'unreadable';
    }
  } finally {
    await fs.promises.rm(workDir, { recursive: true, force: true });
  }
}

export async function writeBindingMarker(blobs: BlobStore, id: string): Promise<void> {
  const body = JSON.stringify({ databaseId: id, note: 'The database this blob store belongs to; the orphan sweep runs only against it. Do not copy this file to another store.' });
  await blobs.put(BINDING_KEY, Readable.from([Buffer.from(body)]));
}

/** Call ids of the call folders in the store. */
async function storedCallIds(blobs: BlobStore): Promise<string[]> {
  const ids = new Set<string>();
  for (const key of await blobs.list('users')) {
    const m = CALL_FOLDER.exec(key);
    if (m) ids.add(m[1]);
  }
  return [...ids];
}

async function holdsAnyCall(db: Db, ids: string[]): Promise<boolean> {
  for (let i = 0; i < ids.length; i += 500) {
    const row = await db.selectFrom('calls').select('id').where('id', 'in', ids.slice(i, i + 500)).limit(1).executeTakeFirst();
    if (row) return true;
  }
  return false;
}

/**
 * Whether the blob store belongs to this database, binding it first when that is safe (see the
 * top of this file). After writing the marker it is read back, so of two processes on different
 * databases that bind an empty store at the same moment only the one whose id stayed is bound.
 */
export async function ensureBlobBinding(db: Db, blobs: BlobStore): Promise<BlobBinding> {
  const id = await databaseId(db);
  const marker = await readBindingMarker(blobs);
  if (marker === id) return { bound: true, databaseId: id };
  if (marker === 'unreadable') return { bound: false, databaseId: id, reason: 'marker_unreadable' };
  if (marker !== null) return { bound: false, databaseId: id, reason: 'marker_names_another_database', markerDatabaseId: marker };
  const callIds = await storedCallIds(blobs);
  let established: 'first_start' | 'existing_calls';
  if (callIds.length === 0) established = 'first_start';
  else if (await holdsAnyCall(db, callIds)) established = 'existing_calls';
  else return { bound: false, databaseId: id, reason: 'files_of_unknown_calls' };
  await writeBindingMarker(blobs, id);
  const written = await readBindingMarker(blobs);
  if (written !== id) return { bound: false, databaseId: id, reason: 'marker_names_another_database', markerDatabaseId: typeof written === 'string' ? written : undefined };
  return { bound: true, databaseId: id, established };
}

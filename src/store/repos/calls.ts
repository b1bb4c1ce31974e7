// Call rows and their processing events. Every statement takes the owner id, so a foreign call is
// indistinguishable from a missing one.
import { sql } from 'kysely';
import type { Db } from '../database.js';
import type { Insertable } from 'kysely';
import type { Call, CallsTable } from '../schema.js';
import type { Executor as Q } from './executor.js';

export async function findCall(db: Q, userId: string, callId: string): Promise<Call | undefined> {
  return db.selectFrom('calls').selectAll().where('userId', '=', userId).where('id', '=', callId).executeTakeFirst();
}

/** The call's id when the owner has it; `lock` holds the row for the caller's transaction. */
export async function findCallId(db: Q, userId: string, callId: string, lock?: 'share' | 'update'): Promise<string | undefined> {
  let q = db.selectFrom('calls').select('id').where('userId', '=', userId).where('id', '=', callId);
  if (lock === 'share') q = q.forShare();
  if (lock === 'update') q = q.forUpdate();
  return (await q.executeTakeFirst())?.id;
}

export async function updateCallFields(db: Db, userId: string, callId: string, fields: { title?: string; summary?: string; notes?: string }): Promise<Call | undefined> {
  const set: Record<string, unknown> = { updatedAt: sql`now()` };
  // An empty string clears the field; a cleared title falls back to the upload or suggested one.
  if (fields.title !== undefined) set.title = fields.title === '' ? null : fields.title;
  if (fields.summary !== undefined) Object.assign(set, { summary: fields.summary === '' ? null : fields.summary, summaryEdited: true });
  if (fields.notes !== undefined) set.notes = fields.notes === '' ? null : fields.notes;
  return db.updateTable('calls').set(set).where('userId', '=', userId).where('id', '=', callId).returningAll().executeTakeFirst();
}

export async function setCallContact(db: Q, userId: string, callId: string, contactId: string | null): Promise<Call | undefined> {
  return db.updateTable('calls').set({ serviceContactId: contactId, updatedAt: sql`now()` }).where('userId', '=', userId).where('id', '=', callId).returningAll().executeTakeFirst();
}

export async function deleteCallRow(db: Q, userId: string, callId: string): Promise<boolean> {
  const r = await db.deleteFrom('calls').where('userId', '=', userId).where('id', '=', callId).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

export async function recordEvent(db: Q, userId: string, callId: string, step: string, outcome: string, detail: Record<string, unknown> | null = null): Promise<void> {
  await db.insertInto('processingEvents').values({ userId, callId, step, outcome, detail: detail ? JSON.stringify(detail) : null }).execute();
}

/** The call's state for a transaction that changes its transcript or analysis: the row is held FOR UPDATE. */
export async function lockCallRevision(trx: Q, userId: string, callId: string) {
  return trx
    .selectFrom('calls')
    .select(['status', 'transcriptRevision', 'analysisRequestedRevision'])
    .where('userId', '=', userId)
    .where('id', '=', callId)
    .forUpdate()
    .executeTakeFirst();
}

/** A rewritten transcript: the revision moves on and its analysis is due. Returns the new revision. */
export async function bumpTranscriptRevision(trx: Q, userId: string, callId: string): Promise<number> {
  const row = await trx
    .updateTable('calls')
    .set((eb) => ({
      transcriptRevision: eb('transcriptRevision', '+', 1),
      analysisRequestedRevision: eb('transcriptRevision', '+', 1),
    }))
    .where('userId', '=', userId)
    .where('id', '=', callId)
    .returning('transcriptRevision')
    .executeTakeFirstOrThrow();
  return row.transcriptRevision;
}

export async function clearAnalysisRequest(trx: Q, userId: string, callId: string): Promise<void> {
  await trx.updateTable('calls').set({ analysisRequestedRevision: null }).where('userId', '=', userId).where('id', '=', callId).execute();
}

/** The analysis's suggested title and one-line summary; the summary mirrors the analysis until the user edits it. */
export async function setAnalysisSummary(trx: Q, userId: string, callId: string, suggestedTitle: string | null, oneLineSummary: string | null): Promise<void> {
  await trx
    .updateTable('calls')
    .set({
      suggestedTitle,
      summary: sql`CASE WHEN summary_edited THEN summary ELSE ${oneLineSummary} END`,
      updatedAt: sql`now()`,
    })
    .where('id', '=', callId)
    .where('userId', '=', userId)
    .execute();
}

/** The call an upload with this Idempotency-Key created, if any. */
export async function findCallIdByIdempotencyKey(db: Q, userId: string, idempotencyKey: string): Promise<string | undefined> {
  return (await db.selectFrom('calls').select('id').where('userId', '=', userId).where('idempotencyKey', '=', idempotencyKey).executeTakeFirst())?.id;
}

/** A new call row (status QUEUED and the rest as an upload sets them). */
export type NewCall = Omit<Insertable<CallsTable>, 'userId'>;

export async function insertCall(db: Q, userId: string, values: NewCall): Promise<void> {
  await db.insertInto('calls').values({ ...values, userId }).execute();
}

/** Ends a call as FAILED with `errorReason` (the sweep of calls whose job is gone). */
export async function failCall(db: Q, userId: string, callId: string, errorReason: string): Promise<void> {
  await db
    .updateTable('calls')
    .set({ status: 'FAILED', errorReason, updatedAt: sql`now()`, completedAt: sql`now()` })
    .where('id', '=', callId)
    .where('userId', '=', userId)
    .execute();
}

/**
 * The processing job moves the call to `status`, unless it ended meanwhile (COMPLETED, FAILED) or
 * was deleted: false then.
 */
export async function setProcessingStatus(db: Q, userId: string, callId: string, status: Call['status']): Promise<boolean> {
  const r = await db
    .updateTable('calls')
    .set({ status, updatedAt: sql`now()` })
    .where('id', '=', callId)
    .where('userId', '=', userId)
    .where('status', 'not in', ['COMPLETED', 'FAILED'])
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** One more processing attempt of the call (a job started on it). */
export async function countProcessingAttempt(db: Q, userId: string, callId: string): Promise<void> {
  await db.updateTable('calls').set({ attempts: sql`attempts + 1` }).where('id', '=', callId).where('userId', '=', userId).execute();
}

/** The decoded audio's length, in whole seconds. */
export async function setCallDuration(db: Q, userId: string, callId: string, durationSeconds: number): Promise<void> {
  await db.updateTable('calls').set({ durationSeconds, updatedAt: sql`now()` }).where('id', '=', callId).where('userId', '=', userId).execute();
}

/** The call COMPLETED with its measured length (in the transaction that stores its analysis). */
export async function completeCall(db: Q, userId: string, callId: string, durationSeconds: number): Promise<void> {
  await db
    .updateTable('calls')
    .set({ status: 'COMPLETED', errorReason: null, durationSeconds, completedAt: sql`now()`, updatedAt: sql`now()` })
    .where('id', '=', callId)
    .where('userId', '=', userId)
    .execute();
}

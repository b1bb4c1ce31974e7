// Calls: repository functions take the owner id first, so every query is scoped to its owner and
// a foreign call is indistinguishable from a missing one.
import { sql, type Transaction } from 'kysely';
import type { Db } from '../store/database.js';
import type { Call, CallStatus, Database } from '../store/schema.js';

type Q = Db | Transaction<Database>;

/** The title shown: the user's edit, else the upload's, else the analysis's suggestion. */
export function effectiveTitle(call: Pick<Call, 'title' | 'uploadTitle' | 'suggestedTitle'>): string | null {
  return call.title ?? call.uploadTitle ?? call.suggestedTitle ?? null;
}

export function callDetailOf(call: Call) {
  return {
    callId: call.id,
    title: effectiveTitle(call),
    status: call.status,
    direction: call.direction,
    contactName: call.contactName,
    phoneNumber: call.phoneNumber,
    durationSeconds: call.durationSeconds,
    recordedAt: call.recordedAt ? call.recordedAt.toISOString() : null,
    createdAt: call.createdAt.toISOString(),
    errorReason: call.errorReason,
    summary: call.summary,
    notes: call.notes,
    serviceContactId: call.serviceContactId,
  };
}

export const PROGRESS_STAGES = ['DECODE', 'TRANSCRIBE', 'DIARIZE', 'ANALYZE'] as const;
export interface CallProgress {
  stage: (typeof PROGRESS_STAGES)[number];
  /** Share of the stage done, 0..100; null for stages that do not report it. */
  percent: number | null;
  updatedAt: string;
}

/**
 * Where a call in processing stands, read from its latest processing event: the stage now
 * running and, where the stage reports it (recognition in parts, analysis in parts), its percent.
 * Undefined for queued and finished calls.
 */
export async function callProgress(db: Q, userId: string, call: Pick<Call, 'id' | 'status'>): Promise<CallProgress | undefined> {
  if (call.status !== 'PROCESSING' && call.status !== 'TRANSCRIBING' && call.status !== 'ANALYZING') return undefined;
  const last = await db
    .selectFrom('processingEvents')
    .select(['step', 'outcome', 'detail', 'createdAt'])
    .where('userId', '=', userId)
    .where('callId', '=', call.id)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!last) return undefined;
  const detail = (typeof last.detail === 'string' ? JSON.parse(last.detail) : last.detail) as { percent?: unknown } | null;
  const reported = typeof detail?.percent === 'number' ? Math.max(0, Math.min(100, Math.round(detail.percent))) : null;
  const at = (last.createdAt instanceof Date ? last.createdAt : new Date(last.createdAt as unknown as string)).toISOString();
  const key = `${last.step}/${last.outcome}`;
  let stage: CallProgress['stage'];
  let percent: number | null = null;
  if (key === 'DECODE/COMPLETED') [stage, percent] = ['TRANSCRIBE', 0];
  else if (key === 'TRANSCRIBE/PROGRESS') [stage, percent] = ['TRANSCRIBE', reported];
  else if (key === 'TRANSCRIBE/COMPLETED') stage = 'DIARIZE';
  else if (key === 'ANALYZE/PROGRESS') [stage, percent] = ['ANALYZE', reported];
  else if (['DIARIZE/COMPLETED', 'RESOLVE/COMPLETED', 'TRANSCRIBE/REUSED'].includes(key) || call.status === 'ANALYZING') stage = 'ANALYZE';
  else stage = 'DECODE';
  return { stage, percent, updatedAt: at };
}

export async function findCall(db: Q, userId: string, callId: string): Promise<Call | undefined> {
  return db.selectFrom('calls').selectAll().where('userId', '=', userId).where('id', '=', callId).executeTakeFirst();
}

export interface CallCursor {
  createdAt: string;
  id: string;
}

export function encodeCursor(c: CallCursor): string {
  return Buffer.from(`${c.createdAt}|${c.id}`).toString('base64url');
}

export function decodeCursor(s: string): CallCursor | null {
  const [createdAt, id] = Buffer.from(s, 'base64url').toString().split('|');
  if (!createdAt || !id || Number.isNaN(Date.parse(createdAt)) || !/^[0-9a-f-]{36}$/i.test(id)) return null;
  return { createdAt, id };
}

/** Newest first; keyset pagination on (created_at, id), which has millisecond precision. */
export async function listCalls(db: Db, userId: string, opts: { limit: number; cursor: CallCursor | null; status?: CallStatus }) {
  // One pass over each call's action items (a lateral join) gives both the count and the first
  // open title; two correlated subqueries scanned them twice per row (bench/http.ts).
  let q = db
    .selectFrom('calls as c')
    .leftJoinLateral(
      (eb) =>
        eb
          .selectFrom('actionItems as a')
          .whereRef('a.callId', '=', 'c.id')
          .where('a.userId', '=', userId)
          .select([
            sql<number>`count(*)::int`.as('actionItemCount'),
            sql<string | null>`(array_agg(a.title ORDER BY a.created_at, a.position) FILTER (WHERE a.status <> 'DISMISSED'))[1]`.as('firstActionTitle'),
          ])
          .as('ai'),
      (join) => join.onTrue(),
    )
    .where('c.userId', '=', userId)
    .select([
      'c.id',
      'c.title',
      'c.uploadTitle',
      'c.suggestedTitle',
      'c.contactName',
      'c.direction',
      'c.status',
      'c.durationSeconds',
      'c.createdAt',
      'ai.actionItemCount',
      'ai.firstActionTitle',
    ])
    .orderBy('c.createdAt', 'desc')
    .orderBy('c.id', 'desc')
    .limit(opts.limit + 1);
  if (opts.status) q = q.where('c.status', '=', opts.status);
  if (opts.cursor) {
    const { createdAt, id } = opts.cursor;
    q = q.where(sql<boolean>`(c.created_at, c.id) < (${createdAt}::timestamptz, ${id}::uuid)`);
  }
  const rows = await q.execute();
  const page = rows.slice(0, opts.limit);
  const last = page[page.length - 1];
  return {
    items: page.map((r) => ({
      callId: r.id,
      title: effectiveTitle(r),
      contactName: r.contactName,
      direction: r.direction,
      status: r.status,
      durationSeconds: r.durationSeconds,
      createdAt: r.createdAt.toISOString(),
      actionItemCount: Number(r.actionItemCount ?? 0),
      firstActionTitle: r.firstActionTitle ?? null,
    })),
    nextCursor: rows.length > opts.limit && last ? encodeCursor({ createdAt: last.createdAt.toISOString(), id: last.id }) : undefined,
  };
}

export async function callStatuses(db: Db, userId: string, ids: string[]) {
  if (ids.length === 0) return [];
  const rows = await db.selectFrom('calls').select(['id', 'status']).where('userId', '=', userId).where('id', 'in', ids).execute();
  const byId = new Map(rows.map((r) => [r.id, r.status]));
  return ids.filter((id) => byId.has(id)).map((id) => ({ callId: id, status: byId.get(id)! }));
}

export async function updateCallFields(db: Db, userId: string, callId: string, fields: { title?: string; summary?: string; notes?: string }): Promise<Call | undefined> {
  const set: Record<string, unknown> = { updatedAt: sql`now()` };
  // An empty string clears the field; a cleared title falls back to the upload or suggested one.
  if (fields.title !== undefined) set.title = fields.title === '' ? null : fields.title;
  if (fields.summary !== undefined) Object.assign(set, { summary: fields.summary === '' ? null : fields.summary, summaryEdited: true });
  if (fields.notes !== undefined) set.notes = fields.notes === '' ? null : fields.notes;
  return db.updateTable('calls').set(set).where('userId', '=', userId).where('id', '=', callId).returningAll().executeTakeFirst();
}

export async function setCallContact(db: Db, userId: string, callId: string, contactId: string | null): Promise<Call | undefined> {
  return db.updateTable('calls').set({ serviceContactId: contactId, updatedAt: sql`now()` }).where('userId', '=', userId).where('id', '=', callId).returningAll().executeTakeFirst();
}

export async function deleteCallRow(db: Q, userId: string, callId: string): Promise<boolean> {
  const r = await db.deleteFrom('calls').where('userId', '=', userId).where('id', '=', callId).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

export async function recordEvent(db: Q, userId: string, callId: string, step: string, outcome: string, detail: Record<string, unknown> | null = null): Promise<void> {
  await db.insertInto('processingEvents').values({ userId, callId, step, outcome, detail: detail ? JSON.stringify(detail) : null }).execute();
}

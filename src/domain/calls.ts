// Calls: repository functions take the owner id first, so every query is scoped to its owner and
// a foreign call is indistinguishable from a missing one.
import { sql, type Transaction } from 'kysely';
import type { Db } from '../store/database.js';
import { PreparedStatement, StatementBatcher, type SqlRunner } from '../store/prepared.js';
import type { Call, CallStatus, Database } from '../store/schema.js';
import { listCallStages } from '../store/repos/call-stages.js';
// Used inside callProgress only (stage modules import this module: no top-level use, no cycle at load).
import { STAGES } from '../pipeline/stages/index.js';

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
    // The analysis of a corrected transcript is queued or running (see domain/reanalysis.ts).
    ...(call.analysisRequestedRevision != null ? { analysisPending: true as const } : {}),
  };
}

/** The values of `progress.stage` (an API enum); each pipeline stage names the one it reports as (src/pipeline/stages/). */
export const PROGRESS_STAGES = ['DECODE', 'TRANSCRIBE', 'DIARIZE', 'ANALYZE'] as const;
export type ProgressStage = (typeof PROGRESS_STAGES)[number];
export interface CallProgress {
  stage: ProgressStage;
  /** Share of the stage done, 0..100; null for stages that do not report it. */
  percent: number | null;
  updatedAt: string;
}

/**
 * Where a call in processing stands, read from its stage state (call_stages, written by the stage
 * runner): the first stage of the list that has not finished, shown as the progress stage it
 * reports as, with its percent where the stage reports one (recognition, 0 until its first report;
 * analysis in parts). Undefined for queued and finished calls, and before the first stage started.
 */
export async function callProgress(db: Q, userId: string, call: Pick<Call, 'id' | 'status'>): Promise<CallProgress | undefined> {
  if (call.status !== 'PROCESSING' && call.status !== 'TRANSCRIBING' && call.status !== 'ANALYZING') return undefined;
  const rows = await listCallStages(db, userId, call.id);
  if (rows.length === 0) return undefined;
  const byName = new Map(rows.map((r) => [r.stage, r]));
  const next = STAGES.find((s) => byName.get(s.name)?.outcome !== 'COMPLETED') ?? STAGES[STAGES.length - 1];
  const row = byName.get(next.name);
  const percent = row?.progress ?? (next.percentFromZero ? 0 : null);
  const latest = Math.max(...rows.map((r) => r.updatedAt.getTime()));
  return { stage: next.progress, percent, updatedAt: new Date(latest).toISOString() };
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

/**
 * A cursor as encodeCursor writes it, or null. Strict on purpose: list requests that arrive
 * together share one statement (CallListReader), so a value PostgreSQL would reject must never
 * reach it, or one client's forged cursor would fail other clients' pages.
 */
export function decodeCursor(s: string): CallCursor | null {
  const [createdAt, id, ...rest] = Buffer.from(s, 'base64url').toString().split('|');
  if (rest.length > 0 || !createdAt || !id) return null;
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(createdAt) || Number.isNaN(Date.parse(createdAt)) || new Date(createdAt).toISOString() !== createdAt) return null;
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) return null;
  return { createdAt, id: id.toLowerCase() };
}

/** A list item as the statement returns it: already in CallListItemSchema's shape. */
interface CallListRow {
  callId: string;
  title: string | null;
  contactName: string | null;
  direction: string | null;
  status: CallStatus;
  durationSeconds: number | null;
  /** Already in the form Date.toISOString() gives (UTC, milliseconds truncated), see listStatement. */
  createdAt: string;
  actionItemCount: number;
  firstActionTitle: string | null;
}

/**
 * The list's statement in its shapes (with or without a status filter and a cursor, and one of a
 * few fixed row counts), each prepared once per connection. Like status polls (below), list
 * requests of one shape that arrive together are answered by one statement: the requests'
 * parameters come as arrays, and each request's page is a LATERAL subquery that takes the
 * request's owner id, so one statement returns several owners' pages, each tagged with its
 * request. Rows come back in the list item's shape (the title resolved as effectiveTitle does, the
 * count 0 for a call without items), so the page is the rows as they are. The action-item count and
 * first open title come from call_action_summaries (kept by a trigger on action_items, migration
 * 004), one primary-key row per call: aggregating each call's items on every page was most of
 * PostgreSQL's work here. created_at comes formatted as Date.toISOString() would format it
 * (to_char's MS truncates to the millisecond like pg's Date parsing does), which spares parsing 50
 * timestamps into Dates and formatting them back on every page.
 *
 * The LIMIT is a constant of the statement, not a parameter: for a parameter PostgreSQL prices
 * the generic plan at a tenth of the user's calls, finds the custom plan for the real limit far
 * cheaper, and so plans the statement afresh on every execution for a user with a long history
 * (bench/growth.ts: a 10-item page cost 0.3 ms of CPU at 10 calls and 0.9 ms at 1,000 or 100,000).
 * With a constant both plans cost the same and the generic one is kept.
 */
const LIST_FETCH_SIZES = [11, 21, 51, 101] as const;

function listStatement(withStatus: boolean, withCursor: boolean, fetch: number): PreparedStatement<CallListRow & { req: number }, unknown[]> {
  const params = ['$1::int4[]', '$2::uuid[]'];
  const columns = ['req', 'user_id'];
  const where = ['c.user_id = q.user_id'];
  if (withStatus) {
    params.push(`$${params.length + 1}::text[]`);
    columns.push('status');
    where.push('c.status = q.status');
  }
  if (withCursor) {
    params.push(`$${params.length + 1}::timestamptz[]`, `$${params.length + 2}::uuid[]`);
    columns.push('cursor_at', 'cursor_id');
    where.push('(c.created_at, c.id) < (q.cursor_at, q.cursor_id)');
  }
  return new PreparedStatement(
    `calls_list_${fetch}${withStatus ? '_status' : ''}${withCursor ? '_cursor' : ''}`,
    `SELECT q.req, page.*
     FROM unnest(${params.join(', ')}) AS q(${columns.join(', ')})
     CROSS JOIN LATERAL (
       SELECT c.id AS "callId", coalesce(c.title, c.upload_title, c.suggested_title) AS title, c.contact_name AS "contactName",
         c.direction, c.status, c.duration_seconds AS "durationSeconds",
         to_char(c.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "createdAt",
         coalesce(s.item_count, 0) AS "actionItemCount", s.first_open_title AS "firstActionTitle"
       FROM calls c
       LEFT JOIN call_action_summaries s ON s.call_id = c.id AND s.user_id = q.user_id
       WHERE ${where.join(' AND ')}
       ORDER BY c.created_at DESC, c.id DESC
       LIMIT ${fetch}) page`,
  );
}
const LIST_STATEMENTS = new Map<string, PreparedStatement<CallListRow & { req: number }, unknown[]>>(
  LIST_FETCH_SIZES.flatMap((fetch) =>
    [false, true].flatMap((withStatus) => [false, true].map((withCursor) => [`${fetch}/${withStatus}/${withCursor}`, listStatement(withStatus, withCursor, fetch)] as const)),
  ),
);

interface ListRequest {
  userId: string;
  status?: CallStatus;
  cursor: CallCursor | null;
}

/** Newest first, as the list pages (the order of its index); both strings compare as PostgreSQL orders them. */
function newestFirst(a: CallListRow, b: CallListRow): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? 1 : -1;
  return a.callId < b.callId ? 1 : a.callId > b.callId ? -1 : 0;
}

/**
 * One request's page from a statement that answered several. The rows arrive page by page in
 * order, but SQL promises no order without an ORDER BY over the whole result, so each page is
 * sorted again (already in order, that is one comparison per row).
 */
function pagesOf(rows: Array<CallListRow & { req: number }>, requests: number): CallListRow[][] {
  const pages: CallListRow[][] = Array.from({ length: requests }, () => []);
  for (const row of rows) {
    const { req, ...item } = row;
    pages[req].push(item);
  }
  for (const page of pages) page.sort(newestFirst);
  return pages;
}

/** Newest first; keyset pagination on (created_at, id), which has millisecond precision. `limit` is 1 to 100. */
export class CallListReader {
  private readonly batchers = new Map<string, StatementBatcher<ListRequest, CallListRow[]>>();

  constructor(
    private readonly sqlRunner: SqlRunner,
    private readonly limits: { maxInFlight: number; maxPagesPerStatement: number } = { maxInFlight: 2, maxPagesPerStatement: 50 },
  ) {}

  async read(userId: string, opts: { limit: number; cursor: CallCursor | null; status?: CallStatus }): Promise<{ items: CallListRow[]; nextCursor?: string }> {
    // One row more than the page tells whether another page follows.
    const fetch = LIST_FETCH_SIZES.find((n) => n > opts.limit) ?? LIST_FETCH_SIZES[LIST_FETCH_SIZES.length - 1];
    const items = await this.batcher(`${fetch}/${Boolean(opts.status)}/${Boolean(opts.cursor)}`).submit({ userId, status: opts.status, cursor: opts.cursor });
    if (items.length <= opts.limit) return { items };
    items.length = opts.limit;
    const last = items[opts.limit - 1];
    return { items, nextCursor: encodeCursor({ createdAt: last.createdAt, id: last.callId }) };
  }

  private batcher(key: string): StatementBatcher<ListRequest, CallListRow[]> {
    let batcher = this.batchers.get(key);
    if (!batcher) {
      const statement = LIST_STATEMENTS.get(key)!;
      batcher = new StatementBatcher(async (requests) => {
        const values: unknown[] = [requests.map((_, i) => i), requests.map((r) => r.userId)];
        if (requests[0].status) values.push(requests.map((r) => r.status));
        if (requests[0].cursor) values.push(requests.map((r) => r.cursor!.createdAt), requests.map((r) => r.cursor!.id));
        return pagesOf(await statement.rows(this.sqlRunner, values), requests.length);
      }, { maxInFlight: this.limits.maxInFlight, maxWeight: this.limits.maxPagesPerStatement });
      this.batchers.set(key, batcher);
    }
    return batcher;
  }
}

/**
 * Status polls, many at a time (see StatementBatcher): the (request, owner, call id) triples of
 * the polls waiting together go to PostgreSQL as three arrays of one prepared statement. Each call
 * is looked up by primary key and kept only when its owner is the owner asked with it, so a
 * statement never mixes users' answers.
 *
 * The lookup is by primary key alone and the owner filter applies to the row found (OFFSET 0 keeps
 * the subquery apart): joined on both columns, PostgreSQL's generic plan, which does not know the
 * user, searched the (user_id, status, ...) index for user and id together, a scan of the user's
 * whole entry, which grows with the user's history.
 */
const STATUS_STATEMENT = new PreparedStatement<{ req: number; id: string; status: CallStatus }, [number[], string[], string[]]>(
  'calls_status_batch',
  `SELECT q.req, c.id, c.status
   FROM unnest($1::int4[], $2::uuid[], $3::uuid[]) AS q(req, user_id, id)
   CROSS JOIN LATERAL (SELECT id, user_id, status FROM calls WHERE id = q.id OFFSET 0) c
   WHERE c.user_id = q.user_id`,
);

/** The polled statements, for the benchmarks' EXPLAIN (bench/support/seed.ts). */
export const POLLED_CALL_STATEMENTS = { status: STATUS_STATEMENT, list: LIST_STATEMENTS.get('51/false/false')!, listByStatus: LIST_STATEMENTS.get('51/true/false')! } as const;

export interface CallStatusItem {
  callId: string;
  status: CallStatus;
}

interface StatusPoll {
  userId: string;
  ids: string[];
}

/** Answers status polls, those arriving together with one statement. */
export class CallStatusReader {
  private readonly batcher: StatementBatcher<StatusPoll, CallStatusItem[]>;

  constructor(
    private readonly sqlRunner: SqlRunner,
    limits: { maxInFlight: number; maxIdsPerStatement: number } = { maxInFlight: 2, maxIdsPerStatement: 2000 },
  ) {
    this.batcher = new StatementBatcher((polls) => this.answer(polls), {
      maxInFlight: limits.maxInFlight,
      maxWeight: limits.maxIdsPerStatement,
      weight: (poll) => poll.ids.length,
    });
  }

  /** The statuses of the owner's calls among `ids` (lower-case UUIDs), in the order asked; others are left out. */
  read(userId: string, ids: string[]): Promise<CallStatusItem[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.batcher.submit({ userId, ids });
  }

  private async answer(polls: StatusPoll[]): Promise<CallStatusItem[][]> {
    const reqs: number[] = [];
    const owners: string[] = [];
    const ids: string[] = [];
    polls.forEach((poll, req) => {
      for (const id of poll.ids) {
        reqs.push(req);
        owners.push(poll.userId);
        ids.push(id);
      }
    });
    const rows = await STATUS_STATEMENT.rows(this.sqlRunner, [reqs, owners, ids]);
    const found = polls.map(() => new Map<string, CallStatus>());
    for (const r of rows) found[r.req].set(r.id, r.status);
    return polls.map((poll, req) => {
      const items: CallStatusItem[] = [];
      for (const id of poll.ids) {
        const status = found[req].get(id);
        if (status !== undefined) items.push({ callId: id, status });
      }
      return items;
    });
  }
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

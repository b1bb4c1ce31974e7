// Action items: the persisted, editable records behind an analysis's actionItems, plus the ones a
// user creates by hand. Every function takes the owner id first and filters by it, so a foreign
// item behaves exactly like a missing one.
//
// Ordering: the user-wide list is newest first; the per-call list is creation order, so AI items
// keep the order the analysis gave them (`position`) and manual items follow as they were added.
//
// sourceText (AI items only; null on MANUAL items) is JSON text, version-tagged so that its shape
// can evolve without guessing:
//   {"v":1,"priority":"high"|"medium"|"low"|null,"sourceSegmentIds":["seg_0003",...],
//    "excerpt":"[00:12] Olivia Park: ... / [00:20] Sam: ..." | null}
// The excerpt is the cited transcript segments as stored at analysis time (cut to
// SOURCE_EXCERPT_MAX characters), so the record stays explainable even after a re-analysis or a
// transcript change; it is null when no cited segment could be found.
import { sql, type Transaction } from 'kysely';
import type { Db } from '../store/database.js';
import type { ActionItem, ActionItemStatus, Database } from '../store/schema.js';
import type { Analysis, AnalysisActionItem } from './analysis.js';
import { getArtifact } from '../store/repos/artifacts.js';
import { errors } from './errors.js';

export const ACTION_ITEM_STATUSES = ['OPEN', 'IN_PROGRESS', 'DONE', 'DISMISSED'] as const satisfies readonly ActionItemStatus[];
export const PRIORITIES = ['LOW', 'MEDIUM', 'HIGH'] as const;
export type Priority = (typeof PRIORITIES)[number];

export const SOURCE_EXCERPT_MAX = 500;
const SOURCE_TEXT_VERSION = 1;

type Executor = Db | Transaction<Database>;

/** The response shape of the spec's "Action item (persisted record)", field for field. */
export interface ActionItemView {
  id: string;
  callRecordId: string;
  title: string;
  description: string | null;
  dueDate: string | null;
  status: ActionItemStatus;
  sourceText: string | null;
  createdAt: string;
  updatedAt: string;
  ownerSpeakerId: string | null;
  ownerSpeakerLabel: string | null;
  ownerDisplayName: string | null;
  ownerRole: string | null;
  sourceSegmentIds: string[];
  intent: string | null;
  intentMetadata: Record<string, unknown> | null;
  priority: Priority | null;
  source: 'AI' | 'MANUAL' | null;
}

export function actionItemOf(row: ActionItem): ActionItemView {
  return {
    id: row.id,
    callRecordId: row.callId,
    title: row.title,
    description: row.description,
    dueDate: row.dueDate,
    status: row.status,
    sourceText: row.sourceText,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    ownerSpeakerId: row.ownerSpeakerId,
    ownerSpeakerLabel: row.ownerSpeakerLabel,
    ownerDisplayName: row.ownerDisplayName,
    ownerRole: row.ownerRole,
    sourceSegmentIds: Array.isArray(row.sourceSegmentIds) ? row.sourceSegmentIds : [],
    intent: row.intent,
    intentMetadata: row.intentMetadata && typeof row.intentMetadata === 'object' ? row.intentMetadata : null,
    priority: row.priority,
    source: row.source,
  };
}

/** True for a YYYY-MM-DD string naming a real calendar day (2025-02-30 is not one). */
export function isRealDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const dt = new Date(Date.UTC(y, mo - 1, d));
  return dt.getUTCFullYear() === y && dt.getUTCMonth() === mo - 1 && dt.getUTCDate() === d;
}

function checkDueDate(dueDate: string | null | undefined): void {
  if (dueDate != null && !isRealDate(dueDate)) {
    throw errors.validation({ fields: [{ path: '/body/dueDate', message: 'must be a real date in the form YYYY-MM-DD' }] });
  }
}

function checkTitle(title: string): string {
  const t = title.trim();
  if (!t) throw errors.validation({ fields: [{ path: '/body/title', message: 'must not be blank' }] });
  return t;
}

/**
 * completedAt follows status: stamped by the server when the item becomes DONE (kept when it was
 * DONE already, so re-saving does not move the completion time), cleared for any other status.
 */
function completedAtFor(status: ActionItemStatus) {
  return status === 'DONE' ? sql<Date>`coalesce(completed_at, now())` : null;
}

// The user-wide list (GET /api/actions), paged by a keyset: action-item-list.ts.

/** The items of one call; undefined when the call is missing or belongs to someone else. */
export async function listForCall(db: Executor, userId: string, callId: string): Promise<ActionItem[] | undefined> {
  const call = await db.selectFrom('calls').select('id').where('userId', '=', userId).where('id', '=', callId).executeTakeFirst();
  if (!call) return undefined;
  return db
    .selectFrom('actionItems')
    .selectAll()
    .where('userId', '=', userId)
    .where('callId', '=', callId)
    .orderBy('createdAt', 'asc')
    .orderBy('position', 'asc')
    .orderBy('id', 'asc')
    .execute();
}

export async function getActionItem(db: Executor, userId: string, id: string): Promise<ActionItem | undefined> {
  return db.selectFrom('actionItems').selectAll().where('userId', '=', userId).where('id', '=', id).executeTakeFirst();
}

export interface ManualItemInput {
  title: string;
  description?: string | null;
  dueDate?: string | null;
  priority?: Priority | null;
}

/** Creates a MANUAL item on one of the user's calls; throws call_not_found otherwise. */
export async function createManual(db: Db, userId: string, callId: string, input: ManualItemInput): Promise<ActionItem> {
  const title = checkTitle(input.title);
  checkDueDate(input.dueDate);
  return db.transaction().execute(async (trx) => {
    // Locks the call against a concurrent delete, which would otherwise surface as an FK error.
    const call = await trx.selectFrom('calls').select('id').where('userId', '=', userId).where('id', '=', callId).forShare().executeTakeFirst();
    if (!call) throw errors.callNotFound();
    return trx
      .insertInto('actionItems')
      .values({
        userId,
        callId,
        title,
        description: input.description ?? null,
        dueDate: input.dueDate ?? null,
        priority: input.priority ?? null,
        status: 'OPEN',
        source: 'MANUAL',
        sourceText: null,
        sourceSegmentIds: JSON.stringify([]),
        intentMetadata: null,
        completedAt: null,
        ownerSpeakerId: null,
        ownerSpeakerLabel: null,
        ownerDisplayName: null,
        ownerRole: null,
        intent: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  });
}

export interface ReplaceItemInput {
  title: string;
  description: string | null;
  dueDate: string | null;
  priority: Priority | null;
  status: ActionItemStatus;
}

/** PUT: every user-editable field is replaced; null clears description, dueDate and priority. */
export async function replaceActionItem(db: Db, userId: string, id: string, input: ReplaceItemInput): Promise<ActionItem> {
  const title = checkTitle(input.title);
  checkDueDate(input.dueDate);
  const row = await db
    .updateTable('actionItems')
    .set({
      title,
      description: input.description,
      dueDate: input.dueDate,
      priority: input.priority,
      status: input.status,
      completedAt: completedAtFor(input.status),
      updatedAt: sql`now()`,
    })
    .where('userId', '=', userId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
  if (!row) throw errors.actionItemNotFound();
  return row;
}

export async function setActionItemStatus(db: Db, userId: string, id: string, status: ActionItemStatus): Promise<ActionItem> {
  const row = await db
    .updateTable('actionItems')
    .set({ status, completedAt: completedAtFor(status), updatedAt: sql`now()` })
    .where('userId', '=', userId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
  if (!row) throw errors.actionItemNotFound();
  return row;
}

export async function deleteActionItem(db: Db, userId: string, id: string): Promise<void> {
  const res = await db.deleteFrom('actionItems').where('userId', '=', userId).where('id', '=', id).executeTakeFirst();
  if (Number(res.numDeletedRows) === 0) throw errors.actionItemNotFound();
}

const PRIORITY_OF: Record<string, Priority> = { low: 'LOW', medium: 'MEDIUM', high: 'HIGH' };

interface SegmentLike {
  id?: unknown;
  startSeconds?: unknown;
  speakerDisplayName?: unknown;
  speakerLabel?: unknown;
  text?: unknown;
}

function clock(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const mm = String(Math.floor(s / 60)).padStart(2, '0');
  return `${mm}:${String(s % 60).padStart(2, '0')}`;
}

function excerptOf(segmentIds: string[], segments: Map<string, SegmentLike>): string | null {
  const parts: string[] = [];
  for (const id of segmentIds) {
    const seg = segments.get(id);
    if (!seg || typeof seg.text !== 'string') continue;
    const who = typeof seg.speakerDisplayName === 'string' ? seg.speakerDisplayName : typeof seg.speakerLabel === 'string' ? seg.speakerLabel : '';
    const at = typeof seg.startSeconds === 'number' ? `[${clock(seg.startSeconds)}] ` : '';
    parts.push(`${at}${who ? `${who}: ` : ''}${seg.text.trim()}`);
  }
  if (parts.length === 0) return null;
  const joined = parts.join(' / ');
  return joined.length > SOURCE_EXCERPT_MAX ? `${joined.slice(0, SOURCE_EXCERPT_MAX - 1)}…` : joined;
}

export function sourceTextOf(item: Pick<AnalysisActionItem, 'priority' | 'sourceSegmentIds'>, segments: Map<string, SegmentLike>): string {
  const ids = Array.isArray(item.sourceSegmentIds) ? item.sourceSegmentIds.filter((s): s is string => typeof s === 'string') : [];
  return JSON.stringify({
    v: SOURCE_TEXT_VERSION,
    priority: typeof item.priority === 'string' && PRIORITY_OF[item.priority] ? item.priority : null,
    sourceSegmentIds: ids,
    excerpt: excerptOf(ids, segments),
  });
}

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v : null);

/**
 * Re-applies an analysis's action items to a call inside the caller's transaction: the call's AI
 * items are deleted and the analysis's items inserted in their order; MANUAL items (and legacy
 * rows without a source) are kept. Returns the number of items inserted.
 */
export async function replaceAiActionItems(trx: Transaction<Database>, userId: string, callId: string, analysis: Analysis): Promise<number> {
  await trx.deleteFrom('actionItems').where('userId', '=', userId).where('callId', '=', callId).where('source', '=', 'AI').execute();

  const items = (Array.isArray(analysis.actionItems) ? analysis.actionItems : []).filter((i) => i && typeof i === 'object' && str(i.title));
  if (items.length === 0) return 0;

  // The transcript in the same transaction: the pipeline may have stored it a moment ago.
  const transcript = await getArtifact<{ segments?: SegmentLike[] }>(trx, userId, callId, 'transcript');
  const segments = new Map<string, SegmentLike>();
  for (const s of Array.isArray(transcript?.segments) ? transcript.segments : []) {
    if (s && typeof s.id === 'string') segments.set(s.id, s);
  }

  const rows = items.map((item, position) => {
    const segIds = Array.isArray(item.sourceSegmentIds) ? item.sourceSegmentIds.filter((s): s is string => typeof s === 'string') : [];
    const due = typeof item.dueDate === 'string' && isRealDate(item.dueDate) ? item.dueDate : null;
    const meta = item.intentMetadata && typeof item.intentMetadata === 'object' && !Array.isArray(item.intentMetadata) ? item.intentMetadata : null;
    return {
      userId,
      callId,
      title: (item.title as string).trim(),
      description: str(item.description),
      dueDate: due,
      status: 'OPEN' as const,
      sourceText: sourceTextOf(item, segments),
      completedAt: null,
      ownerSpeakerId: str(item.ownerSpeakerId),
      // ownerSpeaker is the legacy alias of ownerSpeakerLabel.
      ownerSpeakerLabel: str(item.ownerSpeakerLabel) ?? str(item.ownerSpeaker),
      ownerDisplayName: str(item.ownerDisplayName),
      ownerRole: str(item.ownerRole),
      sourceSegmentIds: JSON.stringify(segIds),
      intent: str(item.intent),
      intentMetadata: meta ? JSON.stringify(meta) : null,
      priority: typeof item.priority === 'string' ? (PRIORITY_OF[item.priority] ?? null) : null,
      source: 'AI' as const,
      position,
    };
  });
  await trx.insertInto('actionItems').values(rows).execute();
  return rows.length;
}

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
import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { Db, Tx } from '../store/database.js';
import type { ActionItem, ActionItemStatus } from '../store/schema.js';
import * as items from '../store/repos/action-items.js';
import { findCallId } from '../store/repos/calls.js';
import type { Executor } from '../store/repos/executor.js';
import type { Analysis, AnalysisActionItem } from './analysis.js';
import { getArtifact } from '../store/repos/artifacts.js';
import { ErrorCode, errors } from './errors.js';
import { lockKeyForTransaction } from '../store/repos/locks.js';
import { cutText } from './text-cut.js';

export const ACTION_ITEM_STATUSES = ['OPEN', 'IN_PROGRESS', 'DONE', 'DISMISSED'] as const satisfies readonly ActionItemStatus[];
export const PRIORITIES = ['LOW', 'MEDIUM', 'HIGH'] as const;
export type Priority = (typeof PRIORITIES)[number];

export const SOURCE_EXCERPT_MAX = 500;
const SOURCE_TEXT_VERSION = 1;

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

// The user-wide list (GET /api/actions), paged by a keyset: action-item-list.ts.

/** The items of one call; undefined when the call is missing or belongs to someone else. */
export async function listForCall(db: Executor, userId: string, callId: string): Promise<ActionItem[] | undefined> {
  if (!(await findCallId(db, userId, callId))) return undefined;
  return items.listItemsOfCall(db, userId, callId);
}

export const getActionItem = items.getActionItem;

export interface ManualItemInput {
  title: string;
  description?: string | null;
  dueDate?: string | null;
  priority?: Priority | null;
}

/**
 * Most MANUAL items one call may hold. Every write to a call's items rebuilds the call's search
 * document from all of them (migration 002_search), so without a bound each further write of a
 * call piled with 5 KB items cost the database seconds of CPU (5000 items: 2.3 s). The bound also
 * keeps the document's tsvector under PostgreSQL's 1 MB limit with room for notes and a long
 * transcript: 5 KB items of distinct words reach about 0.5 MB at 50 and overflow at 200, after
 * which every write to the call failed. AI items are bounded by the analysis itself.
 */
export const MAX_MANUAL_ITEMS_PER_CALL = 50;

/** Creates a MANUAL item on one of the user's calls; throws call_not_found otherwise. */
export async function createManual(db: Db, userId: string, callId: string, input: ManualItemInput): Promise<ActionItem> {
  const title = checkTitle(input.title);
  checkDueDate(input.dueDate);
  return db.transaction().execute(async (trx) => {
    // Locks the call against a concurrent delete, which would otherwise surface as an FK error.
    if (!(await findCallId(trx, userId, callId, 'share'))) throw errors.callNotFound();
    // Serialises the call's manual creations (the call row is only share-locked), so the cap holds.
    await lockKeyForTransaction(trx, `manual-items:${callId}`);
    if ((await items.countManualItems(trx, userId, callId)) >= MAX_MANUAL_ITEMS_PER_CALL) {
      throw errors.of(ErrorCode.ActionItemLimitReached, { limit: MAX_MANUAL_ITEMS_PER_CALL });
    }
    return items.insertManualItem(trx, userId, callId, { title, description: input.description ?? null, dueDate: input.dueDate ?? null, priority: input.priority ?? null });
  });
}

export interface ReplaceItemInput {
  title: string;
  description: string | null;
  dueDate: string | null;
  priority: Priority | null;
  status: ActionItemStatus;
}

/**
 * Runs an edit of one item in a transaction that first holds the item's call row FOR SHARE:
 * a re-analysis holds it FOR UPDATE while it merges the call's AI items, so an edit waits for it
 * (or it for the edit) instead of being lost in between. Call row first, then the item, the order
 * re-analysis takes too.
 */
async function editItem<T>(db: Db, userId: string, id: string, edit: (trx: Tx) => Promise<T | undefined>): Promise<T> {
  return db.transaction().execute(async (trx) => {
    const callId = await items.itemCallId(trx, userId, id);
    if (!callId) throw errors.actionItemNotFound();
    await findCallId(trx, userId, callId, 'share');
    const result = await edit(trx);
    if (result === undefined) throw errors.actionItemNotFound();
    return result;
  });
}

/**
 * PUT: every user-editable field is replaced; null clears description, dueDate and priority. The
 * item counts as edited by the user from then on (user_edited_at), so a re-analysis keeps it.
 */
export async function replaceActionItem(db: Db, userId: string, id: string, input: ReplaceItemInput): Promise<ActionItem> {
  const title = checkTitle(input.title);
  checkDueDate(input.dueDate);
  return editItem(db, userId, id, (trx) =>
    items.updateItemByUser(trx, userId, id, { title, description: input.description, dueDate: input.dueDate, priority: input.priority, status: input.status }),
  );
}

export async function setActionItemStatus(db: Db, userId: string, id: string, status: ActionItemStatus): Promise<ActionItem> {
  return editItem(db, userId, id, (trx) => items.updateItemByUser(trx, userId, id, { status }));
}

/**
 * Deletes an item. A deleted AI item leaves a tombstone (its fingerprint and source key) so that
 * a re-analysis does not bring it back; nothing else reads tombstones.
 */
export async function deleteActionItem(db: Db, userId: string, id: string): Promise<void> {
  await editItem(db, userId, id, async (trx) => {
    const row = await items.deleteItemReturning(trx, userId, id);
    if (!row) return undefined;
    if (row.source === 'AI') {
      const content = { title: row.title, description: row.description, dueDate: row.dueDate, priority: row.priority, intent: row.intent, sourceSegmentIds: segmentIdsOf(row.sourceSegmentIds), ownerSpeakerId: row.ownerSpeakerId };
      // The item as the analysis gave it (an edited item's own content would never be found again).
      const fingerprint = row.aiFingerprint ?? aiFingerprint(content);
      // The source key suppresses the item when a re-analysis words it differently; it is kept only
      // when no other AI item of the call shares it, so deleting one item never hides a sibling.
      let sourceKey = aiSourceKey(content);
      if (sourceKey !== null) {
        const siblings = await items.aiItemsOfCall(trx, userId, row.callId);
        if (siblings.some((o) => aiSourceKey({ intent: o.intent, sourceSegmentIds: segmentIdsOf(o.sourceSegmentIds) }) === sourceKey)) sourceKey = null;
      }
      await items.insertTombstone(trx, userId, row.callId, fingerprint, sourceKey);
    }
    return true;
  });
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
  // Cut between whole characters: half an emoji would be stored as U+FFFD.
  return joined.length > SOURCE_EXCERPT_MAX ? `${cutText(joined, { maxCodeUnits: SOURCE_EXCERPT_MAX - 1 })}…` : joined;
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

/** The fields of an AI item that the analysis decides and a user edit never changes. */
interface AiItemRow {
  title: string;
  description: string | null;
  dueDate: string | null;
  priority: Priority | null;
  intent: string | null;
  sourceSegmentIds: string[];
  ownerSpeakerId: string | null;
}

const norm = (v: string | null) => (v ?? '').replace(/\s+/g, ' ').trim().toLowerCase();

/**
 * The content fingerprint of an AI item as stored from an analysis: what the item says (title,
 * description, due date, priority, intent), what it cites and whose it is (speaker id, which a
 * rename or swap leaves alone; not the speaker's name or role). Equal fingerprints mean the
 * analysis found the same item again, so the stored row and its id are kept.
 */
export function aiFingerprint(item: AiItemRow): string {
  const canonical = JSON.stringify([
    norm(item.title),
    norm(item.description),
    item.dueDate ?? '',
    item.priority ?? '',
    item.intent ?? '',
    [...item.sourceSegmentIds].sort(),
    item.ownerSpeakerId ?? '',
  ]);
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 32);
}

/**
 * Where an item comes from in the transcript (its intent and the segments it cites), or null when
 * it cites none. An item the user edited is matched to the new analysis's item by this key when its
 * content changed (a renamed speaker in its title, say), so the edited item is not doubled by a
 * fresh copy of itself.
 */
export function aiSourceKey(item: Pick<AiItemRow, 'intent' | 'sourceSegmentIds'>): string | null {
  if (item.sourceSegmentIds.length === 0) return null;
  return `${item.intent ?? ''}|${[...item.sourceSegmentIds].sort().join(',')}`;
}

const segmentIdsOf = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);

/**
 * Applies an analysis's action items to a call inside the caller's transaction, which holds the
 * call row locked (FOR UPDATE), keeping the user's work (issue 22):
 * - an AI item the analysis finds again unchanged (same fingerprint) keeps its row and id; the
 *   fields that follow the transcript (owner's name and role, excerpt, position) are refreshed;
 * - an AI item the user edited (PUT or a status change) is kept with the user's title,
 *   description, due date, priority and status; when the new analysis has its counterpart (same
 *   fingerprint, or else the same intent and cited segments) the counterpart is not inserted and
 *   the row takes the counterpart's owner, citations and excerpt; without one it stays as it is;
 * - an AI item the user deleted stays deleted (its tombstone suppresses the same item);
 * - the other AI items are deleted and the analysis's remaining items inserted, in its order;
 * - MANUAL items (and legacy rows without a source) are never touched.
 * Returns the number of items inserted.
 */
export async function replaceAiActionItems(trx: Tx, userId: string, callId: string, analysis: Analysis): Promise<number> {
  const existing = await items.aiItemsOfCall(trx, userId, callId);
  const tombstones = await items.tombstonesOfCall(trx, userId, callId);
  const deletedPrints = new Set(tombstones.map((t) => t.fingerprint));
  const deletedSources = new Set(tombstones.map((t) => t.sourceKey).filter((k): k is string => k !== null));

  const found = (Array.isArray(analysis.actionItems) ? analysis.actionItems : []).filter((i) => i && typeof i === 'object' && str(i.title));

  // The transcript in the same transaction: the pipeline may have stored it a moment ago.
  const transcript = found.length ? await getArtifact<{ segments?: SegmentLike[] }>(trx, userId, callId, 'transcript') : undefined;
  const segments = new Map<string, SegmentLike>();
  for (const s of Array.isArray(transcript?.segments) ? transcript.segments : []) {
    if (s && typeof s.id === 'string') segments.set(s.id, s);
  }

  const fresh = found.map((item, position) => {
    const segIds = segmentIdsOf(item.sourceSegmentIds);
    const meta = item.intentMetadata && typeof item.intentMetadata === 'object' && !Array.isArray(item.intentMetadata) ? item.intentMetadata : null;
    const content: AiItemRow = {
      title: (item.title as string).trim(),
      description: str(item.description),
      dueDate: typeof item.dueDate === 'string' && isRealDate(item.dueDate) ? item.dueDate : null,
      priority: typeof item.priority === 'string' ? (PRIORITY_OF[item.priority] ?? null) : null,
      intent: str(item.intent),
      sourceSegmentIds: segIds,
      ownerSpeakerId: str(item.ownerSpeakerId),
    };
    return {
      content,
      fingerprint: aiFingerprint(content),
      sourceKey: aiSourceKey(content),
      // The fields that follow the transcript, refreshed on a kept row.
      derived: {
        sourceText: sourceTextOf(item, segments),
        ownerSpeakerId: content.ownerSpeakerId,
        // ownerSpeaker is the legacy alias of ownerSpeakerLabel.
        ownerSpeakerLabel: str(item.ownerSpeakerLabel) ?? str(item.ownerSpeaker),
        ownerDisplayName: str(item.ownerDisplayName),
        ownerRole: str(item.ownerRole),
        sourceSegmentIds: segIds,
        intent: content.intent,
        intentMetadata: meta,
        position,
      },
    };
  });

  // A stored row's fingerprint: as recorded at insertion, or (rows older than migration 008, which
  // were never edited under tracking) computed from the row itself.
  const printOf = (row: ActionItem) =>
    row.aiFingerprint ??
    aiFingerprint({ title: row.title, description: row.description, dueDate: row.dueDate, priority: row.priority, intent: row.intent, sourceSegmentIds: segmentIdsOf(row.sourceSegmentIds), ownerSpeakerId: row.ownerSpeakerId });
  const pending = existing.map((row) => ({ row, print: printOf(row), source: aiSourceKey({ intent: row.intent, sourceSegmentIds: segmentIdsOf(row.sourceSegmentIds) }), kept: false }));

  const inserts: Array<(typeof fresh)[number]> = [];
  for (const n of fresh) {
    if (deletedPrints.has(n.fingerprint) || (n.sourceKey !== null && deletedSources.has(n.sourceKey))) continue;
    const match =
      pending.find((o) => !o.kept && o.print === n.fingerprint) ??
      (n.sourceKey === null ? undefined : pending.find((o) => !o.kept && o.row.userEditedAt !== null && o.source === n.sourceKey));
    if (!match) {
      inserts.push(n);
      continue;
    }
    match.kept = true;
    const next = { ...n.derived, aiFingerprint: n.fingerprint };
    const before = {
      sourceText: match.row.sourceText,
      ownerSpeakerId: match.row.ownerSpeakerId,
      ownerSpeakerLabel: match.row.ownerSpeakerLabel,
      ownerDisplayName: match.row.ownerDisplayName,
      ownerRole: match.row.ownerRole,
      sourceSegmentIds: segmentIdsOf(match.row.sourceSegmentIds),
      intent: match.row.intent,
      intentMetadata: match.row.intentMetadata && typeof match.row.intentMetadata === 'object' ? match.row.intentMetadata : null,
      position: match.row.position,
      aiFingerprint: match.row.aiFingerprint,
    };
    if (isDeepStrictEqual(before, next)) continue;
    // updatedAt moves only when a field a client sees changed (not for position or fingerprint).
    const visible = (o: typeof before) => ({ ...o, position: 0, aiFingerprint: null });
    await items.refreshAiItem(trx, userId, match.row.id, next, !isDeepStrictEqual(visible(before), visible(next)));
  }

  // What the user edited stays even when the analysis no longer finds it; the rest is replaced.
  const stale = pending.filter((o) => !o.kept && o.row.userEditedAt === null).map((o) => o.row.id);
  await items.deleteItemsOfCall(trx, userId, callId, stale);
  await items.insertAiItems(
    trx,
    userId,
    callId,
    inserts.map((n) => ({ title: n.content.title, description: n.content.description, dueDate: n.content.dueDate, priority: n.content.priority, aiFingerprint: n.fingerprint, ...n.derived })),
  );
  return inserts.length;
}

// Action-item rows and their tombstones. Every statement takes the owner id.
import { sql, type Transaction } from 'kysely';
import type { ActionItem, ActionItemStatus, Database } from '../schema.js';
import type { Executor } from './executor.js';

type Trx = Transaction<Database>;

/** The items of one call in creation order (AI items in the analysis's order). */
export async function listItemsOfCall(db: Executor, userId: string, callId: string): Promise<ActionItem[]> {
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

export async function itemCallId(db: Executor, userId: string, id: string): Promise<string | undefined> {
  return (await db.selectFrom('actionItems').select('callId').where('userId', '=', userId).where('id', '=', id).executeTakeFirst())?.callId;
}

export interface NewManualItem {
  title: string;
  description: string | null;
  dueDate: string | null;
  priority: ActionItem['priority'];
}

/** How many MANUAL items the call has. */
export async function countManualItems(db: Executor, userId: string, callId: string): Promise<number> {
  const row = await db
    .selectFrom('actionItems')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('userId', '=', userId)
    .where('callId', '=', callId)
    .where('source', '=', 'MANUAL')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertManualItem(db: Executor, userId: string, callId: string, v: NewManualItem): Promise<ActionItem> {
  return db
    .insertInto('actionItems')
    .values({
      userId,
      callId,
      ...v,
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
}

/**
 * A user's edit of an item: the given fields, and the item counts as edited by the user from
 * then on (user_edited_at). completedAt follows status: stamped when the item becomes DONE (kept
 * when it was DONE already), cleared for any other status.
 */
export async function updateItemByUser(
  db: Executor,
  userId: string,
  id: string,
  fields: { status: ActionItemStatus; title?: string; description?: string | null; dueDate?: string | null; priority?: ActionItem['priority'] },
): Promise<ActionItem | undefined> {
  return db
    .updateTable('actionItems')
    .set({
      ...fields,
      completedAt: fields.status === 'DONE' ? sql<Date>`coalesce(completed_at, now())` : null,
      updatedAt: sql`now()`,
      userEditedAt: sql`now()`,
    })
    .where('userId', '=', userId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export async function deleteItemReturning(db: Executor, userId: string, id: string): Promise<ActionItem | undefined> {
  return db.deleteFrom('actionItems').where('userId', '=', userId).where('id', '=', id).returningAll().executeTakeFirst();
}

/** The AI items of a call, in the analysis's order. */
export async function aiItemsOfCall(db: Executor, userId: string, callId: string): Promise<ActionItem[]> {
  return db
    .selectFrom('actionItems')
    .selectAll()
    .where('userId', '=', userId)
    .where('callId', '=', callId)
    .where('source', '=', 'AI')
    .orderBy('position', 'asc')
    .orderBy('createdAt', 'asc')
    .execute();
}

export async function insertTombstone(db: Executor, userId: string, callId: string, fingerprint: string, sourceKey: string | null): Promise<void> {
  await db
    .insertInto('actionItemTombstones')
    .values({ userId, callId, fingerprint, sourceKey })
    .onConflict((oc) => oc.columns(['callId', 'fingerprint']).doNothing())
    .execute();
}

export async function tombstonesOfCall(db: Executor, userId: string, callId: string): Promise<Array<{ fingerprint: string; sourceKey: string | null }>> {
  return db.selectFrom('actionItemTombstones').select(['fingerprint', 'sourceKey']).where('userId', '=', userId).where('callId', '=', callId).execute();
}

export interface AiItemDerived {
  sourceText: string;
  ownerSpeakerId: string | null;
  ownerSpeakerLabel: string | null;
  ownerDisplayName: string | null;
  ownerRole: string | null;
  sourceSegmentIds: string[];
  intent: string | null;
  intentMetadata: Record<string, unknown> | null;
  position: number;
  aiFingerprint: string;
}

/** Refreshes the analysis-derived fields of a kept AI item; `touch` moves updatedAt. */
export async function refreshAiItem(trx: Trx, userId: string, id: string, next: AiItemDerived, touch: boolean): Promise<void> {
  await trx
    .updateTable('actionItems')
    .set({
      ...next,
      sourceSegmentIds: JSON.stringify(next.sourceSegmentIds),
      intentMetadata: next.intentMetadata ? JSON.stringify(next.intentMetadata) : null,
      ...(touch ? { updatedAt: sql`now()` } : {}),
    })
    .where('userId', '=', userId)
    .where('id', '=', id)
    .execute();
}

export async function deleteItemsOfCall(trx: Trx, userId: string, callId: string, ids: string[]): Promise<void> {
  if (ids.length) await trx.deleteFrom('actionItems').where('userId', '=', userId).where('callId', '=', callId).where('id', 'in', ids).execute();
}

export interface NewAiItem extends Omit<AiItemDerived, never> {
  title: string;
  description: string | null;
  dueDate: string | null;
  priority: ActionItem['priority'];
}

export async function insertAiItems(trx: Trx, userId: string, callId: string, items: NewAiItem[]): Promise<void> {
  if (items.length === 0) return;
  const rows = items.map((n) => ({
    userId,
    callId,
    status: 'OPEN' as const,
    completedAt: null,
    source: 'AI' as const,
    ...n,
    sourceSegmentIds: JSON.stringify(n.sourceSegmentIds),
    intentMetadata: n.intentMetadata ? JSON.stringify(n.intentMetadata) : null,
  }));
  await trx.insertInto('actionItems').values(rows).execute();
}

/** One page of the user's items, newest first, with created_at to the microsecond for the keyset (see domain/action-item-list.ts). */
export async function listItemsPage(db: Executor, userId: string, limit: number, cursor: { createdAt: string; position: number; id: string } | null) {
  let q = db
    .selectFrom('actionItems')
    .selectAll()
    .select(sql<string>`to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`.as('cursorAt'))
    .where('userId', '=', userId);
  if (cursor) {
    const { createdAt, position, id } = cursor;
    q = q.where(sql<boolean>`created_at <= ${createdAt}::timestamptz AND (created_at < ${createdAt}::timestamptz OR (position, id) > (${position}::int4, ${id}::uuid))`);
  }
  return q.orderBy('createdAt', 'desc').orderBy('position', 'asc').orderBy('id', 'asc').limit(limit + 1).execute();
}

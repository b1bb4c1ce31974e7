// Webhook endpoints and deliveries. Every statement takes the owner id.
import { sql, type Transaction } from 'kysely';
import type { Database, WebhookDelivery, WebhookEndpoint } from '../schema.js';
import type { Executor } from './executor.js';

/** Holds the user's row FOR UPDATE: serialises one user's registrations, so a limit holds. */
export async function lockUserForEndpoints(trx: Transaction<Database>, userId: string): Promise<void> {
  await trx.selectFrom('users').select('id').where('id', '=', userId).forUpdate().executeTakeFirst();
}

export async function countEndpoints(db: Executor, userId: string): Promise<number> {
  const { n } = await db.selectFrom('webhookEndpoints').select(sql<number>`count(*)::int`.as('n')).where('userId', '=', userId).executeTakeFirstOrThrow();
  return n;
}

export async function insertEndpoint(db: Executor, userId: string, v: { url: string; events: string[]; description: string | null; secret: string }): Promise<WebhookEndpoint> {
  return db.insertInto('webhookEndpoints').values({ userId, ...v }).returningAll().executeTakeFirstOrThrow();
}

export async function listEndpointRows(db: Executor, userId: string): Promise<WebhookEndpoint[]> {
  return db.selectFrom('webhookEndpoints').selectAll().where('userId', '=', userId).orderBy('createdAt', 'asc').orderBy('id', 'asc').execute();
}

export async function findEndpoint(db: Executor, userId: string, id: string): Promise<WebhookEndpoint | undefined> {
  return db.selectFrom('webhookEndpoints').selectAll().where('userId', '=', userId).where('id', '=', id).executeTakeFirst();
}

export async function deleteEndpointRow(db: Executor, userId: string, id: string): Promise<boolean> {
  const r = await db.deleteFrom('webhookEndpoints').where('userId', '=', userId).where('id', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

/** The endpoint's deliveries newest first after the keyset cursor, with one row more. */
export async function listDeliveryRows(db: Executor, userId: string, endpointId: string, limit: number, cursor: { createdAt: string; id: string } | null): Promise<WebhookDelivery[]> {
  let q = db
    .selectFrom('webhookDeliveries')
    .selectAll()
    .where('userId', '=', userId)
    .where('endpointId', '=', endpointId)
    .orderBy('createdAt', 'desc')
    .orderBy('id', 'desc')
    .limit(limit + 1);
  if (cursor) q = q.where(sql<boolean>`(created_at, id) < (${cursor.createdAt}::timestamptz, ${cursor.id}::uuid)`);
  return q.execute();
}

/** The ids of the user's endpoints subscribed to `event`. */
export async function subscribedEndpointIds(db: Executor, userId: string, event: string): Promise<string[]> {
  const rows = await db.selectFrom('webhookEndpoints').select('id').where('userId', '=', userId).where(sql<boolean>`${event} = ANY(events)`).execute();
  return rows.map((r) => r.id);
}

/** One PENDING-or-not delivery per endpoint; returns the new deliveries' ids. */
export async function insertDeliveries(db: Executor, userId: string, endpointIds: string[], callId: string, event: string, payload: string): Promise<string[]> {
  const rows = await db
    .insertInto('webhookDeliveries')
    .values(endpointIds.map((endpointId) => ({ endpointId, userId, callId, event, payload })))
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}

/** A delivery with what sending it needs (its endpoint's URL and secret). */
export async function deliveryToSend(db: Executor, userId: string, deliveryId: string) {
  return db
    .selectFrom('webhookDeliveries as d')
    .innerJoin('webhookEndpoints as e', 'e.id', 'd.endpointId')
    .select(['d.id', 'd.payload', 'd.status', 'e.url', 'e.secret'])
    .where('d.id', '=', deliveryId)
    .where('d.userId', '=', userId)
    .executeTakeFirst();
}

/** Appends an attempt to a still-PENDING delivery and sets its new status. */
export async function recordDeliveryAttempt(db: Executor, userId: string, deliveryId: string, attempt: unknown, status: 'SUCCEEDED' | 'FAILED' | 'PENDING'): Promise<void> {
  await db
    .updateTable('webhookDeliveries')
    .set({
      attempts: sql`attempts || ${JSON.stringify([attempt])}::jsonb`,
      status,
      deliveredAt: status === 'SUCCEEDED' ? sql`now()` : null,
      updatedAt: sql`now()`,
    })
    .where('id', '=', deliveryId)
    .where('userId', '=', userId)
    .where('status', '=', 'PENDING')
    .execute();
}

// Webhook endpoints and deliveries. A user registers an endpoint for `call.completed` and/or
// `call.failed`; when a call of theirs reaches that status, one delivery row per subscribed
// endpoint and one queue job per delivery are written in the transaction that sets the status, so
// a notification is sent if and only if the status change committed.
//
// Every function takes the owner id first; a foreign endpoint is the same 404 as a missing one.
import crypto from 'node:crypto';
import type { Db, Tx } from '../store/database.js';
import * as repo from '../store/repos/webhooks.js';
import type { JobQueue } from '../store/queue.js';
import type { WebhookDelivery, WebhookEndpoint } from '../store/schema.js';
import { ErrorCode, errors } from './errors.js';
import { isLoopbackHost, literalAddressBlocked } from './network-guard.js';
import { isUuid } from './ids.js';

export const WEBHOOK_EVENTS = ['call.completed', 'call.failed'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];


export interface WebhookRules {
  allowPrivateNetworks: boolean;
  maxEndpointsPerUser: number;
}

/** `whsec_` + base64 of 24 random bytes: the Standard Webhooks secret format. */
export function newWebhookSecret(): string {
  return `whsec_${crypto.randomBytes(24).toString('base64')}`;
}

/** v1 signature of Standard Webhooks: base64 HMAC-SHA256 over `id.timestamp.body`, keyed by the secret's decoded bytes. */
export function signWebhook(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${crypto.createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;
}

/**
 * The URL rules at registration: https, or plain http to a loopback host where private networks
 * are allowed (development, test); no credentials in the URL; outside development an address
 * literal or a name of a private, loopback or link-local network is refused at once (names are
 * resolved and checked again at every delivery).
 */
export function checkEndpointUrl(raw: string, rules: WebhookRules): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw errors.validation({ fields: [{ path: '/body/url', message: 'must be an absolute URL' }] });
  }
  const fail = (message: string) => errors.validation({ fields: [{ path: '/body/url', message }] });
  if (u.username || u.password) throw fail('must not contain credentials');
  if (u.protocol === 'http:') {
    if (!(rules.allowPrivateNetworks && isLoopbackHost(u.hostname))) throw fail('must use https (plain http only to a loopback host in development)');
  } else if (u.protocol !== 'https:') {
    throw fail('must use https');
  }
  if (u.hash) throw fail('must not contain a fragment');
  if (!rules.allowPrivateNetworks && (isLoopbackHost(u.hostname) || literalAddressBlocked(u.hostname))) throw fail('must not point to a private network address');
  return u.toString();
}

export function endpointView(e: WebhookEndpoint) {
  return {
    id: e.id,
    url: e.url,
    events: e.events as WebhookEvent[],
    description: e.description,
    createdAt: e.createdAt.toISOString(),
  };
}

export async function createEndpoint(db: Db, userId: string, input: { url: string; events: WebhookEvent[]; description?: string | null }, rules: WebhookRules) {
  const url = checkEndpointUrl(input.url, rules);
  const events = [...new Set(input.events)].sort() as WebhookEvent[];
  const secret = newWebhookSecret();
  return db.transaction().execute(async (trx) => {
    // Serialises concurrent registrations of one user, so the limit holds.
    await repo.lockUserForEndpoints(trx, userId);
    const n = await repo.countEndpoints(trx, userId);
    if (n >= rules.maxEndpointsPerUser) throw errors.of(ErrorCode.WebhookLimitReached, { limit: rules.maxEndpointsPerUser });
    const row = await repo.insertEndpoint(trx, userId, { url, events, description: input.description?.trim() || null, secret });
    return { ...endpointView(row), secret };
  });
}

export async function listEndpoints(db: Db, userId: string) {
  const rows = await repo.listEndpointRows(db, userId);
  return rows.map(endpointView);
}

export const findEndpoint = repo.findEndpoint;

/** Deletes the endpoint and, by cascade, its deliveries; jobs still queued for them find nothing to send. */
export async function deleteEndpoint(db: Db, userId: string, id: string): Promise<boolean> {
  return repo.deleteEndpointRow(db, userId, id);
}

export function deliveryView(d: WebhookDelivery) {
  return {
    id: d.id,
    event: d.event as WebhookEvent,
    callId: d.callId,
    status: d.status,
    attempts: d.attempts,
    createdAt: d.createdAt.toISOString(),
    updatedAt: d.updatedAt.toISOString(),
    deliveredAt: d.deliveredAt ? d.deliveredAt.toISOString() : null,
  };
}

interface DeliveryCursor {
  createdAt: string;
  id: string;
}

function encodeCursor(c: DeliveryCursor): string {
  return Buffer.from(`${c.createdAt}|${c.id}`).toString('base64url');
}

export function decodeDeliveryCursor(s: string): DeliveryCursor | null {
  const [createdAt, id] = Buffer.from(s, 'base64url').toString().split('|');
  if (!createdAt || !id || Number.isNaN(Date.parse(createdAt)) || !isUuid(id)) return null;
  return { createdAt, id };
}

/** The endpoint's delivery log, newest first, keyset-paginated. */
export async function listDeliveries(db: Db, userId: string, endpointId: string, opts: { limit: number; cursor: DeliveryCursor | null }) {
  const rows = await repo.listDeliveryRows(db, userId, endpointId, opts.limit, opts.cursor);
  const page = rows.slice(0, opts.limit);
  const last = page[page.length - 1];
  return {
    items: page.map(deliveryView),
    nextCursor: rows.length > opts.limit && last ? encodeCursor({ createdAt: last.createdAt.toISOString(), id: last.id }) : undefined,
  };
}

/** The small payload of a call event: no transcript, no names, only where to fetch the rest. */
export function callEventPayload(event: WebhookEvent, call: { id: string; status: string; errorReason: string | null }, at: Date) {
  const base = `/api/calls/${call.id}`;
  return {
    type: event,
    timestamp: at.toISOString(),
    data: {
      callId: call.id,
      status: call.status,
      errorReason: call.errorReason,
      links: {
        call: base,
        ...(call.status === 'COMPLETED' ? { transcript: `${base}/transcript`, analysis: `${base}/analysis` } : {}),
      },
    },
  };
}

/**
 * Writes one delivery per endpoint of the user subscribed to the event and enqueues its job, in
 * the caller's transaction (the one that sets the call's terminal status).
 */
export async function enqueueCallEvent(
  trx: Tx,
  queue: Pick<JobQueue, 'enqueueWebhook'>,
  userId: string,
  call: { id: string; status: 'COMPLETED' | 'FAILED'; errorReason: string | null },
): Promise<number> {
  const event: WebhookEvent = call.status === 'COMPLETED' ? 'call.completed' : 'call.failed';
  const endpoints = await repo.subscribedEndpointIds(trx, userId, event);
  if (endpoints.length === 0) return 0;
  const payload = JSON.stringify(callEventPayload(event, call, new Date()));
  const ids = await repo.insertDeliveries(trx, userId, endpoints, call.id, event, payload);
  for (const deliveryId of ids) await queue.enqueueWebhook(trx, { deliveryId, userId });
  return ids.length;
}

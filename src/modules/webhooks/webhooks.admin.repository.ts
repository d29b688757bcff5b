import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../../db/index.js';

/** Deliveries the console shows per webhook: the most recent ones. */
export const DELIVERIES_SHOWN = 50;
/** Characters of the sent body the console shows per delivery. */
export const BODY_EXCERPT = 300;

/** The webhook's latest deliveries, newest first, with the start of the body each sends. */
export function recentDeliveries(db: Db, webhookId: number) {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('events as e', 'e.id', 'd.event_id')
    .select([
      'd.id',
      'd.status',
      'd.attempts',
      'd.next_attempt_at',
      'd.last_attempt_at',
      'd.response_status',
      'd.latency_ms',
      'd.last_error',
      'd.delivered_at',
      'd.created_at',
      'd.lease_until',
      'e.kind as event',
      sql<string>`substr(e.payload, 1, ${BODY_EXCERPT})`.as('payload_start'),
      sql<number>`length(e.payload)`.as('payload_length'),
    ])
    .where('d.webhook_id', '=', webhookId)
    .orderBy('d.id', 'desc')
    .limit(DELIVERIES_SHOWN)
    .execute();
}

/**
 * A test ping: an event of its own kind (`ping`, which no subscription names, so the fan-out
 * trigger queues it for no webhook) and one delivery of it to this webhook, due now. It goes
 * through the queue like any delivery: signed, retried, listed.
 */
export async function queuePing(
  db: Db,
  webhook: { id: number; account_id: number },
  at: string,
  data: unknown,
): Promise<number> {
  const event = await db
    .insertInto('events')
    .values({
      account_id: webhook.account_id,
      kind: 'ping',
      resource_type: 'webhook',
      resource_id: webhook.id,
      payload: JSON.stringify(data),
      integration_id: null,
      occurred_at: at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const delivery = await db
    .insertInto('webhook_deliveries')
    .values({
      account_id: webhook.account_id,
      webhook_id: webhook.id,
      event_id: event.id,
      message_id: `msg_${randomBytes(16).toString('hex')}`,
      next_attempt_at: at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return delivery.id;
}

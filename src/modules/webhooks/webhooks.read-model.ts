import type { Db } from '../../db/index.js';
import type { ClaimedDelivery } from './webhooks.queue.js';

/**
 * Read model of webhooks: webhooks (and their deliveries) joined with integrations' table (read
 * only) for the integration's name and whether it is revoked. The console's list and form show
 * them, and the worker must not send for a revoked integration: one query per page or per batch
 * of claimed deliveries, where integration's front door would add a lookup per webhook.
 */

/** Every webhook of the account with its integration and the state of its latest delivery. */
export function webhooksOfAccount(db: Db, accountId: number) {
  return db
    .selectFrom('webhooks as w')
    .innerJoin('integrations as i', 'i.id', 'w.integration_id')
    .select((eb) => [
      'w.id',
      'w.url',
      'w.event_kinds',
      'w.active',
      'w.disabled_reason',
      'w.created_at',
      'i.name as integration_name',
      'i.revoked_at as integration_revoked_at',
      eb
        .selectFrom('webhook_deliveries as d')
        .select('d.status')
        .whereRef('d.webhook_id', '=', 'w.id')
        .orderBy('d.id', 'desc')
        .limit(1)
        .as('last_status'),
    ])
    .where('w.account_id', '=', accountId)
    .orderBy('w.id')
    .limit(500)
    .execute();
}

export const webhookOfAccount = (db: Db, accountId: number, id: number) =>
  db
    .selectFrom('webhooks as w')
    .innerJoin('integrations as i', 'i.id', 'w.integration_id')
    .selectAll('w')
    .select(['i.name as integration_name', 'i.revoked_at as integration_revoked_at'])
    .where('w.account_id', '=', accountId)
    .where('w.id', '=', id)
    .executeTakeFirst();

/** The claimed deliveries with what an attempt needs, grouped by webhook in event order. */
export async function loadClaimed(db: Db, ids: number[], token: string): Promise<ClaimedDelivery[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('events as e', 'e.id', 'd.event_id')
    .innerJoin('webhooks as w', 'w.id', 'd.webhook_id')
    .innerJoin('integrations as i', 'i.id', 'w.integration_id')
    .select([
      'd.id',
      'd.account_id',
      'd.webhook_id',
      'd.message_id',
      'd.attempts',
      'd.schedule_step',
      'd.lease_token',
      'd.lease_until',
      'e.kind',
      'e.payload',
      'e.occurred_at',
      'w.url',
      'w.secret_enc',
      'w.previous_secret_enc',
      'w.previous_secret_expires_at',
      'w.active',
      'i.revoked_at as integration_revoked_at',
    ])
    .where('d.id', 'in', ids)
    .where('d.lease_token', '=', token)
    .orderBy('d.webhook_id')
    .orderBy('d.id')
    .execute() as Promise<ClaimedDelivery[]>;
}

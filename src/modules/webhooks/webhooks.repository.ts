import { type Insertable, type Selectable, sql, type Updateable } from 'kysely';
import type { Db } from '../../db/schema.js';
import { paginate } from '../../shared/paging.js';
import type { DeliveryListQuery, WebhookListQuery } from './webhooks.schemas.js';
import type { WebhookDeliveryTable, WebhookTable } from './webhooks.tables.js';

export type WebhookRow = Selectable<WebhookTable>;
export type DeliveryRow = Selectable<WebhookDeliveryTable> & { event_kind: string; occurred_at: string };

/**
 * A webhook is visible only to the integration that registered it, within its account; an
 * account's admin (the console, no integration) sees every webhook of the account.
 */
export interface Owner {
  accountId: number;
  integrationId?: number;
}

export function findWebhook(db: Db, owner: Owner, id: number): Promise<WebhookRow | undefined> {
  return db
    .selectFrom('webhooks')
    .selectAll()
    .where('account_id', '=', owner.accountId)
    .$if(owner.integrationId !== undefined, (qb) => qb.where('integration_id', '=', owner.integrationId!))
    .where('id', '=', id)
    .executeTakeFirst();
}

export function listWebhooks(db: Db, owner: Owner, q: WebhookListQuery) {
  const qb = db
    .selectFrom('webhooks')
    .selectAll()
    .where('account_id', '=', owner.accountId)
    .$if(owner.integrationId !== undefined, (qb) => qb.where('integration_id', '=', owner.integrationId!))
    .orderBy('id');
  return paginate(qb, q);
}

/** Whether an active webhook of one of the accounts subscribes to `kind` (as the fan-out matches it). */
export async function anySubscribed(db: Db, accountIds: readonly number[], kind: string): Promise<boolean> {
  const row = await db
    .selectFrom('webhooks')
    .select('id')
    .where('account_id', 'in', [...new Set(accountIds)])
    .where('active', '=', 1)
    .where(sql<boolean>`' ' || event_kinds || ' ' like ${`% ${kind} %`}`)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

export const insertWebhook = (db: Db, values: Insertable<WebhookTable>) =>
  db.insertInto('webhooks').values(values).returningAll().executeTakeFirstOrThrow();

export function updateWebhook(
  db: Db,
  owner: Owner,
  id: number,
  values: Updateable<WebhookTable>,
): Promise<WebhookRow | undefined> {
  return db
    .updateTable('webhooks')
    .set(values)
    .where('account_id', '=', owner.accountId)
    .$if(owner.integrationId !== undefined, (qb) => qb.where('integration_id', '=', owner.integrationId!))
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/** Deleting cascades to the webhook's deliveries, so nothing pending is sent afterwards. */
export async function deleteWebhook(db: Db, owner: Owner, id: number): Promise<boolean> {
  const r = await db
    .deleteFrom('webhooks')
    .where('account_id', '=', owner.accountId)
    .$if(owner.integrationId !== undefined, (qb) => qb.where('integration_id', '=', owner.integrationId!))
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

function deliveries(db: Db) {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('events as e', 'e.id', 'd.event_id')
    .selectAll('d')
    .select(['e.kind as event_kind', 'e.occurred_at']);
}

export function listDeliveries(db: Db, webhookId: number, q: DeliveryListQuery) {
  let qb = deliveries(db).where('d.webhook_id', '=', webhookId);
  if (q.status) qb = qb.where('d.status', '=', q.status);
  return paginate(qb.orderBy('d.id', q.sort === '-id' ? 'desc' : 'asc'), q);
}

export function findDelivery(db: Db, webhookId: number, id: number): Promise<DeliveryRow | undefined> {
  return deliveries(db).where('d.webhook_id', '=', webhookId).where('d.id', '=', id).executeTakeFirst();
}

/** Queues a delivery again from the start of the back-off schedule, keeping its message id. */
export async function requeueDelivery(db: Db, webhookId: number, id: number, now: string): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({
      status: 'pending',
      schedule_step: 0,
      next_attempt_at: now,
      lease_until: null,
      lease_token: null,
      delivered_at: null,
    })
    .where('webhook_id', '=', webhookId)
    .where('id', '=', id)
    .execute();
}

import type { Db } from '../../db/index.js';
import { transact } from '../../db/transact.js';
import { AppError, invalidField, notFound } from '../../shared/errors.js';
import { EVENT_KINDS, EVENT_SUBSCRIPTION, type EventKind } from '../../shared/events.js';
import { nowIso } from '../../shared/time.js';
import type { AuthContext } from '../../shared/tokens.js';
import { recordAudit } from '../audit/audit.service.js';
import { encryptSecret, newSigningSecret } from './webhooks.crypto.js';
import type { DeliveryRow, Owner, WebhookRow } from './webhooks.repository.js';
import * as repo from './webhooks.repository.js';
import type {
  Delivery,
  DeliveryListQuery,
  Webhook,
  WebhookCreate,
  WebhookListQuery,
  WebhookWithSecret,
} from './webhooks.schemas.js';
import { checkWebhookUrl, type Resolver } from './webhooks.ssrf.js';
import { wakeWebhookWorkers } from './webhooks.worker.js';

/** How long the previous secret keeps signing after a rotation. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

export interface WebhookSettings {
  secretKey: string;
  allowPrivate: boolean;
  resolve?: Resolver;
}

const owner = (auth: AuthContext): Owner => ({
  accountId: auth.accountId,
  integrationId: auth.integrationId,
});

/** An API change to a webhook, audited in its transaction as done by the token's user through its integration. */
const audit = (db: Db, auth: AuthContext, action: string, id: number, detail: Record<string, unknown> = {}) =>
  recordAudit(db, {
    accountId: auth.accountId,
    actorUserId: auth.userId,
    actorKind: 'token',
    action,
    targetType: 'webhook',
    targetId: id,
    detail: { integration_id: auth.integrationId, ...detail },
  });

/** Kinds beyond the specification whose `data` needs a read scope besides `integration`. */
const READ_SCOPE_OF: Partial<Record<EventKind, string>> = {
  'incoming-invoice:extracted': 'incoming-invoice:read',
  'dunning:created': 'dunning:read',
  'dunning:sent': 'dunning:read',
  'invoice:created': 'outgoing-invoice:read',
  'invoice:booked': 'outgoing-invoice:read',
  'invoice:deleted': 'outgoing-invoice:read',
  'payment:created': 'payments:read',
  'client:created': 'client:read',
  'client:updated': 'client:read',
  'client:deleted': 'client:read',
  'invoice:sent': 'outgoing-invoice:read',
  'invoice:send_failed': 'outgoing-invoice:read',
};

const KIND_OF_SCOPE = new Map<string, EventKind>(EVENT_KINDS.map((k) => [EVENT_SUBSCRIPTION[k], k]));

export function toWebhook(r: WebhookRow): Webhook {
  const kinds = r.event_kinds.split(' ').filter(Boolean) as EventKind[];
  return {
    id: r.id,
    url: r.url,
    scopes: kinds.map((k) => EVENT_SUBSCRIPTION[k] ?? k),
    status: r.active ? 'active' : 'disabled',
    disabled_at: r.disabled_at,
    disabled_reason: r.disabled_reason,
    previous_secret_expires_at:
      r.previous_secret_expires_at && Date.parse(r.previous_secret_expires_at) > Date.now()
        ? r.previous_secret_expires_at
        : null,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

export function toDelivery(r: DeliveryRow): Delivery {
  return {
    id: r.id,
    webhook_id: r.webhook_id,
    event_id: r.event_id,
    message_id: r.message_id,
    event: r.event_kind,
    occurred_at: r.occurred_at,
    status: r.status,
    attempts: r.attempts,
    next_attempt_at: r.status === 'pending' ? r.next_attempt_at : null,
    last_attempt_at: r.last_attempt_at,
    response_status: r.response_status,
    latency_ms: r.latency_ms,
    last_error: r.last_error,
    delivered_at: r.delivered_at,
    created_at: r.created_at,
  };
}

export async function getWebhook(db: Db, auth: AuthContext, id: number): Promise<WebhookRow> {
  const row = await repo.findWebhook(db, owner(auth), id);
  if (!row) throw notFound('Webhook');
  return row;
}

/**
 * Whether a webhook of one of the accounts takes events of `kind`: a write that can record its
 * event only in a slower way (invoice creates in one statement) asks first.
 */
export const anySubscribed = (db: Db, accountIds: readonly number[], kind: EventKind) =>
  repo.anySubscribed(db, accountIds, kind);

export const listWebhooks = (db: Db, auth: AuthContext, q: WebhookListQuery) =>
  repo.listWebhooks(db, owner(auth), q);

export async function createWebhook(
  db: Db,
  auth: AuthContext,
  body: WebhookCreate,
  settings: WebhookSettings,
): Promise<WebhookWithSecret> {
  const problem = await checkWebhookUrl(body.url, settings);
  if (problem) throw invalidField('url', problem);
  const wanted = new Set(body.scopes.map((s) => KIND_OF_SCOPE.get(s)));
  const kinds = EVENT_KINDS.filter((k) => wanted.has(k));
  for (const k of kinds) {
    const needs = READ_SCOPE_OF[k];
    // The event carries the resource: only a token that may read it subscribes to it.
    if (needs && !auth.scopes.has(needs))
      throw new AppError('insufficient_scope', `${EVENT_SUBSCRIPTION[k]} needs the scope ${needs} as well`, {
        extra: { required_scopes: ['integration', needs] },
      });
  }
  const secret = newSigningSecret();
  const row = await transact(db, async (trx) => {
    const created = await repo.insertWebhook(trx, {
      account_id: auth.accountId,
      integration_id: auth.integrationId,
      url: body.url,
      event_kinds: kinds.join(' '),
      secret_enc: encryptSecret(settings.secretKey, secret, auth.accountId),
    });
    await audit(trx, auth, 'webhook.create', created.id, { url: body.url, events: kinds });
    return created;
  });
  return { ...toWebhook(row), signature_secret_key: secret };
}

export async function deleteWebhook(db: Db, auth: AuthContext, id: number): Promise<void> {
  await transact(db, async (trx) => {
    if (!(await repo.deleteWebhook(trx, owner(auth), id))) throw notFound('Webhook');
    await audit(trx, auth, 'webhook.delete', id);
  });
}

/** A new secret, shown once; the previous one keeps signing beside it for 24 hours. */
export async function rotateSecret(
  db: Db,
  auth: AuthContext,
  id: number,
  settings: WebhookSettings,
): Promise<WebhookWithSecret> {
  return transact(db, async (trx) => {
    const current = await getWebhook(trx, auth, id);
    const secret = newSigningSecret();
    const now = Date.now();
    const row = await repo.updateWebhook(trx, owner(auth), id, {
      secret_enc: encryptSecret(settings.secretKey, secret, auth.accountId),
      previous_secret_enc: current.secret_enc,
      previous_secret_expires_at: new Date(now + ROTATION_OVERLAP_MS).toISOString(),
      updated_at: new Date(now).toISOString(),
    });
    await audit(trx, auth, 'webhook.rotate_secret', id, { url: current.url });
    return { ...toWebhook(row!), signature_secret_key: secret };
  });
}

/** Turns a disabled webhook back on; new events reach it again (missed ones can be resent). */
export async function enableWebhook(db: Db, auth: AuthContext, id: number): Promise<WebhookRow> {
  return transact(db, async (trx) => {
    const current = await getWebhook(trx, auth, id);
    if (current.active) return current;
    const row = await repo.updateWebhook(trx, owner(auth), id, {
      active: 1,
      disabled_at: null,
      disabled_reason: null,
      failing_since: null,
      updated_at: nowIso(),
    });
    await audit(trx, auth, 'webhook.enable', id, { url: current.url });
    return row ?? current;
  });
}

export async function listDeliveries(db: Db, auth: AuthContext, id: number, q: DeliveryListQuery) {
  const webhook = await getWebhook(db, auth, id);
  return repo.listDeliveries(db, webhook.id, q);
}

export async function getDelivery(db: Db, auth: AuthContext, id: number, deliveryId: number) {
  const webhook = await getWebhook(db, auth, id);
  const row = await repo.findDelivery(db, webhook.id, deliveryId);
  if (!row) throw notFound('Delivery');
  return row;
}

/** Sends a delivery again, with the same message id, from the start of the retry schedule. */
export async function resendDelivery(
  db: Db,
  auth: AuthContext,
  id: number,
  deliveryId: number,
): Promise<DeliveryRow> {
  const row = await transact(db, async (trx) => {
    const webhook = await getWebhook(trx, auth, id);
    const delivery = await repo.findDelivery(trx, webhook.id, deliveryId);
    if (!delivery) throw notFound('Delivery');
    if (!webhook.active) throw new AppError('conflict', 'The webhook is disabled: enable it first');
    const now = nowIso();
    if (delivery.status === 'pending' && delivery.lease_until && delivery.lease_until > now) {
      throw new AppError('conflict', 'The delivery is being attempted right now');
    }
    await repo.requeueDelivery(trx, webhook.id, deliveryId, now);
    await audit(trx, auth, 'webhook.resend', webhook.id, {
      delivery_id: deliveryId,
      message_id: delivery.message_id,
    });
    return (await repo.findDelivery(trx, webhook.id, deliveryId))!;
  });
  wakeWebhookWorkers();
  return row;
}

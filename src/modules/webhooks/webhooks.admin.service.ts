import type { Db } from '../../db/index.js';
import { transact } from '../../db/transact.js';
import { AppError } from '../../shared/errors.js';
import { EVENT_SUBSCRIPTION, type EventKind } from '../../shared/events.js';
import { nowIso } from '../../shared/time.js';
import { type Actor, auditByUser } from '../audit/audit.service.js';
import * as admin from './webhooks.admin.repository.js';
import { encryptSecret, newSigningSecret } from './webhooks.crypto.js';
import { webhookOfAccount, webhooksOfAccount } from './webhooks.read-model.js';
import * as repo from './webhooks.repository.js';
import { ROTATION_OVERLAP_MS } from './webhooks.service.js';
import { wakeWebhookWorkers } from './webhooks.worker.js';

/**
 * The console's webhooks (issue 13): an account's admin sees every webhook of the account,
 * whichever integration registered it, with its recent deliveries; resends a delivery,
 * disables and enables a webhook, rotates its secret (the new one shown once) and sends a
 * test ping. Every change is audited in the transaction that makes it.
 */
export type { Actor } from '../audit/audit.service.js';

/** Why a webhook an admin switched off is off (the API shows it as `disabled_reason`). */
export const DISABLED_BY_ADMIN = 'Disabled by an administrator';

const audit = (trx: Db, actor: Actor, action: string, targetId: number, detail?: Record<string, unknown>) =>
  auditByUser(trx, actor, 'webhook', action, targetId, detail);

const subscriptions = (kinds: string) =>
  kinds
    .split(' ')
    .filter(Boolean)
    .map((k) => EVENT_SUBSCRIPTION[k as EventKind] ?? k);

export async function listAccountWebhooks(db: Db, accountId: number) {
  const rows = await webhooksOfAccount(db, accountId);
  return rows.map((r) => ({
    id: r.id,
    url: r.url,
    scopes: subscriptions(r.event_kinds),
    status: r.active ? ('active' as const) : ('disabled' as const),
    disabled_reason: r.disabled_reason,
    integration_name: r.integration_name,
    integration_revoked: r.integration_revoked_at !== null,
    last_status: r.last_status ?? null,
    created_at: r.created_at,
  }));
}

async function webhookOf(db: Db, accountId: number, id: number) {
  const row = await webhookOfAccount(db, accountId, id);
  if (!row) throw new AppError('not_found', 'No such webhook');
  return row;
}

/** One webhook of the account (404 for another's) with its latest deliveries, newest first. */
export async function getAccountWebhook(db: Db, accountId: number, id: number) {
  const row = await webhookOf(db, accountId, id);
  const deliveries = await admin.recentDeliveries(db, id);
  const now = nowIso();
  return {
    id: row.id,
    url: row.url,
    scopes: subscriptions(row.event_kinds),
    status: row.active ? ('active' as const) : ('disabled' as const),
    disabled_at: row.disabled_at,
    disabled_reason: row.disabled_reason,
    previous_secret_expires_at:
      row.previous_secret_expires_at && row.previous_secret_expires_at > now
        ? row.previous_secret_expires_at
        : null,
    integration_name: row.integration_name,
    integration_revoked: row.integration_revoked_at !== null,
    created_at: row.created_at,
    deliveries: deliveries.map((d) => ({
      id: d.id,
      event: d.event,
      status: d.status,
      attempts: d.attempts,
      response_status: d.response_status,
      latency_ms: d.latency_ms,
      last_error: d.last_error,
      last_attempt_at: d.last_attempt_at,
      next_attempt_at: d.status === 'pending' ? d.next_attempt_at : null,
      created_at: d.created_at,
      in_flight: d.status === 'pending' && d.lease_until !== null && d.lease_until > now,
      body_excerpt: Number(d.payload_length) > admin.BODY_EXCERPT ? `${d.payload_start}…` : d.payload_start,
    })),
  };
}

/** Switches a webhook off (nothing more is queued for it) or back on (new events reach it again). */
export async function setWebhookActive(db: Db, actor: Actor, id: number, active: boolean): Promise<void> {
  await transact(db, async (trx) => {
    const row = await webhookOf(trx, actor.accountId, id);
    if (Boolean(row.active) === active) return;
    const now = nowIso();
    await repo.updateWebhook(
      trx,
      { accountId: actor.accountId },
      id,
      active
        ? { active: 1, disabled_at: null, disabled_reason: null, failing_since: null, updated_at: now }
        : { active: 0, disabled_at: now, disabled_reason: DISABLED_BY_ADMIN, updated_at: now },
    );
    await audit(trx, actor, active ? 'webhook.enable' : 'webhook.disable', id, { url: row.url });
  });
}

/** A new signing secret, returned this once; the previous one keeps signing for 24 hours. */
export async function rotateAccountWebhookSecret(
  db: Db,
  actor: Actor,
  id: number,
  secretKey: string,
): Promise<string> {
  return transact(db, async (trx) => {
    const row = await webhookOf(trx, actor.accountId, id);
    const secret = newSigningSecret();
    const now = Date.now();
    await repo.updateWebhook(trx, { accountId: actor.accountId }, id, {
      secret_enc: encryptSecret(secretKey, secret, actor.accountId),
      previous_secret_enc: row.secret_enc,
      previous_secret_expires_at: new Date(now + ROTATION_OVERLAP_MS).toISOString(),
      updated_at: new Date(now).toISOString(),
    });
    await audit(trx, actor, 'webhook.rotate_secret', id, { url: row.url });
    return secret;
  });
}

function assertSendable(row: { active: number; integration_revoked_at: string | null }) {
  if (!row.active)
    throw new AppError('conflict', 'The webhook is disabled: enable it first', {
      extra: { reason: 'disabled' },
    });
  if (row.integration_revoked_at)
    throw new AppError('conflict', 'The integration of this webhook is revoked', {
      extra: { reason: 'revoked' },
    });
}

/** Sends a delivery again (same message id) from the start of the retry schedule. */
export async function resendAccountDelivery(
  db: Db,
  actor: Actor,
  id: number,
  deliveryId: number,
): Promise<void> {
  await transact(db, async (trx) => {
    const row = await webhookOf(trx, actor.accountId, id);
    const delivery = await repo.findDelivery(trx, id, deliveryId);
    if (!delivery) throw new AppError('not_found', 'No such delivery');
    assertSendable(row);
    const now = nowIso();
    if (delivery.status === 'pending' && delivery.lease_until && delivery.lease_until > now)
      throw new AppError('conflict', 'The delivery is being attempted right now', {
        extra: { reason: 'busy' },
      });
    await repo.requeueDelivery(trx, id, deliveryId, now);
    await audit(trx, actor, 'webhook.resend', id, {
      delivery_id: deliveryId,
      message_id: delivery.message_id,
    });
  });
  wakeWebhookWorkers();
}

/** Queues a test ping to the webhook; returns the delivery's id. */
export async function pingAccountWebhook(db: Db, actor: Actor, id: number): Promise<number> {
  const deliveryId = await transact(db, async (trx) => {
    const row = await webhookOf(trx, actor.accountId, id);
    assertSendable(row);
    const at = nowIso();
    const delivery = await admin.queuePing(trx, row, at, {
      webhook_id: row.id,
      url: row.url,
      message: 'A test ping from the account console',
    });
    await audit(trx, actor, 'webhook.ping', id, { delivery_id: delivery });
    return delivery;
  });
  wakeWebhookWorkers();
  return deliveryId;
}

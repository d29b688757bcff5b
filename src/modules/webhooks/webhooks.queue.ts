import { type Kysely, sql } from 'kysely';
import type { DbKind } from '../../db/index.js';
import type { Database } from '../../db/schema.js';

type Db = Kysely<Database>;

/** What the worker needs to make one attempt of a claimed delivery. */
export interface ClaimedDelivery {
  id: number;
  account_id: number;
  webhook_id: number;
  message_id: string;
  attempts: number;
  schedule_step: number;
  lease_token: string;
  kind: string;
  payload: string;
  occurred_at: string;
  url: string;
  secret_enc: string;
  previous_secret_enc: string | null;
  previous_secret_expires_at: string | null;
  active: number;
  integration_revoked_at: string | null;
}

/** Is any delivery due? A read, so an idle worker does not take SQLite's write lock. */
export async function hasDue(db: Db, now: string): Promise<boolean> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', now)]))
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Claims up to `limit` due deliveries by leasing them until `leaseUntil`, at most one per
 * webhook: the oldest due one, and none of a webhook that already has one in flight, so a
 * webhook's deliveries go out one after another in event order (a delivery waiting for its
 * retry does not hold back later ones). An expired lease is a claim whose worker died: the
 * delivery is claimed again. On PostgreSQL, FOR UPDATE SKIP LOCKED lets several processes
 * claim at once without taking the same rows; the UPDATE re-checks the lease on the current
 * row version. On SQLite the statement runs alone (one writer).
 */
export async function claimDue(
  db: Db,
  kind: DbKind,
  args: { now: string; leaseUntil: string; token: string; limit: number },
): Promise<number[]> {
  const { now, leaseUntil, token, limit } = args;
  const candidates = sql`
    SELECT d.id FROM webhook_deliveries d
    WHERE d.status = 'pending'
      AND d.next_attempt_at <= ${now}
      AND (d.lease_until IS NULL OR d.lease_until <= ${now})
      AND NOT EXISTS (
        SELECT 1 FROM webhook_deliveries b
        WHERE b.webhook_id = d.webhook_id AND b.status = 'pending' AND b.lease_until > ${now})
      AND NOT EXISTS (
        SELECT 1 FROM webhook_deliveries e
        WHERE e.webhook_id = d.webhook_id AND e.status = 'pending'
          AND e.next_attempt_at <= ${now} AND e.id < d.id)
    ORDER BY d.next_attempt_at, d.id
    LIMIT ${limit}`;
  const set = sql`
    lease_until = ${leaseUntil}, lease_token = ${token}, last_attempt_at = ${now},
    attempts = attempts + 1, schedule_step = schedule_step + 1`;
  const stillFree = sql`status = 'pending' AND (lease_until IS NULL OR lease_until <= ${now})`;
  const result =
    kind === 'postgres'
      ? await sql<{ id: number }>`
          WITH c AS MATERIALIZED (${candidates} FOR UPDATE OF d SKIP LOCKED)
          UPDATE webhook_deliveries SET ${set}
          FROM c WHERE webhook_deliveries.id = c.id AND ${stillFree}
          RETURNING webhook_deliveries.id`.execute(db)
      : await sql<{ id: number }>`
          UPDATE webhook_deliveries SET ${set}
          WHERE id IN (${candidates}) AND ${stillFree}
          RETURNING id`.execute(db);
  return result.rows.map((r) => r.id);
}

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
    .orderBy('d.id')
    .execute() as Promise<ClaimedDelivery[]>;
}

export interface AttemptOutcome {
  responseStatus: number | null;
  latencyMs: number | null;
  error: string | null;
}

/** Records a successful attempt; false when the lease was lost (webhook deleted, resent). */
export async function markDelivered(
  db: Db,
  d: ClaimedDelivery,
  outcome: AttemptOutcome,
  now: string,
): Promise<boolean> {
  const r = await db
    .updateTable('webhook_deliveries')
    .set({
      status: 'delivered',
      delivered_at: now,
      response_status: outcome.responseStatus,
      latency_ms: outcome.latencyMs,
      last_error: null,
      lease_until: null,
      lease_token: null,
    })
    .where('id', '=', d.id)
    .where('lease_token', '=', d.lease_token)
    .executeTakeFirst();
  if (Number(r.numUpdatedRows) === 0) return false;
  await db
    .updateTable('webhooks')
    .set({ failing_since: null })
    .where('id', '=', d.webhook_id)
    .where('failing_since', 'is not', null)
    .execute();
  return true;
}

/**
 * Records a failed attempt: schedules the next one at `retryAt`, or marks the delivery failed
 * when `retryAt` is null. Disables the webhook when it has failed without a single success
 * since `disableBefore`. Returns whether the webhook was disabled.
 */
export async function markFailed(
  db: Db,
  d: ClaimedDelivery,
  outcome: AttemptOutcome,
  args: { now: string; retryAt: string | null; disableBefore: string; disableReason: string },
): Promise<{ updated: boolean; disabled: boolean }> {
  return db.transaction().execute(async (trx) => {
    const r = await trx
      .updateTable('webhook_deliveries')
      .set({
        status: args.retryAt ? 'pending' : 'failed',
        ...(args.retryAt ? { next_attempt_at: args.retryAt } : {}),
        response_status: outcome.responseStatus,
        latency_ms: outcome.latencyMs,
        last_error: outcome.error,
        lease_until: null,
        lease_token: null,
      })
      .where('id', '=', d.id)
      .where('lease_token', '=', d.lease_token)
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) === 0) return { updated: false, disabled: false };
    const w = await trx
      .updateTable('webhooks')
      .set((eb) => ({ failing_since: eb.fn.coalesce('failing_since', eb.val(args.now)) }))
      .where('id', '=', d.webhook_id)
      .returning(['failing_since', 'active'])
      .executeTakeFirst();
    if (!w?.active || !w.failing_since || w.failing_since > args.disableBefore) {
      return { updated: true, disabled: false };
    }
    await disableWebhook(trx, d.webhook_id, args.disableReason, args.now);
    return { updated: true, disabled: true };
  });
}

/** Stops a webhook: no new deliveries are queued for it and its pending ones fail. */
export async function disableWebhook(db: Db, webhookId: number, reason: string, now: string): Promise<void> {
  await db
    .updateTable('webhooks')
    .set({ active: 0, disabled_at: now, disabled_reason: reason, updated_at: now })
    .where('id', '=', webhookId)
    .execute();
  await failPending(db, webhookId, `webhook disabled: ${reason}`);
}

export async function failPending(db: Db, webhookId: number, error: string): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ status: 'failed', last_error: error, lease_until: null, lease_token: null })
    .where('webhook_id', '=', webhookId)
    .where('status', '=', 'pending')
    .execute();
}

/** Fails one claimed delivery without an attempt (its webhook was disabled or revoked). */
export async function failClaimed(db: Db, d: ClaimedDelivery, error: string): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ status: 'failed', last_error: error, lease_until: null, lease_token: null })
    .where('id', '=', d.id)
    .where('lease_token', '=', d.lease_token)
    .execute();
}

/** Drops finished deliveries older than `before`: the log shows recent history only. */
export async function pruneDeliveries(db: Db, before: string): Promise<number> {
  const r = await db
    .deleteFrom('webhook_deliveries')
    .where('status', '<>', 'pending')
    .where('created_at', '<', before)
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}

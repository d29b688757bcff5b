import { type RawBuilder, sql, type Transaction } from 'kysely';
import { type Db, type DbKind, isPostgres } from '../../db/index.js';
import type { Database } from '../../db/schema.js';
import type { ClaimedDelivery, RunRecord } from './webhooks.queue.js';

// The delivery queue's SQL: claiming due deliveries, leases, recording outcomes, pruning.

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
 * A write transaction. It reads before it writes: on SQLite every transaction begins
 * IMMEDIATE (db/index.ts), so another process (`npm run worker` beside the API) writing in
 * between makes it wait, not fail.
 */
const writeTransaction = <T>(db: Db, fn: (trx: Db) => Promise<T>): Promise<T> =>
  db.transaction().execute((trx: Transaction<Database>) => fn(trx));

const free = (now: string) =>
  sql`d.status = 'pending' AND (d.lease_until IS NULL OR d.lease_until <= ${now})`;
const busy = (webhook: RawBuilder<unknown>, now: string) => sql`EXISTS (
  SELECT 1 FROM webhook_deliveries b
  WHERE b.webhook_id = ${webhook} AND b.lease_until > ${now} AND b.status = 'pending')`;

/**
 * Claims work for up to `webhooks` webhooks: for each, a run of up to `runLength` of its due
 * deliveries in event order, leased until `leaseUntil`. A webhook that has a lease in flight
 * gets nothing, so its deliveries go out one after another (a delivery waiting for its retry
 * does not hold back later ones). An expired lease is a claim whose worker died: those
 * deliveries are due again.
 *
 * On PostgreSQL the webhook rows are locked (FOR NO KEY UPDATE SKIP LOCKED: several processes
 * claim at once without waiting for each other, and event inserts are not blocked), and the
 * lease is taken by a later statement that sees every lease committed before the lock was
 * granted, so no delivery is ever leased twice, nor two runs of one webhook. On SQLite the
 * transaction is the only writer.
 */
export async function claimDue(
  db: Db,
  kind: DbKind,
  args: { now: string; leaseUntil: string; token: string; webhooks: number; runLength: number },
): Promise<number[]> {
  const { now, leaseUntil, token } = args;
  const w = sql.ref('w.id');
  return writeTransaction(db, async (trx) => {
    const head = sql`(
      SELECT d.next_attempt_at FROM webhook_deliveries d
      WHERE d.webhook_id = ${w} AND d.next_attempt_at <= ${now} AND ${free(now)}
      ORDER BY d.id LIMIT 1)`;
    const eligible = await sql<{ id: number }>`
      SELECT w.id FROM webhooks w
      WHERE ${head} IS NOT NULL AND NOT ${busy(w, now)}
      ORDER BY ${head}, w.id
      LIMIT ${args.webhooks}
      ${kind === 'postgres' ? sql`FOR NO KEY UPDATE OF w SKIP LOCKED` : sql``}`.execute(trx);
    const claimed: number[] = [];
    for (const { id } of eligible.rows) {
      const leased = await sql<{ id: number }>`
        UPDATE webhook_deliveries AS d
        SET lease_until = ${leaseUntil}, lease_token = ${token}, last_attempt_at = ${now},
            attempts = d.attempts + 1, schedule_step = d.schedule_step + 1
        WHERE d.id IN (
            SELECT d.id FROM webhook_deliveries d
            WHERE d.webhook_id = ${id} AND d.next_attempt_at <= ${now} AND ${free(now)}
            ORDER BY d.id LIMIT ${args.runLength})
          AND ${free(now)}
          AND NOT ${busy(sql`${id}`, now)}
        RETURNING id`.execute(trx);
      claimed.push(...leased.rows.map((r) => r.id));
    }
    return claimed;
  });
}

/**
 * Extends the leases of claimed deliveries still held (the heartbeat of a worker with
 * attempts in flight): only rows whose lease is still the worker's (`tokens`) and still
 * pending. Returns the ids renewed; a missing id was taken over, finished or deleted.
 */
export async function renewLeases(
  db: Db,
  ids: number[],
  tokens: string[],
  leaseUntil: string,
): Promise<number[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .updateTable('webhook_deliveries')
    .set({ lease_until: leaseUntil })
    .where('id', 'in', ids)
    .where('lease_token', 'in', tokens)
    .where('status', '=', 'pending')
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}

/**
 * Records outcomes of one webhook's run in one transaction: the worker calls it after each
 * attempt (an accepted delivery is marked delivered at once, so a worker killed later does
 * not send it again), and for the rest of a run it stops early. Rows whose lease is no longer
 * ours (the webhook was deleted, the lease expired and another worker took over) are left
 * alone: `lost` says so for an attempted one. A webhook whose attempts all failed since
 * before `disableBefore` is disabled: `disabled` says so.
 */
export async function recordRun(
  db: Db,
  kind: DbKind,
  run: RunRecord,
  args: { now: string; disableBefore: string; disableReason: string },
): Promise<{ disabled: boolean; lost: boolean }> {
  return writeTransaction(db, async (trx) => {
    // Webhook row first, deliveries after: the order claims lock in, so the two never deadlock.
    if (kind === 'postgres') {
      await trx
        .selectFrom('webhooks')
        .select('id')
        .where('id', '=', run.webhookId)
        .forNoKeyUpdate()
        .execute();
    }
    const update = () => trx.updateTable('webhook_deliveries');
    const mine = (qb: ReturnType<typeof update>, d: ClaimedDelivery) =>
      qb.where('id', '=', d.id).where('lease_token', '=', d.lease_token);
    let succeeded = false;
    let failed = false;
    let lost = false;
    for (const o of run.attempted) {
      const r = await mine(
        update().set({
          status: o.ok ? 'delivered' : o.retryAt ? 'pending' : 'failed',
          ...(o.ok ? { delivered_at: args.now } : {}),
          ...(o.retryAt ? { next_attempt_at: o.retryAt } : {}),
          response_status: o.responseStatus,
          latency_ms: o.latencyMs,
          last_error: o.error,
          lease_until: null,
          lease_token: null,
        }),
        o.delivery,
      ).executeTakeFirst();
      if (Number(r.numUpdatedRows) === 0) {
        lost = true;
        continue;
      }
      if (o.ok) succeeded = true;
      else failed = true;
    }
    for (const d of run.released) {
      await mine(
        update().set((eb) => ({
          attempts: eb('attempts', '-', 1),
          schedule_step: eb('schedule_step', '-', 1),
          lease_until: null,
          lease_token: null,
        })),
        d,
      ).execute();
    }
    for (const d of run.abandoned?.deliveries ?? []) {
      await mine(
        update().set({
          status: 'failed',
          last_error: run.abandoned!.error,
          lease_until: null,
          lease_token: null,
        }),
        d,
      ).execute();
    }
    if (succeeded && !failed) {
      await trx
        .updateTable('webhooks')
        .set({ failing_since: null })
        .where('id', '=', run.webhookId)
        .where('failing_since', 'is not', null)
        .execute();
    }
    if (!failed || succeeded) return { disabled: false, lost };
    const w = await trx
      .updateTable('webhooks')
      .set((eb) => ({ failing_since: eb.fn.coalesce('failing_since', eb.val(args.now)) }))
      .where('id', '=', run.webhookId)
      .returning(['failing_since', 'active'])
      .executeTakeFirst();
    if (!w?.active || !w.failing_since || w.failing_since > args.disableBefore)
      return { disabled: false, lost };
    await disableWebhook(trx, run.webhookId, args.disableReason, args.now);
    return { disabled: true, lost };
  });
}

/** Stops a webhook: no new deliveries are queued for it and its pending ones fail. */
export async function disableWebhook(db: Db, webhookId: number, reason: string, now: string): Promise<void> {
  await db
    .updateTable('webhooks')
    .set({ active: 0, disabled_at: now, disabled_reason: reason, updated_at: now })
    .where('id', '=', webhookId)
    .execute();
  await db
    .updateTable('webhook_deliveries')
    .set({
      status: 'failed',
      last_error: `webhook disabled: ${reason}`,
      lease_until: null,
      lease_token: null,
    })
    .where('webhook_id', '=', webhookId)
    .where('status', '=', 'pending')
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

/**
 * Drops events older than `before` (the change feed's window) that no delivery names any more:
 * a delivery, pending or in the log, keeps its event (deleting it would cascade to the delivery).
 */
export async function pruneEvents(db: Db, before: string): Promise<number> {
  const r = await db
    .deleteFrom('events')
    .where('occurred_at', '<', before)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb.selectFrom('webhook_deliveries as d').select('d.id').whereRef('d.event_id', '=', 'events.id'),
        ),
      ),
    )
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** The triggers on `events` (the fan-out is one of them: webhooks.fanout.ts). */
export async function fanoutTriggerNames(db: Db): Promise<string[]> {
  const rows = isPostgres(db)
    ? await sql<{ name: string }>`
          select tgname as name from pg_trigger
          where tgrelid = 'events'::regclass and not tgisinternal`.execute(db)
    : await sql<{ name: string }>`
          select name from sqlite_master where type = 'trigger' and tbl_name = 'events'`.execute(db);
  return rows.rows.map((r) => r.name);
}

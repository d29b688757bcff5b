import { type Selectable, sql, type Updateable } from 'kysely';
import type { Db } from '../../db/index.js';
import { RECURRING_TYPES } from './invoices.domain.js';
import type { InvoiceRow } from './invoices.repository.js';
import type { PlanRunTable } from './plans.tables.js';

export type PlanRunRow = Selectable<PlanRunTable>;

/** Live recurring masters whose scheduler is on, in every account (the scheduler's look). */
export function autoMasters(db: Db): Promise<InvoiceRow[]> {
  return (
    db
      .selectFrom('outgoing_invoices')
      .selectAll()
      // A literal, so that PostgreSQL uses the partial index on it.
      .where(sql<boolean>`auto_generate = 1`)
      .where('deleted_at', 'is', null)
      .where('type', 'in', [...RECURRING_TYPES])
      .orderBy('id')
      .execute()
  );
}

/** The periods of a master the scheduler has dealt with. */
export async function runPeriods(db: Db, masterId: number): Promise<Set<string>> {
  const rows = await db
    .selectFrom('plan_runs')
    .select('period_start')
    .where('master_id', '=', masterId)
    .execute();
  return new Set(rows.map((r) => r.period_start));
}

/** The runs of some masters, by period. */
export function runsOf(db: Db, accountId: number, masterIds: number[]): Promise<PlanRunRow[]> {
  if (masterIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('plan_runs')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('master_id', 'in', masterIds)
    .orderBy('master_id')
    .orderBy('period_start')
    .execute();
}

/**
 * The run of a period, unless the period has one already (the unique key decides, whoever
 * else is at it): undefined then.
 */
export async function insertRun(
  db: Db,
  values: { account_id: number; master_id: number; period_start: string; state: string; updated_at: string },
): Promise<number | undefined> {
  const row = await db
    .insertInto('plan_runs')
    .values({ ...values, created_at: values.updated_at })
    .onConflict((oc) => oc.columns(['master_id', 'period_start']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return row?.id;
}

export async function updateRun(db: Db, id: number, values: Updateable<PlanRunTable>): Promise<void> {
  await db.updateTable('plan_runs').set(values).where('id', '=', id).execute();
}

/**
 * Takes a pending run for this transaction: true when it is still `pending_send`. On
 * PostgreSQL the row stays locked until the transaction ends, so a second taker waits and
 * then finds it no longer pending.
 */
export async function takePending(db: Db, id: number, now: string): Promise<boolean> {
  const r = await db
    .updateTable('plan_runs')
    .set({ updated_at: now })
    .where('id', '=', id)
    .where('state', '=', 'pending_send')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Runs still to send, in every account, after `afterId` in id order. */
export function pendingRuns(db: Db, afterId: number, limit: number): Promise<PlanRunRow[]> {
  return db
    .selectFrom('plan_runs')
    .selectAll()
    .where('state', '=', 'pending_send')
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** The child of a master for a period (deleted ones too: their period is used). */
export function childForPeriod(
  db: Db,
  accountId: number,
  masterId: number,
  periodStart: string,
): Promise<InvoiceRow | undefined> {
  return db
    .selectFrom('outgoing_invoices')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('master_id', '=', masterId)
    .where('service_period_start', '=', periodStart)
    .orderBy('id')
    .executeTakeFirst();
}

import { sql } from 'kysely';
import type { Db, DbKind } from '../../../db/index.js';
import './extraction-jobs.tables.js';

export interface ClaimedJob {
  id: number;
  account_id: number;
  incoming_invoice_id: number;
  attempts: number;
  lease_token: string;
  lease_until: string;
}

export async function insertJob(
  db: Db,
  values: { accountId: number; invoiceId: number; now: string },
): Promise<number> {
  const row = await db
    .insertInto('extraction_jobs')
    .values({
      account_id: values.accountId,
      incoming_invoice_id: values.invoiceId,
      run_after: values.now,
      created_at: values.now,
      updated_at: values.now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

const due = (now: string) =>
  sql<boolean>`status = 'pending' AND run_after <= ${now} AND (lease_until IS NULL OR lease_until <= ${now})`;

/** Is a job due? A read, so an idle worker does not take SQLite's write lock. */
export async function hasDue(db: Db, now: string): Promise<boolean> {
  const row = await db.selectFrom('extraction_jobs').select('id').where(due(now)).limit(1).executeTakeFirst();
  return row !== undefined;
}

/**
 * Leases up to `limit` due jobs (oldest first) to `token` until `leaseUntil`, counting an
 * attempt each. One statement: on SQLite it holds the write lock, on PostgreSQL the rows are
 * locked and other workers skip them, so two workers never claim one job. An expired lease is
 * the claim of a dead worker: its job is due again.
 */
export async function claimDue(
  db: Db,
  kind: DbKind,
  args: { now: string; leaseUntil: string; token: string; limit: number },
): Promise<ClaimedJob[]> {
  const { now, leaseUntil, token } = args;
  const claimed = await sql<ClaimedJob>`
    UPDATE extraction_jobs
    SET lease_until = ${leaseUntil}, lease_token = ${token}, attempts = attempts + 1, updated_at = ${now}
    WHERE id IN (
        SELECT id FROM extraction_jobs WHERE ${due(now)}
        ORDER BY run_after, id LIMIT ${args.limit}
        ${kind === 'postgres' ? sql`FOR UPDATE SKIP LOCKED` : sql``})
      AND ${due(now)}
    RETURNING id, account_id, incoming_invoice_id, attempts, lease_token, lease_until`.execute(db);
  return claimed.rows.map((r) => ({ ...r, lease_until: toIso(r.lease_until) }));
}

/** Extends the leases of jobs still held with `token`; the ids renewed. */
export async function renewLeases(
  db: Db,
  ids: number[],
  token: string,
  leaseUntil: string,
): Promise<number[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .updateTable('extraction_jobs')
    .set({ lease_until: leaseUntil })
    .where('id', 'in', ids)
    .where('lease_token', '=', token)
    .where('status', '=', 'pending')
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}

/**
 * Ends a held job as `done` or `failed`, or hands it back for a retry at `retryAt`; false
 * when the lease is no longer ours (taken over after it expired): nothing is written then.
 * Runs in the caller's transaction, with the stored outcome.
 */
export async function settleJob(
  trx: Db,
  job: { id: number; token: string },
  outcome: { status: 'done' | 'failed' | 'pending'; error?: string; retryAt?: string; now: string },
): Promise<boolean> {
  const finished = outcome.status !== 'pending';
  const r = await trx
    .updateTable('extraction_jobs')
    .set({
      status: outcome.status,
      lease_until: null,
      lease_token: null,
      updated_at: outcome.now,
      ...(outcome.error !== undefined ? { last_error: outcome.error.slice(0, 2000) } : {}),
      ...(outcome.retryAt ? { run_after: outcome.retryAt } : {}),
      ...(finished ? { finished_at: outcome.now } : {}),
    })
    .where('id', '=', job.id)
    .where('lease_token', '=', job.token)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Hands a held job back untried (the worker stops): the attempt is not counted. */
export async function releaseJob(db: Db, job: { id: number; token: string }, now: string): Promise<void> {
  await db
    .updateTable('extraction_jobs')
    .set((eb) => ({
      lease_until: null,
      lease_token: null,
      attempts: eb('attempts', '-', 1),
      updated_at: now,
    }))
    .where('id', '=', job.id)
    .where('lease_token', '=', job.token)
    .where('status', '=', 'pending')
    .execute();
}

export const jobsOfInvoice = (db: Db, accountId: number, invoiceId: number) =>
  db
    .selectFrom('extraction_jobs')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('incoming_invoice_id', '=', invoiceId)
    .orderBy('id')
    .execute();

/** Finished jobs older than `before` are deleted: the document keeps the outcome. */
export async function pruneJobs(db: Db, before: string): Promise<void> {
  await db
    .deleteFrom('extraction_jobs')
    .where('status', '<>', 'pending')
    .where('finished_at', '<', before)
    .execute();
}

/** PostgreSQL returns timestamptz as Date through raw SQL; SQLite as the ISO text stored. */
function toIso(v: unknown): string {
  return v instanceof Date ? v.toISOString() : String(v);
}

import { type Insertable, sql } from 'kysely';
import { type Db, isPostgres } from '../../db/index.js';
import { paginate } from '../../shared/paging.js';
import type { DatevExportTable } from './exports.tables.js';

/**
 * Serializes locking against writes into the periods of an account on PostgreSQL: a write that
 * checks the lock holds it shared, locking holds it exclusively, both until commit; so no
 * booking can slip into a month between its check and the lock. SQLite serializes writes anyway.
 */
export async function periodGuard(db: Db, accountId: number, exclusive: boolean): Promise<void> {
  if (!isPostgres(db)) return;
  if (exclusive) await sql`SELECT pg_advisory_xact_lock(41, ${accountId})`.execute(db);
  else await sql`SELECT pg_advisory_xact_lock_shared(41, ${accountId})`.execute(db);
}

export function lockedPeriods(db: Db, accountId: number, periods: string[]) {
  if (periods.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('accounting_period_locks')
    .select(['period', 'locked_at'])
    .where('account_id', '=', accountId)
    .where('period', 'in', periods)
    .orderBy('period')
    .execute();
}

/** The locked months from `period` on (YYYY-MM). */
export async function locksFrom(db: Db, accountId: number, period: string): Promise<string[]> {
  const rows = await db
    .selectFrom('accounting_period_locks')
    .select('period')
    .where('account_id', '=', accountId)
    .where('period', '>=', period)
    .execute();
  return rows.map((r) => r.period);
}

/** The locked months, oldest first; only `period` when given. */
export function listLocks(db: Db, accountId: number, period?: string) {
  let q = db.selectFrom('accounting_period_locks').selectAll().where('account_id', '=', accountId);
  if (period !== undefined) q = q.where('period', '=', period);
  return q.orderBy('period').execute();
}

/** Locks the months not locked yet; answers whether any lock was added. */
export async function insertLocks(
  db: Db,
  accountId: number,
  periods: string[],
  userId: number | null,
  exportId: number | null,
  lockedAt: string,
): Promise<boolean> {
  if (periods.length === 0) return false;
  const added = await db
    .insertInto('accounting_period_locks')
    .values(
      periods.map((period) => ({
        account_id: accountId,
        period,
        locked_by: userId,
        export_id: exportId,
        locked_at: lockedAt,
      })),
    )
    .onConflict((oc) => oc.columns(['account_id', 'period']).doNothing())
    .returning('period')
    .execute();
  return added.length > 0;
}

export const insertExport = (db: Db, values: Insertable<DatevExportTable>) =>
  db.insertInto('datev_exports').values(values).returning('id').executeTakeFirstOrThrow();

const META = [
  'id',
  'date_from',
  'date_to',
  'locked',
  'file_name',
  'sha256',
  'byte_size',
  'counts',
  'created_by',
  'created_at',
] as const;

export function listExports(db: Db, accountId: number, q: { page?: number; per_page?: number }) {
  return paginate(
    db.selectFrom('datev_exports').select(META).where('account_id', '=', accountId).orderBy('id'),
    q,
  );
}

export type ExportMetaRow = Awaited<ReturnType<typeof listExports>>['rows'][number];

export const findExport = (db: Db, accountId: number, id: number) =>
  db
    .selectFrom('datev_exports')
    .select([...META, 'data'])
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();

export function personalAccounts(db: Db, accountId: number, kind: string, length: number, ids: number[]) {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('datev_personal_accounts')
    .select(['party_id', 'number'])
    .where('account_id', '=', accountId)
    .where('kind', '=', kind)
    .where('account_length', '=', length)
    .where('party_id', 'in', ids)
    .execute();
}

export async function highestPersonalAccount(
  db: Db,
  accountId: number,
  length: number,
  range: { from: number; to: number },
): Promise<number | null> {
  const r = await db
    .selectFrom('datev_personal_accounts')
    .select((eb) => eb.fn.max('number').as('m'))
    .where('account_id', '=', accountId)
    .where('account_length', '=', length)
    .where('number', '>=', range.from)
    .where('number', '<=', range.to)
    .executeTakeFirst();
  return r?.m === null || r?.m === undefined ? null : Number(r.m);
}

export async function insertPersonalAccounts(
  db: Db,
  rows: { account_id: number; kind: string; party_id: number; account_length: number; number: number }[],
): Promise<void> {
  if (rows.length > 0) await db.insertInto('datev_personal_accounts').values(rows).execute();
}

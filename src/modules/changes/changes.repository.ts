import { sql } from 'kysely';
import { type Db, isPostgres } from '../../db/index.js';
import './changes.tables.js';

export interface ChangeRow {
  id: number;
  xid: string;
  resource: string;
  resource_id: number;
  action: string;
  changed_at: string;
}

export interface Position {
  xid: string;
  id: number;
}

/**
 * The account's changes after `after` in commit order, of the given kinds only (the kinds the
 * token may read), owned kinds only when the integration owns them. Reads `limit + 1` rows so
 * the caller knows whether more follow.
 *
 * PostgreSQL: only rows whose transaction is older than the oldest one still running (the
 * snapshot's xmin): every row below it has committed or never will, and every transaction
 * that has yet to write gets a larger xid, so the served prefix never grows in the middle.
 */
export async function changesAfter(
  db: Db,
  accountId: number,
  integrationId: number,
  kinds: string[],
  after: Position,
  limit: number,
): Promise<ChangeRow[]> {
  if (kinds.length === 0) return [];
  let qb = db
    .selectFrom('change_log')
    .select(['id', 'resource', 'resource_id', 'action', 'changed_at'])
    .where('account_id', '=', accountId)
    .where('resource', 'in', kinds)
    .where((eb) => eb.or([eb('integration_id', 'is', null), eb('integration_id', '=', integrationId)]));
  if (isPostgres(db)) {
    const rows = await qb
      .select(sql<string>`xid::text`.as('xid'))
      .where(sql<boolean>`xid < pg_snapshot_xmin(pg_current_snapshot())`)
      .where(sql<boolean>`(xid, id) > (${after.xid}::xid8, ${after.id}::bigint)`)
      .orderBy(sql`xid`)
      .orderBy('id')
      .limit(limit + 1)
      .execute();
    return rows;
  }
  qb = qb.where('id', '>', after.id);
  const rows = await qb
    .select('xid')
    .orderBy('id')
    .limit(limit + 1)
    .execute();
  return rows.map((r) => ({ ...r, xid: String(r.xid) }));
}

/** Feed order: (transaction id, row id); on SQLite every xid is 0, so the row id alone. */
export const positionBefore = (a: Position, b: Position): boolean =>
  BigInt(a.xid) < BigInt(b.xid) || (BigInt(a.xid) === BigInt(b.xid) && a.id < b.id);

/** The last position pruned from the account's feed, if any was. */
export async function horizonOf(db: Db, accountId: number): Promise<Position | undefined> {
  const row = await db
    .selectFrom('change_log_horizons')
    .select(['xid', 'id'])
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return row && { xid: String(row.xid), id: Number(row.id) };
}

/** The account's last position a reader may be served now (the feed's end), if any. */
export async function latestPosition(db: Db, accountId: number): Promise<Position | undefined> {
  const qb = db.selectFrom('change_log').select('id').where('account_id', '=', accountId);
  if (isPostgres(db)) {
    const row = await qb
      .select(sql<string>`xid::text`.as('xid'))
      .where(sql<boolean>`xid < pg_snapshot_xmin(pg_current_snapshot())`)
      .orderBy(sql`xid`, 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row && { xid: row.xid, id: Number(row.id) };
  }
  const row = await qb.orderBy('id', 'desc').limit(1).executeTakeFirst();
  return row && { xid: '0', id: Number(row.id) };
}

/**
 * PostgreSQL: the oldest transaction still running; entries of older ones are served already
 * or never will be, so only they are pruned (read once, so the marks and the delete agree).
 */
export async function servedBelow(db: Db): Promise<string | undefined> {
  if (!isPostgres(db)) return undefined;
  const { rows } = await sql<{ xmin: string }>`
    SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin`.execute(db);
  return rows[0]!.xmin;
}

/** Per account, the last position among the entries older than `before` that are pruned. */
export async function prunableMarks(
  db: Db,
  before: string,
  xmin: string | undefined,
): Promise<Array<Position & { account_id: number }>> {
  if (xmin !== undefined) {
    const { rows } = await sql<{ account_id: string; xid: string; id: string }>`
      SELECT DISTINCT ON (account_id) account_id, xid::text AS xid, id FROM change_log
      WHERE changed_at < ${before} AND xid < ${xmin}::xid8
      ORDER BY account_id, xid DESC, id DESC`.execute(db);
    return rows.map((r) => ({ account_id: Number(r.account_id), xid: r.xid, id: Number(r.id) }));
  }
  const rows = await db
    .selectFrom('change_log')
    .select((eb) => ['account_id', eb.fn.max('id').as('id')])
    .where('changed_at', '<', before)
    .groupBy('account_id')
    .execute();
  return rows.map((r) => ({ account_id: Number(r.account_id), xid: '0', id: Number(r.id) }));
}

export async function horizonsOf(db: Db, accountIds: number[]): Promise<Map<number, Position>> {
  if (accountIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('change_log_horizons')
    .select(['account_id', 'xid', 'id'])
    .where('account_id', 'in', accountIds)
    .execute();
  return new Map(rows.map((r) => [Number(r.account_id), { xid: String(r.xid), id: Number(r.id) }]));
}

export async function setHorizon(db: Db, accountId: number, p: Position, at: string): Promise<void> {
  await db
    .insertInto('change_log_horizons')
    .values({ account_id: accountId, xid: p.xid, id: p.id, pruned_at: at })
    .onConflict((oc) => oc.column('account_id').doUpdateSet({ xid: p.xid, id: p.id, pruned_at: at }))
    .execute();
}

/** Deletes the entries `prunableMarks` looked at; answers how many. */
export async function deleteChangesBefore(db: Db, before: string, xmin: string | undefined): Promise<number> {
  let qb = db.deleteFrom('change_log').where('changed_at', '<', before);
  if (xmin !== undefined) qb = qb.where(sql<boolean>`xid < ${xmin}::xid8`);
  const res = await qb.executeTakeFirst();
  return Number(res.numDeletedRows);
}

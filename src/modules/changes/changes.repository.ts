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

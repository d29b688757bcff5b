import type { Insertable, Kysely, Selectable, Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { AuditLogTable } from './audit.tables.js';

export type AuditRow = Selectable<AuditLogTable>;
type Db = Kysely<Database> | Transaction<Database>;

export async function insertAudit(db: Db, row: Insertable<AuditLogTable>): Promise<void> {
  await db.insertInto('audit_log').values(row).execute();
}

export interface AuditListRow extends AuditRow {
  actor_email: string | null;
  actor_first_name: string | null;
  actor_last_name: string | null;
}

/**
 * One page of an account's entries, newest first, with the acting user's name (the user may
 * be gone: the entry stays). Pages by id (`before`: entries older than that id), so a page
 * stays stable while new entries arrive; one more row than asked tells whether more follow.
 */
export async function listAudit(
  db: Db,
  accountId: number,
  opts: { limit: number; before?: number },
): Promise<AuditListRow[]> {
  let q = db
    .selectFrom('audit_log as a')
    .leftJoin('users as u', (j) =>
      j.onRef('u.id', '=', 'a.actor_user_id').onRef('u.account_id', '=', 'a.account_id'),
    )
    .selectAll('a')
    .select(['u.email as actor_email', 'u.first_name as actor_first_name', 'u.last_name as actor_last_name'])
    .where('a.account_id', '=', accountId);
  if (opts.before !== undefined) q = q.where('a.id', '<', opts.before);
  return q.orderBy('a.id', 'desc').limit(opts.limit).execute();
}

export async function countAudit(db: Db, accountId: number): Promise<number> {
  const row = await db
    .selectFrom('audit_log')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

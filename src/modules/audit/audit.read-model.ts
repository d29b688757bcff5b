import type { Db } from '../../db/index.js';
import type { AuditRow } from './audit.repository.js';

/**
 * Read model of the console's audit page: audit entries with the acting user's name, read
 * from users' table (read only). One LEFT JOIN keeps the page to one query and keeps entries
 * whose user is gone; asking users' front door for the names would be a second round trip.
 */

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

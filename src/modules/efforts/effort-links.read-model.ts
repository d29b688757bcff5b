import type { Db } from '../../db/index.js';

/**
 * Read model of what an effort points at in other modules (its project and task) and of
 * whether it stands on an invoice (billing's `invoice_efforts`). Efforts read these rows here
 * rather than through those modules' front doors: billing reads efforts, so efforts importing
 * billing would make a cycle. Reads only, each within the account.
 */

/** The project in the account, if there is one. */
export const projectInAccount = (db: Db, accountId: number, id: number) =>
  db
    .selectFrom('projects')
    .select(['id', 'archived_at'])
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();

/** The task in the account with its project, if there is one. */
export const taskInAccount = (db: Db, accountId: number, id: number) =>
  db
    .selectFrom('tasks')
    .select(['id', 'project_id'])
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();

/** The invoice an effort stands on, if it stands on one. */
export const invoiceOfEffort = async (db: Db, accountId: number, effortId: number) =>
  (
    await db
      .selectFrom('invoice_efforts')
      .select('invoice_id')
      .where('account_id', '=', accountId)
      .where('effort_id', '=', effortId)
      .executeTakeFirst()
  )?.invoice_id;

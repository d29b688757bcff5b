import type { Insertable } from 'kysely';
import type { Db } from '../../db/index.js';
import type { InvoiceEffortTable } from './billing.tables.js';

/** Links efforts to the invoice lines that bill them; UNIQUE (effort_id) refuses a second. */
export async function insertLinks(db: Db, rows: Insertable<InvoiceEffortTable>[]): Promise<void> {
  // 9 columns a row: chunks stay below SQLite's and PostgreSQL's bound-parameter limits.
  for (let i = 0; i < rows.length; i += 1000) {
    await db
      .insertInto('invoice_efforts')
      .values(rows.slice(i, i + 1000))
      .execute();
  }
}

/** Which of `effortIds` stand on an invoice already, with the invoice. */
export async function billedAmong(db: Db, accountId: number, effortIds: number[]) {
  const out: { effort_id: number; invoice_id: number }[] = [];
  for (let i = 0; i < effortIds.length; i += 1000) {
    out.push(
      ...(await db
        .selectFrom('invoice_efforts')
        .select(['effort_id', 'invoice_id'])
        .where('account_id', '=', accountId)
        .where('effort_id', 'in', effortIds.slice(i, i + 1000))
        .execute()),
    );
  }
  return out.sort((a, b) => a.effort_id - b.effort_id);
}

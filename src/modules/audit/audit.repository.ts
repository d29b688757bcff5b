import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../../db/schema.js';
import type { AuditLogTable } from './audit.tables.js';

export type AuditRow = Selectable<AuditLogTable>;

export async function insertAudit(db: Db, row: Insertable<AuditLogTable>): Promise<void> {
  await db.insertInto('audit_log').values(row).execute();
}

/** Many entries in statements of a hundred (a dunning run's letters). */
export async function insertAudits(db: Db, rows: readonly Insertable<AuditLogTable>[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 100)
    await db
      .insertInto('audit_log')
      .values(rows.slice(i, i + 100))
      .execute();
}

export async function countAudit(db: Db, accountId: number): Promise<number> {
  const row = await db
    .selectFrom('audit_log')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

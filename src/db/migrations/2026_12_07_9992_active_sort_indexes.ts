import { type Kysely, PostgresAdapter } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations work on the untyped schema
type AnyDb = Kysely<any>;

/**
 * PostgreSQL: the documented sorts of the active lists read their pages in index order.
 * `(account_id, archived_at, name, id)` (2026_12_07_997, 9991) serves SQLite, which takes
 * `archived_at is null` as an equality; PostgreSQL does not, so it cannot take the order of
 * the columns after it from that index, and sorted every active row instead (sort=name at
 * 1,000,000 clients: a parallel scan and sort, 609 ms). Partial indexes of the active rows
 * give it the order.
 */
const SORTS: [table: string, column: string][] = [
  ['clients', 'name'],
  ['clients', 'shortcode'],
  ['companies', 'name'],
  ['contacts', 'last_name'],
  ['projects', 'name'],
];

export async function up(db: AnyDb): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  for (const [table, column] of SORTS) {
    await db.schema
      .createIndex(`${table}_active_${column}_idx`)
      .on(table)
      .columns(['account_id', column, 'id'])
      .where('archived_at', 'is', null)
      .execute();
  }
}

export async function down(db: AnyDb): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  for (const [table, column] of SORTS) await db.schema.dropIndex(`${table}_active_${column}_idx`).execute();
}

import { type Kysely, PostgresAdapter, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations work on the untyped schema
type AnyDb = Kysely<any>;

// Stored CSV column mappings (issue 40): how one bank's CSV export is read (separator,
// decimal comma, date format, encoding, which column holds which field). `columns` is JSON.
export async function up(db: AnyDb): Promise<void> {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  const ts = (pg ? 'timestamptz' : 'text') as 'text';
  const now = pg ? sql`now()` : sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`;
  await (pg
    ? db.schema.createTable('bank_csv_profiles').addColumn('id', 'serial', (c) => c.primaryKey())
    : db.schema
        .createTable('bank_csv_profiles')
        .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
  )
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('delimiter', 'text', (c) => c.notNull())
    .addColumn('decimal_separator', 'text', (c) => c.notNull())
    .addColumn('date_format', 'text', (c) => c.notNull())
    .addColumn('encoding', 'text', (c) => c.notNull())
    .addColumn('header_rows', 'integer', (c) => c.notNull())
    .addColumn('columns', 'text', (c) => c.notNull())
    .addColumn('created_at', ts, (c) => c.notNull().defaultTo(now))
    .addColumn('updated_at', ts, (c) => c.notNull().defaultTo(now))
    .execute();
  await db.schema
    .createIndex('bank_csv_profiles_account_idx')
    .on('bank_csv_profiles')
    .columns(['account_id', 'id'])
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable('bank_csv_profiles').execute();
}

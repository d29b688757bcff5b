import { type Kysely, PostgresAdapter, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations work on the untyped schema
type AnyDb = Kysely<any>;

// The hand-over to the tax adviser (issue 41): DATEV exports kept byte for byte (re-download
// gives the same file), the months locked for good (Festschreibung; there is no unlock, so no
// row is ever deleted by the service), and the debtor/creditor account numbers the export
// gave each client and supplier, one per account length, never reused for another party.
export async function up(db: AnyDb): Promise<void> {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  const ts = pg ? 'timestamptz' : 'text';
  const now = pg ? sql`now()` : sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`;
  const id = (t: string) =>
    pg
      ? db.schema.createTable(t).addColumn('id', 'serial', (c) => c.primaryKey())
      : db.schema.createTable(t).addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());

  await id('datev_exports')
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('date_from', 'text', (c) => c.notNull())
    .addColumn('date_to', 'text', (c) => c.notNull())
    .addColumn('locked', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('file_name', 'text', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('byte_size', 'integer', (c) => c.notNull())
    .addColumn('data', pg ? 'bytea' : 'blob', (c) => c.notNull())
    // JSON: how many bookings, debtors and creditors the files hold.
    .addColumn('counts', 'text', (c) => c.notNull())
    .addColumn('created_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', ts, (c) => c.notNull().defaultTo(now))
    .execute();
  await db.schema
    .createIndex('datev_exports_account_idx')
    .on('datev_exports')
    .columns(['account_id', 'id'])
    .execute();

  await db.schema
    .createTable('accounting_period_locks')
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    // YYYY-MM
    .addColumn('period', 'text', (c) => c.notNull())
    .addColumn('locked_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('export_id', 'integer', (c) => c.references('datev_exports.id').onDelete('set null'))
    .addColumn('locked_at', ts, (c) => c.notNull().defaultTo(now))
    .addPrimaryKeyConstraint('accounting_period_locks_pk', ['account_id', 'period'])
    .execute();

  await db.schema
    .createTable('datev_personal_accounts')
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    // debtor (a client) or creditor (a supplier)
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('party_id', 'integer', (c) => c.notNull())
    .addColumn('account_length', 'integer', (c) => c.notNull())
    .addColumn('number', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('datev_personal_accounts_pk', [
      'account_id',
      'kind',
      'party_id',
      'account_length',
    ])
    .addUniqueConstraint('datev_personal_accounts_number_uq', ['account_id', 'account_length', 'number'])
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable('datev_personal_accounts').execute();
  await db.schema.dropTable('accounting_period_locks').execute();
  await db.schema.dropTable('datev_exports').execute();
}

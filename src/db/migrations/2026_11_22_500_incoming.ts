import {
  type ColumnDefinitionBuilder,
  type CreateTableBuilder,
  type Kysely,
  PostgresAdapter,
  sql,
} from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations work on the untyped schema
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  const k = kit(db);
  const account = (c: ColumnDefinitionBuilder) => c.notNull().references('accounts.id').onDelete('cascade');

  await k
    .id(db.schema.createTable('chart_of_accounts'))
    .addColumn('account_id', 'integer', account)
    .addColumn('number', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    // Exact decimal percentage as text ("19", "7", "0"): no binary floats for rates either.
    .addColumn('tax_rate', 'text')
    .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', k.ts, (c) => c.notNull().defaultTo(k.now))
    .addColumn('updated_at', k.ts, (c) => c.notNull().defaultTo(k.now))
    .execute();
  await db.schema
    .createIndex('chart_of_accounts_number_uq')
    .on('chart_of_accounts')
    .columns(['account_id', 'number'])
    .unique()
    .execute();

  await k
    .id(db.schema.createTable('suppliers'))
    .addColumn('account_id', 'integer', account)
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('street', 'text')
    .addColumn('zip', 'text')
    .addColumn('city', 'text')
    .addColumn('country_code', 'text')
    .addColumn('vat_id', 'text')
    .addColumn('tax_number', 'text')
    .addColumn('iban', 'text')
    .addColumn('bic', 'text')
    .addColumn('email', 'text')
    .addColumn('chart_of_account_id', 'integer', k.fk('chart_of_accounts', 'set null'))
    .addColumn('payment_term_days', 'integer')
    .addColumn('notes', 'text')
    .addColumn('external_id', 'text')
    .addColumn('created_at', k.ts, (c) => c.notNull().defaultTo(k.now))
    .addColumn('updated_at', k.ts, (c) => c.notNull().defaultTo(k.now))
    .execute();
  await db.schema
    .createIndex('suppliers_account_idx')
    .on('suppliers')
    .columns(['account_id', 'id'])
    .execute();

  await k
    .id(db.schema.createTable('incoming_invoices'))
    .addColumn('account_id', 'integer', account)
    .addColumn('document_type', 'text', (c) => c.notNull())
    .addColumn('supplier_id', 'integer', k.fk('suppliers', 'set null'))
    .addColumn('supplier_name', 'text')
    .addColumn('supplier_vat_id', 'text')
    .addColumn('invoice_number', 'text')
    .addColumn('date', k.date)
    .addColumn('due_date', k.date)
    .addColumn('currency', 'text', (c) => c.notNull().defaultTo('EUR'))
    .addColumn('net_total', k.money, (c) => c.notNull().defaultTo(0))
    .addColumn('tax_total', k.money, (c) => c.notNull().defaultTo(0))
    .addColumn('gross_total', k.money, (c) => c.notNull().defaultTo(0))
    .addColumn('paid_total', k.money, (c) => c.notNull().defaultTo(0))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('open'))
    .addColumn('description', 'text')
    .addColumn('file_id', 'integer', k.fk('files', 'set null'))
    .addColumn('file_md5', 'text')
    .addColumn('file_was_preprocessed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('extracted_fields', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('created_at', k.ts, (c) => c.notNull().defaultTo(k.now))
    .addColumn('updated_at', k.ts, (c) => c.notNull().defaultTo(k.now))
    .execute();
  await db.schema
    .createIndex('incoming_invoices_md5_idx')
    .on('incoming_invoices')
    .columns(['account_id', 'file_md5'])
    .execute();

  await k
    .id(db.schema.createTable('incoming_invoice_bookings'))
    .addColumn('account_id', 'integer', account)
    .addColumn('incoming_invoice_id', 'integer', (c) =>
      c.notNull().references('incoming_invoices.id').onDelete('cascade'),
    )
    .addColumn('chart_of_account_id', 'integer', (c) =>
      c.notNull().references('chart_of_accounts.id').onDelete('restrict'),
    )
    .addColumn('cost_center', 'text')
    .addColumn('amount', k.money, (c) => c.notNull())
    .addColumn('tax_rate', 'text')
    .addColumn('description', 'text')
    .addColumn('created_at', k.ts, (c) => c.notNull().defaultTo(k.now))
    .addColumn('updated_at', k.ts, (c) => c.notNull().defaultTo(k.now))
    .execute();
  await db.schema
    .createIndex('incoming_invoice_bookings_invoice_idx')
    .on('incoming_invoice_bookings')
    .columns(['account_id', 'incoming_invoice_id'])
    .execute();

  // One payment (bank transfer) or credit offset, split over one or more incoming documents.
  await k
    .id(db.schema.createTable('incoming_payments'))
    .addColumn('account_id', 'integer', account)
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('amount', k.money, (c) => c.notNull())
    .addColumn('date', k.date, (c) => c.notNull())
    .addColumn('payment_account_id', 'integer')
    .addColumn('reference', 'text')
    .addColumn('created_at', k.ts, (c) => c.notNull().defaultTo(k.now))
    .execute();
  await k
    .id(db.schema.createTable('incoming_payment_allocations'))
    .addColumn('account_id', 'integer', account)
    .addColumn('incoming_payment_id', 'integer', (c) =>
      c.notNull().references('incoming_payments.id').onDelete('cascade'),
    )
    .addColumn('incoming_invoice_id', 'integer', (c) =>
      c.notNull().references('incoming_invoices.id').onDelete('cascade'),
    )
    .addColumn('amount', k.money, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('incoming_payment_allocations_payment_idx')
    .on('incoming_payment_allocations')
    .columns(['incoming_payment_id'])
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  for (const t of [
    'incoming_payment_allocations',
    'incoming_payments',
    'incoming_invoice_bookings',
    'incoming_invoices',
    'suppliers',
    'chart_of_accounts',
  ])
    await db.schema.dropTable(t).execute();
}

// What this migration uses of the former shared kit (src/db/migration-kit.ts), copied in as
// it was when the migration landed: a migration imports nothing that can change after it ran.
function kit(db: AnyDb) {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  return {
    /** `id` primary key column. */
    id<T extends string>(t: CreateTableBuilder<T, never>) {
      return pg
        ? t.addColumn('id', 'serial', (c) => c.primaryKey())
        : t.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
    },
    ts: (pg ? 'timestamptz' : 'text') as 'text',
    date: (pg ? 'date' : 'text') as 'text',
    money: 'bigint' as const,
    /** Default for a timestamp column: now, in the format the application reads. */
    now: pg ? sql`now()` : sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`,
    fk(table: string, onDelete: 'cascade' | 'set null' | 'restrict' = 'restrict') {
      return (c: ColumnDefinitionBuilder) => c.references(`${table}.id`).onDelete(onDelete);
    },
  };
}

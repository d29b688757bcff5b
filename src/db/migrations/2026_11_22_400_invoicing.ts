import {
  type ColumnDefinitionBuilder,
  type CreateTableBuilder,
  type Kysely,
  PostgresAdapter,
  sql,
} from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations work on the untyped schema
type AnyDb = Kysely<any>;

// Outgoing invoices (documents and plan masters), offers, payment accounts and payments.
// Money is bigint cents; quantities, tax rates and discounts are exact decimal strings.
export async function up(db: AnyDb): Promise<void> {
  const k = kit(db);
  const account = (c: ColumnDefinitionBuilder) => c.notNull().references('accounts.id').onDelete('cascade');

  await k
    .id(db.schema.createTable('outgoing_invoices'))
    .addColumn('account_id', 'integer', account)
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('open'))
    .addColumn('invoice_number', 'text')
    .addColumn('external', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('client_id', 'integer', k.fk('clients'))
    // Contacts and projects live in other modules; the ids are kept as given.
    .addColumn('contact_id', 'integer')
    .addColumn('project_id', 'integer')
    .addColumn('master_id', 'integer', k.fk('outgoing_invoices'))
    .addColumn('credited_invoice_id', 'integer', k.fk('outgoing_invoices'))
    .addColumn('title', 'text')
    .addColumn('date', k.date)
    .addColumn('due_date', k.date)
    .addColumn('payment_term_days', 'integer')
    .addColumn('service_period_start', k.date)
    .addColumn('service_period_end', k.date)
    .addColumn('plan_start', k.date)
    .addColumn('plan_end', k.date)
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('intro_text', 'text')
    .addColumn('closing_text', 'text')
    .addColumn('file_id', 'integer', k.fk('files', 'set null'))
    // Booking freezes what the document shows (JSON of the PDF document) and the PDF file
    // rendered from it on the first download.
    .addColumn('document', 'text')
    .addColumn('pdf_file_id', 'integer', k.fk('files', 'set null'))
    .addColumn('booked_at', k.ts)
    .addColumn('deleted_at', k.ts)
    .addColumn('created_at', k.ts, (c) => c.notNull().defaultTo(k.now))
    .addColumn('updated_at', k.ts, (c) => c.notNull().defaultTo(k.now))
    // Numbers are unique per account for ever: deleted invoices keep theirs.
    .addUniqueConstraint('outgoing_invoices_number_uq', ['account_id', 'invoice_number'])
    .execute();
  await db.schema
    .createIndex('outgoing_invoices_account_idx')
    .on('outgoing_invoices')
    .columns(['account_id', 'id'])
    .execute();
  await db.schema
    .createIndex('outgoing_invoices_master_idx')
    .on('outgoing_invoices')
    .columns(['master_id'])
    .execute();
  await db.schema
    .createIndex('outgoing_invoices_client_idx')
    .on('outgoing_invoices')
    .columns(['account_id', 'client_id'])
    .execute();

  const items = (table: string, parent: string, parentTable: string) =>
    k
      .id(db.schema.createTable(table))
      .addColumn('account_id', 'integer', account)
      .addColumn(parent, 'integer', (c) => c.notNull().references(`${parentTable}.id`).onDelete('cascade'))
      .addColumn('position', 'integer', (c) => c.notNull())
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('quantity', 'text', (c) => c.notNull())
      .addColumn('unit', 'text')
      .addColumn('unit_price', k.money, (c) => c.notNull())
      .addColumn('tax_rate', 'text', (c) => c.notNull())
      .addColumn('discount', 'text')
      .addColumn('net_total', k.money, (c) => c.notNull())
      .execute();
  await items('outgoing_invoice_items', 'invoice_id', 'outgoing_invoices');
  await db.schema
    .createIndex('outgoing_invoice_items_invoice_idx')
    .on('outgoing_invoice_items')
    .columns(['invoice_id', 'position'])
    .execute();

  // One row per account, number kind and year: the booking transaction increments it under a
  // row lock, so concurrent bookings get consecutive numbers and a failed one consumes none.
  await db.schema
    .createTable('invoice_number_counters')
    .addColumn('account_id', 'integer', account)
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('year', 'integer', (c) => c.notNull())
    .addColumn('last_value', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('invoice_number_counters_pk', ['account_id', 'kind', 'year'])
    .execute();

  await k
    .id(db.schema.createTable('offers'))
    .addColumn('account_id', 'integer', account)
    .addColumn('offer_number', 'text')
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('created'))
    .addColumn('client_id', 'integer', k.fk('clients'))
    .addColumn('contact_id', 'integer')
    .addColumn('project_id', 'integer')
    .addColumn('title', 'text')
    .addColumn('date', k.date)
    .addColumn('valid_until', k.date)
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('intro_text', 'text')
    .addColumn('closing_text', 'text')
    .addColumn('created_at', k.ts, (c) => c.notNull().defaultTo(k.now))
    .addColumn('updated_at', k.ts, (c) => c.notNull().defaultTo(k.now))
    .execute();
  await db.schema.createIndex('offers_account_idx').on('offers').columns(['account_id', 'id']).execute();
  await items('offer_items', 'offer_id', 'offers');
  await db.schema
    .createIndex('offer_items_offer_idx')
    .on('offer_items')
    .columns(['offer_id', 'position'])
    .execute();

  await k
    .id(db.schema.createTable('payment_accounts'))
    .addColumn('account_id', 'integer', account)
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull().defaultTo('bank'))
    .addColumn('iban', 'text')
    .addColumn('bic', 'text')
    .addColumn('bank_name', 'text')
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('created_at', k.ts, (c) => c.notNull().defaultTo(k.now))
    .addColumn('updated_at', k.ts, (c) => c.notNull().defaultTo(k.now))
    .execute();
  await db.schema
    .createIndex('payment_accounts_account_idx')
    .on('payment_accounts')
    .columns(['account_id', 'id'])
    .execute();

  await k
    .id(db.schema.createTable('payments'))
    .addColumn('account_id', 'integer', account)
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('invoice_id', 'integer', (c) => c.notNull().references('outgoing_invoices.id'))
    .addColumn('credit_id', 'integer', k.fk('outgoing_invoices'))
    .addColumn('payment_account_id', 'integer', k.fk('payment_accounts'))
    .addColumn('amount', k.money, (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('date', k.date, (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('created_at', k.ts, (c) => c.notNull().defaultTo(k.now))
    .addColumn('updated_at', k.ts, (c) => c.notNull().defaultTo(k.now))
    .execute();
  await db.schema.createIndex('payments_account_idx').on('payments').columns(['account_id', 'id']).execute();
  await db.schema.createIndex('payments_invoice_idx').on('payments').columns(['invoice_id']).execute();
  // A credit settles one invoice once.
  await db.schema.createIndex('payments_credit_uq').on('payments').columns(['credit_id']).unique().execute();
}

export async function down(db: AnyDb): Promise<void> {
  for (const t of [
    'payments',
    'payment_accounts',
    'offer_items',
    'offers',
    'invoice_number_counters',
    'outgoing_invoice_items',
    'outgoing_invoices',
  ]) {
    await db.schema.dropTable(t).execute();
  }
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

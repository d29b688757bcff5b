import { type ColumnDefinitionBuilder, type Kysely, PostgresAdapter, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations work on the untyped schema
type AnyDb = Kysely<any>;

// SEPA payment files and mandates (issue 40, modules/sepa). Money is bigint cents.
//
// `sepa_runs` keeps each generated file (pain.001 credit transfers, pain.008 direct debits)
// with its bytes, so that downloading it again gives the same file. `sepa_run_items` is one
// transfer or collection of a run: its end-to-end id is unique within the account, because
// the bank statement confirms the item by it (`status` in_transit, then confirmed with the
// bank line). `incoming_invoices.payment_in_transit_run_id` shows the credit transfer run
// that pays a document until its statement line arrives.
//
// `sepa_mandates`: a client's direct debit mandates; the reference is unique within the
// account. `bank_matches.invoice_kind` tells which ledger a bank match wrote to (outgoing
// invoices for money received, incoming invoices for a confirmed credit transfer).
export async function up(db: AnyDb): Promise<void> {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  const ts = (pg ? 'timestamptz' : 'text') as 'text';
  const now = pg ? sql`now()` : sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`;
  const money = pg ? 'bigint' : 'integer';
  const table = (name: string) =>
    pg
      ? db.schema.createTable(name).addColumn('id', 'serial', (c) => c.primaryKey())
      : db.schema.createTable(name).addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
  const account = (c: ColumnDefinitionBuilder) => c.notNull().references('accounts.id').onDelete('cascade');

  await table('sepa_mandates')
    .addColumn('account_id', 'integer', account)
    .addColumn('client_id', 'integer', (c) => c.notNull().references('clients.id').onDelete('cascade'))
    .addColumn('reference', 'text', (c) => c.notNull())
    .addColumn('signed_on', 'text', (c) => c.notNull())
    .addColumn('iban', 'text', (c) => c.notNull())
    .addColumn('bic', 'text')
    // CORE or B2B.
    .addColumn('scheme', 'text', (c) => c.notNull())
    // first (no collection yet: FRST) or recurring (RCUR).
    .addColumn('sequence', 'text', (c) => c.notNull())
    // active or revoked.
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('revoked_at', ts)
    .addColumn('created_at', ts, (c) => c.notNull().defaultTo(now))
    .addColumn('updated_at', ts, (c) => c.notNull().defaultTo(now))
    .execute();
  await db.schema
    .createIndex('sepa_mandates_reference_uq')
    .on('sepa_mandates')
    .columns(['account_id', 'reference'])
    .unique()
    .execute();
  await db.schema.createIndex('sepa_mandates_client_idx').on('sepa_mandates').column('client_id').execute();

  await table('sepa_runs')
    .addColumn('account_id', 'integer', account)
    // credit_transfer or direct_debit.
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('version', 'text', (c) => c.notNull())
    .addColumn('payment_account_id', 'integer', (c) =>
      c.notNull().references('payment_accounts.id').onDelete('cascade'),
    )
    // The execution date (credit transfers) or collection date (direct debits).
    .addColumn('requested_date', 'text', (c) => c.notNull())
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('number_of_transactions', 'integer', (c) => c.notNull())
    .addColumn('control_sum', money, (c) => c.notNull())
    .addColumn('file', 'text', (c) => c.notNull())
    .addColumn('created_at', ts, (c) => c.notNull().defaultTo(now))
    .execute();
  await db.schema
    .createIndex('sepa_runs_account_idx')
    .on('sepa_runs')
    .columns(['account_id', 'id'])
    .execute();

  await table('sepa_run_items')
    .addColumn('account_id', 'integer', account)
    .addColumn('run_id', 'integer', (c) => c.notNull().references('sepa_runs.id').onDelete('cascade'))
    .addColumn('incoming_invoice_id', 'integer')
    .addColumn('outgoing_invoice_id', 'integer')
    .addColumn('mandate_id', 'integer')
    // FRST or RCUR (direct debits).
    .addColumn('sequence_type', 'text')
    .addColumn('amount', money, (c) => c.notNull())
    .addColumn('end_to_end_id', 'text', (c) => c.notNull())
    .addColumn('counterparty_name', 'text', (c) => c.notNull())
    .addColumn('counterparty_iban', 'text', (c) => c.notNull())
    .addColumn('counterparty_bic', 'text')
    .addColumn('remittance', 'text', (c) => c.notNull())
    // in_transit, confirmed.
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('bank_transaction_id', 'integer')
    .execute();
  await db.schema
    .createIndex('sepa_run_items_e2e_uq')
    .on('sepa_run_items')
    .columns(['account_id', 'end_to_end_id'])
    .unique()
    .execute();
  await db.schema.createIndex('sepa_run_items_run_idx').on('sepa_run_items').column('run_id').execute();
  await db.schema
    .createIndex('sepa_run_items_incoming_idx')
    .on('sepa_run_items')
    .columns(['account_id', 'incoming_invoice_id'])
    .execute();
  await db.schema
    .createIndex('sepa_run_items_outgoing_idx')
    .on('sepa_run_items')
    .columns(['account_id', 'outgoing_invoice_id'])
    .execute();

  await db.schema.alterTable('incoming_invoices').addColumn('payment_in_transit_run_id', 'integer').execute();
  await db.schema
    .alterTable('bank_matches')
    .addColumn('invoice_kind', 'text', (c) => c.notNull().defaultTo('outgoing'))
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.alterTable('bank_matches').dropColumn('invoice_kind').execute();
  await db.schema.alterTable('incoming_invoices').dropColumn('payment_in_transit_run_id').execute();
  await db.schema.dropTable('sepa_run_items').execute();
  await db.schema.dropTable('sepa_runs').execute();
  await db.schema.dropTable('sepa_mandates').execute();
}

import { type ColumnDefinitionBuilder, type Kysely, PostgresAdapter, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations work on the untyped schema
type AnyDb = Kysely<any>;

// Bank statements and their entries (issue 40). Money is bigint cents, signed on entries and
// balances (money in is positive).
//
// Each entry is stored once per payment account: `identity` is the bank's reference of the
// entry when it gives one, else a hash of booking date, amount, counterparty and purpose with
// its occurrence in the file (modules/banking/statement.domain.ts). The UNIQUE index makes a
// second import of the same lines (the same file, or an intraday report and then the day's
// statement) insert nothing, whatever the code does and however imports run concurrently.
//
// `bank_matches` links an entry to the payments its match recorded in the ledger; unmatching
// deletes those payments. A payment is linked to one entry at most.
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

  await table('bank_statements')
    .addColumn('account_id', 'integer', account)
    .addColumn('payment_account_id', 'integer', (c) =>
      c.notNull().references('payment_accounts.id').onDelete('cascade'),
    )
    .addColumn('format', 'text', (c) => c.notNull())
    .addColumn('statement_ref', 'text')
    .addColumn('file_name', 'text')
    .addColumn('file_sha256', 'text', (c) => c.notNull())
    .addColumn('currency', 'text')
    .addColumn('period_start', 'text')
    .addColumn('period_end', 'text')
    .addColumn('opening_balance', money)
    .addColumn('closing_balance', money)
    .addColumn('entries_new', 'integer', (c) => c.notNull())
    .addColumn('entries_known', 'integer', (c) => c.notNull())
    .addColumn('entries_skipped', 'integer', (c) => c.notNull())
    .addColumn('matched', 'integer', (c) => c.notNull())
    // JSON array of warning codes, e.g. ["balances_do_not_add_up"].
    .addColumn('warnings', 'text', (c) => c.notNull())
    .addColumn('created_at', ts, (c) => c.notNull().defaultTo(now))
    .execute();
  await db.schema
    .createIndex('bank_statements_account_idx')
    .on('bank_statements')
    .columns(['account_id', 'id'])
    .execute();

  await table('bank_transactions')
    .addColumn('account_id', 'integer', account)
    .addColumn('payment_account_id', 'integer', (c) =>
      c.notNull().references('payment_accounts.id').onDelete('cascade'),
    )
    .addColumn('statement_id', 'integer', (c) =>
      c.notNull().references('bank_statements.id').onDelete('cascade'),
    )
    .addColumn('identity', 'text', (c) => c.notNull())
    .addColumn('booking_date', 'text', (c) => c.notNull())
    .addColumn('value_date', 'text')
    .addColumn('amount', money, (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('counterparty_name', 'text')
    .addColumn('counterparty_iban', 'text')
    .addColumn('counterparty_bic', 'text')
    .addColumn('remittance', 'text')
    .addColumn('creditor_reference', 'text')
    .addColumn('end_to_end_id', 'text')
    .addColumn('mandate_id', 'text')
    .addColumn('bank_reference', 'text')
    .addColumn('booking_text', 'text')
    // unmatched, matched, ignored.
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('unmatched'))
    .addColumn('created_at', ts, (c) => c.notNull().defaultTo(now))
    .addColumn('updated_at', ts, (c) => c.notNull().defaultTo(now))
    .execute();
  await db.schema
    .createIndex('bank_transactions_identity_uq')
    .on('bank_transactions')
    .columns(['payment_account_id', 'identity'])
    .unique()
    .execute();
  await db.schema
    .createIndex('bank_transactions_account_idx')
    .on('bank_transactions')
    .columns(['account_id', 'id'])
    .execute();
  await db.schema
    .createIndex('bank_transactions_iban_idx')
    .on('bank_transactions')
    .columns(['account_id', 'counterparty_iban'])
    .execute();

  await table('bank_matches')
    .addColumn('account_id', 'integer', account)
    .addColumn('transaction_id', 'integer', (c) =>
      c.notNull().references('bank_transactions.id').onDelete('cascade'),
    )
    .addColumn('payment_id', 'integer', (c) => c.notNull())
    .addColumn('invoice_id', 'integer', (c) => c.notNull())
    .addColumn('amount', money, (c) => c.notNull())
    // auto (a rule of matching.domain.ts) or manual.
    .addColumn('origin', 'text', (c) => c.notNull())
    .addColumn('created_at', ts, (c) => c.notNull().defaultTo(now))
    .execute();
  await db.schema
    .createIndex('bank_matches_payment_uq')
    .on('bank_matches')
    .column('payment_id')
    .unique()
    .execute();
  await db.schema
    .createIndex('bank_matches_transaction_idx')
    .on('bank_matches')
    .column('transaction_id')
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable('bank_matches').execute();
  await db.schema.dropTable('bank_transactions').execute();
  await db.schema.dropTable('bank_statements').execute();
}

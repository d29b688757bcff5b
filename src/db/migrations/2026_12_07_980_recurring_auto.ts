import { type Kysely, PostgresAdapter, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations work on the untyped schema
type AnyDb = Kysely<any>;

/**
 * Recurring plans that run themselves (issue 38 point 6).
 *
 * A recurring master gains `auto_generate` and `auto_send` (0/1) and `auto_from`: the day
 * `auto_generate` was last turned on; the scheduler takes care of the periods that had not
 * ended by then.
 *
 * `plan_runs` holds one row per master and period the scheduler has dealt with, unique on
 * (master_id, period_start): the row is written in the transaction that makes (or finds) the
 * period's invoice, so no restart, crash or second process makes a period twice; its `state`
 * moves from `pending_send` to `queued` (or `booked`, `failed`, `skipped`) in the transaction
 * that books and queues the invoice, so it is sent at most once.
 */
export async function up(db: AnyDb): Promise<void> {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  const ts = (pg ? 'timestamptz' : 'text') as 'text';
  const date = (pg ? 'date' : 'text') as 'text';
  const now = pg ? sql`now()` : sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`;

  await db.schema
    .alterTable('outgoing_invoices')
    .addColumn('auto_generate', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('outgoing_invoices')
    .addColumn('auto_send', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('outgoing_invoices').addColumn('auto_from', date).execute();
  // The scheduler's look for plans to run: few rows, found without reading every invoice.
  await db.schema
    .createIndex('outgoing_invoices_auto_idx')
    .on('outgoing_invoices')
    .column('id')
    .where(sql.ref('auto_generate'), '=', 1)
    .execute();

  await db.schema
    .createTable('plan_runs')
    .addColumn('id', pg ? 'serial' : 'integer', (c) => (pg ? c.primaryKey() : c.primaryKey().autoIncrement()))
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('master_id', 'integer', (c) =>
      c.notNull().references('outgoing_invoices.id').onDelete('cascade'),
    )
    .addColumn('period_start', date, (c) => c.notNull())
    // The period's invoice: made by the scheduler, or the one POST …/generate had made.
    .addColumn('invoice_id', 'integer', (c) => c.references('outgoing_invoices.id').onDelete('set null'))
    // generated | pending_send | queued | booked | failed | skipped
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('mail_message_id', 'integer')
    // Why it was not sent (booked, failed, skipped).
    .addColumn('reason', 'text')
    .addColumn('created_at', ts, (c) => c.notNull().defaultTo(now))
    .addColumn('updated_at', ts, (c) => c.notNull().defaultTo(now))
    .addUniqueConstraint('plan_runs_period_uq', ['master_id', 'period_start'])
    .execute();
  // The runs still to send, across accounts.
  await db.schema
    .createIndex('plan_runs_pending_idx')
    .on('plan_runs')
    .column('id')
    .where(sql.ref('state'), '=', 'pending_send')
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable('plan_runs').execute();
  await db.schema.dropIndex('outgoing_invoices_auto_idx').execute();
  for (const column of ['auto_from', 'auto_send', 'auto_generate'])
    await db.schema.alterTable('outgoing_invoices').dropColumn(column).execute();
}

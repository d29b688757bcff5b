import { type Kysely, PostgresAdapter, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations work on the untyped schema
type AnyDb = Kysely<any>;

/**
 * Durable data-extraction jobs (OCR of scans, large PDFs): written in the transaction that
 * stores the upload, claimed by workers as short leases renewed by a heartbeat (a killed
 * worker's job is taken over), retried with back-off, then `failed`. Self-contained: the
 * column conventions are spelled out here, not imported.
 */
export async function up(db: AnyDb): Promise<void> {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  const ts = (pg ? 'timestamptz' : 'text') as 'text';
  const now = pg ? sql`now()` : sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`;
  await (pg
    ? db.schema.createTable('extraction_jobs').addColumn('id', 'serial', (c) => c.primaryKey())
    : db.schema
        .createTable('extraction_jobs')
        .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
  )
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('incoming_invoice_id', 'integer', (c) =>
      c.notNull().references('incoming_invoices.id').onDelete('cascade'),
    )
    // pending (waiting or leased) | done | failed
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('run_after', ts, (c) => c.notNull().defaultTo(now))
    .addColumn('lease_until', ts)
    .addColumn('lease_token', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_at', ts, (c) => c.notNull().defaultTo(now))
    .addColumn('updated_at', ts, (c) => c.notNull().defaultTo(now))
    .addColumn('finished_at', ts)
    .execute();
  // The queue proper: only pending rows, small however long the history grows.
  await db.schema
    .createIndex('extraction_jobs_pending_idx')
    .on('extraction_jobs')
    .columns(['run_after', 'id'])
    .where(sql.ref('status'), '=', 'pending')
    .execute();
  await db.schema
    .createIndex('extraction_jobs_invoice_idx')
    .on('extraction_jobs')
    .columns(['incoming_invoice_id', 'id'])
    .execute();
  await db.schema
    .createIndex('extraction_jobs_account_idx')
    .on('extraction_jobs')
    .columns(['account_id', 'id'])
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable('extraction_jobs').execute();
}

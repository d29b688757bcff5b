import { type Kysely, PostgresAdapter, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations work on the untyped schema
type AnyDb = Kysely<any>;

// Billing the work: sale rates at every level of the rate order (effort, task, team member,
// project, user, account — the account's lives in accounts.settings), a cost rate per user,
// project budgets and billing mode, and the link of an effort to the invoice that bills it.
//
// Amounts are cents (integers), as invoice lines keep them.
//
// `invoice_efforts` holds each billed effort once: its UNIQUE (effort_id) makes double billing
// impossible whatever the code does, and two concurrent invoices over the same effort cannot
// both commit. A link lives as long as its invoice is not deleted: the trigger below removes the
// links of an invoice when it is soft-deleted (and frees the offer it was made from), so every
// path that deletes an invoice frees its efforts; a hard delete cascades.
export async function up(db: AnyDb): Promise<void> {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  const ts = (pg ? 'timestamptz' : 'text') as 'text';
  const now = pg ? sql`now()` : sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`;

  await db.schema.alterTable('efforts').addColumn('hourly_rate', 'integer').execute();
  await db.schema.alterTable('tasks').addColumn('hourly_rate', 'integer').execute();
  await db.schema.alterTable('project_members').addColumn('hourly_rate', 'integer').execute();
  // A budget may pass int4's 21 million in cents; rates (at most 10 million an hour) do not.
  for (const [column, type] of [
    ['hourly_rate', 'integer'],
    ['budget_amount', 'bigint'],
    ['currency', 'text'],
  ] as const) {
    await db.schema.alterTable('projects').addColumn(column, type).execute();
  }
  await db.schema
    .alterTable('projects')
    .addColumn('billing_mode', 'text', (c) => c.notNull().defaultTo('time_and_materials'))
    .execute();
  await db.schema.alterTable('offers').addColumn('invoice_id', 'integer').execute();

  await db.schema
    .createTable('user_rates')
    .addColumn('user_id', 'integer', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('hourly_rate', 'integer')
    .addColumn('cost_rate', 'integer')
    .addColumn('updated_at', ts, (c) => c.notNull().defaultTo(now))
    .execute();

  await (pg
    ? db.schema.createTable('invoice_efforts').addColumn('id', 'serial', (c) => c.primaryKey())
    : db.schema
        .createTable('invoice_efforts')
        .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
  )
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('invoice_id', 'integer', (c) =>
      c.notNull().references('outgoing_invoices.id').onDelete('cascade'),
    )
    .addColumn('effort_id', 'integer', (c) => c.notNull().references('efforts.id').onDelete('restrict'))
    // The invoice line (its position) the effort stands on.
    .addColumn('position', 'integer', (c) => c.notNull())
    // Minutes billed (after rounding), the rate (cents an hour) and where the rate came from.
    .addColumn('minutes', 'integer', (c) => c.notNull())
    .addColumn('hourly_rate', 'integer', (c) => c.notNull())
    .addColumn('rate_source', 'text', (c) => c.notNull())
    .addColumn('created_at', ts, (c) => c.notNull().defaultTo(now))
    .addUniqueConstraint('invoice_efforts_effort_uq', ['effort_id'])
    .execute();
  await db.schema
    .createIndex('invoice_efforts_invoice_idx')
    .on('invoice_efforts')
    .columns(['invoice_id', 'position'])
    .execute();
  await db.schema
    .createIndex('offers_invoice_idx')
    .on('offers')
    .columns(['invoice_id'])
    .where(sql.ref('invoice_id'), 'is not', null)
    .execute();

  if (pg) {
    await sql`
      CREATE FUNCTION invoice_deleted_frees_work() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM invoice_efforts WHERE invoice_id = NEW.id;
        UPDATE offers SET invoice_id = NULL WHERE invoice_id = NEW.id AND account_id = NEW.account_id;
        RETURN NULL;
      END $$`.execute(db);
    await sql`
      CREATE TRIGGER trg_invoice_deleted_frees_work AFTER UPDATE OF deleted_at ON outgoing_invoices
      FOR EACH ROW WHEN (OLD.deleted_at IS NULL AND NEW.deleted_at IS NOT NULL)
      EXECUTE FUNCTION invoice_deleted_frees_work()`.execute(db);
  } else {
    await sql`
      CREATE TRIGGER trg_invoice_deleted_frees_work AFTER UPDATE OF deleted_at ON outgoing_invoices
      WHEN OLD.deleted_at IS NULL AND NEW.deleted_at IS NOT NULL
      BEGIN
        DELETE FROM invoice_efforts WHERE invoice_id = NEW.id;
        UPDATE offers SET invoice_id = NULL WHERE invoice_id = NEW.id AND account_id = NEW.account_id;
      END`.execute(db);
  }
}

export async function down(db: AnyDb): Promise<void> {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  await sql`DROP TRIGGER trg_invoice_deleted_frees_work${sql.raw(pg ? ' ON outgoing_invoices' : '')}`.execute(
    db,
  );
  if (pg) await sql`DROP FUNCTION invoice_deleted_frees_work()`.execute(db);
  await db.schema.dropTable('invoice_efforts').execute();
  await db.schema.dropTable('user_rates').execute();
  await db.schema.dropIndex('offers_invoice_idx').execute();
  await db.schema.alterTable('offers').dropColumn('invoice_id').execute();
  for (const column of ['billing_mode', 'currency', 'budget_amount', 'hourly_rate']) {
    await db.schema.alterTable('projects').dropColumn(column).execute();
  }
  await db.schema.alterTable('project_members').dropColumn('hourly_rate').execute();
  await db.schema.alterTable('tasks').dropColumn('hourly_rate').execute();
  await db.schema.alterTable('efforts').dropColumn('hourly_rate').execute();
}

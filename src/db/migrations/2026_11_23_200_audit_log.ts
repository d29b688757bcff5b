import { type Kysely, PostgresAdapter, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations work on the untyped schema
type AnyDb = Kysely<any>;

// The audit log of the console (issue 13): who changed what in an account, when. One row per
// action, written in the transaction of the change itself, read newest first per account
// (hence the index on (account_id, id)). Self-contained: column types copied, no kit import.
export async function up(db: AnyDb): Promise<void> {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  const ts = pg ? 'timestamptz' : 'text';
  const now = pg ? sql`now()` : sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`;
  const id = pg ? 'bigserial' : 'integer';

  await db.schema
    .createTable('audit_log')
    .addColumn('id', id, (c) => (pg ? c.primaryKey() : c.primaryKey().autoIncrement()))
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    // No foreign key: the entry outlives a deleted user (the audit must still say who it was).
    .addColumn('actor_user_id', 'integer')
    .addColumn('actor_kind', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target_type', 'text')
    .addColumn('target_id', 'text')
    .addColumn('detail', 'text')
    .addColumn('created_at', ts, (c) => c.notNull().defaultTo(now))
    .execute();
  await db.schema
    .createIndex('audit_log_account_idx')
    .on('audit_log')
    .columns(['account_id', 'id'])
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable('audit_log').execute();
}

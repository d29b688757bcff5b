import { type Kysely, PostgresAdapter, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations work on the untyped schema
type AnyDb = Kysely<any>;

/**
 * The scheduled dunning run (DUNNING_AUTO_RUN): one job row per account, naming the last day it
 * ran and the lease of the worker running it now. A worker claims an account whose day has not
 * run and whose lease has run out; a worker that dies leaves a lease that expires, and another
 * takes the day over (the run itself makes each letter once, whoever runs it).
 */
export async function up(db: AnyDb): Promise<void> {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  const ts = (pg ? 'timestamptz' : 'text') as 'text';
  await db.schema
    .createTable('dunning_jobs')
    .addColumn('account_id', 'integer', (c) => c.primaryKey().references('accounts.id').onDelete('cascade'))
    .addColumn('last_run_on', 'text')
    .addColumn('lease_until', ts)
    .addColumn('lease_token', 'text')
    .addColumn('last_error', 'text')
    .addColumn('updated_at', ts, (c) =>
      c.notNull().defaultTo(pg ? sql`now()` : sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`),
    )
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable('dunning_jobs').execute();
}

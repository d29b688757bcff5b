import { type Kysely, PostgresAdapter } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations work on the untyped schema
type AnyDb = Kysely<any>;

// Jobs that run on a schedule once for the whole service (retention), whichever process or
// machine is alive: one row per job, leased by the process that runs it (`lease_holder`,
// `lease_until`); `last_run_at` says when it last finished.
export async function up(db: AnyDb): Promise<void> {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  const ts = pg ? 'timestamptz' : 'text';
  await db.schema
    .createTable('scheduled_jobs')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('lease_holder', 'text')
    .addColumn('lease_until', ts)
    .addColumn('last_run_at', ts)
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable('scheduled_jobs').execute();
}

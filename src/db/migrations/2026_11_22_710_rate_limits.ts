import { type Kysely, PostgresAdapter, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations work on the untyped schema
type AnyDb = Kysely<any>;

// Request budgets shared by every process serving the database (CONVENTIONS: no state that
// matters lives in one process). A row is one key's fixed window; processes take leases of it
// (see plugins/rate-limit.store.ts), so the table sees a write per lease, not per request.
export async function up(db: AnyDb): Promise<void> {
  const k = kit(db);
  await db.schema
    .createTable('rate_limit_windows')
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('window_start', 'bigint', (c) => c.notNull())
    .addColumn('used', 'bigint', (c) => c.notNull())
    .addColumn('granted', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('rate_limit_windows_pk', ['key', 'window_start'])
    .execute();
  // Counters are worth nothing after a crash: PostgreSQL may skip writing them to its WAL.
  if (k.pg) await sql`ALTER TABLE rate_limit_windows SET UNLOGGED`.execute(db);
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable('rate_limit_windows').execute();
}

// What this migration uses of the former shared kit (src/db/migration-kit.ts), copied in as
// it was when the migration landed: a migration imports nothing that can change after it ran.
function kit(db: AnyDb) {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  return {
    pg,
  };
}

import { type Kysely, PostgresAdapter } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations work on the untyped schema
type AnyDb = Kysely<any>;

// Idempotency keys held as leases (plugins/idempotency.ts): `claim` names the request that
// holds the key, `locked_until` when another may take it over. A key whose request died
// (a crash) is free again after the lease instead of for the rest of its 24 hours.
// Rows from before have neither: their lease is over.
export async function up(db: AnyDb): Promise<void> {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .alterTable('idempotency_keys')
    .addColumn('locked_until', pg ? 'timestamptz' : 'text')
    .execute();
  await db.schema.alterTable('idempotency_keys').addColumn('claim', 'text').execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.alterTable('idempotency_keys').dropColumn('claim').execute();
  await db.schema.alterTable('idempotency_keys').dropColumn('locked_until').execute();
}

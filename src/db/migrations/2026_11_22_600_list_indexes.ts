import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations work on the untyped schema
type AnyDb = Kysely<any>;

// Lists leave archived records out and order by id: an index on (account, archived_at, id)
// answers both the page and its count from the index alone.
export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createIndex('clients_account_active_idx')
    .on('clients')
    .columns(['account_id', 'archived_at', 'id'])
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropIndex('clients_account_active_idx').execute();
}

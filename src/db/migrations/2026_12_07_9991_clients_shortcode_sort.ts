import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations work on the untyped schema
type AnyDb = Kysely<any>;

/**
 * `GET /clients?sort=shortcode` (and `-shortcode`) reads its page in index order, as sort=name
 * does since 2026_12_07_997, instead of sorting every active client of the account. The unique
 * (account_id, shortcode) index does not serve: it leaves out archived_at, and clients without
 * a shortcode (most) are ordered by id among themselves. Nulls last ascending: PostgreSQL's
 * order of the index; SQLite reads the index's non-null part, then its null part.
 */
export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createIndex('clients_account_shortcode_idx')
    .on('clients')
    .columns(['account_id', 'archived_at', 'shortcode', 'id'])
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropIndex('clients_account_shortcode_idx').execute();
}

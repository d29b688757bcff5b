import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations work on the untyped schema
type AnyDb = Kysely<any>;

// Nothing hidden from an auditor: a soft-deleted outgoing invoice shows who deleted it (the
// user the token acted as) next to `deleted_at`. A plain id, no foreign key: the record of
// who deleted an invoice outlives the user. Earlier deletions have none.
export async function up(db: AnyDb): Promise<void> {
  await db.schema.alterTable('outgoing_invoices').addColumn('deleted_by', 'integer').execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.alterTable('outgoing_invoices').dropColumn('deleted_by').execute();
}

import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations work on the untyped schema
type AnyDb = Kysely<any>;

/**
 * Billing reads a project's efforts (an invoice from efforts: a project and a span of dates; a
 * project's report: all of them). Without this index both scanned every effort of the account
 * (a report of 100,000 efforts in an account of 110,000: about a second of its time).
 */
export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createIndex('efforts_project_date_idx')
    .on('efforts')
    .columns(['account_id', 'project_id', 'date'])
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropIndex('efforts_project_date_idx').execute();
}

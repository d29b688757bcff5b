import { type Kysely, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations work on the untyped schema
type AnyDb = Kysely<any>;

/**
 * The dunning run leaves out every invoice a booked credit note names (`credited_invoice_id`):
 * without an index each overdue invoice scanned the account's invoices for such a credit (on
 * 2,000 invoices 0.7 s of a run, growing with the square). Few invoices are credits, so the
 * index holds only the rows that name one.
 */
export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createIndex('outgoing_invoices_credited_idx')
    .on('outgoing_invoices')
    .column('credited_invoice_id')
    .where(sql.ref('credited_invoice_id'), 'is not', null)
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropIndex('outgoing_invoices_credited_idx').execute();
}

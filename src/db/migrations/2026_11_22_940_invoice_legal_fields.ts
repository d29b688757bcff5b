import { type Kysely, PostgresAdapter } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations work on the untyped schema
type AnyDb = Kysely<any>;

// Legally complete invoices (§14 (4) UStG, EN 16931):
// - `seller` / `buyer`: JSON snapshots of the parties, frozen at booking, so a booked invoice
//   keeps the addresses it was issued with when the account or client changes later;
// - `buyer_reference` (BT-10, the German Leitweg-ID) on clients and invoices (the invoice's wins);
// - `service_date`: the supply date when the account lets it default to the invoice date;
// - the VAT category (UNTDID 5305) and exemption reason (VATEX code, text) of 0 % lines.
// Self-contained: copies the column types instead of importing the migration kit.
export async function up(db: AnyDb): Promise<void> {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  const date = pg ? 'date' : 'text';
  const cols: [string, string][] = [
    ['seller', 'text'],
    ['buyer', 'text'],
    ['buyer_reference', 'text'],
    ['service_date', date],
    ['tax_exemption_category', 'text'],
    ['tax_exemption_reason_code', 'text'],
    ['tax_exemption_reason', 'text'],
  ];
  for (const [name, type] of cols) {
    await db.schema
      .alterTable('outgoing_invoices')
      .addColumn(name, type as 'text')
      .execute();
  }
  await db.schema.alterTable('clients').addColumn('buyer_reference', 'text').execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.alterTable('clients').dropColumn('buyer_reference').execute();
  for (const name of [
    'tax_exemption_reason',
    'tax_exemption_reason_code',
    'tax_exemption_category',
    'service_date',
    'buyer_reference',
    'buyer',
    'seller',
  ]) {
    await db.schema.alterTable('outgoing_invoices').dropColumn(name).execute();
  }
}

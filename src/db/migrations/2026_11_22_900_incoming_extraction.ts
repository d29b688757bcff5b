import { type Kysely, PostgresAdapter, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations work on the untyped schema
type AnyDb = Kysely<any>;

// What an accounts-payable clerk needs from an incoming document (issue 11), all nullable:
// dates of delivery or the service period, prepaid amount and amount due (cents), buyer
// reference (Leitweg-ID), the supplier's address and tax number, bank account and payment
// reference, the VAT breakdown and line items (JSON), and the extraction's own record:
// status, method, warnings, per-field provenance, and `request_fields` (the fields the caller
// set, which a later extraction job never overwrites).
// Self-contained: copies the column types instead of importing the migration kit.
export async function up(db: AnyDb): Promise<void> {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  const date = pg ? 'date' : 'text';
  const cols: [string, string][] = [
    ['delivery_date', date],
    ['service_period_start', date],
    ['service_period_end', date],
    ['prepaid_total', 'bigint'],
    ['amount_due', 'bigint'],
    ['buyer_reference', 'text'],
    ['supplier_street', 'text'],
    ['supplier_postcode', 'text'],
    ['supplier_city', 'text'],
    ['supplier_country', 'text'],
    ['supplier_tax_number', 'text'],
    ['iban', 'text'],
    ['bic', 'text'],
    ['payment_reference', 'text'],
    ['taxes', 'text'],
    ['line_items', 'text'],
    ['extraction_method', 'text'],
  ];
  for (const [name, type] of cols)
    await db.schema
      .alterTable('incoming_invoices')
      .addColumn(name, type as 'text')
      .execute();
  const json: [string, string][] = [
    ['extraction_warnings', '[]'],
    ['extraction_provenance', '{}'],
    ['request_fields', '[]'],
  ];
  for (const [name, empty] of json)
    await db.schema
      .alterTable('incoming_invoices')
      .addColumn(name, 'text', (c) => c.notNull().defaultTo(empty))
      .execute();
  await db.schema
    .alterTable('incoming_invoices')
    .addColumn('extraction_status', 'text', (c) => c.notNull().defaultTo('skipped'))
    .execute();
  // Documents uploaded before were read inside their request.
  await sql`update incoming_invoices set extraction_status = 'done'
    where file_id is not null and file_was_preprocessed = 0`.execute(db);
}

export async function down(db: AnyDb): Promise<void> {
  for (const name of [
    'extraction_status',
    'request_fields',
    'extraction_provenance',
    'extraction_warnings',
    'extraction_method',
    'line_items',
    'taxes',
    'payment_reference',
    'bic',
    'iban',
    'supplier_tax_number',
    'supplier_country',
    'supplier_city',
    'supplier_postcode',
    'supplier_street',
    'buyer_reference',
    'amount_due',
    'prepaid_total',
    'service_period_end',
    'service_period_start',
    'delivery_date',
  ])
    await db.schema.alterTable('incoming_invoices').dropColumn(name).execute();
}

import { type Kysely, PostgresAdapter, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations work on the untyped schema
type AnyDb = Kysely<any>;

/**
 * Booked documents served, not rendered (issue 44): the bytes of a booked invoice's or
 * credit's PDF and e-invoices and of a dunning letter's PDF, rendered once and kept, so every
 * later download is one read of the very same bytes. One row per (account, kind of document,
 * its id, format); never pruned (bookkeeping).
 *
 * The booked invoice PDFs kept so far as files (`outgoing_invoices.pdf_file_id`) are copied
 * in, so they stay byte for byte what was sent. Self-contained: imports nothing that can change.
 */
export async function up(db: AnyDb): Promise<void> {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  const ts = (pg ? 'timestamptz' : 'text') as 'text';
  const now = pg ? sql`now()` : sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`;
  await db.schema
    .createTable('kept_documents')
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    // outgoing_invoice | dunning_letter
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('document_id', 'integer', (c) => c.notNull())
    // pdf | cii | ubl
    .addColumn('format', 'text', (c) => c.notNull())
    .addColumn('filename', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('data', pg ? 'bytea' : 'blob', (c) => c.notNull())
    .addColumn('created_at', ts, (c) => c.notNull().defaultTo(now))
    .addPrimaryKeyConstraint('kept_documents_pk', ['account_id', 'kind', 'document_id', 'format'])
    .execute();
  await sql`
    INSERT INTO kept_documents (account_id, kind, document_id, format, filename, content_type, sha256, data, created_at)
    SELECT i.account_id, 'outgoing_invoice', i.id, 'pdf', f.name, f.content_type, f.sha256, b.data, f.created_at
    FROM outgoing_invoices i
    JOIN files f ON f.id = i.pdf_file_id AND f.account_id = i.account_id
    JOIN file_blobs b ON b.file_id = f.id
    WHERE i.pdf_file_id IS NOT NULL AND i.external = 0
  `.execute(db);
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable('kept_documents').execute();
}

import { type Kysely, PostgresAdapter, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations work on the untyped schema
type AnyDb = Kysely<any>;

// PostgreSQL, issue 15: an invoice's client key becomes composite, (account_id, client_id) →
// clients (account_id, id), as its lines' key did (2026_11_29_100). The database now holds that
// an invoice names one of its own account's clients, so a create that arrives with others
// (db/insert-batch.ts) need not read the client first: its one INSERT takes the currency and
// payment term from the client's row and the key refuses a client that is not the account's
// (invoices.repository.ts, `insertManyAsOne`). Still one key check per invoice; the unique
// index the key needs replaces the plain one of the same columns, so a client still writes as
// many index entries. ON DELETE RESTRICT as before.
//
// SQLite keeps its schema: its creates check the client in their transaction.

const isPg = (db: AnyDb) => db.getExecutor().adapter instanceof PostgresAdapter;

export async function up(db: AnyDb): Promise<void> {
  if (!isPg(db)) return;
  await sql`CREATE UNIQUE INDEX clients_account_id_uq ON clients (account_id, id)`.execute(db);
  await sql`DROP INDEX clients_account_idx`.execute(db);
  await sql`
    ALTER TABLE outgoing_invoices
      DROP CONSTRAINT outgoing_invoices_client_id_fkey,
      ADD CONSTRAINT outgoing_invoices_client_fkey FOREIGN KEY (account_id, client_id)
        REFERENCES clients (account_id, id) ON DELETE RESTRICT`.execute(db);
}

export async function down(db: AnyDb): Promise<void> {
  if (!isPg(db)) return;
  await sql`
    ALTER TABLE outgoing_invoices
      DROP CONSTRAINT outgoing_invoices_client_fkey,
      ADD CONSTRAINT outgoing_invoices_client_id_fkey FOREIGN KEY (client_id)
        REFERENCES clients (id) ON DELETE RESTRICT`.execute(db);
  await sql`CREATE INDEX clients_account_idx ON clients (account_id, id)`.execute(db);
  await sql`DROP INDEX clients_account_id_uq`.execute(db);
}

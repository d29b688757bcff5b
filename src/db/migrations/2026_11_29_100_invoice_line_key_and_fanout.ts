import { type Kysely, PostgresAdapter, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations work on the untyped schema
type AnyDb = Kysely<any>;

// PostgreSQL, issue 15: less work per row for the writes that arrive together.
//
// 1. An invoice line's two foreign keys (its invoice, its account) become one composite key,
//    (account_id, invoice_id) → outgoing_invoices (account_id, id): one check per line instead
//    of two (per invoice of three lines, 8 checks → 5; each is a query of its own inside
//    PostgreSQL), and it now also holds that a line belongs to its invoice's account. The
//    key needs a unique index on (account_id, id): the plain index of the same columns
//    (2026_11_22_400) becomes that unique one, so an invoice still writes as many entries.
//    Deleting an account still deletes its lines: account → invoices → lines, both cascades.
// 2. The webhook fan-out (2026_11_22_300) runs once per INSERT of events instead of once per
//    event: one statement with the inserted events as a transition table, ordered by event and
//    webhook as the row trigger's deliveries were (they fired in event order, each ordered by
//    webhook). Events of a batch of task creates are one INSERT (shared/events.ts).
//
// SQLite keeps its schema: its foreign keys and row triggers cost no query each.

const isPg = (db: AnyDb) => db.getExecutor().adapter instanceof PostgresAdapter;

export async function up(db: AnyDb): Promise<void> {
  if (!isPg(db)) return;
  await sql`CREATE UNIQUE INDEX outgoing_invoices_account_id_uq ON outgoing_invoices (account_id, id)`.execute(
    db,
  );
  await sql`DROP INDEX outgoing_invoices_account_idx`.execute(db);
  await sql`
    ALTER TABLE outgoing_invoice_items
      DROP CONSTRAINT outgoing_invoice_items_account_id_fkey,
      DROP CONSTRAINT outgoing_invoice_items_invoice_id_fkey,
      ADD CONSTRAINT outgoing_invoice_items_invoice_fkey FOREIGN KEY (account_id, invoice_id)
        REFERENCES outgoing_invoices (account_id, id) ON DELETE CASCADE`.execute(db);

  await sql`
    CREATE FUNCTION webhook_fanout_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO webhook_deliveries (account_id, webhook_id, event_id, message_id, next_attempt_at)
      SELECT e.account_id, w.id, e.id, 'msg_' || replace(gen_random_uuid()::text, '-', ''), e.occurred_at
      FROM new_events e
      JOIN webhooks w ON w.account_id = e.account_id
      JOIN integrations i ON i.id = w.integration_id
      WHERE w.active = 1
        AND i.revoked_at IS NULL
        AND position(' ' || e.kind || ' ' IN ' ' || w.event_kinds || ' ') > 0
      ORDER BY e.id, w.id;
      RETURN NULL;
    END
    $$`.execute(db);
  await sql`DROP TRIGGER events_webhook_fanout ON events`.execute(db);
  await sql`
    CREATE TRIGGER events_webhook_fanout AFTER INSERT ON events REFERENCING NEW TABLE AS new_events
    FOR EACH STATEMENT EXECUTE FUNCTION webhook_fanout_inserted()`.execute(db);
}

export async function down(db: AnyDb): Promise<void> {
  if (!isPg(db)) return;
  await sql`DROP TRIGGER events_webhook_fanout ON events`.execute(db);
  await sql`DROP FUNCTION webhook_fanout_inserted()`.execute(db);
  await sql`
    CREATE TRIGGER events_webhook_fanout AFTER INSERT ON events
    FOR EACH ROW EXECUTE FUNCTION webhook_fanout()`.execute(db);

  await sql`
    ALTER TABLE outgoing_invoice_items
      DROP CONSTRAINT outgoing_invoice_items_invoice_fkey,
      ADD CONSTRAINT outgoing_invoice_items_account_id_fkey FOREIGN KEY (account_id)
        REFERENCES accounts (id) ON DELETE CASCADE,
      ADD CONSTRAINT outgoing_invoice_items_invoice_id_fkey FOREIGN KEY (invoice_id)
        REFERENCES outgoing_invoices (id) ON DELETE CASCADE`.execute(db);
  await sql`CREATE INDEX outgoing_invoices_account_idx ON outgoing_invoices (account_id, id)`.execute(db);
  await sql`DROP INDEX outgoing_invoices_account_id_uq`.execute(db);
}

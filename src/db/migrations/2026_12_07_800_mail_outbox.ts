import { type Kysely, PostgresAdapter, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations work on the untyped schema
type AnyDb = Kysely<any>;

/**
 * Mail (issue 38): the messages sent for documents, their attachments, and the outbox job of
 * each message still to go out.
 *
 * `mail_messages` is what the API shows and the change feed announces (resource
 * `mail_message`): it changes only when a message's state does. The job (`mail_jobs`, one row
 * per queued message, deleted once it is sent or has failed) holds the lease a worker takes,
 * renewed while it talks to the relay, so heartbeats write no change-feed rows.
 *
 * Clients gain `invoice_email` (where their invoices go) and `einvoice_format` (what is
 * attached). Self-contained: a migration imports nothing that can change after it ran.
 */
export async function up(db: AnyDb): Promise<void> {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  const ts = (pg ? 'timestamptz' : 'text') as 'text';
  const now = pg ? sql`now()` : sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`;
  const id = pg ? ('serial' as const) : ('integer' as const);

  await db.schema.alterTable('clients').addColumn('invoice_email', 'text').execute();
  await db.schema
    .alterTable('clients')
    .addColumn('einvoice_format', 'text', (c) => c.notNull().defaultTo('zugferd'))
    .execute();

  await db.schema
    .createTable('mail_messages')
    .addColumn('id', id, (c) => (pg ? c.primaryKey() : c.primaryKey().autoIncrement()))
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    // outgoing_invoice | offer, and the document's id (no foreign key: either table).
    .addColumn('document_type', 'text', (c) => c.notNull())
    .addColumn('document_id', 'integer', (c) => c.notNull())
    // queued | sent | failed
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('queued'))
    .addColumn('from_address', 'text', (c) => c.notNull())
    .addColumn('reply_to', 'text')
    // JSON arrays of addresses.
    .addColumn('to_addresses', 'text', (c) => c.notNull())
    .addColumn('cc_addresses', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('bcc_addresses', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('text_body', 'text', (c) => c.notNull())
    .addColumn('html_body', 'text', (c) => c.notNull())
    .addColumn('language', 'text', (c) => c.notNull())
    // JSON: [{ name, content_type, size, sha256 }], in attachment order.
    .addColumn('attachments', 'text', (c) => c.notNull().defaultTo('[]'))
    // The Message-ID header, fixed when queued: the same on every attempt.
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    // The relay's last answer ("250 2.0.0 Ok: queued as …", "550 5.1.1 …") and its code.
    .addColumn('smtp_response', 'text')
    .addColumn('smtp_code', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('next_attempt_at', ts)
    .addColumn('sent_at', ts)
    .addColumn('failed_at', ts)
    .addColumn('integration_id', 'integer')
    .addColumn('created_at', ts, (c) => c.notNull().defaultTo(now))
    .addColumn('updated_at', ts, (c) => c.notNull().defaultTo(now))
    .execute();
  await db.schema
    .createIndex('mail_messages_document_idx')
    .on('mail_messages')
    .columns(['account_id', 'document_type', 'document_id', 'id'])
    .execute();

  await db.schema
    .createTable('mail_attachments')
    .addColumn('id', id, (c) => (pg ? c.primaryKey() : c.primaryKey().autoIncrement()))
    .addColumn('mail_message_id', 'integer', (c) =>
      c.notNull().references('mail_messages.id').onDelete('cascade'),
    )
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('filename', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('data', pg ? 'bytea' : 'blob', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('mail_attachments_message_idx')
    .on('mail_attachments')
    .columns(['mail_message_id', 'position'])
    .execute();

  await db.schema
    .createTable('mail_jobs')
    .addColumn('mail_message_id', 'integer', (c) =>
      c.primaryKey().references('mail_messages.id').onDelete('cascade'),
    )
    .addColumn('next_attempt_at', ts, (c) => c.notNull())
    // A claim: a worker holds the job until then (renewed while it sends).
    .addColumn('lease_until', ts)
    .addColumn('lease_token', 'text')
    .execute();
  await db.schema
    .createIndex('mail_jobs_due_idx')
    .on('mail_jobs')
    .columns(['next_attempt_at', 'mail_message_id'])
    .execute();

  // The change feed (as 2026_11_23_300 and, on PostgreSQL, 2026_11_28_100 write it).
  if (pg) {
    const insert = (r: 'NEW' | 'OLD', action: string) =>
      `INSERT INTO change_log (account_id, resource, resource_id, action, integration_id) VALUES (${r}.account_id, 'mail_message', ${r}.id, ${action}, NULL);`;
    await sql
      .raw(
        `CREATE FUNCTION trg_change_mail_messages() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF TG_OP = 'DELETE' THEN ${insert('OLD', `'deleted'`)}
          ELSE ${insert('NEW', `'updated'`)}
          END IF;
          RETURN NULL;
        END $$`,
      )
      .execute(db);
    await sql
      .raw(
        `CREATE FUNCTION trg_change_mail_messages_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          INSERT INTO change_log (account_id, resource, resource_id, action, integration_id)
            SELECT account_id, 'mail_message', id, 'created', NULL FROM new_rows ORDER BY id;
          RETURN NULL;
        END $$`,
      )
      .execute(db);
    await sql
      .raw(
        'CREATE TRIGGER trg_change_mail_messages AFTER UPDATE OR DELETE ON mail_messages FOR EACH ROW EXECUTE FUNCTION trg_change_mail_messages()',
      )
      .execute(db);
    await sql
      .raw(
        'CREATE TRIGGER trg_change_mail_messages_inserted AFTER INSERT ON mail_messages REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION trg_change_mail_messages_inserted()',
      )
      .execute(db);
    return;
  }
  const NOW = `strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`;
  const row = (r: 'NEW' | 'OLD', action: string) =>
    `INSERT INTO change_log (account_id, resource, resource_id, action, integration_id, changed_at) VALUES (${r}.account_id, 'mail_message', ${r}.id, '${action}', NULL, ${NOW});`;
  for (const [suffix, event, r, action] of [
    ['ins', 'INSERT', 'NEW', 'created'],
    ['upd', 'UPDATE', 'NEW', 'updated'],
    ['del', 'DELETE', 'OLD', 'deleted'],
  ] as const) {
    await sql
      .raw(
        `CREATE TRIGGER trg_change_mail_messages_${suffix} AFTER ${event} ON mail_messages BEGIN ${row(r, action)} END`,
      )
      .execute(db);
  }
}

export async function down(db: AnyDb): Promise<void> {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  if (pg) {
    await sql`DROP TRIGGER IF EXISTS trg_change_mail_messages_inserted ON mail_messages`.execute(db);
    await sql`DROP TRIGGER IF EXISTS trg_change_mail_messages ON mail_messages`.execute(db);
    await sql`DROP FUNCTION IF EXISTS trg_change_mail_messages_inserted()`.execute(db);
    await sql`DROP FUNCTION IF EXISTS trg_change_mail_messages()`.execute(db);
  } else {
    for (const suffix of ['ins', 'upd', 'del'])
      await sql.raw(`DROP TRIGGER IF EXISTS trg_change_mail_messages_${suffix}`).execute(db);
  }
  await db.schema.dropTable('mail_jobs').execute();
  await db.schema.dropTable('mail_attachments').execute();
  await db.schema.dropTable('mail_messages').execute();
  await db.schema.alterTable('clients').dropColumn('einvoice_format').execute();
  await db.schema.alterTable('clients').dropColumn('invoice_email').execute();
}

import { type Kysely, PostgresAdapter, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations work on the untyped schema
type AnyDb = Kysely<any>;

// Mailbox intake (issue 42, item 3): IMAP mailboxes an account connects (the password
// encrypted with SECRET_KEY), polled by workers that lease a mailbox in the database; the
// messages taken (one row per message id, so a message is never taken twice), a log per
// mailbox, and where an incoming document came from.
export async function up(db: AnyDb): Promise<void> {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  const ts = pg ? 'timestamptz' : 'text';
  const now = pg ? sql`now()` : sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`;
  const id = (t: string) =>
    pg
      ? db.schema.createTable(t).addColumn('id', 'serial', (c) => c.primaryKey())
      : db.schema.createTable(t).addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());

  await id('incoming_mailboxes')
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('host', 'text', (c) => c.notNull())
    .addColumn('port', 'integer', (c) => c.notNull())
    .addColumn('tls', 'integer', (c) => c.notNull())
    .addColumn('username', 'text', (c) => c.notNull())
    .addColumn('password_enc', 'text', (c) => c.notNull())
    .addColumn('folder', 'text', (c) => c.notNull())
    // JSON array of addresses and domains; empty: every sender.
    .addColumn('allowed_senders', 'text', (c) => c.notNull())
    // flag (\Seen) or move (to processed_folder)
    .addColumn('processed_action', 'text', (c) => c.notNull())
    .addColumn('processed_folder', 'text')
    .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
    // The user whose documents the intake creates (files are theirs).
    .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('integration_id', 'integer')
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('new'))
    .addColumn('last_error', 'text')
    .addColumn('failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_polled_at', ts)
    .addColumn('next_poll_at', ts, (c) => c.notNull().defaultTo(now))
    .addColumn('lease_until', ts)
    .addColumn('lease_token', 'text')
    .addColumn('created_at', ts, (c) => c.notNull().defaultTo(now))
    .addColumn('updated_at', ts, (c) => c.notNull().defaultTo(now))
    .execute();
  await db.schema
    .createIndex('incoming_mailboxes_account_idx')
    .on('incoming_mailboxes')
    .columns(['account_id', 'id'])
    .execute();
  await db.schema
    .createIndex('incoming_mailboxes_due_idx')
    .on('incoming_mailboxes')
    .columns(['active', 'next_poll_at'])
    .execute();

  await id('incoming_mailbox_messages')
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('mailbox_id', 'integer', (c) =>
      c.notNull().references('incoming_mailboxes.id').onDelete('cascade'),
    )
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('sender', 'text')
    .addColumn('subject', 'text')
    .addColumn('documents', 'integer', (c) => c.notNull())
    .addColumn('created_at', ts, (c) => c.notNull().defaultTo(now))
    .addUniqueConstraint('incoming_mailbox_messages_key', ['mailbox_id', 'message_id'])
    .execute();

  await id('incoming_mailbox_log')
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('mailbox_id', 'integer', (c) =>
      c.notNull().references('incoming_mailboxes.id').onDelete('cascade'),
    )
    // document, duplicate, skipped, error
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('message_id', 'text')
    .addColumn('sender', 'text')
    .addColumn('subject', 'text')
    .addColumn('filename', 'text')
    .addColumn('incoming_invoice_id', 'integer')
    .addColumn('detail', 'text')
    .addColumn('created_at', ts, (c) => c.notNull().defaultTo(now))
    .execute();
  await db.schema
    .createIndex('incoming_mailbox_log_mailbox_idx')
    .on('incoming_mailbox_log')
    .columns(['mailbox_id', 'id'])
    .execute();

  // Where a document came from; null for uploads through the API.
  await db.schema
    .alterTable('incoming_invoices')
    .addColumn('source_mailbox_id', 'integer', (c) =>
      c.references('incoming_mailboxes.id').onDelete('set null'),
    )
    .execute();
  await db.schema.alterTable('incoming_invoices').addColumn('source_message_id', 'text').execute();
  await db.schema.alterTable('incoming_invoices').addColumn('source_sender', 'text').execute();
  await db.schema.alterTable('incoming_invoices').addColumn('source_subject', 'text').execute();
}

export async function down(db: AnyDb): Promise<void> {
  for (const c of ['source_subject', 'source_sender', 'source_message_id', 'source_mailbox_id'])
    await db.schema.alterTable('incoming_invoices').dropColumn(c).execute();
  await db.schema.dropTable('incoming_mailbox_log').execute();
  await db.schema.dropTable('incoming_mailbox_messages').execute();
  await db.schema.dropTable('incoming_mailboxes').execute();
}

import { type Kysely, PostgresAdapter, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations work on the untyped schema
type AnyDb = Kysely<any>;

/**
 * The account's own texts of the e-mails that carry its documents (issue 38): one subject and
 * body per language and kind of document; a missing row means the built-in text. Part of the
 * company profile (`/account/profile/mail-templates`). Self-contained.
 */
export async function up(db: AnyDb): Promise<void> {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .createTable('mail_templates')
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    // de | en
    .addColumn('language', 'text', (c) => c.notNull())
    // invoice | credit
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('updated_at', pg ? 'timestamptz' : 'text', (c) =>
      c.notNull().defaultTo(pg ? sql`now()` : sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`),
    )
    .addPrimaryKeyConstraint('mail_templates_pk', ['account_id', 'language', 'kind'])
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable('mail_templates').execute();
}

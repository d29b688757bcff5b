import { type Kysely, PostgresAdapter, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations work on the untyped schema
type AnyDb = Kysely<any>;

// Users sign in (issue 12): passwords, one-time invitation links, server-side browser
// sessions and failed sign-ins for throttling. All in the database, so that every process of
// one service sees the same sessions and counts. Secrets (session ids, invitation tokens) are
// stored as SHA-256 hashes only. Self-contained: column types copied, no kit import.
export async function up(db: AnyDb): Promise<void> {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  const ts = pg ? 'timestamptz' : 'text';
  const now = pg ? sql`now()` : sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`;
  const id = pg ? 'serial' : 'integer';

  // A table of its own rather than a users column: the auth epoch triggers watch users
  // (migration 700), and a password change must not throw every process's token cache away.
  await db.schema
    .createTable('user_passwords')
    .addColumn('user_id', 'integer', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('updated_at', ts, (c) => c.notNull().defaultTo(now))
    .execute();

  await db.schema
    .createTable('user_invites')
    .addColumn('id', id, (c) => (pg ? c.primaryKey() : c.primaryKey().autoIncrement()))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('expires_at', ts, (c) => c.notNull())
    .addColumn('used_at', ts)
    .addColumn('created_at', ts, (c) => c.notNull().defaultTo(now))
    .execute();
  await db.schema.createIndex('user_invites_user_idx').on('user_invites').column('user_id').execute();

  await db.schema
    .createTable('web_sessions')
    .addColumn('id_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('last_seen_at', ts, (c) => c.notNull())
    .addColumn('expires_at', ts, (c) => c.notNull())
    .addColumn('ip', 'text')
    .addColumn('user_agent', 'text')
    .execute();
  await db.schema.createIndex('web_sessions_user_idx').on('web_sessions').column('user_id').execute();
  await db.schema.createIndex('web_sessions_expires_idx').on('web_sessions').column('expires_at').execute();

  // One row per failed sign-in: counted per e-mail and per client address over a window.
  await db.schema
    .createTable('signin_failures')
    .addColumn('id', id, (c) => (pg ? c.primaryKey() : c.primaryKey().autoIncrement()))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('ip', 'text', (c) => c.notNull())
    .addColumn('at', ts, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('signin_failures_email_idx')
    .on('signin_failures')
    .columns(['email', 'at'])
    .execute();
  await db.schema.createIndex('signin_failures_ip_idx').on('signin_failures').columns(['ip', 'at']).execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable('signin_failures').execute();
  await db.schema.dropTable('web_sessions').execute();
  await db.schema.dropTable('user_invites').execute();
  await db.schema.dropTable('user_passwords').execute();
}

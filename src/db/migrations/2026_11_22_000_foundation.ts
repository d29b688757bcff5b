import { type CreateTableBuilder, type Kysely, PostgresAdapter, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations work on the untyped schema
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  const k = kit(db);

  await k
    .id(db.schema.createTable('accounts'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull().defaultTo('EUR'))
    .addColumn('country_code', 'text')
    .addColumn('settings', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('created_at', k.ts, (c) => c.notNull().defaultTo(k.now))
    .execute();

  await k
    .id(db.schema.createTable('users'))
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('first_name', 'text', (c) => c.notNull())
    .addColumn('last_name', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull().defaultTo('member'))
    .addColumn('position', 'text')
    .addColumn('phone', 'text')
    .addColumn('language', 'text', (c) => c.notNull().defaultTo('en'))
    .addColumn('timezone', 'text', (c) => c.notNull().defaultTo('UTC'))
    .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', k.ts, (c) => c.notNull().defaultTo(k.now))
    .addColumn('updated_at', k.ts, (c) => c.notNull().defaultTo(k.now))
    .addUniqueConstraint('users_account_email_uq', ['account_id', 'email'])
    .execute();

  await k
    .id(db.schema.createTable('user_groups'))
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('created_at', k.ts, (c) => c.notNull().defaultTo(k.now))
    .addColumn('updated_at', k.ts, (c) => c.notNull().defaultTo(k.now))
    .execute();
  await db.schema
    .createIndex('user_groups_account_idx')
    .on('user_groups')
    .columns(['account_id', 'id'])
    .execute();

  await db.schema
    .createTable('user_group_members')
    .addColumn('user_group_id', 'integer', (c) =>
      c.notNull().references('user_groups.id').onDelete('cascade'),
    )
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('user_group_members_pk', ['user_group_id', 'user_id'])
    .execute();

  await k
    .id(db.schema.createTable('integrations'))
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull().unique())
    .addColumn('client_secret_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', k.ts, (c) => c.notNull().defaultTo(k.now))
    .addColumn('revoked_at', k.ts)
    .execute();

  await k
    .id(db.schema.createTable('access_tokens'))
    .addColumn('integration_id', 'integer', (c) =>
      c.notNull().references('integrations.id').onDelete('cascade'),
    )
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('expires_at', k.ts)
    .addColumn('revoked_at', k.ts)
    .addColumn('created_at', k.ts, (c) => c.notNull().defaultTo(k.now))
    .execute();

  await k
    .id(db.schema.createTable('clients'))
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('shortcode', 'text')
    .addColumn('external_id', 'text')
    .addColumn('email', 'text')
    .addColumn('phone', 'text')
    .addColumn('website', 'text')
    .addColumn('street', 'text')
    .addColumn('zip', 'text')
    .addColumn('city', 'text')
    .addColumn('country_code', 'text')
    .addColumn('vat_id', 'text')
    .addColumn('tax_number', 'text')
    .addColumn('language', 'text')
    .addColumn('currency', 'text')
    .addColumn('payment_term_days', 'integer')
    .addColumn('notes', 'text')
    .addColumn('archived_at', k.ts)
    .addColumn('created_at', k.ts, (c) => c.notNull().defaultTo(k.now))
    .addColumn('updated_at', k.ts, (c) => c.notNull().defaultTo(k.now))
    .addUniqueConstraint('clients_account_shortcode_uq', ['account_id', 'shortcode'])
    .addUniqueConstraint('clients_account_external_id_uq', ['account_id', 'external_id'])
    .execute();
  await db.schema.createIndex('clients_account_idx').on('clients').columns(['account_id', 'id']).execute();

  await k
    .id(db.schema.createTable('idempotency_keys'))
    .addColumn('integration_id', 'integer', (c) =>
      c.notNull().references('integrations.id').onDelete('cascade'),
    )
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('response_headers', 'text')
    .addColumn('created_at', k.ts, (c) => c.notNull())
    .addUniqueConstraint('idempotency_keys_uq', ['integration_id', 'key'])
    .execute();
  await db.schema
    .createIndex('idempotency_keys_created_idx')
    .on('idempotency_keys')
    .column('created_at')
    .execute();

  // The outbox: every webhook event kind is written here in the transaction of its change.
  await k
    .id(db.schema.createTable('events'))
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('resource_type', 'text', (c) => c.notNull())
    .addColumn('resource_id', 'integer', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('integration_id', 'integer')
    .addColumn('occurred_at', k.ts, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('events_account_idx').on('events').columns(['account_id', 'id']).execute();
}

export async function down(db: AnyDb): Promise<void> {
  for (const t of [
    'events',
    'idempotency_keys',
    'clients',
    'access_tokens',
    'integrations',
    'user_group_members',
    'user_groups',
    'users',
    'accounts',
  ]) {
    await db.schema.dropTable(t).execute();
  }
}

// What this migration uses of the former shared kit (src/db/migration-kit.ts), copied in as
// it was when the migration landed: a migration imports nothing that can change after it ran.
function kit(db: AnyDb) {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  return {
    /** `id` primary key column. */
    id<T extends string>(t: CreateTableBuilder<T, never>) {
      return pg
        ? t.addColumn('id', 'serial', (c) => c.primaryKey())
        : t.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
    },
    ts: (pg ? 'timestamptz' : 'text') as 'text',
    /** Default for a timestamp column: now, in the format the application reads. */
    now: pg ? sql`now()` : sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`,
  };
}

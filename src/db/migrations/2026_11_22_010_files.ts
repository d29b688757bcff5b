import { type CreateTableBuilder, type Kysely, PostgresAdapter, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations work on the untyped schema
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  const k = kit(db);
  await k
    .id(db.schema.createTable('files'))
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('md5', 'text', (c) => c.notNull())
    .addColumn('owner_type', 'text')
    .addColumn('owner_id', 'integer')
    .addColumn('uploaded_by_user_id', 'integer')
    .addColumn('created_at', k.ts, (c) => c.notNull().defaultTo(k.now))
    .execute();
  await db.schema
    .createIndex('files_owner_idx')
    .on('files')
    .columns(['account_id', 'owner_type', 'owner_id'])
    .execute();
  await db.schema.createIndex('files_md5_idx').on('files').columns(['account_id', 'md5']).execute();
  // Bytes live in the database so that every server process sees every file.
  await db.schema
    .createTable('file_blobs')
    .addColumn('file_id', 'integer', (c) => c.primaryKey().references('files.id').onDelete('cascade'))
    .addColumn('data', k.pg ? 'bytea' : 'blob', (c) => c.notNull())
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable('file_blobs').execute();
  await db.schema.dropTable('files').execute();
}

// What this migration uses of the former shared kit (src/db/migration-kit.ts), copied in as
// it was when the migration landed: a migration imports nothing that can change after it ran.
function kit(db: AnyDb) {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  return {
    pg,
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

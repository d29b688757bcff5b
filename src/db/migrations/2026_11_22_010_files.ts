import { type AnyDb, kit } from '../migration-kit.js';

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

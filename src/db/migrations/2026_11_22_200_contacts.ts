import { type CreateTableBuilder, type Kysely, PostgresAdapter, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations work on the untyped schema
type AnyDb = Kysely<any>;

/**
 * Companies and contacts. Search (`?q=`) is a case-insensitive substring match that must stay
 * fast on large tables, so each row carries its searchable text already case-folded by the
 * application (`search_*` columns; folding in JS is Unicode-aware on both databases, SQLite's
 * lower() is ASCII-only) and that text gets a substring index: pg_trgm GIN on PostgreSQL, an
 * FTS5 trigram table kept in sync by triggers on SQLite.
 */
export async function up(db: AnyDb): Promise<void> {
  const k = kit(db);

  await k
    .id(db.schema.createTable('companies'))
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
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
    .addColumn('notes', 'text')
    .addColumn('custom_fields', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('search_name', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('search_text', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('archived_at', k.ts)
    .addColumn('created_at', k.ts, (c) => c.notNull().defaultTo(k.now))
    .addColumn('updated_at', k.ts, (c) => c.notNull().defaultTo(k.now))
    .addUniqueConstraint('companies_account_external_id_uq', ['account_id', 'external_id'])
    .execute();
  await db.schema
    .createIndex('companies_account_idx')
    .on('companies')
    .columns(['account_id', 'id'])
    .execute();

  await k
    .id(db.schema.createTable('contacts'))
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('company_id', 'integer', (c) => c.references('companies.id').onDelete('set null'))
    .addColumn('external_id', 'text')
    .addColumn('salutation', 'text')
    .addColumn('title', 'text')
    .addColumn('first_name', 'text')
    .addColumn('last_name', 'text', (c) => c.notNull())
    .addColumn('email', 'text')
    .addColumn('phone', 'text')
    .addColumn('mobile', 'text')
    .addColumn('position', 'text')
    .addColumn('department', 'text')
    .addColumn('street', 'text')
    .addColumn('zip', 'text')
    .addColumn('city', 'text')
    .addColumn('country_code', 'text')
    .addColumn('notes', 'text')
    .addColumn('custom_fields', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('search_text', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('archived_at', k.ts)
    .addColumn('created_at', k.ts, (c) => c.notNull().defaultTo(k.now))
    .addColumn('updated_at', k.ts, (c) => c.notNull().defaultTo(k.now))
    .addUniqueConstraint('contacts_account_external_id_uq', ['account_id', 'external_id'])
    .execute();
  await db.schema.createIndex('contacts_account_idx').on('contacts').columns(['account_id', 'id']).execute();
  await db.schema.createIndex('contacts_company_idx').on('contacts').column('company_id').execute();

  if (k.pg) await postgresSearchIndexes(db);
  else await sqliteSearchIndexes(db);
}

async function postgresSearchIndexes(db: AnyDb): Promise<void> {
  // The extension is database-wide: install it once, into `public` (not the migrating schema,
  // which may be dropped), serialised so that parallel migrations of several schemas do not
  // race on CREATE EXTENSION. Without the privilege to install it, search still works, only
  // without an index: a savepoint keeps the failed attempt from aborting the migration.
  await sql`select pg_advisory_xact_lock(727100200)`.execute(db);
  await sql`savepoint pg_trgm_install`.execute(db);
  try {
    await sql`create extension if not exists pg_trgm with schema public`.execute(db);
    await sql`release savepoint pg_trgm_install`.execute(db);
  } catch {
    await sql`rollback to savepoint pg_trgm_install`.execute(db);
  }
  const ext = await sql<{ schema: string }>`
    select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace
    where e.extname = 'pg_trgm'`.execute(db);
  const schema = ext.rows[0]?.schema;
  if (!schema) return;
  const ops = sql.raw(`${JSON.stringify(schema)}.gin_trgm_ops`);
  await sql`create index contacts_search_trgm on contacts using gin (search_text ${ops})`.execute(db);
  await sql`create index companies_search_text_trgm on companies using gin (search_text ${ops})`.execute(db);
  await sql`create index companies_search_name_trgm on companies using gin (search_name ${ops})`.execute(db);
}

async function sqliteSearchIndexes(db: AnyDb): Promise<void> {
  // External-content FTS5 tables: the index only, the text stays in the base table.
  // case_sensitive 1 because the text is folded already; it lets GLOB use the index.
  const fts = async (table: string, columns: string[]) => {
    const cols = columns.join(', ');
    const newVals = columns.map((c) => `new.${c}`).join(', ');
    const oldVals = columns.map((c) => `old.${c}`).join(', ');
    const del = `insert into ${table}_fts(${table}_fts, rowid, ${cols}) values ('delete', old.id, ${oldVals});`;
    const ins = `insert into ${table}_fts(rowid, ${cols}) values (new.id, ${newVals});`;
    await sql
      .raw(
        `create virtual table ${table}_fts using fts5(${cols}, content='${table}', content_rowid='id', tokenize='trigram case_sensitive 1')`,
      )
      .execute(db);
    await sql.raw(`create trigger ${table}_fts_ai after insert on ${table} begin ${ins} end`).execute(db);
    await sql.raw(`create trigger ${table}_fts_ad after delete on ${table} begin ${del} end`).execute(db);
    await sql
      .raw(`create trigger ${table}_fts_au after update of ${cols} on ${table} begin ${del} ${ins} end`)
      .execute(db);
  };
  await fts('companies', ['search_name', 'search_text']);
  await fts('contacts', ['search_text']);
}

export async function down(db: AnyDb): Promise<void> {
  if (!kit(db).pg) {
    for (const t of ['contacts_fts', 'companies_fts']) await sql.raw(`drop table if exists ${t}`).execute(db);
  }
  await db.schema.dropTable('contacts').execute();
  await db.schema.dropTable('companies').execute();
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

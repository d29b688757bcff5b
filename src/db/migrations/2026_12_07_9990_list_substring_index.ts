import { type Kysely, PostgresAdapter, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations work on the untyped schema
type AnyDb = Kysely<any>;

/**
 * A substring index behind the `q=` of the clients, projects, tasks and suppliers lists
 * (`fold(column) like '%term%'`, src/shared/search.ts), which scanned every row of the account:
 * 31 ms at 10,000 clients, 1.05 s at 1,000,000. The meaning stays the same.
 * - SQLite: a contentless FTS5 table `<table>_trgm` (trigram tokenizer, case-sensitive) holding
 *   `fold()` of each searched column, written by triggers in the writing transaction. A phrase
 *   of trigrams matches exactly the values that contain the term. `contentless_delete` lets the
 *   triggers delete by rowid, so removing a row does not depend on folding its old text as it
 *   was folded when indexed. `fold` is the function every connection of the service registers.
 * - PostgreSQL: pg_trgm GIN indexes on `fold(column)`, which the LIKE on that expression uses.
 *   Without the privilege to install pg_trgm the lists search as before, without an index.
 */
const SEARCHED: [table: string, columns: string[]][] = [
  ['clients', ['name', 'shortcode', 'email']],
  ['projects', ['name', 'identifier']],
  ['tasks', ['name']],
  ['suppliers', ['name', 'vat_id', 'email', 'external_id']],
];

export async function up(db: AnyDb): Promise<void> {
  const run = (s: string) => sql.raw(s).execute(db);
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    // As migration 2026_11_22_200: once per server, into `public`, serialised, and a failed
    // attempt must not abort the migration.
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
    const ops = `${JSON.stringify(schema)}.gin_trgm_ops`;
    for (const [table, columns] of SEARCHED)
      for (const c of columns)
        await run(`create index ${table}_${c}_trgm on ${table} using gin (fold(${c}) ${ops})`);
    return;
  }
  for (const [table, columns] of SEARCHED) {
    const cols = columns.join(', ');
    const values = (row: string) => columns.map((c) => `fold(${row}.${c})`).join(', ');
    const insert = `insert into ${table}_trgm (rowid, ${cols}) values (new.id, ${values('new')});`;
    const remove = `delete from ${table}_trgm where rowid = old.id;`;
    await run(`create virtual table ${table}_trgm using fts5(${cols}, content='', contentless_delete=1,
      tokenize='trigram case_sensitive 1')`);
    await run(`create trigger ${table}_trgm_ai after insert on ${table} begin ${insert} end`);
    await run(`create trigger ${table}_trgm_ad after delete on ${table} begin ${remove} end`);
    await run(
      `create trigger ${table}_trgm_au after update of ${cols} on ${table} begin ${remove} ${insert} end`,
    );
    await run(`insert into ${table}_trgm (rowid, ${cols}) select id, ${values(table)} from ${table}`);
  }
}

export async function down(db: AnyDb): Promise<void> {
  const run = (s: string) => sql.raw(s).execute(db);
  for (const [table, columns] of SEARCHED) {
    if (db.getExecutor().adapter instanceof PostgresAdapter) {
      for (const c of columns) await run(`drop index if exists ${table}_${c}_trgm`);
      continue;
    }
    for (const t of ['ai', 'ad', 'au']) await run(`drop trigger if exists ${table}_trgm_${t}`);
    await run(`drop table if exists ${table}_trgm`);
  }
}

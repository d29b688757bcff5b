import { type Kysely, PostgresAdapter, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations work on the untyped schema
type AnyDb = Kysely<any>;

/**
 * A version per table for the page cache (issue 44 point 2): a kept page is sent again while
 * the tables its answer reads are unchanged, so a write to tasks no longer makes the clients
 * list stale. `table_versions` holds a counter per table, bumped by triggers inside the
 * writing transaction, so a version read in one snapshot and the rows read in it agree, on
 * any number of processes and machines.
 *
 * PostgreSQL: one statement-level trigger per table and event kind; the counter is split into
 * shards, as the list counts are (2026_11_24_100): a transaction bumps a shard no other running
 * transaction holds (an advisory lock per table and shard, taken without waiting), so
 * concurrent writers of one table never wait for each other; the version is the sum of the
 * shards, which grows with every commit that wrote the table. SQLite: row triggers, one shard.
 *
 * The tables are those the cached routes read (see `pageCache` in src/plugins/page-cache.ts
 * and test/page-cache-tables.test.ts). Self-contained: the list is copied here.
 */
const TABLES = [
  'clients',
  'companies',
  'contacts',
  'dunning_letters',
  'efforts',
  'files',
  'offer_items',
  'offers',
  'outgoing_invoice_items',
  'outgoing_invoices',
  'payments',
  'portfolios',
  'project_group_projects',
  'project_members',
  'projects',
  'tasks',
];
const SHARDS = 16;
/** The first key of the advisory locks: list counts use account ids (positive) there. */
const LOCK_SPACE = -44;

export async function up(db: AnyDb): Promise<void> {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .createTable('table_versions')
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('shard', 'integer', (c) => c.notNull())
    .addColumn('version', pg ? 'bigint' : 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('table_versions_pk', ['name', 'shard'])
    .execute();
  const shards = pg ? SHARDS : 1;
  for (const name of TABLES)
    for (let shard = 0; shard < shards; shard++)
      await db.insertInto('table_versions').values({ name, shard, version: 0 }).execute();
  if (pg) {
    await sql
      .raw(`CREATE FUNCTION table_version_bump() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  s integer := pg_backend_pid() % ${SHARDS};
BEGIN
  -- The first shard from the session's own that no other running transaction bumps (this
  -- transaction's own lock is taken again at once). All taken: wait for the last tried.
  FOR i IN 1..${SHARDS} LOOP
    EXIT WHEN pg_try_advisory_xact_lock(${LOCK_SPACE}, hashtext(TG_TABLE_NAME) # s);
    s := (s + 1) % ${SHARDS};
  END LOOP;
  UPDATE table_versions SET version = version + 1 WHERE name = TG_TABLE_NAME AND shard = s;
  RETURN NULL;
END $$`)
      .execute(db);
    for (const name of TABLES) {
      await sql
        .raw(
          `CREATE TRIGGER trg_table_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${name} FOR EACH STATEMENT EXECUTE FUNCTION table_version_bump()`,
        )
        .execute(db);
    }
    return;
  }
  for (const name of TABLES)
    for (const event of ['insert', 'update', 'delete'])
      await sql
        .raw(
          `CREATE TRIGGER trg_table_version_${event}_${name} AFTER ${event.toUpperCase()} ON ${name} BEGIN UPDATE table_versions SET version = version + 1 WHERE name = '${name}'; END`,
        )
        .execute(db);
}

export async function down(db: AnyDb): Promise<void> {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  for (const name of TABLES) {
    if (pg) await sql.raw(`DROP TRIGGER IF EXISTS trg_table_version ON ${name}`).execute(db);
    else
      for (const event of ['insert', 'update', 'delete'])
        await sql.raw(`DROP TRIGGER IF EXISTS trg_table_version_${event}_${name}`).execute(db);
  }
  if (pg) await sql`DROP FUNCTION IF EXISTS table_version_bump()`.execute(db);
  await db.schema.dropTable('table_versions').execute();
}

import { type Kysely, PostgresAdapter, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations work on the untyped schema
type AnyDb = Kysely<any>;

// A counter that moves whenever anything a token check reads may have changed (a token, its
// integration, its user, the account). A process may keep verified tokens in memory as long
// as the counter has not moved: one indexed read of one row per request tells it, and the
// check stays exact across processes (the CLI revoking a token, another server process).
// New rows need no bump: only tokens already found valid are kept.
const WATCHED: Array<[table: string, events: string]> = [
  ['access_tokens', 'UPDATE OR DELETE'],
  ['integrations', 'UPDATE OR DELETE'],
  ['users', 'UPDATE OF active, account_id OR DELETE'],
  ['accounts', 'DELETE'],
];

// SQLite triggers take one event each: one trigger per (table, event).
const sqliteTriggers = () =>
  WATCHED.flatMap(([table, events]) =>
    events.split(' OR ').map((event) => ({
      table,
      event,
      name: `${table}_auth_epoch_${event.split(' ')[0]!.toLowerCase()}`,
    })),
  );

export async function up(db: AnyDb): Promise<void> {
  const k = kit(db);
  await db.schema
    .createTable('auth_epoch')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('value', 'bigint', (c) => c.notNull())
    .execute();
  await db.insertInto('auth_epoch').values({ id: 1, value: 0 }).execute();

  if (k.pg) {
    await sql`
      CREATE FUNCTION bump_auth_epoch() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE auth_epoch SET value = value + 1 WHERE id = 1;
        RETURN NULL;
      END
      $$`.execute(db);
    for (const [table, events] of WATCHED) {
      await sql
        .raw(
          `CREATE TRIGGER ${table}_auth_epoch AFTER ${events} ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION bump_auth_epoch()`,
        )
        .execute(db);
    }
  } else {
    for (const { table, event, name } of sqliteTriggers()) {
      await sql
        .raw(
          `CREATE TRIGGER ${name} AFTER ${event} ON ${table} BEGIN UPDATE auth_epoch SET value = value + 1 WHERE id = 1; END`,
        )
        .execute(db);
    }
  }
}

export async function down(db: AnyDb): Promise<void> {
  const k = kit(db);
  if (k.pg)
    for (const [table] of WATCHED)
      await sql.raw(`DROP TRIGGER IF EXISTS ${table}_auth_epoch ON ${table}`).execute(db);
  else for (const { name } of sqliteTriggers()) await sql.raw(`DROP TRIGGER IF EXISTS ${name}`).execute(db);
  if (k.pg) await sql`DROP FUNCTION IF EXISTS bump_auth_epoch()`.execute(db);
  await db.schema.dropTable('auth_epoch').execute();
}

// What this migration uses of the former shared kit (src/db/migration-kit.ts), copied in as
// it was when the migration landed: a migration imports nothing that can change after it ran.
function kit(db: AnyDb) {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  return {
    pg,
  };
}

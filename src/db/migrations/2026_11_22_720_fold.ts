import { type Kysely, PostgresAdapter, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations work on the untyped schema
type AnyDb = Kysely<any>;

// `fold(text)`: text as searches compare it (NFC, lower case beyond ASCII). SQLite gets it as
// a function registered on each connection; PostgreSQL keeps it in the database. lower()
// follows the database's LC_CTYPE: a UTF-8 locale (the default, e.g. C.UTF-8) folds all
// letters, plain "C" only ASCII.
export async function up(db: AnyDb): Promise<void> {
  if (!kit(db).pg) return;
  await sql`
    CREATE FUNCTION fold(text) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS $$ SELECT lower(normalize($1, NFC)) $$`.execute(db);
}

export async function down(db: AnyDb): Promise<void> {
  if (kit(db).pg) await sql`DROP FUNCTION IF EXISTS fold(text)`.execute(db);
}

// What this migration uses of the former shared kit (src/db/migration-kit.ts), copied in as
// it was when the migration landed: a migration imports nothing that can change after it ran.
function kit(db: AnyDb) {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  return {
    pg,
  };
}

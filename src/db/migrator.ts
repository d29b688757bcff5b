import { readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type Migration, type MigrationProvider, Migrator, PostgresAdapter, sql } from 'kysely';
import { type Db, SERVICE_TEMP_STORE } from './index.js';
import { assertWritable, cannotWrite, notWritable } from './writable.js';

const migrationsDir = join(dirname(fileURLToPath(import.meta.url)), 'migrations');

/** Every file in migrations/ is a migration; their names sort in the order they apply. */
const migrationFiles = async () =>
  (await readdir(migrationsDir)).filter((f) => /\.(ts|js)$/.test(f) && !f.endsWith('.d.ts')).sort();
const migrationName = (file: string) => file.replace(/\.(ts|js)$/, '');

/** The names of the migrations this code brings, as recorded in `kysely_migration` once applied. */
export const migrationNames = async (): Promise<string[]> => (await migrationFiles()).map(migrationName);

class DirectoryProvider implements MigrationProvider {
  async getMigrations(): Promise<Record<string, Migration>> {
    const out: Record<string, Migration> = {};
    for (const f of await migrationFiles())
      out[migrationName(f)] = await import(pathToFileURL(join(migrationsDir, f)).href);
    return out;
  }
}

export async function migrateToLatest(db: Db): Promise<void> {
  // Kysely looks for its bookkeeping tables in every schema of a PostgreSQL database; name the
  // current one, or a database whose other schemas hold such tables would not be migrated.
  let migrationTableSchema: string | undefined;
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  if (postgres) {
    const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
    migrationTableSchema = rows[0]?.schema;
  }
  const migrator = new Migrator({
    db,
    provider: new DirectoryProvider(),
    // Applied strictly in name order: a new migration must sort after every landed one
    // (test/architecture-migrations.test.ts), so every database has run the same steps in one order.
    allowUnorderedMigrations: false,
    migrationTableSchema,
  });
  // A migration may rewrite a whole table in one statement: its statement journal is then as
  // large as the table, so it goes to a temporary file as SQLite's default has it, not to
  // memory as the service keeps it (db/index.ts, SERVICE_TEMP_STORE).
  if (!postgres) await sql`pragma temp_store = file`.execute(db);
  const { error, results } = await migrator.migrateToLatest().finally(async () => {
    if (!postgres) await sql.raw(`pragma temp_store = ${SERVICE_TEMP_STORE}`).execute(db);
  });
  const failed = results?.find((r) => r.status === 'Error');
  if (error && cannotWrite(error)) throw notWritable(db, error);
  if (error || failed) {
    throw new Error(
      `migration ${failed?.migrationName ?? ''} failed: ${error instanceof Error ? error.message : error}`,
      {
        cause: error,
      },
    );
  }
  // With nothing to migrate, nothing above wrote: a database that cannot take writes (a
  // read-only file, a user without write rights) would pass, and fail every write later.
  await assertWritable(db);
}

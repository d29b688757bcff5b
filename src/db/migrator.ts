import { readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type Migration, type MigrationProvider, Migrator, PostgresAdapter, sql } from 'kysely';
import type { Db } from './index.js';

const migrationsDir = join(dirname(fileURLToPath(import.meta.url)), 'migrations');

/** Every file in migrations/ is a migration; their names sort in the order they apply. */
class DirectoryProvider implements MigrationProvider {
  async getMigrations(): Promise<Record<string, Migration>> {
    const files = (await readdir(migrationsDir))
      .filter((f) => /\.(ts|js)$/.test(f) && !f.endsWith('.d.ts'))
      .sort();
    const out: Record<string, Migration> = {};
    for (const f of files)
      out[f.replace(/\.(ts|js)$/, '')] = await import(pathToFileURL(join(migrationsDir, f)).href);
    return out;
  }
}

export async function migrateToLatest(db: Db): Promise<void> {
  // Kysely looks for its bookkeeping tables in every schema unless told which one: name the
  // current schema, or databases that share a server (parallel tests) see each other's.
  const schema =
    db.getExecutor().adapter instanceof PostgresAdapter
      ? (await sql<{ s: string }>`select current_schema() as s`.execute(db)).rows[0]?.s
      : undefined;
  const migrator = new Migrator({
    db,
    provider: new DirectoryProvider(),
    allowUnorderedMigrations: true,
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(
      `migration ${failed?.migrationName ?? ''} failed: ${error instanceof Error ? error.message : error}`,
      {
        cause: error,
      },
    );
  }
}

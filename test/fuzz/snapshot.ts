import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { type Db, isPostgres } from '../../src/db/index.js';

/**
 * Tables a refused request may legitimately change, left out of the comparison:
 * - rate_limit_windows: every request, refused or not, counts against the caller's budget;
 * - idempotency_keys: the record of a keyed request's outcome (its own tests cover what a
 *   refused request may keep); the fuzzer sends no keys, but a replay store is not data;
 * - auth_epoch: a counter the token triggers bump to invalidate cached token checks;
 * - kept_documents: a booked document's PDF or XML, rendered and kept by its first read; that read
 *   may still be refused after it (a Range past the end is a 416 once the length is known);
 * - the migrator's bookkeeping, which no request touches.
 */
export const IGNORED_TABLES = new Set([
  'rate_limit_windows',
  'idempotency_keys',
  'auth_epoch',
  'kept_documents',
  'kysely_migration',
  'kysely_migration_lock',
]);

/** Per table: row count and a hash of its rows. */
export type Snapshot = Map<string, string>;

const tablesOf = new WeakMap<Db, string[]>();

/**
 * SQLite: the connection's count of rows ever inserted, updated or deleted (`total_changes()`,
 * triggers included) when the last snapshot began. While it stands still no row changed, so
 * that snapshot still holds and the tables need not be read again; reading them all after every
 * batch was most of the fuzz test's time. (An in-memory database has this one connection.)
 */
const lastOf = new WeakMap<Db, { changes: number; snapshot: Snapshot }>();

export async function snapshot(db: Db): Promise<Snapshot> {
  let tableNames = tablesOf.get(db);
  if (!tableNames) {
    tableNames = (await db.introspection.getTables())
      .filter((t) => !t.isView && (t.schema === undefined || t.schema === 'public'))
      .map((t) => t.name)
      .filter((t) => !IGNORED_TABLES.has(t));
    tablesOf.set(db, tableNames);
  }
  const out: Snapshot = new Map();
  if (isPostgres(db)) {
    // One round trip for every table: the rows are hashed where they are.
    const parts = tableNames.map(
      (t) =>
        `select '${t}' as t, count(*)::int as n, md5(coalesce(string_agg(x::text, '|' order by x::text), '')) as h from "${t}" x`,
    );
    const { rows } = await sql<{
      t: string;
      n: number;
      h: string;
    }>`${sql.raw(parts.join(' union all '))}`.execute(db);
    for (const r of rows) out.set(r.t, `${r.n}:${r.h}`);
    return out;
  }
  const { rows: counted } = await sql<{ n: number }>`select total_changes() as n`.execute(db);
  const changes = Number(counted[0]!.n);
  const last = lastOf.get(db);
  if (last?.changes === changes) return last.snapshot;
  for (const table of tableNames) {
    const rows = await (db as any).selectFrom(table).selectAll().execute();
    const lines = rows.map((r: unknown) => JSON.stringify(r)).sort();
    out.set(table, `${rows.length}:${createHash('sha1').update(lines.join('\n')).digest('hex')}`);
  }
  lastOf.set(db, { changes, snapshot: out });
  return out;
}

/** Tables whose rows differ between two snapshots, with their counts. */
export function changedTables(before: Snapshot, after: Snapshot): string[] {
  const out: string[] = [];
  for (const [table, sig] of after) {
    const was = before.get(table);
    if (was !== sig) out.push(`${table} (rows ${was?.split(':')[0]} -> ${sig.split(':')[0]})`);
  }
  return out;
}

import { sql } from 'kysely';
import type { Db } from './index.js';

/**
 * Fresh planner statistics after a bulk load (the import): without them PostgreSQL plans the
 * lists of a freshly filled table as a sort of every row (autovacuum catches up only later, and
 * only when it is on). SQLite's `analyze` is as cheap and as harmless.
 */
export async function refreshStatistics(db: Db): Promise<void> {
  await sql`analyze`.execute(db);
}

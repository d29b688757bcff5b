import { type Kysely, PostgresAdapter } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations work on the untyped schema
type AnyDb = Kysely<any>;

/**
 * The change feed's window (docs/changes.md): the retention job prunes `change_log` entries
 * and `events` older than CHANGE_FEED_RETENTION_DAYS. `change_log_horizons` keeps, per account,
 * the last feed position pruned, so a cursor before it answers 410 `cursor_expired` instead of
 * silently skipping what was pruned. The indexes serve the pruning (by age; events only once
 * no webhook delivery needs them).
 */
export async function up(db: AnyDb): Promise<void> {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .createTable('change_log_horizons')
    .addColumn('account_id', pg ? 'bigint' : 'integer', (c) => c.primaryKey())
    // The position (transaction id as a decimal string, row id) of the last entry pruned.
    .addColumn('xid', 'text', (c) => c.notNull())
    .addColumn('id', pg ? 'bigint' : 'integer', (c) => c.notNull())
    .addColumn('pruned_at', pg ? 'timestamptz' : 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('change_log_changed_at_idx').on('change_log').column('changed_at').execute();
  await db.schema.createIndex('events_occurred_at_idx').on('events').column('occurred_at').execute();
  await db.schema
    .createIndex('webhook_deliveries_event_idx')
    .on('webhook_deliveries')
    .column('event_id')
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropIndex('webhook_deliveries_event_idx').execute();
  await db.schema.dropIndex('events_occurred_at_idx').execute();
  await db.schema.dropIndex('change_log_changed_at_idx').execute();
  await db.schema.dropTable('change_log_horizons').execute();
}

import { type CreateTableBuilder, type Kysely, PostgresAdapter, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations work on the untyped schema
type AnyDb = Kysely<any>;

/**
 * Webhooks and their delivery queue.
 *
 * Fan-out happens in a trigger on `events`: the delivery rows of an event are written by the
 * very statement (and so the transaction) that records the event. Hence an event is queued for
 * exactly the webhooks that existed and were active when it was recorded, nothing is lost
 * between commit and fan-out, and no cursor over `events` has to cope with ids that commit
 * out of order on PostgreSQL.
 */
export async function up(db: AnyDb): Promise<void> {
  const k = kit(db);

  await k
    .id(db.schema.createTable('webhooks'))
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('integration_id', 'integer', (c) =>
      c.notNull().references('integrations.id').onDelete('cascade'),
    )
    .addColumn('url', 'text', (c) => c.notNull())
    // Space-separated event kinds (`task:created contact:update`), matched by the trigger.
    .addColumn('event_kinds', 'text', (c) => c.notNull())
    // AES-256-GCM ciphertexts of the signing secrets, never the secrets themselves.
    .addColumn('secret_enc', 'text', (c) => c.notNull())
    .addColumn('previous_secret_enc', 'text')
    .addColumn('previous_secret_expires_at', k.ts)
    .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('disabled_at', k.ts)
    .addColumn('disabled_reason', 'text')
    // Start of the current run of failed attempts; cleared by any success.
    .addColumn('failing_since', k.ts)
    .addColumn('created_at', k.ts, (c) => c.notNull().defaultTo(k.now))
    .addColumn('updated_at', k.ts, (c) => c.notNull().defaultTo(k.now))
    .execute();
  await db.schema.createIndex('webhooks_account_idx').on('webhooks').columns(['account_id', 'id']).execute();
  await db.schema
    .createIndex('webhooks_integration_idx')
    .on('webhooks')
    .columns(['integration_id', 'id'])
    .execute();

  await k
    .id(db.schema.createTable('webhook_deliveries'))
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('webhook_id', 'integer', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
    .addColumn('event_id', 'integer', (c) => c.notNull().references('events.id').onDelete('cascade'))
    // The `webhook-id` header: fixed at fan-out, identical on every retry.
    .addColumn('message_id', 'text', (c) => c.notNull())
    // pending | delivered | failed
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    // Attempts made in the current back-off schedule (a resend starts a new one).
    .addColumn('schedule_step', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', k.ts, (c) => c.notNull())
    // A claim is a lease: a worker that dies mid-attempt lets it expire and another resends.
    .addColumn('lease_until', k.ts)
    .addColumn('lease_token', 'text')
    .addColumn('last_attempt_at', k.ts)
    .addColumn('response_status', 'integer')
    .addColumn('latency_ms', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('delivered_at', k.ts)
    .addColumn('created_at', k.ts, (c) => c.notNull().defaultTo(k.now))
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_webhook_idx')
    .on('webhook_deliveries')
    .columns(['webhook_id', 'id'])
    .execute();
  // The queue proper: only pending rows, small however long the history grows.
  await db.schema
    .createIndex('webhook_deliveries_pending_idx')
    .on('webhook_deliveries')
    .columns(['next_attempt_at', 'id'])
    .where(sql.ref('status'), '=', 'pending')
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_pending_webhook_idx')
    .on('webhook_deliveries')
    .columns(['webhook_id', 'id'])
    .where(sql.ref('status'), '=', 'pending')
    .execute();
  // Deliveries in flight (leased): tiny, answers "is this webhook busy?" in one probe.
  await db.schema
    .createIndex('webhook_deliveries_leased_idx')
    .on('webhook_deliveries')
    .columns(['webhook_id', 'lease_until'])
    .where(sql.ref('lease_until'), 'is not', null)
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_created_idx')
    .on('webhook_deliveries')
    .column('created_at')
    .execute();

  // The first attempt is due when the event happened; the lease check is the worker's.
  if (k.pg) {
    await sql`
      CREATE FUNCTION webhook_fanout() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO webhook_deliveries (account_id, webhook_id, event_id, message_id, next_attempt_at)
        SELECT NEW.account_id, w.id, NEW.id, 'msg_' || replace(gen_random_uuid()::text, '-', ''), NEW.occurred_at
        FROM webhooks w
        JOIN integrations i ON i.id = w.integration_id
        WHERE w.account_id = NEW.account_id
          AND w.active = 1
          AND i.revoked_at IS NULL
          AND position(' ' || NEW.kind || ' ' IN ' ' || w.event_kinds || ' ') > 0
        ORDER BY w.id;
        RETURN NULL;
      END
      $$`.execute(db);
    await sql`
      CREATE TRIGGER events_webhook_fanout AFTER INSERT ON events
      FOR EACH ROW EXECUTE FUNCTION webhook_fanout()`.execute(db);
  } else {
    await sql`
      CREATE TRIGGER events_webhook_fanout AFTER INSERT ON events
      BEGIN
        INSERT INTO webhook_deliveries (account_id, webhook_id, event_id, message_id, next_attempt_at)
        SELECT NEW.account_id, w.id, NEW.id, 'msg_' || lower(hex(randomblob(16))), NEW.occurred_at
        FROM webhooks w
        JOIN integrations i ON i.id = w.integration_id
        WHERE w.account_id = NEW.account_id
          AND w.active = 1
          AND i.revoked_at IS NULL
          AND instr(' ' || w.event_kinds || ' ', ' ' || NEW.kind || ' ') > 0
        ORDER BY w.id;
      END`.execute(db);
  }
}

export async function down(db: AnyDb): Promise<void> {
  const k = kit(db);
  if (k.pg) {
    await sql`DROP TRIGGER IF EXISTS events_webhook_fanout ON events`.execute(db);
    await sql`DROP FUNCTION IF EXISTS webhook_fanout()`.execute(db);
  } else {
    await sql`DROP TRIGGER IF EXISTS events_webhook_fanout`.execute(db);
  }
  await db.schema.dropTable('webhook_deliveries').execute();
  await db.schema.dropTable('webhooks').execute();
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

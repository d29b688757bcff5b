import { type Kysely, PostgresAdapter, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations work on the untyped schema
type AnyDb = Kysely<any>;

/**
 * Dunning (issue 39): an account's levels, its own base rates beside the shipped ones, the
 * letters with their own number counter, and two client flags.
 *
 * `dunning_letters` is UNIQUE (invoice_id, level): two runs at once (two processes) cannot
 * both write a level's letter, whatever the code does; the loser's transaction rolls back,
 * its number with it, so the series stays without gaps. Letters are never deleted (a
 * cancelled one keeps its number). The letters join the change feed (resource `dunning`),
 * with triggers as 2026_11_23_300 and, on PostgreSQL, 2026_11_28_100 write them.
 *
 * Self-contained: a migration imports nothing that can change after it ran.
 */
export async function up(db: AnyDb): Promise<void> {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  const ts = (pg ? 'timestamptz' : 'text') as 'text';
  const now = pg ? sql`now()` : sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`;
  const id = pg ? ('serial' as const) : ('integer' as const);

  await db.schema
    .alterTable('clients')
    .addColumn('is_consumer', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('clients')
    .addColumn('dunning_blocked', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();

  // The levels as one JSON document per account; no row: the built-in levels.
  await db.schema
    .createTable('dunning_settings')
    .addColumn('account_id', 'integer', (c) => c.primaryKey().references('accounts.id').onDelete('cascade'))
    .addColumn('levels', 'text', (c) => c.notNull())
    .addColumn('updated_at', ts, (c) => c.notNull().defaultTo(now))
    .execute();

  // An account's base rates; they extend the shipped table and win on the same date.
  await db.schema
    .createTable('dunning_base_rates')
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('valid_from', 'text', (c) => c.notNull())
    // Percent, at most two decimals, as text ("1.27", "-0.88").
    .addColumn('rate', 'text', (c) => c.notNull())
    .addColumn('updated_at', ts, (c) => c.notNull().defaultTo(now))
    .addPrimaryKeyConstraint('dunning_base_rates_pk', ['account_id', 'valid_from'])
    .execute();

  await db.schema
    .createTable('dunning_number_counters')
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('year', 'integer', (c) => c.notNull())
    .addColumn('last_value', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('dunning_number_counters_pk', ['account_id', 'year'])
    .execute();

  await db.schema
    .createTable('dunning_letters')
    .addColumn('id', id, (c) => (pg ? c.primaryKey() : c.primaryKey().autoIncrement()))
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('number', 'text', (c) => c.notNull())
    .addColumn('invoice_id', 'integer', (c) => c.notNull().references('outgoing_invoices.id'))
    .addColumn('client_id', 'integer', (c) => c.references('clients.id'))
    .addColumn('level', 'integer', (c) => c.notNull())
    .addColumn('date', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('language', 'text', (c) => c.notNull())
    // Cents.
    .addColumn('open_amount', 'bigint', (c) => c.notNull())
    .addColumn('fee', 'bigint', (c) => c.notNull())
    .addColumn('flat_fee', 'bigint', (c) => c.notNull())
    .addColumn('interest', 'bigint', (c) => c.notNull())
    .addColumn('total_due', 'bigint', (c) => c.notNull())
    // JSON: [{ from, to, days, open_cents, base_rate, rate, cents, exact }].
    .addColumn('interest_breakdown', 'text', (c) => c.notNull().defaultTo('[]'))
    // The level's texts as filled in on the letter's date: the letter does not change later.
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('delivery', 'text', (c) => c.notNull())
    // open | sent | cancelled | settled
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('open'))
    .addColumn('sent_at', ts)
    .addColumn('cancelled_at', ts)
    .addColumn('settled_at', ts)
    // The invoice of the letter's fee and interest (POST /dunnings/{id}/invoice-charges).
    .addColumn('charges_invoice_id', 'integer', (c) => c.references('outgoing_invoices.id'))
    .addColumn('created_at', ts, (c) => c.notNull().defaultTo(now))
    .addColumn('updated_at', ts, (c) => c.notNull().defaultTo(now))
    .addUniqueConstraint('dunning_letters_invoice_level_uq', ['invoice_id', 'level'])
    .addUniqueConstraint('dunning_letters_number_uq', ['account_id', 'number'])
    .execute();
  await db.schema
    .createIndex('dunning_letters_account_idx')
    .on('dunning_letters')
    .columns(['account_id', 'id'])
    .execute();
  await db.schema
    .createIndex('dunning_letters_client_idx')
    .on('dunning_letters')
    .columns(['account_id', 'client_id', 'id'])
    .execute();

  if (pg) {
    const insert = (r: 'NEW' | 'OLD', action: string) =>
      `INSERT INTO change_log (account_id, resource, resource_id, action, integration_id) VALUES (${r}.account_id, 'dunning', ${r}.id, ${action}, NULL);`;
    await sql
      .raw(
        `CREATE FUNCTION trg_change_dunning_letters() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF TG_OP = 'DELETE' THEN ${insert('OLD', `'deleted'`)}
          ELSE ${insert('NEW', `'updated'`)}
          END IF;
          RETURN NULL;
        END $$`,
      )
      .execute(db);
    await sql
      .raw(
        `CREATE FUNCTION trg_change_dunning_letters_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          INSERT INTO change_log (account_id, resource, resource_id, action, integration_id)
            SELECT account_id, 'dunning', id, 'created', NULL FROM new_rows ORDER BY id;
          RETURN NULL;
        END $$`,
      )
      .execute(db);
    await sql
      .raw(
        'CREATE TRIGGER trg_change_dunning_letters AFTER UPDATE OR DELETE ON dunning_letters FOR EACH ROW EXECUTE FUNCTION trg_change_dunning_letters()',
      )
      .execute(db);
    await sql
      .raw(
        'CREATE TRIGGER trg_change_dunning_letters_inserted AFTER INSERT ON dunning_letters REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION trg_change_dunning_letters_inserted()',
      )
      .execute(db);
    return;
  }
  const NOW = `strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`;
  const row = (r: 'NEW' | 'OLD', action: string) =>
    `INSERT INTO change_log (account_id, resource, resource_id, action, integration_id, changed_at) VALUES (${r}.account_id, 'dunning', ${r}.id, '${action}', NULL, ${NOW});`;
  for (const [suffix, event, r, action] of [
    ['ins', 'INSERT', 'NEW', 'created'],
    ['upd', 'UPDATE', 'NEW', 'updated'],
    ['del', 'DELETE', 'OLD', 'deleted'],
  ] as const) {
    await sql
      .raw(
        `CREATE TRIGGER trg_change_dunning_letters_${suffix} AFTER ${event} ON dunning_letters BEGIN ${row(r, action)} END`,
      )
      .execute(db);
  }
}

export async function down(db: AnyDb): Promise<void> {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  if (pg) {
    await sql`DROP TRIGGER IF EXISTS trg_change_dunning_letters_inserted ON dunning_letters`.execute(db);
    await sql`DROP TRIGGER IF EXISTS trg_change_dunning_letters ON dunning_letters`.execute(db);
    await sql`DROP FUNCTION IF EXISTS trg_change_dunning_letters_inserted()`.execute(db);
    await sql`DROP FUNCTION IF EXISTS trg_change_dunning_letters()`.execute(db);
  } else {
    for (const suffix of ['ins', 'upd', 'del'])
      await sql.raw(`DROP TRIGGER IF EXISTS trg_change_dunning_letters_${suffix}`).execute(db);
  }
  await db.schema.dropTable('dunning_letters').execute();
  await db.schema.dropTable('dunning_number_counters').execute();
  await db.schema.dropTable('dunning_base_rates').execute();
  await db.schema.dropTable('dunning_settings').execute();
  await db.schema.alterTable('clients').dropColumn('dunning_blocked').execute();
  await db.schema.alterTable('clients').dropColumn('is_consumer').execute();
}

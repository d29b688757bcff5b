import { type Kysely, PostgresAdapter, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations work on the untyped schema
type AnyDb = Kysely<any>;

// PostgreSQL: the change feed's row (2026_11_23_300) and the kept list count (2026_11_23_100,
// 2026_11_24_100) of an INSERT are written once per statement instead of once per row (issue
// 15). Creates that arrive together are one multi-row INSERT (src/db/insert-batch.ts), and each
// row's trigger ran a statement of its own: 20 `change_log` INSERTs and 20 UPDATEs of one
// counter row per 20 clients. A statement-level trigger with the inserted rows as a transition
// table writes the same change-log rows (in id order, the order the row triggers wrote them)
// with one INSERT and adds each account's rows to its counter with one call. pgbench, 20
// clients per INSERT, 4 clients, this schema: 895 → 1,825 statements/s.
//
// Updates and deletes keep their row triggers (PostgreSQL takes no transition table on a
// trigger limited to some columns, and they come one row at a time anyway); the functions are
// the same, their INSERT branch no longer reached. SQLite has row triggers only and keeps them.
//
// Copied from the migrations named above, so that this one keeps meaning what it meant.

/** [table, change-feed kind, owner column or null]. */
const WATCHED: Array<[string, string, string | null]> = [
  ['clients', 'client', null],
  ['companies', 'company', null],
  ['contacts', 'contact', null],
  ['projects', 'project', null],
  ['tasks', 'task', null],
  ['task_comments', 'comment', null],
  ['efforts', 'effort', null],
  ['offers', 'offer', null],
  ['outgoing_invoices', 'outgoing_invoice', null],
  ['incoming_invoices', 'incoming_invoice', null],
  ['payments', 'payment', null],
  ['payment_accounts', 'payment_account', null],
  ['suppliers', 'supplier', null],
  ['files', 'file', null],
  ['custom_field_definitions', 'custom_field', null],
  ['users', 'user', null],
  ['user_groups', 'user_group', null],
  ['chart_of_accounts', 'chart_of_account', null],
  ['webhooks', 'webhook', 'integration_id'],
  ['accounts', 'account_profile', null],
];

const DOCUMENTS = "type IN ('invoice', 'credit', 'deposit', 'partial', 'final')";

/** [table, columns an update is counted on, rows counted, rows the default list shows]. */
const COUNTED: Array<[string, string[], string, string]> = [
  ...['clients', 'contacts', 'companies', 'projects', 'tasks', 'portfolios'].map(
    (t): [string, string[], string, string] => [t, ['archived_at'], 'true', 'archived_at IS NULL'],
  ),
  ['suppliers', [], 'true', 'true'],
  ['offers', [], 'true', 'true'],
  ['efforts', ['type'], 'true', "type <> 'admin'"],
  ['outgoing_invoices', ['type', 'deleted_at'], DOCUMENTS, `deleted_at IS NULL AND ${DOCUMENTS}`],
];

const accountOf = (table: string) => (table === 'accounts' ? 'id' : 'account_id');

const run = (db: AnyDb, text: string) => sql.raw(text).execute(db);

const isPg = (db: AnyDb) => db.getExecutor().adapter instanceof PostgresAdapter;

export async function up(db: AnyDb): Promise<void> {
  if (!isPg(db)) return;
  for (const [table, kind, owner] of WATCHED) {
    await run(
      db,
      `CREATE FUNCTION trg_change_${table}_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO change_log (account_id, resource, resource_id, action, integration_id)
    SELECT ${accountOf(table)}, '${kind}', id, 'created', ${owner ?? 'NULL'} FROM new_rows ORDER BY id;
  RETURN NULL;
END $$`,
    );
    await run(db, `DROP TRIGGER trg_change_${table} ON ${table}`);
    await run(
      db,
      `CREATE TRIGGER trg_change_${table} AFTER UPDATE OR DELETE ON ${table} FOR EACH ROW EXECUTE FUNCTION trg_change_${table}()`,
    );
    await run(
      db,
      `CREATE TRIGGER trg_change_${table}_inserted AFTER INSERT ON ${table} REFERENCING NEW TABLE AS new_rows ` +
        `FOR EACH STATEMENT EXECUTE FUNCTION trg_change_${table}_inserted()`,
    );
  }
  for (const [table, columns, all, active] of COUNTED) {
    // One call per account the statement inserted into (the API's statements: one account).
    await run(
      db,
      `CREATE FUNCTION trg_count_${table}_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  r record;
BEGIN
  FOR r IN SELECT account_id, count(*) FILTER (WHERE ${all}) AS total, count(*) FILTER (WHERE ${active}) AS active
      FROM new_rows GROUP BY account_id ORDER BY account_id LOOP
    PERFORM list_count_add(r.account_id::integer, '${table}', r.total::integer, r.active::integer, true);
  END LOOP;
  RETURN NULL;
END $$`,
    );
    const watched = ['account_id', ...columns].join(', ');
    await run(db, `DROP TRIGGER trg_count_${table} ON ${table}`);
    await run(
      db,
      `CREATE TRIGGER trg_count_${table} AFTER DELETE OR UPDATE OF ${watched} ON ${table} FOR EACH ROW EXECUTE FUNCTION trg_count_${table}()`,
    );
    await run(
      db,
      `CREATE TRIGGER trg_count_${table}_inserted AFTER INSERT ON ${table} REFERENCING NEW TABLE AS new_rows ` +
        `FOR EACH STATEMENT EXECUTE FUNCTION trg_count_${table}_inserted()`,
    );
  }
}

export async function down(db: AnyDb): Promise<void> {
  if (!isPg(db)) return;
  for (const [table, columns] of COUNTED) {
    const watched = ['account_id', ...columns].join(', ');
    await run(db, `DROP TRIGGER trg_count_${table}_inserted ON ${table}`);
    await run(db, `DROP FUNCTION trg_count_${table}_inserted()`);
    await run(db, `DROP TRIGGER trg_count_${table} ON ${table}`);
    await run(
      db,
      `CREATE TRIGGER trg_count_${table} AFTER INSERT OR DELETE OR UPDATE OF ${watched} ON ${table} FOR EACH ROW EXECUTE FUNCTION trg_count_${table}()`,
    );
  }
  for (const [table] of WATCHED) {
    await run(db, `DROP TRIGGER trg_change_${table}_inserted ON ${table}`);
    await run(db, `DROP FUNCTION trg_change_${table}_inserted()`);
    await run(db, `DROP TRIGGER trg_change_${table} ON ${table}`);
    await run(
      db,
      `CREATE TRIGGER trg_change_${table} AFTER INSERT OR UPDATE OR DELETE ON ${table} FOR EACH ROW EXECUTE FUNCTION trg_change_${table}()`,
    );
  }
}

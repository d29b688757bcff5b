import { type Kysely, PostgresAdapter, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations work on the untyped schema
type AnyDb = Kysely<any>;

// Kept list counts (2026_11_23_100) without a lock every create of an account waits for
// (issue 15). There each insert's trigger updated the account's one `list_counts` row of the
// resource and held that row's lock until COMMIT, flush to disk included: on PostgreSQL all
// concurrent creates of an account ran one after another, and their commits could not share a
// flush. Now a counter is split into shards, `(account_id, resource, shard)`, each holding a
// part of the count (a part may be negative: a delete takes from the deleting session's
// shard); the count is the sum of its shards, exact in every snapshot because every part is
// written inside the transaction that makes the change.
//
// A PostgreSQL transaction writes a shard no other running transaction writes, starting from
// its session's (backend id modulo SHARDS), so up to SHARDS concurrent writers of one
// account's resource never wait for each other. SQLite has one writer at a time: its rows
// stay shard 0 and its triggers as they were.
//
// Copied from 2026_11_23_100 so that this migration keeps meaning what it meant.
const SHARDS = 16;

interface Counted {
  table: string;
  columns: string[];
  all: string;
  active: string;
}

const DOCUMENTS = "R.type IN ('invoice', 'credit', 'deposit', 'partial', 'final')";
const archivable = (table: string): Counted => ({
  table,
  columns: ['archived_at'],
  all: '1 = 1',
  active: 'R.archived_at IS NULL',
});

const COUNTED: Counted[] = [
  ...['clients', 'contacts', 'companies', 'projects', 'tasks', 'portfolios'].map(archivable),
  { table: 'suppliers', columns: [], all: '1 = 1', active: '1 = 1' },
  { table: 'offers', columns: [], all: '1 = 1', active: '1 = 1' },
  { table: 'efforts', columns: ['type'], all: '1 = 1', active: "R.type <> 'admin'" },
  {
    table: 'outgoing_invoices',
    columns: ['type', 'deleted_at'],
    all: DOCUMENTS,
    active: `R.deleted_at IS NULL AND ${DOCUMENTS}`,
  },
];

const pred = (p: string, row: 'NEW' | 'OLD') =>
  `(CASE WHEN ${p.replaceAll('R.', `${row}.`)} THEN 1 ELSE 0 END)`;
const changed = (c: Counted) =>
  `OLD.account_id <> NEW.account_id OR ${pred(c.all, 'OLD')} <> ${pred(c.all, 'NEW')} OR ${pred(c.active, 'OLD')} <> ${pred(c.active, 'NEW')}`;
const bump = (c: Counted, account: string, total: string, active: string, create: boolean) =>
  `PERFORM list_count_add(${account}, '${c.table}', ${total}, ${active}, ${create});`;

/**
 * The one writer of counts: adds to the session's shard. Creating a missing shard row is
 * right when adding, and when taking only while the account has counters at all (an account
 * being deleted cascades to its rows after its counters may be gone: nothing to take then).
 */
const ADD_FUNCTION = `CREATE FUNCTION list_count_add(acc integer, res text, d_total integer, d_active integer, create_row boolean)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  s integer := pg_backend_pid() % ${SHARDS};
BEGIN
  IF d_total = 0 AND d_active = 0 THEN RETURN; END IF;
  -- The first shard from the session's own on that no other running transaction writes (a
  -- lock held until this one ends; the session's own is taken again at once): two sessions
  -- whose ids fall on one shard do not wait for each other either. All taken: wait for the
  -- first, as before.
  FOR i IN 1..${SHARDS} LOOP
    EXIT WHEN pg_try_advisory_xact_lock(acc, hashtext(res) # s);
    s := (s + 1) % ${SHARDS};
  END LOOP;
  UPDATE list_counts SET total = total + d_total, active = active + d_active
    WHERE account_id = acc AND resource = res AND shard = s;
  IF FOUND THEN RETURN; END IF;
  IF NOT create_row AND NOT EXISTS (SELECT 1 FROM list_counts WHERE account_id = acc AND resource = res) THEN
    RETURN;
  END IF;
  INSERT INTO list_counts (account_id, resource, shard, total, active) VALUES (acc, res, s, d_total, d_active)
    ON CONFLICT (account_id, resource, shard)
    DO UPDATE SET total = list_counts.total + excluded.total, active = list_counts.active + excluded.active;
END $$`;

/** Same body as before, but through `list_count_add`; an update within an account is one write. */
const shardedFunction = (c: Counted) => {
  const diff = (p: string) => `${pred(p, 'NEW')} - ${pred(p, 'OLD')}`;
  const neg = (p: string, row: 'NEW' | 'OLD') => `-${pred(p, row)}`;
  return `CREATE OR REPLACE FUNCTION trg_count_${c.table}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    IF NOT (${changed(c)}) THEN RETURN NULL; END IF;
    IF OLD.account_id = NEW.account_id THEN
      ${bump(c, 'NEW.account_id', diff(c.all), diff(c.active), true)}
      RETURN NULL;
    END IF;
  END IF;
  IF TG_OP <> 'INSERT' THEN ${bump(c, 'OLD.account_id', neg(c.all, 'OLD'), neg(c.active, 'OLD'), false)} END IF;
  IF TG_OP <> 'DELETE' THEN ${bump(c, 'NEW.account_id', pred(c.all, 'NEW'), pred(c.active, 'NEW'), true)} END IF;
  RETURN NULL;
END $$`;
};

/** The functions of 2026_11_23_100, for `down`. */
const singleRowFunction = (c: Counted) => {
  const add = `INSERT INTO list_counts (account_id, resource, total, active) VALUES (NEW.account_id, '${c.table}', ${pred(c.all, 'NEW')}, ${pred(c.active, 'NEW')}) ON CONFLICT (account_id, resource) DO UPDATE SET total = list_counts.total + excluded.total, active = list_counts.active + excluded.active`;
  const take = `UPDATE list_counts SET total = total - ${pred(c.all, 'OLD')}, active = active - ${pred(c.active, 'OLD')} WHERE account_id = OLD.account_id AND resource = '${c.table}'`;
  return `CREATE OR REPLACE FUNCTION trg_count_${c.table}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND NOT (${changed(c)}) THEN RETURN NULL; END IF;
  IF TG_OP <> 'INSERT' THEN ${take}; END IF;
  IF TG_OP <> 'DELETE' THEN ${add}; END IF;
  RETURN NULL;
END $$`;
};

const isPg = (db: AnyDb) => db.getExecutor().adapter instanceof PostgresAdapter;

export async function up(db: AnyDb): Promise<void> {
  await sql`ALTER TABLE list_counts ADD COLUMN shard integer NOT NULL DEFAULT 0`.execute(db);
  if (!isPg(db)) return;
  await sql`ALTER TABLE list_counts DROP CONSTRAINT list_counts_pk`.execute(db);
  await sql`ALTER TABLE list_counts ADD CONSTRAINT list_counts_pk PRIMARY KEY (account_id, resource, shard)`.execute(
    db,
  );
  await sql.raw(ADD_FUNCTION).execute(db);
  // Replacing a function keeps the triggers that call it (and the change log's are others).
  for (const c of COUNTED) await sql.raw(shardedFunction(c)).execute(db);
}

export async function down(db: AnyDb): Promise<void> {
  if (isPg(db)) {
    for (const c of COUNTED) await sql.raw(singleRowFunction(c)).execute(db);
    await sql`DROP FUNCTION list_count_add(integer, text, integer, integer, boolean)`.execute(db);
    // Every count back into its shard 0, which becomes the one row again.
    await sql`
      WITH moved AS (DELETE FROM list_counts WHERE shard <> 0 RETURNING account_id, resource, total, active)
      INSERT INTO list_counts (account_id, resource, shard, total, active)
      SELECT account_id, resource, 0, sum(total), sum(active) FROM moved GROUP BY account_id, resource
      ON CONFLICT (account_id, resource, shard)
      DO UPDATE SET total = list_counts.total + excluded.total, active = list_counts.active + excluded.active`.execute(
      db,
    );
    await sql`ALTER TABLE list_counts DROP CONSTRAINT list_counts_pk`.execute(db);
    await sql`ALTER TABLE list_counts ADD CONSTRAINT list_counts_pk PRIMARY KEY (account_id, resource)`.execute(
      db,
    );
  }
  await sql`ALTER TABLE list_counts DROP COLUMN shard`.execute(db);
}

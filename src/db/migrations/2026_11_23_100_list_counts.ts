import { Decimal } from 'decimal.js';
import { type Kysely, PostgresAdapter, sql } from 'kysely';

// Lists that cost the same at any size (issue 15), self-contained (no migration kit):
// 1. `list_counts`: exact row counts per account and resource, kept by triggers inside the
//    writing transaction, so an unfiltered list's `meta.total` is one row read instead of a
//    count over the table. `total` counts what `?archived=true` (`?deleted=true`) lists,
//    `active` what the default list shows. Triggers are named `trg_count_*` (the change log
//    has its own `trg_change_*` on the same tables).
// 2. The `(account_id, archived_at, id)` index clients have, for the other archivable lists.
// 3. Outgoing invoices keep the totals of their own lines (`lines_*`), written with the lines,
//    instead of recomputing them from the line items on every read.

// biome-ignore lint/suspicious/noExplicitAny: migrations work on the untyped schema
type AnyDb = Kysely<any>;

interface Counted {
  table: string;
  /** Columns the predicates read (the update trigger watches them). */
  columns: string[];
  /** What `total` / `active` count, with `R` standing for the row (NEW or OLD). */
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
  archivable('clients'),
  archivable('contacts'),
  archivable('companies'),
  archivable('projects'),
  archivable('tasks'),
  archivable('portfolios'),
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

const ACTIVE_INDEXES = ['contacts', 'companies', 'projects', 'tasks', 'portfolios'];

const pred = (p: string, row: 'NEW' | 'OLD') =>
  `(CASE WHEN ${p.replaceAll('R.', `${row}.`)} THEN 1 ELSE 0 END)`;

// Adding to a counter creates its row; taking away never does (an account being deleted
// cascades to its rows after its counters may be gone: an UPDATE of nothing is right then).
const add = (c: Counted, row: 'NEW' | 'OLD') =>
  `INSERT INTO list_counts (account_id, resource, total, active) VALUES (${row}.account_id, '${c.table}', ${pred(c.all, row)}, ${pred(c.active, row)}) ON CONFLICT (account_id, resource) DO UPDATE SET total = list_counts.total + excluded.total, active = list_counts.active + excluded.active`;
const take = (c: Counted, row: 'NEW' | 'OLD') =>
  `UPDATE list_counts SET total = total - ${pred(c.all, row)}, active = active - ${pred(c.active, row)} WHERE account_id = ${row}.account_id AND resource = '${c.table}'`;
const changed = (c: Counted) =>
  `OLD.account_id <> NEW.account_id OR ${pred(c.all, 'OLD')} <> ${pred(c.all, 'NEW')} OR ${pred(c.active, 'OLD')} <> ${pred(c.active, 'NEW')}`;

async function countTriggers(db: AnyDb, pg: boolean, c: Counted) {
  const watched = ['account_id', ...c.columns].join(', ');
  if (pg) {
    await sql
      .raw(`CREATE FUNCTION trg_count_${c.table}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND NOT (${changed(c)}) THEN RETURN NULL; END IF;
  IF TG_OP <> 'INSERT' THEN ${take(c, 'OLD')}; END IF;
  IF TG_OP <> 'DELETE' THEN ${add(c, 'NEW')}; END IF;
  RETURN NULL;
END $$`)
      .execute(db);
    await sql
      .raw(
        `CREATE TRIGGER trg_count_${c.table} AFTER INSERT OR DELETE OR UPDATE OF ${watched} ON ${c.table} FOR EACH ROW EXECUTE FUNCTION trg_count_${c.table}()`,
      )
      .execute(db);
    return;
  }
  const t = c.table;
  await sql
    .raw(`CREATE TRIGGER trg_count_${t}_insert AFTER INSERT ON ${t} BEGIN ${add(c, 'NEW')}; END`)
    .execute(db);
  await sql
    .raw(`CREATE TRIGGER trg_count_${t}_delete AFTER DELETE ON ${t} BEGIN ${take(c, 'OLD')}; END`)
    .execute(db);
  await sql
    .raw(
      `CREATE TRIGGER trg_count_${t}_update AFTER UPDATE OF ${watched} ON ${t} WHEN ${changed(c)} BEGIN ${take(c, 'OLD')}; ${add(c, 'NEW')}; END`,
    )
    .execute(db);
}

// The same arithmetic as the application (shared/money.ts), copied so that this migration
// means what it meant when it was written: line nets summed per tax rate, tax per rate
// rounded half away from zero, rates ascending.
const Dec = Decimal.clone({ precision: 50, rounding: Decimal.ROUND_HALF_UP });
function lineTotals(lines: { net_total: number | string; tax_rate: string }[]) {
  const perRate = new Map<string, number>();
  for (const l of lines) {
    const d = new Dec(l.tax_rate);
    const rate = d.isZero() ? '0' : d.toString();
    perRate.set(rate, (perRate.get(rate) ?? 0) + Number(l.net_total));
  }
  const taxes = [...perRate]
    .map(([rate, net]) => ({
      rate,
      net,
      tax:
        new Dec(net).times(rate).div(10000).times(100).toDecimalPlaces(0, Decimal.ROUND_HALF_UP).toNumber() ||
        0,
    }))
    .sort((a, b) => new Dec(a.rate).comparedTo(b.rate));
  const net = taxes.reduce((s, t) => s + t.net, 0);
  const tax = taxes.reduce((s, t) => s + t.tax, 0);
  return { lines_net: net, lines_tax: tax, lines_gross: net + tax, lines_taxes: JSON.stringify(taxes) };
}

async function backfillInvoiceTotals(db: AnyDb) {
  let after = 0;
  for (;;) {
    const ids: number[] = (
      await db
        .selectFrom('outgoing_invoices')
        .select('id')
        .where('id', '>', after)
        .orderBy('id')
        .limit(500)
        .execute()
    ).map((r: { id: number }) => Number(r.id));
    if (ids.length === 0) return;
    const items = await db
      .selectFrom('outgoing_invoice_items')
      .select(['invoice_id', 'net_total', 'tax_rate'])
      .where('invoice_id', 'in', ids)
      .execute();
    const by = new Map<number, { net_total: number; tax_rate: string }[]>();
    for (const it of items) {
      const list = by.get(Number(it.invoice_id)) ?? [];
      list.push(it);
      by.set(Number(it.invoice_id), list);
    }
    for (const id of ids)
      await db
        .updateTable('outgoing_invoices')
        .set(lineTotals(by.get(id) ?? []))
        .where('id', '=', id)
        .execute();
    after = ids[ids.length - 1]!;
  }
}

export async function up(db: AnyDb): Promise<void> {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .createTable('list_counts')
    .addColumn('account_id', 'integer', (c) => c.notNull())
    .addColumn('resource', 'text', (c) => c.notNull())
    .addColumn('total', 'bigint', (c) => c.notNull())
    .addColumn('active', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('list_counts_pk', ['account_id', 'resource'])
    .execute();
  for (const c of COUNTED) {
    await sql
      .raw(
        `INSERT INTO list_counts (account_id, resource, total, active) SELECT account_id, '${c.table}', SUM(${pred(c.all, 'OLD').replaceAll('OLD.', '')}), SUM(${pred(c.active, 'OLD').replaceAll('OLD.', '')}) FROM ${c.table} GROUP BY account_id`,
      )
      .execute(db);
    await countTriggers(db, pg, c);
  }
  for (const t of ACTIVE_INDEXES)
    await db.schema
      .createIndex(`${t}_account_active_idx`)
      .ifNotExists()
      .on(t)
      .columns(['account_id', 'archived_at', 'id'])
      .execute();
  await db.schema
    .createIndex('outgoing_invoices_account_live_idx')
    .ifNotExists()
    .on('outgoing_invoices')
    .columns(['account_id', 'deleted_at', 'id'])
    .execute();
  await db.schema
    .createIndex('efforts_account_idx')
    .ifNotExists()
    .on('efforts')
    .columns(['account_id', 'id'])
    .execute();

  // null: not known (a row written around the application); readers then add up the lines.
  await db.schema.alterTable('outgoing_invoices').addColumn('lines_net', 'bigint').execute();
  await db.schema.alterTable('outgoing_invoices').addColumn('lines_tax', 'bigint').execute();
  await db.schema.alterTable('outgoing_invoices').addColumn('lines_gross', 'bigint').execute();
  await db.schema.alterTable('outgoing_invoices').addColumn('lines_taxes', 'text').execute();
  await backfillInvoiceTotals(db);
  // Fresh statistics, or PostgreSQL plans the lists as sorts of every row.
  await sql`ANALYZE`.execute(db);
}

export async function down(db: AnyDb): Promise<void> {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  for (const col of ['lines_net', 'lines_tax', 'lines_gross', 'lines_taxes'])
    await db.schema.alterTable('outgoing_invoices').dropColumn(col).execute();
  await db.schema.dropIndex('efforts_account_idx').ifExists().execute();
  await db.schema.dropIndex('outgoing_invoices_account_live_idx').ifExists().execute();
  for (const t of ACTIVE_INDEXES) await db.schema.dropIndex(`${t}_account_active_idx`).ifExists().execute();
  for (const c of COUNTED) {
    if (pg) {
      await sql.raw(`DROP TRIGGER IF EXISTS trg_count_${c.table} ON ${c.table}`).execute(db);
      await sql.raw(`DROP FUNCTION IF EXISTS trg_count_${c.table}()`).execute(db);
    } else
      for (const e of ['insert', 'delete', 'update'])
        await sql.raw(`DROP TRIGGER IF EXISTS trg_count_${c.table}_${e}`).execute(db);
  }
  await db.schema.dropTable('list_counts').execute();
}

import { type Insertable, type Selectable, sql, type Updateable } from 'kysely';
import { type Db, isPostgres } from '../../db/index.js';
import { compiledByShape, preparedList } from '../../db/prepared.js';
import { keptTotal } from '../../shared/list-counts.js';
import { documentTotals, type Totals } from '../../shared/money.js';
import {
  columnList,
  insertReturning,
  insertRowsReturning,
  plainColumns,
  rowsPerInsert,
  updateOwnedOrThrow,
} from '../../shared/owned.js';
import { idPages, paginate, type Sortable, unfiltered } from '../../shared/paging.js';
import { toIso } from '../../shared/time.js';
import { DOCUMENT_TYPES, MASTER_TYPES, type NumberKind } from './invoices.domain.js';
import type { InvoiceListQuery, MasterListQuery } from './invoices.schemas.js';
import type { OutgoingInvoiceItemTable, OutgoingInvoiceTable } from './invoices.tables.js';
import { type ParsedLine, positioned } from './line-items.js';

export type InvoiceRow = Selectable<OutgoingInvoiceTable>;
export type ItemRow = Selectable<OutgoingInvoiceItemTable>;

/**
 * A live (not deleted) invoice or master; `lock` takes a row lock on PostgreSQL. `withDeleted`
 * also finds soft-deleted ones (reads by id: nothing is hidden from an auditor).
 */
export function findInvoice(
  db: Db,
  accountId: number,
  id: number,
  lock = false,
  withDeleted = false,
): Promise<InvoiceRow | undefined> {
  let qb = db
    .selectFrom('outgoing_invoices')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id);
  if (!withDeleted) qb = qb.where('deleted_at', 'is', null);
  // SQLite has no row locks; its transactions are serialized on the one connection.
  if (lock && isPostgres(db)) qb = qb.forUpdate();
  return qb.executeTakeFirst();
}

export const INVOICE_SORTABLE: Sortable = {
  date: { nullable: true },
  invoice_number: { nullable: true },
  status: {},
  type: {},
  client_id: { nullable: true },
};

/**
 * What a list reads of an invoice: every column but the document frozen at booking (kilobytes
 * of JSON a row, which only the PDF and e-invoice of one invoice read), read as null so that
 * the rows keep the row's shape.
 */
const LISTED = [
  'id',
  'account_id',
  'type',
  'status',
  'invoice_number',
  'external',
  'client_id',
  'contact_id',
  'project_id',
  'master_id',
  'credited_invoice_id',
  'title',
  'date',
  'due_date',
  'payment_term_days',
  'service_period_start',
  'service_period_end',
  'plan_start',
  'plan_end',
  'currency',
  'intro_text',
  'closing_text',
  'file_id',
  'pdf_file_id',
  'booked_at',
  'deleted_at',
  'created_at',
  'updated_at',
  'seller',
  'buyer',
  'buyer_reference',
  'service_date',
  'tax_exemption_category',
  'tax_exemption_reason_code',
  'tax_exemption_reason',
  'deleted_by',
  'lines_net',
  'lines_tax',
  'lines_gross',
  'lines_taxes',
  'auto_generate',
  'auto_send',
  'auto_from',
] as const;
const listed = (db: Db) =>
  db.selectFrom('outgoing_invoices').select(LISTED).select(sql<string | null>`null`.as('document'));

// The unfiltered list's pages, prepared: live documents and all (the types as literals: a
// prepared query takes no other parameters than its arguments).
const PAGES = [false, true].map((deleted) =>
  idPages((db, accountId) => {
    const qb = listed(db)
      .where('account_id', '=', accountId)
      .where(sql<boolean>`${sql.ref('type')} in (${sql.join(DOCUMENT_TYPES.map((t) => sql.lit(t)))})`);
    return deleted ? qb : qb.where('deleted_at', 'is', null);
  }),
);

/** The filtered list's query (built only when `paginate` needs it, see `listInvoices`). */
function invoicesQuery(db: Db, accountId: number, q: InvoiceListQuery) {
  let qb = listed(db).where('account_id', '=', accountId);
  // `deleted=true` adds the soft-deleted ones (like `archived=true` elsewhere).
  if (!q.deleted) qb = qb.where('deleted_at', 'is', null);
  // Masters are plans, not documents: only a type filter naming one lists them.
  qb = q.type ? qb.where('type', '=', q.type) : qb.where('type', 'in', [...DOCUMENT_TYPES]);
  if (q.status) qb = qb.where('status', '=', q.status);
  if (q.client_id !== undefined) qb = qb.where('client_id', '=', q.client_id);
  if (q.contact_id !== undefined) qb = qb.where('contact_id', '=', q.contact_id);
  if (q.project_id !== undefined) qb = qb.where('project_id', '=', q.project_id);
  if (q.master_id !== undefined) qb = qb.where('master_id', '=', q.master_id);
  if (q.invoice_number !== undefined) qb = qb.where('invoice_number', '=', q.invoice_number);
  if (q.date_from) qb = qb.where('date', '>=', q.date_from);
  if (q.date_to) qb = qb.where('date', '<=', q.date_to);
  if (q.updated_since) qb = qb.where('updated_at', '>=', toIso(q.updated_since));
  return qb;
}

export function listInvoices(db: Db, accountId: number, q: InvoiceListQuery) {
  return paginate(() => invoicesQuery(db, accountId, q), q, {
    sortable: INVOICE_SORTABLE,
    // The kept counts: documents (`total`) and live documents (`active`).
    total: unfiltered(q) ? keptTotal(db, accountId, 'outgoing_invoices', Boolean(q.deleted)) : undefined,
    pages: PAGES[q.deleted ? 1 : 0]!(db, accountId),
  });
}

export function listMasters(db: Db, accountId: number, q: MasterListQuery) {
  let qb = db
    .selectFrom('outgoing_invoices')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('deleted_at', 'is', null)
    .where('type', 'in', q.type ? [q.type] : [...MASTER_TYPES]);
  if (q.client_id !== undefined) qb = qb.where('client_id', '=', q.client_id);
  if (q.project_id !== undefined) qb = qb.where('project_id', '=', q.project_id);
  if (q.updated_since) qb = qb.where('updated_at', '>=', toIso(q.updated_since));
  return paginate(qb.orderBy('id'), q);
}

/** Sets `updated_at` of invoices (any number of ids: a statement a thousand). */
export async function touchMany(db: Db, accountId: number, ids: readonly number[], now: string) {
  for (let i = 0; i < ids.length; i += 1000)
    await db
      .updateTable('outgoing_invoices')
      .set({ updated_at: now })
      .where('account_id', '=', accountId)
      .where('id', 'in', ids.slice(i, i + 1000))
      .execute();
}

/** Live invoices by id (any number of ids: read in chunks), in id order. */
export async function findInvoices(db: Db, accountId: number, ids: readonly number[]): Promise<InvoiceRow[]> {
  const rows: InvoiceRow[] = [];
  for (let i = 0; i < ids.length; i += 1000) {
    const chunk = ids.slice(i, i + 1000);
    rows.push(
      ...(await db
        .selectFrom('outgoing_invoices')
        .selectAll()
        .where('account_id', '=', accountId)
        .where('id', 'in', chunk)
        .where('deleted_at', 'is', null)
        .orderBy('id')
        .execute()),
    );
  }
  return rows;
}

/** Children of plan masters; `withDeleted` also returns deleted ones (their periods are used). */
export function childrenOf(db: Db, accountId: number, masterIds: number[], withDeleted = false) {
  if (masterIds.length === 0) return Promise.resolve([] as InvoiceRow[]);
  let qb = db
    .selectFrom('outgoing_invoices')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('master_id', 'in', masterIds);
  if (!withDeleted) qb = qb.where('deleted_at', 'is', null);
  return qb.orderBy('id').execute();
}

export const insertInvoice = (db: Db, values: Insertable<OutgoingInvoiceTable>): Promise<InvoiceRow> =>
  insertReturning(db, 'outgoing_invoices', values);

export const updateInvoice = (
  db: Db,
  accountId: number,
  id: number,
  values: Updateable<OutgoingInvoiceTable>,
): Promise<InvoiceRow> => updateOwnedOrThrow(db, 'outgoing_invoices', accountId, id, values);

/** Items of several invoices, in position order. */
export function itemsOf(db: Db, accountId: number, invoiceIds: number[]): Promise<ItemRow[]> {
  if (invoiceIds.length === 0) return Promise.resolve([]);
  return itemsOfInvoices(db, invoiceIds, accountId);
}

// Prepared per number of invoices (a list's page reads them on every request).
const itemsOfInvoices = preparedList(1, (db: Db, invoiceIds: readonly unknown[], accountId: number) =>
  db
    .selectFrom('outgoing_invoice_items')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('invoice_id', 'in', invoiceIds as number[])
    .orderBy('invoice_id')
    .orderBy('position'),
);

export function itemsPage(
  db: Db,
  accountId: number,
  invoiceId: number,
  q: { page?: number; per_page?: number },
) {
  return paginate(
    db
      .selectFrom('outgoing_invoice_items')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('invoice_id', '=', invoiceId)
      .orderBy('position'),
    q,
  );
}

/**
 * Inserts a new document with its lines (positions 1…n in the given order), their totals on its
 * row: one INSERT per table and one change-log entry, nothing to delete or update after.
 */
export async function insertWithLines(
  db: Db,
  values: Insertable<OutgoingInvoiceTable>,
  lines: readonly ParsedLine[],
): Promise<{ row: InvoiceRow; items: ItemRow[] }> {
  const row = await insertInvoice(db, withLineTotals(values, lines));
  return { row, items: await addLines(db, values.account_id, row.id, lines) };
}

/** A new invoice as `insertWithLines` takes it, its lines' totals already in `values` (`withLineTotals`). */
export interface NewInvoice {
  values: Insertable<OutgoingInvoiceTable>;
  lines: readonly ParsedLine[];
  /**
   * Set while the currency and payment term are still to come from the client and the account
   * (what the body gave of them; `documentDefaults`): `values.currency` is then the given one or
   * null, and `values.payment_term_days` counts only when given. `insertManyAsOne` takes them
   * in its statement; the other writes need them settled first (invoices.service.ts).
   */
  defaults?: { currency?: string; payment_term_days?: number | null };
}

/**
 * Several new invoices with their lines in two statements (or a few more for thousands of
 * lines): what `insertWithLines` gives for each, in the order given. For a batch of creates
 * (invoices.service.ts), in a transaction of the caller's.
 */
export async function insertManyWithLines(
  db: Db,
  invoices: readonly NewInvoice[],
): Promise<{ row: InvoiceRow; items: ItemRow[] }[]> {
  const rows = await insertRowsReturning(
    db,
    'outgoing_invoices',
    invoices.map((i) => i.values),
  );
  const lines = rows.flatMap((row, k) =>
    positioned(invoices[k]!.lines, { account_id: row.account_id, invoice_id: row.id }),
  );
  const byInvoice = new Map<number, ItemRow[]>(rows.map((r) => [r.id, []]));
  const size = rowsPerInsert(lines);
  for (let i = 0; i < lines.length; i += size) {
    const items = await insertRowsReturning(db, 'outgoing_invoice_items', lines.slice(i, i + size));
    for (const item of items) byInvoice.get(item.invoice_id)!.push(item);
  }
  return rows.map((row) => ({
    row,
    items: byInvoice.get(row.id)!.sort((a, b) => Number(a.position) - Number(b.position)),
  }));
}

/**
 * PostgreSQL: what `insertManyWithLines` gives, in one statement — so atomic without BEGIN and
 * COMMIT, one round trip instead of four. The invoices are inserted from an array parameter a
 * column (`unnested`) and numbered in the order PostgreSQL inserted and returned them (the order given, which
 * `insertManyWithLines` relies on as well); each line names its invoice by that number until
 * the statement joins in the invoice's id. The lines' ids come back with each invoice, in
 * position order; the rest of an item is what was sent (every column of an item is given).
 * Undefined, with nothing written, when the invoices do not all set the same columns (see
 * `columnArrays`): then the caller writes them as before.
 */
export async function insertManyAsOne(
  db: Db,
  invoices: readonly NewInvoice[],
): Promise<{ row: InvoiceRow; items: ItemRow[] }[] | undefined> {
  const lines = invoices.flatMap((inv, k) =>
    positioned(inv.lines, { account_id: inv.values.account_id, invoice_id: k + 1 }),
  );
  const head = columnArrays(
    invoices.map((i) => i.values),
    INVOICE_TYPES,
  );
  const body = lines.length ? columnArrays(lines, ITEM_TYPES) : undefined;
  if (!head || !body) return undefined;
  const termFromClient = invoices.flatMap((inv, k) =>
    inv.defaults && inv.defaults.payment_term_days === undefined ? [k + 1] : [],
  );
  const values: Record<string, unknown> = { termFromClient };
  for (let i = 0; i < head.arrays.length; i++) values[`h${i}`] = head.arrays[i];
  for (let i = 0; i < body.arrays.length; i++) values[`l${i}`] = body.arrays[i];
  const rows = await asOneStatement(
    db,
    { headColumns: head.columns, lineColumns: body.columns, open: invoices.some((i) => i.defaults) },
    values,
  );
  return rows.map((stored, k) => {
    const ids = stored.__item_ids ?? [];
    // The last column of the row: deleting it is cheap where copying the rest (`{ __item_ids,
    // ...row }`) cost 6.6 µs an invoice.
    delete (stored as { __item_ids?: unknown }).__item_ids;
    // What was sent, and what the database decided (see `asOneStatement`): the whole row.
    const row = wholeRow(invoices[k]!.values, stored);
    const own = positioned(invoices[k]!.lines, { account_id: row.account_id, invoice_id: row.id });
    if (ids.length !== own.length) throw new Error('insertManyAsOne: lines and their ids differ in number');
    return {
      row: row as InvoiceRow,
      items: own.map((l, i) => Object.assign({ id: ids[i]! }, l)) as ItemRow[],
    };
  });
}

/**
 * The SELECT of `insertManyAsOne`'s invoice rows. Invoices whose defaults are still open
 * (`NewInvoice.defaults`) take them here, as `documentDefaults` would: the currency given, else
 * the client's, else the account's; the payment term given, else the client's (for the
 * invoices numbered in `termFromClient`). The client is read by the account's key, so one of
 * another account gives nothing, and the row's composite key to clients (migration
 * 2026_11_29_200) then refuses the statement. The rows go in in the order given.
 */
function headSource(columns: string[], open: boolean, p: Record<string, unknown>) {
  const from = unnested(columns, INVOICE_TYPES, 'h', p);
  const names = columnList(columns);
  // Inserted in the order given (`order by`): the ids the sequence gives then rise in that
  // order, which `asOneStatement` numbers the invoices by.
  if (!open)
    return sql`select ${names} from ${from} with ordinality as j(${names}, ordinality) order by j.ordinality`;
  const termFromClient = p.termFromClient;
  const pick = (c: string) => {
    if (c === 'currency')
      return sql`coalesce(j.currency, c.currency, (select a.currency from accounts a where a.id = j.account_id))`;
    if (c === 'payment_term_days')
      return sql`case when j.ordinality = any(${termFromClient}::int[]) then c.payment_term_days else j.payment_term_days end`;
    return sql.ref(`j.${c}`);
  };
  return sql`select ${sql.join(columns.map(pick))}
    from ${from} with ordinality as j(${names}, ordinality)
    left join lateral (
      select currency, payment_term_days from clients c where c.account_id = j.account_id and c.id = j.client_id
    ) c on true
    order by j.ordinality`;
}

/**
 * PostgreSQL's type of each column the creates write, for the arrays they send
 * (`columnArrays`); test/insert-batch.test.ts holds them to the catalog.
 */
const INVOICE_TYPES: Readonly<Record<string, string>> = {
  account_id: 'integer',
  type: 'text',
  status: 'text',
  invoice_number: 'text',
  client_id: 'integer',
  contact_id: 'integer',
  project_id: 'integer',
  master_id: 'integer',
  credited_invoice_id: 'integer',
  title: 'text',
  date: 'date',
  due_date: 'date',
  payment_term_days: 'integer',
  service_period_start: 'date',
  service_period_end: 'date',
  currency: 'text',
  intro_text: 'text',
  closing_text: 'text',
  buyer_reference: 'text',
  service_date: 'date',
  tax_exemption_category: 'text',
  tax_exemption_reason_code: 'text',
  tax_exemption_reason: 'text',
  lines_net: 'bigint',
  lines_tax: 'bigint',
  lines_gross: 'bigint',
  lines_taxes: 'text',
};
const ITEM_TYPES: Readonly<Record<string, string>> = {
  account_id: 'integer',
  invoice_id: 'integer',
  position: 'integer',
  title: 'text',
  description: 'text',
  quantity: 'text',
  unit: 'text',
  unit_price: 'bigint',
  tax_rate: 'text',
  discount: 'text',
  net_total: 'bigint',
};
export const CREATE_COLUMN_TYPES = { outgoing_invoices: INVOICE_TYPES, outgoing_invoice_items: ITEM_TYPES };

/**
 * `unnest` of one array parameter per column (`columnArrays`), each cast to its column's
 * type: what the one-statement create reads its rows from. Cheaper for PostgreSQL than one
 * JSON parameter, which it parsed twice (once to check the text, once to read it) and whose
 * keys it hashed for every row: 25 invoices of three lines a statement, PostgreSQL CPU per
 * invoice 72 → 66 µs, and a third of the bytes to send.
 */
const unnested = (
  columns: string[],
  types: Readonly<Record<string, string>>,
  prefix: string,
  p: Record<string, unknown>,
) => sql`unnest(${sql.join(columns.map((c, i) => sql`${p[`${prefix}${i}`]}::${sql.raw(types[c]!)}[]`))})`;

/**
 * Rows that set the same columns, in the same order, to plain values, as one array per
 * column (`unnested`); undefined when they do not, or set a column `types` does not name.
 */
function columnArrays(
  rows: readonly Record<string, unknown>[],
  types: Readonly<Record<string, string>>,
): { columns: string[]; arrays: unknown[][] } | undefined {
  const columns = plainColumns(rows);
  if (!columns?.every((c) => c in types)) return undefined;
  const arrays = columns.map(() => new Array<unknown>(rows.length));
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]!;
    let i = 0;
    for (const k in row) arrays[i++]![r] = row[k];
  }
  return { columns, arrays };
}

type RowPart = Partial<Record<keyof InvoiceRow, unknown>>;
const at = <K extends keyof InvoiceRow>(c: K, sent: RowPart, decided: RowPart) =>
  (c in decided ? decided[c] : sent[c]) as InvoiceRow[K];

/**
 * An invoice row put together from what was sent and what the database decided (`decided`
 * wins). One object literal with every column (the type holds that none is missing): an
 * Object.assign of the two parts left V8 a dictionary of 46 properties, slow to build and to
 * read (issue 15).
 */
const wholeRow = (sent: RowPart, decided: RowPart): InvoiceRow => ({
  id: at('id', sent, decided),
  account_id: at('account_id', sent, decided),
  type: at('type', sent, decided),
  status: at('status', sent, decided),
  invoice_number: at('invoice_number', sent, decided),
  external: at('external', sent, decided),
  client_id: at('client_id', sent, decided),
  contact_id: at('contact_id', sent, decided),
  project_id: at('project_id', sent, decided),
  master_id: at('master_id', sent, decided),
  credited_invoice_id: at('credited_invoice_id', sent, decided),
  title: at('title', sent, decided),
  date: at('date', sent, decided),
  due_date: at('due_date', sent, decided),
  payment_term_days: at('payment_term_days', sent, decided),
  service_period_start: at('service_period_start', sent, decided),
  service_period_end: at('service_period_end', sent, decided),
  plan_start: at('plan_start', sent, decided),
  plan_end: at('plan_end', sent, decided),
  currency: at('currency', sent, decided),
  intro_text: at('intro_text', sent, decided),
  closing_text: at('closing_text', sent, decided),
  file_id: at('file_id', sent, decided),
  document: at('document', sent, decided),
  seller: at('seller', sent, decided),
  buyer: at('buyer', sent, decided),
  buyer_reference: at('buyer_reference', sent, decided),
  service_date: at('service_date', sent, decided),
  tax_exemption_category: at('tax_exemption_category', sent, decided),
  tax_exemption_reason_code: at('tax_exemption_reason_code', sent, decided),
  tax_exemption_reason: at('tax_exemption_reason', sent, decided),
  pdf_file_id: at('pdf_file_id', sent, decided),
  booked_at: at('booked_at', sent, decided),
  auto_generate: at('auto_generate', sent, decided),
  auto_send: at('auto_send', sent, decided),
  auto_from: at('auto_from', sent, decided),
  deleted_at: at('deleted_at', sent, decided),
  deleted_by: at('deleted_by', sent, decided),
  lines_net: at('lines_net', sent, decided),
  lines_tax: at('lines_tax', sent, decided),
  lines_gross: at('lines_gross', sent, decided),
  lines_taxes: at('lines_taxes', sent, decided),
  created_at: at('created_at', sent, decided),
  updated_at: at('updated_at', sent, decided),
});

/** Every column of `outgoing_invoices`. */
const INVOICE_COLUMNS = Object.keys(wholeRow({}, {})) as (keyof InvoiceRow)[];

/**
 * `insertManyAsOne`'s statement for one shape: the columns of the invoices and of their lines,
 * and whether defaults are open (`headSource`).
 */
const asOneStatement = compiledByShape(
  [
    'termFromClient',
    ...Object.keys(INVOICE_TYPES).map((_, i) => `h${i}`),
    ...Object.keys(ITEM_TYPES).map((_, i) => `l${i}`),
  ],
  (s: { headColumns: string[]; lineColumns: string[]; open: boolean }) =>
    `${s.open}\n${s.headColumns.join()}\n${s.lineColumns.join()}`,
  (db, { headColumns, lineColumns, open }, p) => {
    // The row comes back as far as the database decided it: the columns not sent (the id, the
    // timestamps, defaults) and the defaults it took. The columns sent are stored as they were
    // sent (text, numbers, ISO dates), so the caller has them: fewer columns to send back,
    // parse and build rows of — a sixth of the service's CPU went to `pg`'s result parsing
    // with every column (issue 15).
    const decided = INVOICE_COLUMNS.filter(
      (c) => !headColumns.includes(c) || (open && (c === 'currency' || c === 'payment_term_days')),
    );
    // The invoices' ids come back with what the database decided: nothing else of the rows is
    // kept for the statement's end. Each invoice's item ids are gathered in one pass over the
    // items (a grouped join) rather than a scan of all of them per invoice. Together a tenth
    // less PostgreSQL CPU per invoice (25 invoices of three lines a statement: 75 → 67 µs).
    // A join keeps no order: the rows are numbered and returned in the order of their ids,
    // which the sequence gave them as they were inserted — the order given (`headSource`).
    const fromLines = sql.join(
      lineColumns.map((c) => (c === 'invoice_id' ? sql`ord.id` : sql.ref(`l.${c}`))),
    );
    return sql<Partial<InvoiceRow> & { __item_ids: number[] | null }>`
      with inv as (
        insert into outgoing_invoices (${columnList(headColumns)})
        ${headSource(headColumns, open, p)}
        returning ${columnList(decided)}
      ), ord as (select id, row_number() over (order by id) as n from inv),
      items as (
        insert into outgoing_invoice_items (${columnList(lineColumns)})
        select ${fromLines} from ${unnested(lineColumns, ITEM_TYPES, 'l', p)} as l(${columnList(lineColumns)})
          join ord on ord.n = l.invoice_id
        returning id, invoice_id, position
      )
      select ${sql.join(decided.map((c) => sql.ref(`inv.${c}`)))}, it.ids as __item_ids
      from inv left join (
        select invoice_id, json_agg(id order by position) as ids from items group by invoice_id
      ) it on it.invoice_id = inv.id
      order by inv.id`.compile(db);
  },
);

/** Replaces every line of an invoice whose row already holds their totals; returns the new items. */
export async function replaceLines(
  db: Db,
  accountId: number,
  invoiceId: number,
  lines: readonly ParsedLine[],
): Promise<ItemRow[]> {
  await db.deleteFrom('outgoing_invoice_items').where('invoice_id', '=', invoiceId).execute();
  return addLines(db, accountId, invoiceId, lines);
}

/**
 * Adds lines (positions 1…n in the given order) to an invoice whose row already holds their
 * totals (`lineTotalsColumns`); returns the stored items in position order, as `itemsOf` reads them.
 */
async function addLines(
  db: Db,
  accountId: number,
  invoiceId: number,
  lines: readonly ParsedLine[],
): Promise<ItemRow[]> {
  if (lines.length === 0) return [];
  const items = await insertRowsReturning(
    db,
    'outgoing_invoice_items',
    positioned(lines, { account_id: accountId, invoice_id: invoiceId }),
  );
  // RETURNING promises no order: sort as the read does.
  return items.sort((a, b) => Number(a.position) - Number(b.position));
}

/**
 * The columns that keep the totals of an invoice's own lines on its row: written in the same
 * statement as the row (insertWithLines, or the UPDATE before replaceLines), never apart.
 */
/**
 * An invoice's row values with its lines' totals. Object.assign, not two spreads: V8 copies a
 * second spread into a literal property by property on a slow path (4 µs an invoice).
 */
export const withLineTotals = (values: Insertable<OutgoingInvoiceTable>, lines: readonly ParsedLine[]) =>
  Object.assign({}, values, lineTotalsColumns(lines));

export function lineTotalsColumns(lines: readonly { net_total: number; tax_rate: string }[]) {
  const t = documentTotals(lines.map((l) => ({ net: l.net_total, tax_rate: l.tax_rate })));
  return { lines_net: t.net, lines_tax: t.tax, lines_gross: t.gross, lines_taxes: JSON.stringify(t.taxes) };
}

/** The stored totals of a row's own lines, or undefined when they are not known. */
export function storedLineTotals(row: InvoiceRow): Totals | undefined {
  if (row.lines_net === null || row.lines_taxes === null) return undefined;
  return {
    net: Number(row.lines_net),
    tax: Number(row.lines_tax),
    gross: Number(row.lines_gross),
    taxes: JSON.parse(row.lines_taxes),
  };
}

/** Numbers stay taken after deletion: the unique index covers deleted invoices too. */
export async function numberTaken(db: Db, accountId: number, invoiceNumber: string): Promise<boolean> {
  const row = await db
    .selectFrom('outgoing_invoices')
    .select('id')
    .where('account_id', '=', accountId)
    .where('invoice_number', '=', invoiceNumber)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * The next value of a number sequence. The UPDATE takes the counter row's lock until the
 * booking transaction ends: concurrent bookings queue here and each sees the previous value,
 * and a rollback hands the value back.
 */
export async function nextCounterValue(db: Db, accountId: number, kind: NumberKind, year: number) {
  await db
    .insertInto('invoice_number_counters')
    .values({ account_id: accountId, kind, year, last_value: 0 })
    .onConflict((oc) => oc.columns(['account_id', 'kind', 'year']).doNothing())
    .execute();
  const row = await db
    .updateTable('invoice_number_counters')
    .set((eb) => ({ last_value: eb('last_value', '+', 1) }))
    .where('account_id', '=', accountId)
    .where('kind', '=', kind)
    .where('year', '=', year)
    .returning('last_value')
    .executeTakeFirstOrThrow();
  return Number(row.last_value);
}

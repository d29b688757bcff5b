import type { Insertable, Selectable, Updateable } from 'kysely';
import { type Db, isPostgres } from '../../db/index.js';
import { findOwned, insertReturning, updateOwnedOrThrow } from '../../shared/owned.js';
import { type PageParams, paginate } from '../../shared/paging.js';
import type { SepaMandateTable, SepaRunItemTable, SepaRunTable } from './sepa.tables.js';

export type SepaMandateRow = Selectable<SepaMandateTable>;
export type SepaRunRow = Selectable<SepaRunTable>;
export type SepaRunItemRow = Selectable<SepaRunItemTable>;

export const insertMandate = (db: Db, values: Insertable<SepaMandateTable>) =>
  insertReturning(db, 'sepa_mandates', values);

export const findMandate = (db: Db, accountId: number, id: number) =>
  findOwned(db, 'sepa_mandates', accountId, id);

export const updateMandate = (db: Db, accountId: number, id: number, values: Updateable<SepaMandateTable>) =>
  updateOwnedOrThrow(db, 'sepa_mandates', accountId, id, values);

export function mandateByReference(db: Db, accountId: number, reference: string) {
  return db
    .selectFrom('sepa_mandates')
    .select('id')
    .where('account_id', '=', accountId)
    .where('reference', '=', reference)
    .executeTakeFirst();
}

export function mandatesOfClient(db: Db, accountId: number, clientId: number, q: PageParams) {
  return paginate(
    db
      .selectFrom('sepa_mandates')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('client_id', '=', clientId)
      .orderBy('id'),
    q,
  );
}

/** The newest active mandate of each client, locked on PostgreSQL (its sequence changes). */
export async function activeMandates(db: Db, accountId: number, clientIds: number[]) {
  if (clientIds.length === 0) return new Map<number, SepaMandateRow>();
  let qb = db
    .selectFrom('sepa_mandates')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('status', '=', 'active')
    .where('client_id', 'in', clientIds)
    .orderBy('id');
  if (isPostgres(db)) qb = qb.forUpdate();
  const out = new Map<number, SepaMandateRow>();
  for (const r of await qb.execute()) out.set(r.client_id, r);
  return out;
}

export const insertRun = (db: Db, values: Insertable<SepaRunTable>) =>
  insertReturning(db, 'sepa_runs', values);

export function setRunFile(db: Db, id: number, values: { file: string; message_id: string }) {
  return db.updateTable('sepa_runs').set(values).where('id', '=', id).execute();
}

export function findRun(db: Db, accountId: number, id: number, kind: string) {
  return db
    .selectFrom('sepa_runs')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('kind', '=', kind)
    .executeTakeFirst();
}

export function listRuns(db: Db, accountId: number, kind: string, q: PageParams) {
  return paginate(
    db
      .selectFrom('sepa_runs')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('kind', '=', kind)
      .orderBy('id'),
    q,
  );
}

/** The items of these runs, in id order. */
export function itemsOfRuns(db: Db, accountId: number, runIds: number[]) {
  if (runIds.length === 0) return Promise.resolve([] as SepaRunItemRow[]);
  return db
    .selectFrom('sepa_run_items')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('run_id', 'in', runIds)
    .orderBy('id')
    .execute();
}

export function insertItems(db: Db, rows: Insertable<SepaRunItemTable>[]) {
  return db.insertInto('sepa_run_items').values(rows).execute();
}

export function itemsOf(db: Db, accountId: number, runId: number) {
  return db
    .selectFrom('sepa_run_items')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('run_id', '=', runId)
    .orderBy('id')
    .execute();
}

/** Items still in transit for these invoices (incoming or outgoing, by `column`). */
export function inTransitFor(
  db: Db,
  accountId: number,
  column: 'incoming_invoice_id' | 'outgoing_invoice_id',
  ids: number[],
) {
  if (ids.length === 0) return Promise.resolve([] as SepaRunItemRow[]);
  return db
    .selectFrom('sepa_run_items')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('status', '=', 'in_transit')
    .where(column, 'in', ids)
    .execute();
}

/** Items in transit with these end-to-end ids (a statement holds up to 20,000 lines: in chunks). */
export async function inTransitByEndToEnd(db: Db, accountId: number, ids: string[]) {
  const out: SepaRunItemRow[] = [];
  for (let i = 0; i < ids.length; i += 1000) {
    const rows = await db
      .selectFrom('sepa_run_items')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('status', '=', 'in_transit')
      .where('end_to_end_id', 'in', ids.slice(i, i + 1000))
      .execute();
    out.push(...rows);
  }
  return out;
}

export function itemsConfirmedBy(db: Db, accountId: number, transactionId: number) {
  return db
    .selectFrom('sepa_run_items')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('bank_transaction_id', '=', transactionId)
    .where('status', '=', 'confirmed')
    .execute();
}

/** Whether a collection on the mandate was confirmed by a bank line (and not returned). */
export async function mandateCollected(db: Db, accountId: number, mandateId: number): Promise<boolean> {
  const row = await db
    .selectFrom('sepa_run_items')
    .select('id')
    .where('account_id', '=', accountId)
    .where('mandate_id', '=', mandateId)
    .where('status', '=', 'confirmed')
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** Whether any direct debit file collected on the mandate (its bank has seen it). */
export async function mandateUsed(db: Db, accountId: number, mandateId: number): Promise<boolean> {
  const row = await db
    .selectFrom('sepa_run_items')
    .select('id')
    .where('account_id', '=', accountId)
    .where('mandate_id', '=', mandateId)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** Items (collections and transfers) a bank line confirmed, with these end-to-end ids. */
export function itemsConfirmed(db: Db, accountId: number, ids: string[]) {
  if (ids.length === 0) return Promise.resolve([] as SepaRunItemRow[]);
  return db
    .selectFrom('sepa_run_items')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('status', '=', 'confirmed')
    .where('end_to_end_id', 'in', ids)
    .execute();
}

export function setItemStatus(
  db: Db,
  accountId: number,
  id: number,
  status: 'in_transit' | 'confirmed' | 'returned',
  transactionId: number | null,
) {
  return db
    .updateTable('sepa_run_items')
    .set({ status, bank_transaction_id: transactionId })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .execute();
}

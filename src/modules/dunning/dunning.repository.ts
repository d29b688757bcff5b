import { type Insertable, type Selectable, sql, type Updateable } from 'kysely';
import { type Db, isPostgres } from '../../db/index.js';
import { readInSteps } from '../../shared/collect.js';
import { paginate } from '../../shared/paging.js';
import type { LetterListQuery } from './dunning.schemas.js';
import type { DunningLetterTable } from './dunning.tables.js';

export type LetterRow = Selectable<DunningLetterTable>;

export const findSettings = (db: Db, accountId: number) =>
  db
    .selectFrom('dunning_settings')
    .select(['levels', 'updated_at'])
    .where('account_id', '=', accountId)
    .executeTakeFirst();

export async function saveSettings(db: Db, accountId: number, levels: string, now: string): Promise<void> {
  await db
    .insertInto('dunning_settings')
    .values({ account_id: accountId, levels, updated_at: now })
    .onConflict((oc) => oc.column('account_id').doUpdateSet({ levels, updated_at: now }))
    .execute();
}

export const ownBaseRates = (db: Db, accountId: number) =>
  db
    .selectFrom('dunning_base_rates')
    .select(['valid_from', 'rate', 'updated_at'])
    .where('account_id', '=', accountId)
    .orderBy('valid_from')
    .execute();

export async function saveBaseRate(
  db: Db,
  accountId: number,
  validFrom: string,
  rate: string,
  now: string,
): Promise<void> {
  await db
    .insertInto('dunning_base_rates')
    .values({ account_id: accountId, valid_from: validFrom, rate, updated_at: now })
    .onConflict((oc) => oc.columns(['account_id', 'valid_from']).doUpdateSet({ rate, updated_at: now }))
    .execute();
}

/**
 * A year's counter, locked until the transaction ends: one upsert that creates the row or
 * takes its lock (PostgreSQL's ON CONFLICT DO UPDATE locks the row it finds; SQLite's
 * transactions are serialized anyway). Letters written in a batch read the letters made so
 * far and take their numbers under it, so two runs at once queue here.
 */
export async function lockLetterCounter(db: Db, accountId: number, year: number): Promise<number> {
  const row = await db
    .insertInto('dunning_number_counters')
    .values({ account_id: accountId, year, last_value: 0 })
    .onConflict((oc) =>
      oc
        .columns(['account_id', 'year'])
        .doUpdateSet((eb) => ({ last_value: eb.ref('dunning_number_counters.last_value') })),
    )
    .returning('last_value')
    .executeTakeFirstOrThrow();
  return Number(row.last_value);
}

export async function setLetterCounter(db: Db, accountId: number, year: number, value: number) {
  await db
    .updateTable('dunning_number_counters')
    .set({ last_value: value })
    .where('account_id', '=', accountId)
    .where('year', '=', year)
    .execute();
}

/** Letters in statements of a hundred, returned as stored in the order given. */
export async function insertLetters(db: Db, rows: readonly Insertable<DunningLetterTable>[]) {
  const out: LetterRow[] = [];
  for (let i = 0; i < rows.length; i += 100)
    out.push(
      ...(await db
        .insertInto('dunning_letters')
        .values(rows.slice(i, i + 100))
        .returningAll()
        .execute()),
    );
  // PostgreSQL returns multi-row inserts in order; sorting by id makes it so on both.
  return out.sort((a, b) => a.id - b.id);
}

export const letterCounters = (db: Db, accountId: number) =>
  db
    .selectFrom('dunning_number_counters')
    .select(['year', 'last_value'])
    .where('account_id', '=', accountId)
    .orderBy('year')
    .execute();

/** Every letter number of the account (the number series' evidence). */
export const letterNumbers = (db: Db, accountId: number) =>
  db.selectFrom('dunning_letters').select('number').where('account_id', '=', accountId).execute();

export const insertLetter = (db: Db, values: Insertable<DunningLetterTable>) =>
  db.insertInto('dunning_letters').values(values).returningAll().executeTakeFirstOrThrow();

export const findLetter = (db: Db, accountId: number, id: number): Promise<LetterRow | undefined> =>
  db
    .selectFrom('dunning_letters')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();

export const updateLetter = (db: Db, accountId: number, id: number, values: Updateable<DunningLetterTable>) =>
  db
    .updateTable('dunning_letters')
    .set(values)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();

/** Sets the invoice of a letter's charges, only where none is set; false when one was. */
export async function markCharged(db: Db, accountId: number, id: number, invoiceId: number, now: string) {
  const r = await db
    .updateTable('dunning_letters')
    .set({ charges_invoice_id: invoiceId, updated_at: now })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('charges_invoice_id', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** An open letter becomes sent (its message was queued); undefined when it was not open. */
export const markLetterSent = (db: Db, accountId: number, id: number, now: string) =>
  db
    .updateTable('dunning_letters')
    .set({ status: 'sent', sent_at: now, updated_at: now })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('status', '=', 'open')
    .returningAll()
    .executeTakeFirst();

/**
 * The letters of some invoices, for the run (every status), ordered by invoice and level.
 *
 * Each invoice's letters are found through the unique (invoice_id, level) index, whatever the
 * planner's statistics say: a run writes thousands of letters into a table analysed while it
 * was nearly empty, and then both databases took `account_id = ? and invoice_id in (…)` to the
 * account's index and read every letter of the account for each batch. On PostgreSQL the ids
 * are unnested and each probes the index in a lateral subquery (`offset 0` keeps it a probe per
 * id: a scan of the table per id is never cheaper); on SQLite `+account_id` (the documented way)
 * keeps the account's index out. The account is still checked on every row.
 */
export async function lettersOf(db: Db, accountId: number, invoiceIds: readonly number[]) {
  if (invoiceIds.length === 0) return [];
  if (isPostgres(db)) {
    const { rows } = await sql<LetterRow>`
      select l.* from unnest(${[...invoiceIds]}::int[]) as b(id)
      cross join lateral (select * from dunning_letters d where d.invoice_id = b.id offset 0) as l
      where l.account_id = ${accountId}
      order by l.invoice_id, l.level`.execute(db);
    return rows;
  }
  return readInSteps(invoiceIds, CHUNK, (ids) =>
    db
      .selectFrom('dunning_letters')
      .selectAll()
      .where(accountNotIndexed, '=', accountId)
      .where('invoice_id', 'in', ids)
      .orderBy('invoice_id')
      .orderBy('level')
      .execute(),
  );
}

/** `+account_id`: the column as a value no index serves (both databases), so the invoice's index is taken. */
const accountNotIndexed = sql<number>`+${sql.ref('account_id')}`;

/** Ids per IN list: well below SQLite's limit on bound parameters. */
const CHUNK = 1000;

/**
 * Fresh planner statistics for the letters after a run wrote many: the invoices' own reads of
 * their letters (as every invoice answer holds them) are then planned for the table's real size.
 */
export async function analyzeLetters(db: Db): Promise<void> {
  await sql`analyze dunning_letters`.execute(db);
}

/** The account's letters still open or sent (the run settles those of paid invoices). */
export const unsettledLetters = (db: Db, accountId: number) =>
  db
    .selectFrom('dunning_letters')
    .select(['id', 'invoice_id'])
    .where('account_id', '=', accountId)
    .where('status', 'in', ['open', 'sent'])
    .execute();

export function settleLetters(db: Db, accountId: number, ids: readonly number[], now: string) {
  if (ids.length === 0) return Promise.resolve();
  return db
    .updateTable('dunning_letters')
    .set({ status: 'settled', settled_at: now, updated_at: now })
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .where('status', 'in', ['open', 'sent'])
    .execute()
    .then(() => undefined);
}

/** The letters of some invoices that stand (open, sent or settled): their settlement follows payments. */
export function standingLettersOf(db: Db, accountId: number, invoiceIds: readonly number[]) {
  if (invoiceIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('dunning_letters')
    .select(['id', 'invoice_id', 'status'])
    .where(accountNotIndexed, '=', accountId)
    .where('invoice_id', 'in', invoiceIds)
    .where('status', 'in', ['open', 'sent', 'settled'])
    .execute();
}

/** Settled letters whose invoice is open again go back to what they were: sent, or open. */
export function unsettleLetters(db: Db, accountId: number, ids: readonly number[], now: string) {
  if (ids.length === 0) return Promise.resolve();
  return db
    .updateTable('dunning_letters')
    .set((eb) => ({
      status: eb.case().when('sent_at', 'is not', null).then('sent').else('open').end(),
      settled_at: null,
      updated_at: now,
    }))
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .where('status', '=', 'settled')
    .execute()
    .then(() => undefined);
}

export function listLetters(db: Db, accountId: number, q: LetterListQuery) {
  let qb = db.selectFrom('dunning_letters').selectAll().where('account_id', '=', accountId);
  if (q.invoice_id !== undefined) qb = qb.where('invoice_id', '=', q.invoice_id);
  if (q.client_id !== undefined) qb = qb.where('client_id', '=', q.client_id);
  if (q.level !== undefined) qb = qb.where('level', '=', q.level);
  if (q.status !== undefined) qb = qb.where('status', '=', q.status);
  if (q.date_from !== undefined) qb = qb.where('date', '>=', q.date_from);
  if (q.date_to !== undefined) qb = qb.where('date', '<=', q.date_to);
  return paginate(qb.orderBy('id'), q);
}

// ---------------------------------------------------------------------------------------------
// The scheduled run's jobs

export async function insertJobs(db: Db, accountIds: readonly number[]): Promise<void> {
  if (accountIds.length === 0) return;
  await db
    .insertInto('dunning_jobs')
    .values(accountIds.map((account_id) => ({ account_id })))
    .onConflict((oc) => oc.column('account_id').doNothing())
    .execute();
}

/**
 * Claims the job of one account whose `today` has not run and whose lease has run out. The
 * UPDATE repeats the conditions: of two workers claiming one job, one changes the row.
 */
export async function claimJob(
  db: Db,
  today: string,
  now: string,
  leaseUntil: string,
  token: string,
): Promise<number | undefined> {
  const candidate = await db
    .selectFrom('dunning_jobs')
    .select('account_id')
    .where((eb) => eb.or([eb('last_run_on', 'is', null), eb('last_run_on', '<', today)]))
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', now)]))
    .orderBy('account_id')
    .limit(1)
    .executeTakeFirst();
  if (!candidate) return undefined;
  const claimed = await db
    .updateTable('dunning_jobs')
    .set({ lease_until: leaseUntil, lease_token: token, updated_at: now })
    .where('account_id', '=', candidate.account_id)
    .where((eb) => eb.or([eb('last_run_on', 'is', null), eb('last_run_on', '<', today)]))
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', now)]))
    .returning('account_id')
    .executeTakeFirst();
  // Another worker took it meanwhile: the caller asks again.
  return claimed ? Number(claimed.account_id) : -1;
}

export async function renewJob(
  db: Db,
  accountId: number,
  token: string,
  leaseUntil: string,
): Promise<boolean> {
  const r = await db
    .updateTable('dunning_jobs')
    .set({ lease_until: leaseUntil })
    .where('account_id', '=', accountId)
    .where('lease_token', '=', token)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Ends a claimed job: the day ran (`ranOn`), or failed (`error`: tried again from `retryAt`). */
export async function endJob(
  db: Db,
  accountId: number,
  token: string,
  end: { ranOn: string } | { error: string; retryAt: string },
  now: string,
): Promise<void> {
  await db
    .updateTable('dunning_jobs')
    .set(
      'ranOn' in end
        ? { lease_until: null, lease_token: null, updated_at: now, last_run_on: end.ranOn, last_error: null }
        : {
            lease_until: end.retryAt,
            lease_token: null,
            updated_at: now,
            last_error: end.error.slice(0, 1000),
          },
    )
    .where('account_id', '=', accountId)
    .where('lease_token', '=', token)
    .execute();
}

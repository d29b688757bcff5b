import { type Db, isPostgres } from '../../db/index.js';

/** The account's row as the profile reads it; locked for update inside a PostgreSQL transaction. */
export function findAccount(db: Db, accountId: number, forUpdate = false) {
  let q = db
    .selectFrom('accounts')
    .select(['id', 'name', 'country_code', 'settings'])
    .where('id', '=', accountId);
  // SQLite has no FOR UPDATE: its transactions take the write lock when they begin.
  if (forUpdate && isPostgres(db)) q = q.forUpdate();
  return q.executeTakeFirst();
}

export async function updateAccount(
  db: Db,
  accountId: number,
  values: { name: string; country_code: string | null; settings: string },
): Promise<void> {
  await db.updateTable('accounts').set(values).where('id', '=', accountId).execute();
}

export async function findLogo(db: Db, accountId: number, sha256: string) {
  return db
    .selectFrom('account_logos')
    .select(['content_type', 'data', 'byte_size', 'sha256'])
    .where('account_id', '=', accountId)
    .where('sha256', '=', sha256)
    .executeTakeFirst();
}

/** Stores a logo's bytes once per account and hash (the same image twice is one row). */
export async function insertLogo(
  db: Db,
  row: { account_id: number; sha256: string; content_type: string; byte_size: number; data: Buffer },
): Promise<void> {
  await db
    .insertInto('account_logos')
    .values(row)
    .onConflict((oc) => oc.columns(['account_id', 'sha256']).doNothing())
    .execute();
}

export async function insertAccount(
  db: Db,
  values: { name: string; currency: string; country_code: string | null; settings: string },
): Promise<number> {
  const row = await db.insertInto('accounts').values(values).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

export async function firstAccountId(db: Db): Promise<number | undefined> {
  const row = await db.selectFrom('accounts').select('id').orderBy('id').limit(1).executeTakeFirst();
  return row?.id;
}

import type { Db } from '../db/index.js';

export interface NewKey {
  integration_id: number;
  key: string;
  request_hash: string;
  created_at: string;
  locked_until: string;
  claim: string;
}

/** Claims a key that nobody holds: its id, or undefined when the key is there already. */
export const insertKey = async (db: Db, row: NewKey): Promise<number | undefined> =>
  (
    await db
      .insertInto('idempotency_keys')
      .values(row)
      .onConflict((oc) => oc.columns(['integration_id', 'key']).doNothing())
      .returning('id')
      .executeTakeFirst()
  )?.id;

export const findKey = (db: Db, integrationId: number, key: string) =>
  db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('integration_id', '=', integrationId)
    .where('key', '=', key)
    .executeTakeFirst();

/**
 * Takes over a key whose request never answered and whose lease is over, if `claim` still
 * holds it (so of two requests taking it over at once, one does). True when taken.
 */
export async function takeOver(
  db: Db,
  id: number,
  claim: string | null,
  next: { claim: string; locked_until: string },
): Promise<boolean> {
  const result = await db
    .updateTable('idempotency_keys')
    .set(next)
    .where('id', '=', id)
    .where('status_code', 'is', null)
    .where('claim', claim === null ? 'is' : '=', claim)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Lets the key go, if `claim` still holds it and it has no answer (after a commit that failed
 * with a lost connection the answer may have been committed all the same: then it stays).
 */
export async function releaseKey(db: Db, id: number, claim: string): Promise<boolean> {
  const result = await db
    .deleteFrom('idempotency_keys')
    .where('id', '=', id)
    .where('claim', '=', claim)
    .where('status_code', 'is', null)
    .executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

/** A key past its 24 hours is forgotten (then claimed afresh). */
export const deleteExpiredKey = (db: Db, id: number, before: string) =>
  db.deleteFrom('idempotency_keys').where('id', '=', id).where('created_at', '<', before).execute();

/**
 * Keeps the answer to replay it, if `claim` still holds the key: false when another request
 * took it over meanwhile (then this one must not commit its write).
 */
export async function storeAnswer(
  db: Db,
  id: number,
  claim: string,
  answer: { status_code: number; response_body: string; response_headers: string },
): Promise<boolean> {
  const result = await db
    .updateTable('idempotency_keys')
    .set({ ...answer, locked_until: null })
    .where('id', '=', id)
    .where('claim', '=', claim)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export const deleteKeysBefore = (db: Db, before: string) =>
  db.deleteFrom('idempotency_keys').where('created_at', '<', before).execute();

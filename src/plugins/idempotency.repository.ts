import type { Db } from '../db/index.js';

/** Claims `key` for the integration; throws (unique violation) when it is already there. */
export const insertKey = (db: Db, integrationId: number, key: string, requestHash: string, at: string) =>
  db
    .insertInto('idempotency_keys')
    .values({ integration_id: integrationId, key, request_hash: requestHash, created_at: at })
    .returning('id')
    .executeTakeFirstOrThrow();

export const findKey = (db: Db, integrationId: number, key: string) =>
  db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('integration_id', '=', integrationId)
    .where('key', '=', key)
    .executeTakeFirst();

export const deleteKey = (db: Db, id: number) =>
  db.deleteFrom('idempotency_keys').where('id', '=', id).execute();

/** Keeps the first answer to replay it. */
export const storeAnswer = (db: Db, id: number, statusCode: number, body: string, headers: string) =>
  db
    .updateTable('idempotency_keys')
    .set({ status_code: statusCode, response_body: body, response_headers: headers })
    .where('id', '=', id)
    .execute();

export const deleteKeysBefore = (db: Db, before: string) =>
  db.deleteFrom('idempotency_keys').where('created_at', '<', before).execute();

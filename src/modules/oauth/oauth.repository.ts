import type { Insertable } from 'kysely';
import type { Db } from '../../db/index.js';
import type { OAuthStoreTable } from './oauth.tables.js';

// What oidc-provider stores (see oauth.adapter.ts), and the grants users and admins see.

export const findStored = (db: Db, model: string, id: string) =>
  db
    .selectFrom('oauth_store')
    .select(['payload', 'expires_at', 'consumed_at'])
    .where('model', '=', model)
    .where('id', '=', id)
    .executeTakeFirst();

export const findStoredByUid = (db: Db, model: string, uid: string) =>
  db
    .selectFrom('oauth_store')
    .select(['id', 'payload', 'expires_at', 'consumed_at'])
    .where('model', '=', model)
    .where('uid', '=', uid)
    .executeTakeFirst();

export const upsertStored = (db: Db, row: Insertable<OAuthStoreTable>) =>
  db
    .insertInto('oauth_store')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['model', 'id']).doUpdateSet({
        payload: row.payload,
        grant_id: row.grant_id ?? null,
        uid: row.uid ?? null,
        client_id: row.client_id ?? null,
        user_id: row.user_id ?? null,
        expires_at: row.expires_at ?? null,
      }),
    )
    .execute();

/** Stores a row unless one with its model and id exists (the first of two racing writers wins). */
export const insertStoredIfAbsent = (db: Db, row: Insertable<OAuthStoreTable>) =>
  db
    .insertInto('oauth_store')
    .values(row)
    .onConflict((oc) => oc.columns(['model', 'id']).doNothing())
    .execute();

/** Marks a code or refresh token used; true when this call was the first to. */
export async function consumeStored(db: Db, model: string, id: string, at: string): Promise<boolean> {
  const r = await db
    .updateTable('oauth_store')
    .set({ consumed_at: at })
    .where('model', '=', model)
    .where('id', '=', id)
    .where('consumed_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export const deleteStored = (db: Db, model: string, id: string) =>
  db.deleteFrom('oauth_store').where('model', '=', model).where('id', '=', id).execute();

/**
 * Every code, refresh token and access token of a grant in oauth's store, and the grant itself
 * (the grant's mirrored access tokens are integration's: grants.service revokes them).
 */
export async function deleteGrant(db: Db, grantId: string): Promise<number> {
  const r = await db
    .deleteFrom('oauth_store')
    .where((eb) =>
      eb.or([eb('grant_id', '=', grantId), eb.and([eb('model', '=', 'Grant'), eb('id', '=', grantId)])]),
    )
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** The newest grant a user gave a client (a later authorization reuses it). */
export const findUserGrantId = (db: Db, userId: number, clientId: string, now: string) =>
  db
    .selectFrom('oauth_store')
    .select('id')
    .where('model', '=', 'Grant')
    .where('user_id', '=', userId)
    .where('client_id', '=', clientId)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .orderBy('created_at', 'desc')
    .executeTakeFirst();

/** Drops rows past their expiry (called now and then; expired rows are never read). */
export const purgeExpired = (db: Db, now: string) =>
  db.deleteFrom('oauth_store').where('expires_at', '<', now).execute();

/** Replaces a row's payload if it is still `was` (the first of two racing writers wins). */
export const replaceStoredPayload = (db: Db, model: string, id: string, was: string, payload: string) =>
  db
    .updateTable('oauth_store')
    .set({ payload })
    .where('model', '=', model)
    .where('id', '=', id)
    .where('payload', '=', was)
    .execute();

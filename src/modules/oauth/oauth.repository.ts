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

/** Every code, refresh token and access token of a grant, and the grant itself. */
export async function deleteGrant(db: Db, grantId: string, at: string): Promise<number> {
  const r = await db
    .deleteFrom('oauth_store')
    .where((eb) =>
      eb.or([eb('grant_id', '=', grantId), eb.and([eb('model', '=', 'Grant'), eb('id', '=', grantId)])]),
    )
    .executeTakeFirst();
  await db
    .updateTable('access_tokens')
    .set({ revoked_at: at })
    .where('grant_id', '=', grantId)
    .where('revoked_at', 'is', null)
    .execute();
  return Number(r.numDeletedRows);
}

export const revokeAccessToken = (db: Db, tokenHash: string, at: string) =>
  db
    .updateTable('access_tokens')
    .set({ revoked_at: at })
    .where('token_hash', '=', tokenHash)
    .where('revoked_at', 'is', null)
    .execute();

export const insertAccessTokenMirror = (
  db: Db,
  row: {
    integration_id: number;
    token_hash: string;
    scopes: string;
    expires_at: string | null;
    user_id: number | null;
    grant_id: string | null;
  },
) =>
  db
    .insertInto('access_tokens')
    .values(row)
    .onConflict((oc) => oc.column('token_hash').doNothing())
    .execute();

/** The live OAuth client behind a client id (a revoked integration is no client). */
export const findClientIntegration = (db: Db, clientId: string) =>
  db
    .selectFrom('integrations')
    .selectAll()
    .where('client_id', '=', clientId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();

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

/** Grants with their app and user, of one account (and one user when given), oldest first. */
export function grantsQuery(db: Db, accountId: number, now: string, userId?: number) {
  let qb = db
    .selectFrom('oauth_store as g')
    .innerJoin('integrations as i', 'i.client_id', 'g.client_id')
    .innerJoin('users as u', 'u.id', 'g.user_id')
    .select([
      'g.id',
      'g.payload',
      'g.created_at',
      'g.expires_at',
      'i.id as integration_id',
      'i.name',
      'i.display_name',
      'i.homepage',
      'u.id as user_id',
      'u.email',
    ])
    .where('g.model', '=', 'Grant')
    .where('i.account_id', '=', accountId)
    .where('i.revoked_at', 'is', null)
    .where((eb) => eb.or([eb('g.expires_at', 'is', null), eb('g.expires_at', '>', now)]));
  if (userId !== undefined) qb = qb.where('g.user_id', '=', userId);
  return qb.orderBy('g.created_at').orderBy('g.id');
}

export const findUserForSignIn = (db: Db, id: number) =>
  db
    .selectFrom('users')
    .select(['id', 'account_id', 'active', 'email'])
    .where('id', '=', id)
    .executeTakeFirst();

/** Drops rows past their expiry (called now and then; expired rows are never read). */
export const purgeExpired = (db: Db, now: string) =>
  db.deleteFrom('oauth_store').where('expires_at', '<', now).execute();

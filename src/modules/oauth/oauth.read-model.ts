import type { Db } from '../../db/index.js';

/**
 * Read model of oauth: the clients it serves are integrations, its grants belong to users.
 * Reads integrations' and users' tables (read only): the provider looks a client and a user
 * up on every authorization, and the grants list joins each grant with its app and user in one
 * paged query, where the owners' front doors would add a lookup per grant.
 */

/** The live OAuth client behind a client id (a revoked integration is no client). */
export const findClientIntegration = (db: Db, clientId: string) =>
  db
    .selectFrom('integrations')
    .selectAll()
    .where('client_id', '=', clientId)
    .where('revoked_at', 'is', null)
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

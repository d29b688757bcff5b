import { sql } from 'kysely';
import type { Db } from '../../db/index.js';
import { prepared } from '../../db/prepared.js';

/**
 * Read model of integration: its rows joined with users' table (read only). The console lists
 * each integration with its user's e-mail, a new integration acts as the account's first admin
 * (or a given user), and every bearer token is checked with its user's state on every request:
 * one query each, the token check a prepared one, where users' front door would add a round
 * trip (or one per integration) and make integration depend on users.
 */

/** The account's integrations with the e-mail of the user each acts as, live ones first. */
export function appsOfAccount(db: Db, accountId: number) {
  return db
    .selectFrom('integrations as i')
    .innerJoin('users as u', 'u.id', 'i.user_id')
    .select([
      'i.id',
      'i.name',
      'i.scopes',
      'i.client_id',
      'i.client_type',
      'i.redirect_uris',
      'i.display_name',
      'i.homepage',
      'i.created_at',
      'i.revoked_at',
      'u.email as user_email',
    ])
    .where('i.account_id', '=', accountId)
    .orderBy((eb) => eb.case().when('i.revoked_at', 'is', null).then(0).else(1).end())
    .orderBy('i.id')
    .limit(500)
    .execute();
}

export const firstAdmin = (db: Db, accountId?: number) => {
  let qb = db
    .selectFrom('users')
    .select(['id', 'account_id'])
    .where('role', '=', 'admin')
    .where('active', '=', 1);
  if (accountId !== undefined) qb = qb.where('account_id', '=', accountId);
  return qb.orderBy('id').executeTakeFirst();
};

export const findUserById = (db: Db, id: number) =>
  db.selectFrom('users').select(['id', 'account_id', 'active']).where('id', '=', id).executeTakeFirst();

// Both run on every request: built once (see db/prepared.ts).

/** A token with what deciding on it needs: its integration's and user's state. */
export const findTokenByHash = prepared(1, (db: Db, tokenHash: string) =>
  db
    .selectFrom('access_tokens as t')
    .innerJoin('integrations as i', 'i.id', 't.integration_id')
    // The user who consented (authorization code tokens), else the integration's own user;
    // of the integration's account only, so a token never reaches into another tenant.
    .innerJoin('users as u', (j) =>
      j.on(sql<boolean>`u.id = coalesce(t.user_id, i.user_id)`).onRef('u.account_id', '=', 'i.account_id'),
    )
    .select([
      't.id',
      't.scopes',
      't.expires_at',
      't.revoked_at',
      'i.id as integration_id',
      'i.account_id',
      'u.id as user_id',
      'i.revoked_at as integration_revoked_at',
      'u.active',
    ])
    .where('t.token_hash', '=', tokenHash),
);

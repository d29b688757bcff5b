import { type Insertable, type Kysely, type Selectable, sql, type Updateable } from 'kysely';
import type { AccessTokenTable, IntegrationTable } from '../../db/core.tables.js';
import { prepared } from '../../db/prepared.js';
import type { Database } from '../../db/schema.js';

export type IntegrationRow = Selectable<IntegrationTable>;
type Db = Kysely<Database>;

export const insertIntegration = (db: Db, values: Insertable<IntegrationTable>) =>
  db.insertInto('integrations').values(values).returningAll().executeTakeFirstOrThrow();

export const updateIntegration = (db: Db, id: number, values: Updateable<IntegrationTable>) =>
  db.updateTable('integrations').set(values).where('id', '=', id).execute();

export const insertToken = (db: Db, values: Insertable<AccessTokenTable>) =>
  db.insertInto('access_tokens').values(values).returning('id').executeTakeFirstOrThrow();

export const findIntegration = (db: Db, id: number) =>
  db.selectFrom('integrations').selectAll().where('id', '=', id).executeTakeFirst();

export const findIntegrationByClientId = (db: Db, clientId: string) =>
  db.selectFrom('integrations').selectAll().where('client_id', '=', clientId).executeTakeFirst();

export const listIntegrations = (db: Db, accountId?: number) => {
  let qb = db.selectFrom('integrations').selectAll().orderBy('id');
  if (accountId !== undefined) qb = qb.where('account_id', '=', accountId);
  return qb.execute();
};

export async function revokeIntegration(db: Db, id: number, at: string): Promise<boolean> {
  const r = await db
    .updateTable('integrations')
    .set({ revoked_at: at })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  await db
    .updateTable('access_tokens')
    .set({ revoked_at: at })
    .where('integration_id', '=', id)
    .where('revoked_at', 'is', null)
    .execute();
  return Number(r.numUpdatedRows) > 0;
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

/** The counter of migration 700: it moves whenever a stored token check may have changed. */
export const readAuthEpoch = prepared(0, (db: Db) => db.selectFrom('auth_epoch').select('value'));

import type { Insertable, Selectable, Updateable } from 'kysely';
import type { AccessTokenTable, IntegrationTable } from '../../db/core.tables.js';
import { versionColumn } from '../../db/data-version.js';
import { prepared } from '../../db/prepared.js';
import type { Db } from '../../db/schema.js';

export type IntegrationRow = Selectable<IntegrationTable>;

export const insertIntegration = (db: Db, values: Insertable<IntegrationTable>) =>
  db.insertInto('integrations').values(values).returningAll().executeTakeFirstOrThrow();

export const updateIntegration = (db: Db, id: number, values: Updateable<IntegrationTable>) =>
  db.updateTable('integrations').set(values).where('id', '=', id).execute();

export const insertToken = (db: Db, values: Insertable<AccessTokenTable>) =>
  db.insertInto('access_tokens').values(values).returning('id').executeTakeFirstOrThrow();

/** A token oauth issued, mirrored here so bearer checks find it (the same token twice is one row). */
export const insertTokenMirror = (
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

/** Revokes the live tokens with this token hash, of this grant, or of this integration. */
function revokeTokens(
  db: Db,
  by: 'token_hash' | 'grant_id' | 'integration_id',
  value: string | number,
  at: string,
) {
  return db
    .updateTable('access_tokens')
    .set({ revoked_at: at })
    .where(by, '=', value)
    .where('revoked_at', 'is', null)
    .execute();
}

export const revokeTokenByHash = (db: Db, tokenHash: string, at: string) =>
  revokeTokens(db, 'token_hash', tokenHash, at);

export async function revokeGrantTokens(db: Db, grantId: string, at: string): Promise<void> {
  await revokeTokens(db, 'grant_id', grantId, at);
}

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
  await revokeTokens(db, 'integration_id', id, at);
  return Number(r.numUpdatedRows) > 0;
}

/** The counter of migration 700: it moves whenever a stored token check may have changed. */
export const readAuthEpoch = prepared(0, (db: Db) => db.selectFrom('auth_epoch').select('value'));

/** The epoch and the data version (db/data-version.ts) in one statement. */
export const readAuthEpochAndVersion = prepared(0, (db: Db) =>
  db.selectFrom('auth_epoch').select(['value', versionColumn(db).as('version')]),
);

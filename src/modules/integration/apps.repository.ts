import type { Db } from '../../db/index.js';
import { findOwned } from '../../shared/owned.js';

/** Tokens the console lists per integration: the newest ones, the rest counted. */
export const TOKENS_SHOWN = 50;

export const findAppOfAccount = (db: Db, accountId: number, id: number) =>
  findOwned(db, 'integrations', accountId, id);

/**
 * Live tokens of an integration that no user's grant stands behind (personal access tokens
 * and client-credentials tokens; grant tokens are revoked with their grant), newest first.
 */
export function liveTokens(db: Db, integrationId: number, now: string) {
  return db
    .selectFrom('access_tokens')
    .select(['id', 'scopes', 'created_at', 'expires_at'])
    .where('integration_id', '=', integrationId)
    .where('grant_id', 'is', null)
    .where('revoked_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .orderBy('id', 'desc')
    .limit(TOKENS_SHOWN + 1)
    .execute();
}

export async function revokeToken(
  db: Db,
  integrationId: number,
  tokenId: number,
  at: string,
): Promise<boolean> {
  const r = await db
    .updateTable('access_tokens')
    .set({ revoked_at: at })
    .where('integration_id', '=', integrationId)
    .where('id', '=', tokenId)
    .where('grant_id', 'is', null)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

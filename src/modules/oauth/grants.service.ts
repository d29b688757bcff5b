import type { Db } from '../../db/index.js';
import { transact } from '../../db/transact.js';
import { AppError } from '../../shared/errors.js';
import { type PageParams, paginate } from '../../shared/paging.js';
import { describeScope } from '../../shared/scopes.js';
import { nowIso } from '../../shared/time.js';
import type { AuthContext } from '../../shared/tokens.js';
import { isAccountAdmin } from '../account/account.service.js';
import { recordAudit } from '../audit/audit.service.js';
import { revokeGrantTokens } from '../integration/integration.service.js';
import * as readModel from './oauth.read-model.js';
import * as repo from './oauth.repository.js';

// The token's user is an active user of its account (plugins/auth.ts refuses any other).
const isAdmin = (db: Db, auth: AuthContext): Promise<boolean> =>
  isAccountAdmin(db, auth.accountId, auth.userId);

/**
 * The apps users have authorized (OAuth grants): the token's user sees their own; with
 * `all`, an admin sees every grant of the account.
 */
export async function listGrants(db: Db, auth: AuthContext, q: PageParams & { all?: boolean }) {
  if (q.all && !(await isAdmin(db, auth)))
    throw new AppError('forbidden', "Only an admin may list the account's grants");
  return paginate(readModel.grantsQuery(db, auth.accountId, nowIso(), q.all ? undefined : auth.userId), q);
}

export function toGrant(
  row: Awaited<ReturnType<ReturnType<typeof readModel.grantsQuery>['execute']>>[number],
) {
  const payload = JSON.parse(row.payload) as { openid?: { scope?: string } };
  const scopes = (payload.openid?.scope ?? '').split(' ').filter(Boolean);
  return {
    id: row.id,
    integration_id: row.integration_id,
    app_name: row.display_name ?? row.name,
    app_homepage: row.homepage,
    user_id: row.user_id,
    user_email: row.email,
    scopes,
    scope_descriptions: scopes.map(describeScope),
    created_at: new Date(row.created_at).toISOString(),
    expires_at: row.expires_at ? new Date(row.expires_at).toISOString() : null,
  };
}

/** Deletes a grant and records who revoked it, in the caller's transaction. */
async function deleteAudited(
  trx: Db,
  grantId: string,
  row: { integration_id: number; user_id: number; email: string },
  actor: { accountId: number; userId: number; kind: 'token' | 'user' },
  more: Record<string, unknown> = {},
): Promise<void> {
  await deleteGrant(trx, grantId, nowIso());
  await recordAudit(trx, {
    accountId: actor.accountId,
    actorUserId: actor.userId,
    actorKind: actor.kind,
    action: 'grant.revoke',
    targetType: 'integration',
    targetId: row.integration_id,
    detail: { grant_id: grantId, user_id: row.user_id, user_email: row.email, ...more },
  });
}

/** Revokes a grant: its refresh tokens, codes and access tokens end at once. Own grants, or any as admin. */
export async function revokeGrant(db: Db, auth: AuthContext, grantId: string): Promise<void> {
  const admin = await isAdmin(db, auth);
  const rows = await readModel
    .grantsQuery(db, auth.accountId, nowIso(), admin ? undefined : auth.userId)
    .where('g.id', '=', grantId)
    .execute();
  const [row] = rows;
  if (!row) throw new AppError('not_found', 'No such grant');
  await transact(db, (trx) =>
    deleteAudited(
      trx,
      grantId,
      row,
      { accountId: auth.accountId, userId: auth.userId, kind: 'token' },
      {
        by_integration_id: auth.integrationId,
      },
    ),
  );
}

/** The console (an admin of the account): every live grant of the account, at most `limit`. */
export async function listAccountGrants(db: Db, accountId: number, limit = 500) {
  const rows = await readModel.grantsQuery(db, accountId, nowIso()).limit(limit).execute();
  return rows.map(toGrant);
}

/** The console: an admin revokes any grant of the account, audited in the same transaction. */
export async function revokeAccountGrant(
  db: Db,
  actor: { accountId: number; userId: number },
  grantId: string,
): Promise<void> {
  await transact(db, async (trx) => {
    const [row] = await readModel
      .grantsQuery(trx, actor.accountId, nowIso())
      .where('g.id', '=', grantId)
      .execute();
    if (!row) throw new AppError('not_found', 'No such grant');
    await deleteAudited(trx, grantId, row, { ...actor, kind: 'user' });
  });
}

/** Every code, refresh token and access token of a grant, and the grant itself. */
export async function deleteGrant(trx: Db, grantId: string, at: string): Promise<number> {
  const n = await repo.deleteGrant(trx, grantId);
  await revokeGrantTokens(trx, grantId, at);
  return n;
}

import type { Db } from '../../db/index.js';
import { transact } from '../../db/transact.js';
import { AppError } from '../../shared/errors.js';
import { type PageParams, paginate } from '../../shared/paging.js';
import { describeScope } from '../../shared/scopes.js';
import { nowIso } from '../../shared/time.js';
import type { AuthContext } from '../../shared/tokens.js';
import { recordAudit } from '../audit/audit.service.js';
import * as repo from './oauth.repository.js';

async function isAdmin(db: Db, userId: number): Promise<boolean> {
  const u = await db.selectFrom('users').select('role').where('id', '=', userId).executeTakeFirst();
  return u?.role === 'admin';
}

/**
 * The apps users have authorized (OAuth grants): the token's user sees their own; with
 * `all`, an admin sees every grant of the account.
 */
export async function listGrants(db: Db, auth: AuthContext, q: PageParams & { all?: boolean }) {
  if (q.all && !(await isAdmin(db, auth.userId)))
    throw new AppError('forbidden', "Only an admin may list the account's grants");
  return paginate(repo.grantsQuery(db, auth.accountId, nowIso(), q.all ? undefined : auth.userId), q);
}

export function toGrant(row: Awaited<ReturnType<ReturnType<typeof repo.grantsQuery>['execute']>>[number]) {
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

/** Revokes a grant: its refresh tokens, codes and access tokens end at once. Own grants, or any as admin. */
export async function revokeGrant(db: Db, auth: AuthContext, grantId: string): Promise<void> {
  const admin = await isAdmin(db, auth.userId);
  const rows = await repo
    .grantsQuery(db, auth.accountId, nowIso(), admin ? undefined : auth.userId)
    .where('g.id', '=', grantId)
    .execute();
  const [row] = rows;
  if (!row) throw new AppError('not_found', 'No such grant');
  await transact(db, async (trx) => {
    await repo.deleteGrant(trx, grantId, nowIso());
    await recordAudit(trx, {
      accountId: auth.accountId,
      actorUserId: auth.userId,
      actorKind: 'token',
      action: 'grant.revoke',
      targetType: 'integration',
      targetId: row.integration_id,
      detail: {
        grant_id: grantId,
        user_id: row.user_id,
        user_email: row.email,
        by_integration_id: auth.integrationId,
      },
    });
  });
}

/** The console (an admin of the account): every live grant of the account, at most `limit`. */
export async function listAccountGrants(db: Db, accountId: number, limit = 500) {
  const rows = await repo.grantsQuery(db, accountId, nowIso()).limit(limit).execute();
  return rows.map(toGrant);
}

/** The console: an admin revokes any grant of the account, audited in the same transaction. */
export async function revokeAccountGrant(
  db: Db,
  actor: { accountId: number; userId: number },
  grantId: string,
): Promise<void> {
  await transact(db, async (trx) => {
    const [row] = await repo
      .grantsQuery(trx, actor.accountId, nowIso())
      .where('g.id', '=', grantId)
      .execute();
    if (!row) throw new AppError('not_found', 'No such grant');
    await repo.deleteGrant(trx, grantId, nowIso());
    await recordAudit(trx, {
      accountId: actor.accountId,
      actorUserId: actor.userId,
      actorKind: 'user',
      action: 'grant.revoke',
      targetType: 'integration',
      targetId: row.integration_id,
      detail: { grant_id: grantId, user_id: row.user_id, user_email: row.email },
    });
  });
}

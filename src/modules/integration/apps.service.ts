import type { Db } from '../../db/index.js';
import { transact } from '../../db/transact.js';
import { AppError, invalidField } from '../../shared/errors.js';
import { nowIso } from '../../shared/time.js';
import { parseScopes } from '../../shared/tokens.js';
import { type Actor, auditByUser } from '../audit/audit.service.js';
import * as repo from './apps.repository.js';
import { appsOfAccount } from './integration.read-model.js';
import {
  assertKnownScopes,
  type CreatedIntegration,
  createIntegration,
  issueToken,
  revokeIntegration,
  updateIntegration,
} from './integration.service.js';

/**
 * The console's integrations and apps (issue 13): an account's admin creates an integration
 * (its first personal access token and, for a confidential client, its OAuth client secret are
 * shown once), makes it an OAuth app with redirect URIs, issues and revokes tokens and revokes
 * the integration. Every change is audited in the transaction that makes it.
 */
export type { Actor } from '../audit/audit.service.js';

export const NAME_MAX = 100;
export const REDIRECT_URIS_MAX = 10;
export const REDIRECT_URI_MAX = 2000;

export interface AppInput {
  name: string;
  scopes: string[];
  redirectUris: string[];
  public: boolean;
}

function checkInput(input: AppInput): AppInput {
  const name = input.name.trim();
  if (!name) throw invalidField('name', 'is required');
  if (name.length > NAME_MAX) throw invalidField('name', `must be at most ${NAME_MAX} characters`);
  if (input.scopes.length === 0) throw invalidField('scopes', 'choose at least one');
  assertKnownScopes(input.scopes);
  if (input.redirectUris.length > REDIRECT_URIS_MAX)
    throw invalidField('redirect_uris', `at most ${REDIRECT_URIS_MAX}`);
  if (input.redirectUris.some((u) => u.length > REDIRECT_URI_MAX))
    throw invalidField('redirect_uris', `each at most ${REDIRECT_URI_MAX} characters`);
  return { ...input, name };
}

const audit = (trx: Db, actor: Actor, action: string, targetId: number, detail?: Record<string, unknown>) =>
  auditByUser(trx, actor, 'integration', action, targetId, detail);

export async function listApps(db: Db, accountId: number) {
  const rows = await appsOfAccount(db, accountId);
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    scopes: parseScopes(r.scopes),
    client_id: r.client_id,
    client_type: r.client_type,
    redirect_uris: r.redirect_uris.split(' ').filter(Boolean),
    user_email: r.user_email,
    created_at: r.created_at,
    revoked_at: r.revoked_at,
  }));
}

/** One integration of the account with its live tokens (404 for another account's). */
export async function getApp(db: Db, accountId: number, id: number) {
  const row = await repo.findAppOfAccount(db, accountId, id);
  if (!row) throw new AppError('not_found', 'No such integration');
  const tokens = await repo.liveTokens(db, id, nowIso());
  return {
    id: row.id,
    name: row.name,
    scopes: parseScopes(row.scopes),
    client_id: row.client_id,
    client_type: row.client_type,
    redirect_uris: row.redirect_uris.split(' ').filter(Boolean),
    created_at: row.created_at,
    revoked_at: row.revoked_at,
    tokens: tokens.slice(0, repo.TOKENS_SHOWN).map((t) => ({ ...t, scopes: parseScopes(t.scopes) })),
    moreTokens: tokens.length > repo.TOKENS_SHOWN,
  };
}

/** Creates an integration acting as the admin who creates it; its secrets are in the answer only. */
export async function createApp(db: Db, actor: Actor, input: AppInput): Promise<CreatedIntegration> {
  const checked = checkInput(input);
  return transact(db, async (trx) => {
    const created = await createIntegration(trx, {
      name: checked.name,
      scopes: checked.scopes,
      userId: actor.userId,
      accountId: actor.accountId,
      redirectUris: checked.redirectUris,
      public: checked.public,
    });
    await audit(trx, actor, 'integration.create', created.id, {
      name: created.name,
      scopes: created.scopes,
      redirect_uris: created.redirect_uris,
      client_type: created.client_type,
    });
    return created;
  });
}

async function liveApp(db: Db, actor: Actor, id: number) {
  const row = await repo.findAppOfAccount(db, actor.accountId, id);
  if (!row) throw new AppError('not_found', 'No such integration');
  if (row.revoked_at) throw new AppError('conflict', 'The integration is revoked');
  return row;
}

export async function updateApp(db: Db, actor: Actor, id: number, input: AppInput): Promise<void> {
  const checked = checkInput(input);
  await transact(db, async (trx) => {
    const before = await liveApp(trx, actor, id);
    await updateIntegration(trx, id, {
      name: checked.name,
      scopes: checked.scopes,
      redirectUris: checked.redirectUris,
      public: checked.public,
    });
    await audit(trx, actor, 'integration.update', id, {
      name: checked.name,
      scopes: checked.scopes,
      redirect_uris: checked.redirectUris,
      client_type: checked.public ? 'public' : 'confidential',
      previous: {
        name: before.name,
        scopes: parseScopes(before.scopes),
        redirect_uris: before.redirect_uris.split(' ').filter(Boolean),
        client_type: before.client_type,
      },
    });
  });
}

/** Revokes the integration: every token of it stops working at once. */
export async function revokeApp(db: Db, actor: Actor, id: number): Promise<void> {
  await transact(db, async (trx) => {
    const row = await liveApp(trx, actor, id);
    await revokeIntegration(trx, id);
    await audit(trx, actor, 'integration.revoke', id, { name: row.name });
  });
}

/** A new personal access token with the integration's scopes, shown once. */
export async function issueAppToken(
  db: Db,
  actor: Actor,
  id: number,
): Promise<{ token: string; id: number }> {
  return transact(db, async (trx) => {
    const row = await liveApp(trx, actor, id);
    const { token, id: tokenId } = await issueToken(trx, id, parseScopes(row.scopes), 0);
    await audit(trx, actor, 'token.create', id, { token_id: tokenId });
    return { token, id: tokenId };
  });
}

export async function revokeAppToken(db: Db, actor: Actor, id: number, tokenId: number): Promise<void> {
  await transact(db, async (trx) => {
    await liveApp(trx, actor, id);
    if (!(await repo.revokeToken(trx, id, tokenId, nowIso())))
      throw new AppError('not_found', 'No such live token');
    await audit(trx, actor, 'token.revoke', id, { token_id: tokenId });
  });
}

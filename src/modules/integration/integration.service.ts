import { createHash, timingSafeEqual } from 'node:crypto';
import { type Db, isPostgres } from '../../db/index.js';
import { transact } from '../../db/transact.js';
import { AppError } from '../../shared/errors.js';
import { ALL_SCOPES } from '../../shared/scopes.js';
import { nowIso } from '../../shared/time.js';
import { hashToken, newToken, parseScopes, type TokenSource } from '../../shared/tokens.js';
import { findTokenByHash, findUserById, firstAdmin } from './integration.read-model.js';
import * as repo from './integration.repository.js';

/** Scopes of the specification, plus `user-profile:*` which it names for the widening of GET /users/{id}. */
export function assertKnownScopes(scopes: string[]): void {
  const unknown = scopes.filter(
    (s) => !(ALL_SCOPES as readonly string[]).includes(s) && !/^user-profile:[a-z-]+$/.test(s),
  );
  if (unknown.length) throw new AppError('validation_failed', `Unknown scope(s): ${unknown.join(', ')}`);
}

/** What makes an integration an OAuth client of the authorization code flow. */
export interface OAuthClientInput {
  redirectUris?: string[];
  /** A public client (mobile, single-page app) has no secret and must use PKCE. */
  public?: boolean;
  displayName?: string;
  homepage?: string;
}

/**
 * Redirect URIs are matched exactly, so they must be absolute, without a fragment, and https
 * except on loopback (RFC 8252 §7.3) or for an app's own scheme (`com.example.app:/cb`).
 */
export function checkRedirectUris(uris: string[]): string[] {
  for (const uri of uris) {
    const url = URL.parse(uri);
    const loopback = url && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
    if (!url || url.hash || uri.includes('#') || /\s/.test(uri))
      throw new AppError('validation_failed', `Not an absolute redirect URI without fragment: ${uri}`);
    if (url.protocol === 'http:' && !loopback)
      throw new AppError('validation_failed', `A redirect URI must use https (or loopback http): ${uri}`);
  }
  return [...new Set(uris)];
}

function checkHomepage(uri: string): string {
  const url = URL.parse(uri);
  if (!url || !['http:', 'https:'].includes(url.protocol))
    throw new AppError('validation_failed', `Not an http(s) homepage: ${uri}`);
  return url.href;
}

/** Changes an integration's OAuth client data (CLI `integration update`). */
export async function updateIntegration(
  db: Db,
  id: number,
  input: OAuthClientInput & { name?: string; scopes?: string[] },
): Promise<void> {
  const row = await repo.findIntegration(db, id);
  if (!row || row.revoked_at) throw new AppError('not_found', `No integration ${id}`);
  if (input.scopes) assertKnownScopes(input.scopes);
  const redirectUris = input.redirectUris ? checkRedirectUris(input.redirectUris) : undefined;
  const isPublic = input.public ?? row.client_type === 'public';
  if (isPublic && !(redirectUris ?? row.redirect_uris.split(' ').filter(Boolean)).length)
    throw new AppError('validation_failed', 'A public client needs at least one redirect URI');
  await repo.updateIntegration(db, id, {
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.scopes ? { scopes: input.scopes.join(' ') } : {}),
    ...(redirectUris ? { redirect_uris: redirectUris.join(' ') } : {}),
    ...(input.public !== undefined ? { client_type: input.public ? 'public' : 'confidential' } : {}),
    ...(input.displayName !== undefined ? { display_name: input.displayName || null } : {}),
    ...(input.homepage !== undefined
      ? { homepage: input.homepage ? checkHomepage(input.homepage) : null }
      : {}),
  });
}

export interface CreatedIntegration {
  id: number;
  name: string;
  account_id: number;
  user_id: number;
  scopes: string[];
  client_id: string;
  /** Shown this once; none for a public client (it keeps no secret). */
  client_secret: string | null;
  redirect_uris: string[];
  client_type: 'confidential' | 'public';
  access_token: string;
  token_type: 'Bearer';
  expires_at: string | null;
}

export async function issueToken(
  db: Db,
  integrationId: number,
  scopes: string[],
  ttlSeconds: number,
): Promise<{ token: string; expires_at: string | null; id: number }> {
  const token = newToken('pat');
  const expires_at = ttlSeconds > 0 ? new Date(Date.now() + ttlSeconds * 1000).toISOString() : null;
  const { id } = await repo.insertToken(db, {
    integration_id: integrationId,
    token_hash: hashToken(token),
    scopes: scopes.join(' '),
    expires_at,
  });
  return { token, expires_at, id };
}

/** Creates an integration acting as `userId` (default: the first active admin) and its first token. */
export async function createIntegration(
  db: Db,
  input: {
    name: string;
    scopes: string[];
    userId?: number;
    accountId?: number;
    ttlSeconds?: number;
  } & OAuthClientInput,
): Promise<CreatedIntegration> {
  assertKnownScopes(input.scopes);
  const redirectUris = checkRedirectUris(input.redirectUris ?? []);
  if (input.public && !redirectUris.length)
    throw new AppError('validation_failed', 'A public client needs at least one redirect URI');
  const user =
    input.userId !== undefined ? await findUserById(db, input.userId) : await firstAdmin(db, input.accountId);
  if (!user) {
    throw new AppError(
      'invalid_reference',
      input.userId !== undefined
        ? `No user ${input.userId}`
        : 'No active admin user: import an account first',
    );
  }
  if (input.accountId !== undefined && user.account_id !== input.accountId) {
    throw new AppError('invalid_reference', `User ${user.id} is not in account ${input.accountId}`);
  }
  const clientSecret = newToken('cs');
  return transact(db, async (trx) => {
    const integration = await repo.insertIntegration(trx, {
      account_id: user.account_id,
      user_id: user.id,
      name: input.name,
      scopes: input.scopes.join(' '),
      client_id: newToken('ci').slice(0, 27),
      client_secret_hash: hashToken(clientSecret),
      redirect_uris: redirectUris.join(' '),
      client_type: input.public ? 'public' : 'confidential',
      display_name: input.displayName ?? null,
      homepage: input.homepage ? checkHomepage(input.homepage) : null,
    });
    const { token, expires_at } = await issueToken(trx, integration.id, input.scopes, input.ttlSeconds ?? 0);
    return {
      id: integration.id,
      name: integration.name,
      account_id: integration.account_id,
      user_id: integration.user_id,
      scopes: input.scopes,
      client_id: integration.client_id,
      client_secret: input.public ? null : clientSecret,
      redirect_uris: redirectUris,
      client_type: input.public ? ('public' as const) : ('confidential' as const),
      access_token: token,
      token_type: 'Bearer' as const,
      expires_at,
    };
  });
}

export async function listIntegrations(db: Db, accountId?: number) {
  const rows = await repo.listIntegrations(db, accountId);
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    account_id: r.account_id,
    user_id: r.user_id,
    scopes: parseScopes(r.scopes),
    client_id: r.client_id,
    created_at: r.created_at,
    revoked_at: r.revoked_at,
  }));
}

export async function revokeIntegration(db: Db, id: number): Promise<void> {
  const row = await repo.findIntegration(db, id);
  if (!row) throw new AppError('not_found', `No integration ${id}`);
  await transact(db, (trx) => repo.revokeIntegration(trx, id, nowIso()));
}

/** OAuth 2.0 client authentication: constant-time comparison of the secret's hash. */
export async function authenticateClient(db: Db, clientId: string, clientSecret: string) {
  const row = await repo.findIntegrationByClientId(db, clientId);
  const given = createHash('sha256').update(clientSecret).digest();
  const expected = Buffer.from(row?.client_secret_hash ?? '0'.repeat(64), 'hex');
  if (!row || row.revoked_at || !timingSafeEqual(given, expected)) {
    throw new AppError('invalid_client', 'Unknown client or wrong secret', {
      headers: { 'www-authenticate': 'Basic realm="oauth"' },
    });
  }
  return row;
}

/** Whether the user an integration acts as may still act (a deactivated user's tokens are refused). */
export async function userIsActive(db: Db, userId: number): Promise<boolean> {
  return Boolean((await findUserById(db, userId))?.active);
}

export async function getIntegration(db: Db, id: number) {
  const row = await repo.findIntegration(db, id);
  if (!row) throw new AppError('not_found', 'Integration not found');
  return row;
}

/**
 * The bearer check's reads (plugins/auth.ts, through its cache): handed to the auth plugin by
 * app.ts, so the plugin imports no module.
 */
export const tokenSource: TokenSource = {
  epoch: async (db) => {
    // On SQLite this read may wait for a transaction of this connection, and a version read
    // after it would not say what the request saw on arrival: the page cache reads its own.
    if (!isPostgres(db)) return { epoch: Number((await repo.readAuthEpoch(db))[0]?.value) };
    const row = (await repo.readAuthEpochAndVersion(db))[0];
    return { epoch: Number(row?.value), version: row?.version };
  },
  epochNow: (db) => {
    const row = repo.readAuthEpochAndVersion.now(db)?.[0];
    return row && { epoch: Number(row.value), version: row.version };
  },
  find: async (db, tokenHash) => (await findTokenByHash(db, tokenHash))[0],
};

/**
 * Oauth's writes into the access tokens it mirrors here (bearer checks read this table): the
 * mirror of a token it issued, the revocation of one token and of a grant's tokens.
 */
export {
  insertTokenMirror as insertAccessTokenMirror,
  revokeGrantTokens,
  revokeTokenByHash as revokeAccessToken,
} from './integration.repository.js';

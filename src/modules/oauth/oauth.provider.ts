import { createECDH, createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import Provider, {
  type Adapter,
  type AdapterPayload,
  type Configuration,
  interactionPolicy,
} from 'oidc-provider';
import type { Db } from '../../db/index.js';
import { ALL_SCOPES, USER_PROFILE_SCOPES } from '../../shared/scopes.js';
import { nowIso } from '../../shared/time.js';
import { hashToken, parseScopes } from '../../shared/tokens.js';
import { tokenSource } from '../integration/integration.service.js';
import { KyselyAdapter } from './oauth.adapter.js';
import { openJwk, sealJwk } from './oauth.keys.js';
import * as readModel from './oauth.read-model.js';
import * as repo from './oauth.repository.js';

/** Where the authorization server is mounted (its endpoints: /oauth/auth, /oauth/token, …). */
export const OAUTH_PREFIX = '/oauth';
export const INTERACTION_PATH = `${OAUTH_PREFIX}/interaction`;

export interface OAuthOptions {
  /** Lifetimes in seconds (tests shorten the code's to see it expire). */
  ttl?: { AuthorizationCode?: number; AccessToken?: number; RefreshToken?: number };
}

const escapeHtml = (v: unknown) => String(v ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function errorPage(error: unknown, description: unknown): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>The app's request was refused</title><link rel="stylesheet" href="/assets/web.css"></head><body><main class="card"><h1>The app's request was refused</h1><p class="error" role="alert">${escapeHtml(description)}</p><p class="hint">Error code: <code>${escapeHtml(error)}</code>. Tell the app's makers; nothing was shared with the app.</p></main></body></html>`;
}

const STATIC_SCOPES = new Set<string>([...ALL_SCOPES, ...USER_PROFILE_SCOPES]);

/** Integrations are the OAuth clients: their metadata as oidc-provider reads it. */
class ClientAdapter implements Adapter {
  constructor(private readonly db: Db) {}
  async find(clientId: string): Promise<AdapterPayload | undefined> {
    const row = await readModel.findClientIntegration(this.db, clientId);
    if (!row) return undefined;
    const isPublic = row.client_type === 'public';
    const redirectUris = parseScopes(row.redirect_uris);
    const grantTypes = [
      ...(redirectUris.length ? ['authorization_code', 'refresh_token'] : []),
      ...(isPublic ? [] : ['client_credentials']),
    ];
    return {
      client_id: row.client_id,
      // Only the secret's hash is stored: compareClientSecret (below) hashes what is presented.
      ...(isPublic ? {} : { client_secret: row.client_secret_hash }),
      token_endpoint_auth_method: isPublic ? 'none' : 'client_secret_basic',
      redirect_uris: redirectUris,
      response_types: redirectUris.length ? ['code'] : [],
      grant_types: grantTypes,
      // oidc-provider accepts only its static scopes here; other `user-profile:` scopes an
      // integration is registered for are checked in the interaction (oauth.server.ts).
      scope: parseScopes(row.scopes)
        .filter((s) => STATIC_SCOPES.has(s))
        .join(' '),
      client_name: row.display_name ?? row.name,
      ...(row.homepage ? { client_uri: row.homepage } : {}),
    };
  }
  async upsert() {}
  async findByUid() {
    return undefined;
  }
  async findByUserCode() {
    return undefined;
  }
  async consume() {}
  async destroy() {}
  async revokeByGrantId() {}
}

/**
 * A new P-256 private key as a JWK. Not `generateKeyPairSync(…).privateKey.export({ format:
 * 'jwk' })`: on Node 20 a garbage collection during that export can run the generation job's
 * destructor, which waits for the lock the export holds on the same key, and the process hangs
 * for good (a CI run did: gdb showed ExportJWKEcKey → GC → ~KeyGenJob → uv_mutex_lock). ECDH
 * gives the same numbers without a key object.
 */
export function newSigningJwk(): { kty: 'EC'; crv: 'P-256'; x: string; y: string; d: string } {
  const ecdh = createECDH('prime256v1');
  const point = ecdh.generateKeys(); // 0x04 ‖ x ‖ y, 32 bytes each
  const d = ecdh.getPrivateKey(); // without leading zero bytes: a JWK's d has all 32
  return {
    kty: 'EC',
    crv: 'P-256',
    x: point.subarray(1, 33).toString('base64url'),
    y: point.subarray(33, 65).toString('base64url'),
    d: Buffer.concat([Buffer.alloc(32 - d.length), d]).toString('base64url'),
  };
}

/**
 * Whether a client may learn about a token at the introspection endpoint (RFC 7662 §2.2): a
 * confidential client, of the token's own tenant, and only while the token still works: its
 * app live, its user active, an access token not revoked (by the API, the console, the CLI).
 * Anything else is `active: false`, as for a token that does not exist.
 */
async function mayIntrospect(
  db: Db,
  caller: { clientId: string; clientAuthMethod?: string },
  token: { kind: string; jti: string; clientId?: string; accountId?: string },
): Promise<boolean> {
  if (!caller.clientAuthMethod || caller.clientAuthMethod === 'none' || !token.clientId) return false;
  const [callerApp, tokenApp] = await Promise.all([
    readModel.findClientIntegration(db, caller.clientId),
    readModel.findClientIntegration(db, token.clientId),
  ]);
  if (!callerApp || !tokenApp || callerApp.account_id !== tokenApp.account_id) return false;
  if (token.accountId !== undefined) {
    const user = await readModel.findUserForSignIn(db, Number(token.accountId));
    if (!user?.active || user.account_id !== tokenApp.account_id) return false;
  }
  if (token.kind === 'AccessToken' || token.kind === 'ClientCredentials') {
    const row = await tokenSource.find(db, hashToken(token.jti));
    if (!row || row.revoked_at || row.integration_revoked_at || !row.active) return false;
  }
  return true;
}

/**
 * The signing key (needed by oidc-provider even though no ID tokens are asked for): one per
 * database, stored sealed with SECRET_KEY (oauth.keys.ts). A key stored in the clear before is
 * sealed on the first start; one sealed under another SECRET_KEY is replaced by a new one
 * (nothing signed with it is kept to be verified later).
 */
async function signingKeys(db: Db, secretKey: string) {
  const fresh = () => sealJwk(secretKey, { ...newSigningJwk(), alg: 'ES256', use: 'sig' });
  let key: Record<string, string> | undefined;
  for (let attempt = 0; !key; attempt++) {
    const row = await repo.findStored(db, 'Jwks', 'signing');
    if (!row) {
      await repo.insertStoredIfAbsent(db, { model: 'Jwks', id: 'signing', payload: fresh() });
      continue;
    }
    const opened = openJwk(secretKey, row.payload);
    if (opened?.sealed || attempt > 2) {
      if (!opened) throw new Error('the OAuth signing key does not open with this SECRET_KEY');
      key = opened.jwk;
    } else {
      const payload = opened ? sealJwk(secretKey, opened.jwk) : fresh();
      await repo.replaceStoredPayload(db, 'Jwks', 'signing', row.payload, payload);
    }
  }
  return {
    keys: [
      {
        ...key,
        kid: createHash('sha256')
          .update(key.x! + key.y!)
          .digest('base64url')
          .slice(0, 16),
      },
    ],
  };
}

export async function createProvider(app: FastifyInstance, options: OAuthOptions = {}): Promise<Provider> {
  const db = app.db;
  const { Check, base } = interactionPolicy;
  const policy = base();
  // Every authorization passes our interaction once: the user is whoever is signed in to
  // *our* pages now (web/session.ts), never a leftover of oidc-provider's own session cookie.
  policy
    .get('login')!
    .checks.add(
      new Check('signed_in_here', 'the user signs in on this server', (ctx) =>
        ctx.oidc.result?.login ? Check.NO_NEED_TO_PROMPT : Check.REQUEST_PROMPT,
      ),
    );
  // Scopes outside the provider's static list (`user-profile:*`) need consent all the same.
  policy.get('consent')!.checks.add(
    new Check('api_scopes_missing', 'requested scopes not granted', (ctx) => {
      const granted = new Set(
        (ctx.oidc as unknown as { grant: { getOIDCScopeEncountered(): string } }).grant
          .getOIDCScopeEncountered()
          .split(' '),
      );
      const requested = (ctx.oidc.params?.scope as string | undefined)?.split(' ').filter(Boolean) ?? [];
      return requested.some((s) => !granted.has(s)) ? Check.REQUEST_PROMPT : Check.NO_NEED_TO_PROMPT;
    }),
  );

  const cookieKey = createHmac('sha256', app.config.secretKey).update('oauth-cookies').digest('base64url');
  const ttl = options.ttl ?? {};
  const configuration: Configuration = {
    adapter: (name: string) => (name === 'Client' ? new ClientAdapter(db) : new KyselyAdapter(name, db)),
    clients: [],
    clientDefaults: {
      id_token_signed_response_alg: 'ES256',
      grant_types: ['authorization_code'],
      response_types: ['code'],
    },
    jwks: (await signingKeys(db, app.config.secretKey)) as Configuration['jwks'],
    cookies: { keys: [cookieKey], long: { signed: true }, short: { signed: true } },
    scopes: [...STATIC_SCOPES],
    claims: { openid: ['sub'] },
    responseTypes: ['code'],
    allowOmittingSingleRegisteredRedirectUri: false,
    pkce: { required: (_ctx, client) => client.clientAuthMethod === 'none' },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      revocation: { enabled: true },
      // RFC 7662 for confidential clients only: a public client holds no secret to prove itself.
      introspection: {
        enabled: true,
        allowedPolicy: (_ctx, client, token) => mayIntrospect(db, client, token),
      },
      userinfo: { enabled: false },
      rpInitiatedLogout: { enabled: false },
    },
    rotateRefreshToken: true,
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    // A later authorization finds the grant the user gave this app before, from any browser.
    loadExistingGrant: async (ctx) => {
      const fromResult = ctx.oidc.result?.consent?.grantId;
      const accountId = ctx.oidc.session?.accountId;
      const grantId =
        fromResult ??
        (accountId
          ? (await repo.findUserGrantId(db, Number(accountId), ctx.oidc.client!.clientId, nowIso()))?.id
          : undefined);
      return grantId ? ctx.oidc.provider.Grant.find(grantId) : undefined;
    },
    findAccount: async (_ctx, sub) => {
      const user = await readModel.findUserForSignIn(db, Number(sub));
      if (!user?.active) return undefined;
      return { accountId: String(user.id), claims: () => ({ sub: String(user.id) }) };
    },
    // Browser apps (public clients) may call the token endpoints from their redirect URIs' origins.
    clientBasedCORS: (_ctx, origin, client) =>
      client.clientAuthMethod === 'none' && client.redirectUris!.some((u) => URL.parse(u)?.origin === origin),
    ttl: {
      AccessToken: ttl.AccessToken ?? 3600,
      ClientCredentials: ttl.AccessToken ?? 3600,
      AuthorizationCode: ttl.AuthorizationCode ?? 60,
      RefreshToken: ttl.RefreshToken ?? 30 * 24 * 3600,
      Grant: 365 * 24 * 3600,
      Interaction: 600,
      Session: 24 * 3600,
    },
    interactions: { policy, url: (_ctx, interaction) => `${INTERACTION_PATH}/${interaction.uid}` },
    routes: { revocation: '/revoke', introspection: '/introspect' },
    // An error that cannot go back to the app (unknown client, redirect URI not registered):
    // a page for the user, in the style of the sign-in pages, with the RFC 6749 code.
    renderError: async (ctx, out) => {
      ctx.type = 'text/html; charset=utf-8';
      ctx.set('content-security-policy', "default-src 'none'; style-src 'self'; frame-ancestors 'none'");
      ctx.set('cache-control', 'no-store');
      ctx.body = errorPage(out.error, out.error_description);
    },
  };
  const provider = new Provider(app.config.publicUrl, configuration);
  // Integrations keep only a hash of their secret: compare hashes, in constant time.
  provider.Client.prototype.compareClientSecret = function (this: { clientSecret?: string }, actual: string) {
    const expected = Buffer.from(this.clientSecret ?? '', 'hex');
    const given = createHash('sha256').update(actual).digest();
    return Promise.resolve(expected.length === given.length && timingSafeEqual(expected, given));
  };
  return provider;
}

import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type Provider from 'oidc-provider';
import { carryBudgetHeaders } from '../../plugins/rate-limit.js';
import { parseScopes } from '../../shared/tokens.js';
import { registerViewFile, render } from '../../web/render.js';
import { checkCsrf, requireSession, sessionUser } from '../../web/session.js';
import './consent.messages.js';
import { createProvider, INTERACTION_PATH, OAUTH_PREFIX, type OAuthOptions } from './oauth.provider.js';
import * as readModel from './oauth.read-model.js';

declare module 'fastify' {
  interface FastifyInstance {
    oauthProvider: Provider;
  }
}

registerViewFile('@consent', join(dirname(fileURLToPath(import.meta.url)), 'consent.eta'));

/**
 * Hands a request to oidc-provider (a Koa app) as it came: Fastify has not read the body
 * (no parser in this scope), so oidc-provider reads and checks it itself. `originalUrl`
 * tells it where it is mounted, so the URLs it writes point at /oauth/….
 */
function handOver(provider: Provider, req: FastifyRequest, reply: FastifyReply, path: string) {
  const raw = req.raw as FastifyRequest['raw'] & { originalUrl?: string };
  const query = raw.url!.includes('?') ? raw.url!.slice(raw.url!.indexOf('?')) : '';
  raw.originalUrl = `${OAUTH_PREFIX}${path}${query}`;
  raw.url = `${path}${query}`;
  // The URLs it writes (metadata, redirects) are on PUBLIC_URL, never on the caller's Host.
  const pub = new URL(req.server.config.publicUrl);
  raw.headers.host = pub.host;
  raw.headers['x-forwarded-host'] = pub.host;
  raw.headers['x-forwarded-proto'] = pub.protocol.slice(0, -1);
  // oidc-provider writes the answer itself: the budget's headers go with it.
  carryBudgetHeaders(reply);
  reply.hijack();
  provider.callback()(raw, reply.raw);
}

/** Interaction with the signed-in user: who it is (login), and what they allow (consent). */
async function interactionRoutes(app: FastifyInstance) {
  const provider = app.oauthProvider;
  await app.register(formbody);

  const scopesOf = (params: Record<string, unknown>) => parseScopes(String(params.scope ?? ''));

  app.get<{ Params: { uid: string } }>(
    `${INTERACTION_PATH}/:uid`,
    { config: { public: true }, schema: { hide: true } },
    async (req, reply) => {
      const user = await requireSession(req, reply);
      if (!user) return reply;
      const details = await provider.interactionDetails(req.raw, reply.raw);
      const client = await readModel.findClientIntegration(app.db, String(details.params.client_id));
      const finish = async (result: Record<string, unknown>) =>
        reply.redirect(
          await provider.interactionResult(req.raw, reply.raw, result, { mergeWithLastSubmission: false }),
          303,
        );
      if (!client || client.account_id !== user.accountId)
        return finish({ error: 'access_denied', error_description: 'The app is not one of your account' });
      const requested = scopesOf(details.params);
      const registered = new Set(parseScopes(client.scopes));
      const excess = requested.filter((s) => !registered.has(s));
      if (excess.length)
        return finish({
          error: 'invalid_scope',
          error_description: `Scope(s) not registered for this app: ${excess.join(' ')}`,
        });
      // Login: whoever is signed in here now (see the `signed_in_here` check).
      if (details.prompt.name === 'login' || details.session?.accountId !== String(user.userId))
        return finish({ login: { accountId: String(user.userId) } });
      return render(req, reply, '@consent', {
        app: client.display_name ?? client.name,
        homepage: client.homepage,
        homepageHost: client.homepage ? URL.parse(client.homepage)?.host : undefined,
        user: user.name || user.email,
        scopes: requested,
        action: `${INTERACTION_PATH}/${encodeURIComponent(req.params.uid)}/confirm`,
      });
    },
  );

  app.post<{ Params: { uid: string }; Body: { decision?: string } }>(
    `${INTERACTION_PATH}/:uid/confirm`,
    { config: { public: true }, schema: { hide: true } },
    async (req, reply) => {
      checkCsrf(req);
      const user = await sessionUser(req);
      const details = await provider.interactionDetails(req.raw, reply.raw);
      const finish = async (result: Record<string, unknown>) =>
        reply.redirect(
          await provider.interactionResult(req.raw, reply.raw, result, { mergeWithLastSubmission: true }),
          303,
        );
      if (!user || details.prompt.name !== 'consent' || details.session?.accountId !== String(user.userId))
        return finish({ error: 'access_denied', error_description: 'The sign-in changed; start again' });
      if (req.body?.decision !== 'approve')
        return finish({ error: 'access_denied', error_description: 'The user denied the request' });
      const clientId = String(details.params.client_id);
      const grant = details.grantId
        ? ((await provider.Grant.find(details.grantId)) ??
          new provider.Grant({ accountId: String(user.userId), clientId }))
        : new provider.Grant({ accountId: String(user.userId), clientId });
      grant.addOIDCScope(scopesOf(details.params).join(' '));
      const grantId = await grant.save();
      return finish({ consent: { grantId } });
    },
  );
}

/**
 * The OAuth 2.0 authorization server (oidc-provider) under /oauth, RFC 8414 metadata at
 * /.well-known/oauth-authorization-server, and the login/consent interaction.
 */
export const oauthServerPlugin = fp(async (app: FastifyInstance, options: OAuthOptions) => {
  const provider = await createProvider(app, options);
  // Reads the scheme handOver sets from PUBLIC_URL (a TLS proxy in front: https).
  provider.proxy = true;
  app.decorate('oauthProvider', provider);
  await app.register(interactionRoutes);
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_req, _payload, done) => done(null));
    // Counted per client address like any caller without a token: an app's token requests, and
    // whoever floods the endpoints that look up clients and grants in the database.
    const opts = { config: { public: true, rateLimited: true }, schema: { hide: true } };
    scope.all(`${OAUTH_PREFIX}/*`, opts, (req, reply) =>
      handOver(provider, req, reply, `/${(req.params as { '*': string })['*']}`),
    );
    scope.get('/.well-known/oauth-authorization-server', opts, (req, reply) =>
      handOver(provider, req, reply, '/.well-known/openid-configuration'),
    );
  });
});

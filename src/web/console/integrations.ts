import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import {
  type AppInput,
  createApp,
  getApp,
  issueAppToken,
  listApps,
  REDIRECT_URIS_MAX,
  revokeApp,
  revokeAppToken,
  updateApp,
} from '../../modules/integration/apps.service.js';
import { listAccountGrants, revokeAccountGrant } from '../../modules/oauth/grants.service.js';
import { AppError } from '../../shared/errors.js';
import { IdParams } from '../../shared/schemas.js';
import { ALL_SCOPES, USER_PROFILE_SCOPES } from '../../shared/scopes.js';
import { langOf, type Translate, translator } from '../i18n.js';
import './integrations.messages.js';
import {
  adminChange,
  adminForm,
  CsrfField,
  CsrfOnly,
  consoleView,
  doneNotice,
  isConflict,
  type PageAgain,
  refusedOn,
  requireAdmin,
  when,
} from './shell.js';

/** Every scope an integration may be given, in the specification's order. */
const SCOPES: readonly string[] = [...ALL_SCOPES, ...USER_PROFILE_SCOPES];

const ScopeName = Type.String({ maxLength: 64 });
const AppForm = Type.Object({
  _csrf: CsrfField,
  name: Type.String({ maxLength: 200 }),
  // One checkbox sends a string, several an array.
  scope: Type.Optional(Type.Union([ScopeName, Type.Array(ScopeName, { maxItems: SCOPES.length })])),
  redirect_uris: Type.Optional(Type.String({ maxLength: 25_000 })),
  public: Type.Optional(Type.Literal('1')),
});
type AppForm = { name: string; scope?: string | string[]; redirect_uris?: string; public?: '1' };
const TokenParams = Type.Object({ id: IdParams.properties.id, token_id: IdParams.properties.id });
const GrantParams = Type.Object({ grant_id: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' }) });
const Done = (...keys: string[]) =>
  Type.Object({ done: Type.Optional(Type.Union(keys.map((k) => Type.Literal(k)))) });

function appInput(body: AppForm): AppInput {
  const scopes = body.scope === undefined ? [] : [body.scope].flat();
  return {
    name: body.name,
    // In the list's order, whatever order the browser sent them in.
    scopes: SCOPES.filter((s) => scopes.includes(s)),
    redirectUris: (body.redirect_uris ?? '')
      .split(/\r?\n/)
      .map((u) => u.trim())
      .filter(Boolean)
      .slice(0, REDIRECT_URIS_MAX + 1),
    public: body.public === '1',
  };
}

/** A refused form: which field, in the page's language. */
function formErrors(err: unknown, t: Translate): Record<string, string> {
  if (!(err instanceof AppError) || err.code !== 'validation_failed') throw err;
  const field = err.errors?.[0]?.field;
  if (field === 'name') return { name: t('apps.error.name') };
  if (field === 'scopes') return { scopes: t('apps.error.scopes') };
  return { redirect_uris: t('apps.error.redirects', { detail: err.errors?.[0]?.message ?? err.message }) };
}

const scopeChoices = (t: Translate, chosen: string[]) =>
  SCOPES.map((s) => ({ name: s, text: t(`scope.${s}`), checked: chosen.includes(s) }));

/**
 * Integrations and apps (issue 13): the account's integrations, creating one (its token and
 * client secret shown once), changing its name, permissions and redirect URIs, its tokens
 * (new, revoke), revoking it; and the grants users gave to apps, revocable. Admins only.
 */
export async function integrationsPages(app: FastifyInstance): Promise<void> {
  const hide = true;
  const apiBase = `${app.config.publicUrl}/api/v1`;

  const listPage: PageAgain = async (req, reply, extra = {}, status = 200) => {
    const user = await requireAdmin(req);
    const t = translator(langOf(req));
    const [apps, grants] = await Promise.all([
      listApps(app.db, user.accountId),
      listAccountGrants(app.db, user.accountId),
    ]);
    const form = (extra.form as AppInput | undefined) ?? {
      name: '',
      scopes: [],
      redirectUris: [],
      public: false,
    };
    return consoleView(
      req,
      reply,
      'console-integrations',
      {
        apps: apps.map((a) => ({
          ...a,
          created: when(a.created_at),
          kind: a.redirect_uris.length ? a.client_type : 'token',
          permissions: a.scopes.map((s) => t(`scope.${s}`)),
        })),
        grants: grants.map((g) => ({
          ...g,
          since: when(g.created_at),
          permissions: g.scopes.map((s) => t(`scope.${s}`)),
        })),
        notice: '',
        errors: {},
        ...extra,
        form: { ...form, redirects: form.redirectUris.join('\n'), scopes: scopeChoices(t, form.scopes) },
      },
      status,
    );
  };

  // The page of the integration the path names (`:id`).
  const detailPage: PageAgain = async (req, reply, extra = {}, status = 200) => {
    const { id } = req.params as IdParams;
    const user = await requireAdmin(req);
    const t = translator(langOf(req));
    const row = await getApp(app.db, user.accountId, id);
    const form = (extra.form as AppInput | undefined) ?? {
      name: row.name,
      scopes: row.scopes,
      redirectUris: row.redirect_uris,
      public: row.client_type === 'public',
    };
    return consoleView(
      req,
      reply,
      'console-integrations-detail',
      {
        title: t('apps.edit.title', { name: row.name }),
        app: { ...row, created: when(row.created_at) },
        tokens: row.tokens.map((k) => ({
          ...k,
          created: when(k.created_at),
          expires: k.expires_at ? when(k.expires_at) : t('apps.tokens.never'),
        })),
        notice: '',
        errors: {},
        newToken: '',
        apiBase,
        ...extra,
        form: { ...form, redirects: form.redirectUris.join('\n'), scopes: scopeChoices(t, form.scopes) },
      },
      status,
    );
  };

  app.get(
    '/console/integrations',
    { schema: { hide, querystring: Done('revoked', 'grantRevoked') } },
    async (req, reply) => {
      return listPage(req, reply, { notice: doneNotice(req, 'apps') });
    },
  );

  app.post(
    '/console/integrations',
    { schema: { hide, body: AppForm } },
    adminForm(async (user, req, reply) => {
      const t = translator(langOf(req));
      const input = appInput(req.body as AppForm);
      try {
        const created = await createApp(app.db, user, input);
        // Secrets on the page: no Referer with its URL, nothing cached (pageHeaders: no-store).
        reply.header('referrer-policy', 'no-referrer');
        return consoleView(req, reply, 'console-integrations-created', {
          title: t('apps.created.title', { name: created.name }),
          created,
          apiBase,
        });
      } catch (err) {
        const errors = formErrors(err, t);
        return listPage(req, reply, { form: input, errors, error: t('console.fixErrors') }, 422);
      }
    }),
  );

  // Static segment before the `:id` routes: the grants users gave to apps.
  app.post(
    '/console/integrations/grants/:grant_id/revoke',
    { schema: { hide, params: GrantParams, body: CsrfOnly } },
    adminChange<{ grant_id: string }>(
      (user, { grant_id }) => revokeAccountGrant(app.db, user, grant_id),
      () => '/console/integrations?done=grantRevoked#grants',
    ),
  );

  app.get(
    '/console/integrations/:id',
    { schema: { hide, params: IdParams, querystring: Done('updated', 'tokenRevoked') } },
    async (req, reply) => {
      return detailPage(req, reply, { notice: doneNotice(req, 'apps') });
    },
  );

  /** A change to a revoked integration: the page again, saying so. */
  const revoked = refusedOn(detailPage, (t) => t('apps.error.revoked'));

  app.post(
    '/console/integrations/:id',
    { schema: { hide, params: IdParams, body: AppForm } },
    adminForm(async (user, req, reply) => {
      const t = translator(langOf(req));
      const { id } = req.params as IdParams;
      const input = appInput(req.body as AppForm);
      try {
        await updateApp(app.db, user, id, input);
      } catch (err) {
        if (isConflict(err)) throw err;
        const errors = formErrors(err, t);
        return detailPage(req, reply, { form: input, errors, error: t('console.fixErrors') }, 422);
      }
      return reply.redirect(`/console/integrations/${id}?done=updated`, 303);
    }, revoked),
  );

  app.post(
    '/console/integrations/:id/revoke',
    { schema: { hide, params: IdParams, body: CsrfOnly } },
    adminChange<IdParams>(
      (user, { id }) => revokeApp(app.db, user, id),
      () => '/console/integrations?done=revoked',
      revoked,
    ),
  );

  app.post(
    '/console/integrations/:id/tokens',
    { schema: { hide, params: IdParams, body: CsrfOnly } },
    adminForm(async (user, req, reply) => {
      const { id } = req.params as IdParams;
      const { token } = await issueAppToken(app.db, user, id);
      reply.header('referrer-policy', 'no-referrer');
      return detailPage(req, reply, { newToken: token });
    }, revoked),
  );

  app.post(
    '/console/integrations/:id/tokens/:token_id/revoke',
    { schema: { hide, params: TokenParams, body: CsrfOnly } },
    adminChange<{ id: number; token_id: number }>(
      (user, { id, token_id }) => revokeAppToken(app.db, user, id, token_id),
      ({ id }) => `/console/integrations/${id}?done=tokenRevoked`,
      revoked,
    ),
  );
}

import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import {
  getAccountWebhook,
  listAccountWebhooks,
  pingAccountWebhook,
  resendAccountDelivery,
  rotateAccountWebhookSecret,
  setWebhookActive,
} from '../../modules/webhooks/webhooks.admin.service.js';
import { IdParams } from '../../shared/schemas.js';
import { langOf, translator } from '../i18n.js';
import {
  ActiveForm,
  adminChange,
  adminForm,
  CsrfOnly,
  consoleView,
  doneNotice,
  type PageAgain,
  refusedOn,
  requireAdmin,
  when,
} from './shell.js';
import './webhooks.messages.js';

const DeliveryParams = Type.Object({ id: IdParams.properties.id, delivery_id: IdParams.properties.id });
const DONE = ['enabled', 'disabled', 'pinged', 'resent'] as const;
const DetailQuery = Type.Object({
  done: Type.Optional(Type.Union(DONE.map((d) => Type.Literal(d)))),
});

/**
 * Webhooks (issue 13): every webhook of the account, and per webhook its latest deliveries
 * (status, attempts, response code with the start of a refusing answer, the start of the body
 * sent), resend, enable/disable, rotate the secret (the new one shown once) and a test ping.
 * Admins only.
 */
export async function webhooksPages(app: FastifyInstance): Promise<void> {
  const hide = true;

  app.get('/console/webhooks', { schema: { hide } }, async (req, reply) => {
    const user = await requireAdmin(req);
    const hooks = await listAccountWebhooks(app.db, user.accountId);
    return consoleView(req, reply, 'console-webhooks', {
      hooks: hooks.map((h) => ({ ...h, created: when(h.created_at) })),
    });
  });

  // The page of the webhook the path names (`:id`).
  const detailPage: PageAgain = async (req, reply, extra = {}, status = 200) => {
    const { id } = req.params as IdParams;
    const user = await requireAdmin(req);
    const t = translator(langOf(req));
    const hook = await getAccountWebhook(app.db, user.accountId, id);
    return consoleView(
      req,
      reply,
      'console-webhooks-detail',
      {
        title: t('hooks.detail.title', { id: hook.id }),
        hook: {
          ...hook,
          previousUntil: hook.previous_secret_expires_at ? when(hook.previous_secret_expires_at) : '',
        },
        deliveries: hook.deliveries.map((d) => ({
          ...d,
          when: d.last_attempt_at ? when(d.last_attempt_at) : '',
          next: d.next_attempt_at ? when(d.next_attempt_at) : '',
        })),
        notice: '',
        error: '',
        secret: '',
        ...extra,
      },
      status,
    );
  };

  app.get(
    '/console/webhooks/:id',
    { schema: { hide, params: IdParams, querystring: DetailQuery } },
    async (req, reply) => {
      return detailPage(req, reply, { notice: doneNotice(req, 'hooks') });
    },
  );

  /** A refused send (disabled, revoked integration, in flight): the page again, saying why. */
  const refused = refusedOn(detailPage, (t, reason) => t(`hooks.refused.${String(reason ?? 'disabled')}`));

  app.post(
    '/console/webhooks/:id/active',
    { schema: { hide, params: IdParams, body: ActiveForm } },
    adminChange<IdParams, { active: string }>(
      (user, { id }, { active }) => setWebhookActive(app.db, user, id, active === '1'),
      ({ id }, { active }) => `/console/webhooks/${id}?done=${active === '1' ? 'enabled' : 'disabled'}`,
    ),
  );

  app.post(
    '/console/webhooks/:id/rotate-secret',
    { schema: { hide, params: IdParams, body: CsrfOnly } },
    adminForm(async (user, req, reply) => {
      const { id } = req.params as IdParams;
      const secret = await rotateAccountWebhookSecret(app.db, user, id, app.config.secretKey);
      // The secret is on the page: no Referer with its URL; pageHeaders forbid caching.
      reply.header('referrer-policy', 'no-referrer');
      return detailPage(req, reply, { secret });
    }),
  );

  app.post(
    '/console/webhooks/:id/ping',
    { schema: { hide, params: IdParams, body: CsrfOnly } },
    adminChange<IdParams>(
      (user, { id }) => pingAccountWebhook(app.db, user, id),
      ({ id }) => `/console/webhooks/${id}?done=pinged`,
      refused,
    ),
  );

  app.post(
    '/console/webhooks/:id/deliveries/:delivery_id/resend',
    { schema: { hide, params: DeliveryParams, body: CsrfOnly } },
    adminChange<{ id: number; delivery_id: number }>(
      (user, { id, delivery_id }) => resendAccountDelivery(app.db, user, id, delivery_id),
      ({ id }) => `/console/webhooks/${id}?done=resent`,
      refused,
    ),
  );
}

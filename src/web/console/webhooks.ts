import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import {
  getAccountWebhook,
  listAccountWebhooks,
  pingAccountWebhook,
  resendAccountDelivery,
  rotateAccountWebhookSecret,
  setWebhookActive,
} from '../../modules/webhooks/webhooks.admin.service.js';
import { AppError } from '../../shared/errors.js';
import { IdParams } from '../../shared/schemas.js';
import { langOf, translator } from '../i18n.js';
import { checkCsrf } from '../session.js';
import { ActiveForm, CsrfOnly, consoleView, doneNotice, requireAdmin } from './shell.js';
import { when } from './team.js';
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

  const detailPage = async (
    req: FastifyRequest,
    reply: FastifyReply,
    id: number,
    extra: Record<string, unknown> = {},
    status = 200,
  ) => {
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
      return detailPage(req, reply, (req.params as IdParams).id, { notice: doneNotice(req, 'hooks') });
    },
  );

  /** A refused send (disabled, revoked integration, in flight): the page again, saying why. */
  const refused = (req: FastifyRequest, reply: FastifyReply, id: number, err: unknown) => {
    if (!(err instanceof AppError) || err.code !== 'conflict') throw err;
    const t = translator(langOf(req));
    return detailPage(
      req,
      reply,
      id,
      { error: t(`hooks.refused.${String(err.extra?.reason ?? 'disabled')}`) },
      409,
    );
  };

  app.post(
    '/console/webhooks/:id/active',
    { schema: { hide, params: IdParams, body: ActiveForm } },
    async (req, reply) => {
      checkCsrf(req);
      const user = await requireAdmin(req);
      const { id } = req.params as IdParams;
      const active = (req.body as { active: string }).active === '1';
      await setWebhookActive(app.db, user, id, active);
      return reply.redirect(`/console/webhooks/${id}?done=${active ? 'enabled' : 'disabled'}`, 303);
    },
  );

  app.post(
    '/console/webhooks/:id/rotate-secret',
    { schema: { hide, params: IdParams, body: CsrfOnly } },
    async (req, reply) => {
      checkCsrf(req);
      const user = await requireAdmin(req);
      const { id } = req.params as IdParams;
      const secret = await rotateAccountWebhookSecret(app.db, user, id, app.config.secretKey);
      // The secret is on the page: no Referer with its URL; pageHeaders forbid caching.
      reply.header('referrer-policy', 'no-referrer');
      return detailPage(req, reply, id, { secret });
    },
  );

  app.post(
    '/console/webhooks/:id/ping',
    { schema: { hide, params: IdParams, body: CsrfOnly } },
    async (req, reply) => {
      checkCsrf(req);
      const user = await requireAdmin(req);
      const { id } = req.params as IdParams;
      try {
        await pingAccountWebhook(app.db, user, id);
      } catch (err) {
        return refused(req, reply, id, err);
      }
      return reply.redirect(`/console/webhooks/${id}?done=pinged`, 303);
    },
  );

  app.post(
    '/console/webhooks/:id/deliveries/:delivery_id/resend',
    { schema: { hide, params: DeliveryParams, body: CsrfOnly } },
    async (req, reply) => {
      checkCsrf(req);
      const user = await requireAdmin(req);
      const { id, delivery_id } = req.params as { id: number; delivery_id: number };
      try {
        await resendAccountDelivery(app.db, user, id, delivery_id);
      } catch (err) {
        return refused(req, reply, id, err);
      }
      return reply.redirect(`/console/webhooks/${id}?done=resent`, 303);
    },
  );
}

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { listResponse } from '../../shared/paging.js';
import { getRoute, listRoute } from '../../shared/route-builders.js';
import { Data, IdParams, List, problemResponse } from '../../shared/schemas.js';
import { decryptSecret, encryptSecret } from './webhooks.crypto.js';
import {
  Delivery,
  DeliveryListQuery,
  DeliveryParams,
  namingAllowedValues,
  Webhook,
  WebhookCreate,
  WebhookListQuery,
  WebhookWithSecret,
} from './webhooks.schemas.js';
import * as service from './webhooks.service.js';

const tags = ['Webhooks'];
const scopes = ['integration'];

const WIRE_FORMAT = `Deliveries follow the Standard Webhooks profile: a POST with the JSON body \`{ "id", "event", "occurred_at", "data" }\` (\`data\` is the resource as the API returns it, \`event\` the kind as the specification spells it, e.g. \`contact:update\`) and the headers \`webhook-id\` (the same on every retry), \`webhook-timestamp\` (unix seconds) and \`webhook-signature\` (\`v1,\` + base64 HMAC-SHA256 of \`{webhook-id}.{webhook-timestamp}.{body}\`, keyed with the secret; several space-separated signatures during a secret rotation).

Delivery is at least once: any answer other than 2xx, a timeout (10 s) or a connection error is retried after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h, then the delivery is marked failed. A webhook that failed every delivery for 5 days is disabled. A webhook receives the events recorded after it was registered; deliveries of one webhook go out in event order, except where a retry is waiting. Webhooks belong to the integration that registered them: other integrations neither see nor change them.`;

const SEALED = /"signature_secret_key":"sealed:(v1:[A-Za-z0-9+/=]+)"/;

export const webhooksRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const settings = () => ({
    secretKey: app.config.secretKey,
    allowPrivate: app.config.webhookAllowPrivate,
  });

  /**
   * Answers that carry a secret: with an Idempotency-Key the answer is stored for replay, and
   * the secret must not rest there in plain text. So it is sealed (encrypted) before the
   * answer is serialized and stored, and unsealed after, for the wire, on the first answer and
   * on a replay alike.
   */
  const secretAnswer = {
    preSerialization: async (req: FastifyRequest, _reply: FastifyReply, payload: unknown) => {
      const data = (payload as { data?: { signature_secret_key?: string } }).data;
      if (!req.headers['idempotency-key'] || !data?.signature_secret_key) return payload;
      const sealed = encryptSecret(app.config.secretKey, data.signature_secret_key, req.auth.accountId);
      return { data: { ...data, signature_secret_key: `sealed:${sealed}` } };
    },
    onSend: async (req: FastifyRequest, _reply: FastifyReply, payload: unknown) => {
      if (typeof payload !== 'string') return payload;
      const m = SEALED.exec(payload);
      if (!m) return payload;
      const secret = decryptSecret(app.config.secretKey, m[1]!, req.auth.accountId);
      return payload.replace(m[0], `"signature_secret_key":${JSON.stringify(secret)}`);
    },
  };

  listRoute(
    app,
    {
      path: '/webhooks',
      tags,
      config: { scopes },
      summary: 'List registered webhooks',
      description: "The calling integration's webhooks. The signing secret is never listed.",
      querystring: WebhookListQuery,
      item: Webhook,
    },
    service.listWebhooks,
    service.toWebhook,
  );

  app.post(
    '/webhooks',
    {
      ...secretAnswer,
      config: { scopes },
      schemaErrorFormatter: namingAllowedValues,
      schema: {
        tags,
        summary: 'Register a webhook',
        description: `The answer holds \`signature_secret_key\`, returned only this once. Unknown scope names (the answer lists the valid ones), URLs that are not http(s) and hosts resolving to loopback, private, link-local or metadata addresses answer 422 (the latter unless the server runs with \`WEBHOOK_ALLOW_PRIVATE=true\`).\n\n${WIRE_FORMAT}`,
        body: WebhookCreate,
        response: { 201: Data(WebhookWithSecret) },
      },
    },
    async (req, reply) => {
      const created = await service.createWebhook(app.db, req.auth, req.body, settings());
      reply.code(201).header('location', `${app.prefix}/webhooks/${created.id}`);
      return { data: created };
    },
  );

  getRoute(
    app,
    { path: '/webhooks/:id', tags, config: { scopes }, summary: 'Retrieve a webhook', item: Webhook },
    service.getWebhook,
    service.toWebhook,
  );

  app.delete(
    '/webhooks/:id',
    {
      config: { scopes },
      schema: {
        tags,
        summary: 'Delete a webhook',
        description: 'Its pending deliveries are dropped: nothing more is sent to it.',
        params: IdParams,
        response: { 204: Type.Null({ description: 'Deleted' }) },
      },
    },
    async (req, reply) => {
      await service.deleteWebhook(app.db, req.auth, req.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/webhooks/:id/rotate-secret',
    {
      ...secretAnswer,
      config: { scopes },
      schema: {
        tags,
        summary: 'Rotate the signing secret',
        description:
          'Beyond the specification. Returns a new `signature_secret_key` (shown only here). For 24 hours deliveries carry two signatures, with the new and the previous secret, so receivers can switch without losing messages.',
        params: IdParams,
        response: { 200: Data(WebhookWithSecret) },
      },
    },
    async (req) => ({ data: await service.rotateSecret(app.db, req.auth, req.params.id, settings()) }),
  );

  app.post(
    '/webhooks/:id/enable',
    {
      config: { scopes },
      schema: {
        tags,
        summary: 'Re-enable a disabled webhook',
        description:
          'Beyond the specification. Events recorded while it was disabled are not queued; their deliveries can be resent.',
        params: IdParams,
        response: { 200: Data(Webhook) },
      },
    },
    async (req) => ({
      data: service.toWebhook(await service.enableWebhook(app.db, req.auth, req.params.id)),
    }),
  );

  app.get(
    '/webhooks/:id/deliveries',
    {
      config: { scopes },
      schema: {
        tags,
        summary: "List a webhook's deliveries",
        description:
          'Beyond the specification. Recent deliveries (finished ones are kept for 30 days) with their status, attempts, last response code and latency.',
        params: IdParams,
        querystring: DeliveryListQuery,
        response: { 200: List(Delivery) },
      },
    },
    async (req, reply) =>
      listResponse(
        req,
        reply,
        await service.listDeliveries(app.db, req.auth, req.params.id, req.query),
        service.toDelivery,
      ),
  );

  app.get(
    '/webhooks/:id/deliveries/:delivery_id',
    {
      config: { scopes },
      schema: {
        tags,
        summary: 'Retrieve a delivery',
        description: 'Beyond the specification.',
        params: DeliveryParams,
        response: { 200: Data(Delivery) },
      },
    },
    async (req) => ({
      data: service.toDelivery(
        await service.getDelivery(app.db, req.auth, req.params.id, req.params.delivery_id),
      ),
    }),
  );

  app.post(
    '/webhooks/:id/deliveries/:delivery_id/resend',
    {
      config: { scopes },
      schema: {
        tags,
        summary: 'Resend a delivery',
        description:
          'Beyond the specification. Queues the delivery again with the same `webhook-id`, starting a fresh retry schedule. 409 while the webhook is disabled or the delivery is being attempted.',
        params: DeliveryParams,
        response: {
          202: Data(Delivery),
          409: problemResponse('`conflict`: the webhook is disabled, or the delivery is being attempted'),
        },
      },
    },
    async (req, reply) => {
      const row = await service.resendDelivery(app.db, req.auth, req.params.id, req.params.delivery_id);
      reply.code(202);
      return { data: service.toDelivery(row) };
    },
  );
};

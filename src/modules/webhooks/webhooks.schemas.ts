import { type Static, Type } from 'typebox';
import { EVENT_KINDS, EVENT_SUBSCRIPTION } from '../../shared/events.js';
import { Id, Nullable, PagingQuery, Timestamp } from '../../shared/schemas.js';

/** Subscription scope names of the specification's Events table (`task:create` …). */
export const SUBSCRIPTION_SCOPES = EVENT_KINDS.map((k) => EVENT_SUBSCRIPTION[k]);

const SubscriptionScope = Type.Unsafe<string>({
  type: 'string',
  enum: SUBSCRIPTION_SCOPES,
  description: 'Subscription scope name of an event kind',
});

/**
 * The route's validation errors with every enum issue naming the allowed values ("must be one
 * of: task:create, …"), not ajv's bare "must be equal to one of the allowed values": a client
 * that misspells a subscription learns the right names from the answer. Fastify keeps the issue
 * objects it gives us as `error.validation`, which the central error handler turns into
 * `errors[]`, so rewording them here is all it takes.
 */
export function namingAllowedValues(
  issues: Array<{
    instancePath?: string;
    keyword?: string;
    message?: string;
    params?: Record<string, unknown>;
  }>,
  context: string,
): Error {
  for (const issue of issues) {
    const allowed = issue.params?.allowedValues;
    if (issue.keyword === 'enum' && Array.isArray(allowed))
      issue.message = `must be one of: ${allowed.map(String).join(', ')}`;
    // The URL's format and pattern say one thing: one message (the handler drops the repeat).
    if (issue.instancePath === '/url' && (issue.keyword === 'format' || issue.keyword === 'pattern'))
      issue.message = 'must be an absolute http or https URL';
  }
  return new Error(`${context}: ${issues.map((i) => i.message).join('; ')}`);
}

export const WebhookCreate = Type.Object(
  {
    url: Type.String({
      minLength: 1,
      maxLength: 2048,
      format: 'uri',
      pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^/?#@]+([/?#].*)?$',
      description:
        'Receiver, http or https. Hosts that resolve to loopback, private, link-local or metadata addresses are refused unless the server runs with WEBHOOK_ALLOW_PRIVATE=true.',
    }),
    scopes: Type.Array(SubscriptionScope, {
      minItems: 1,
      maxItems: 64,
      description: 'Event kinds to receive, by subscription scope name; duplicates are ignored',
    }),
  },
  { additionalProperties: false },
);
export type WebhookCreate = Static<typeof WebhookCreate>;

const webhookProps = {
  id: Id,
  url: Type.String({ format: 'uri' }),
  scopes: Type.Array(Type.String(), { description: 'Subscription scope names' }),
  status: Type.Union([Type.Literal('active'), Type.Literal('disabled')], {
    description: '`disabled` after every delivery failed for 5 days (or re-enable it)',
  }),
  disabled_at: Nullable(Timestamp),
  disabled_reason: Nullable(Type.String()),
  previous_secret_expires_at: Nullable(
    Type.String({
      format: 'date-time',
      description: 'After a rotation: until then deliveries also carry a signature with the previous secret',
    }),
  ),
  created_at: Timestamp,
  updated_at: Timestamp,
};

export const Webhook = Type.Object(webhookProps, { $id: 'Webhook' });
export type Webhook = Static<typeof Webhook>;

export const WebhookWithSecret = Type.Object(
  {
    ...webhookProps,
    signature_secret_key: Type.String({
      description:
        'Signing secret (`whsec_` + base64 key), shown only in this answer. Deliveries carry `webhook-signature: v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}">` (Standard Webhooks).',
    }),
  },
  { $id: 'WebhookWithSecret' },
);
export type WebhookWithSecret = Static<typeof WebhookWithSecret>;

export const WebhookListQuery = Type.Object({ ...PagingQuery }, { additionalProperties: false });
export type WebhookListQuery = Static<typeof WebhookListQuery>;

const DeliveryStatus = Type.Union([
  Type.Literal('pending'),
  Type.Literal('delivered'),
  Type.Literal('failed'),
]);

export const Delivery = Type.Object(
  {
    id: Id,
    webhook_id: Id,
    event_id: Id,
    message_id: Type.String({
      description: 'The `webhook-id` header and body `id`, the same on every retry',
    }),
    event: Type.String({ description: 'Event kind, e.g. `contact:update`' }),
    occurred_at: Timestamp,
    status: DeliveryStatus,
    attempts: Type.Integer({ minimum: 0 }),
    next_attempt_at: Nullable(
      Type.String({ format: 'date-time', description: 'When pending: when the next attempt is due' }),
    ),
    last_attempt_at: Nullable(Timestamp),
    response_status: Nullable(Type.Integer({ description: 'HTTP status of the last attempt' })),
    latency_ms: Nullable(Type.Integer({ description: 'Time to the response of the last attempt' })),
    last_error: Nullable(
      Type.String({
        description:
          "Why the last attempt failed; for a non-2xx answer with the start of the receiver's body (200 bytes, one line)",
      }),
    ),
    delivered_at: Nullable(Timestamp),
    created_at: Timestamp,
  },
  { $id: 'WebhookDelivery' },
);
export type Delivery = Static<typeof Delivery>;

export const DeliveryListQuery = Type.Object(
  {
    ...PagingQuery,
    status: Type.Optional(DeliveryStatus),
    sort: Type.Optional(
      Type.Union([Type.Literal('id'), Type.Literal('-id')], {
        description: '`-id` lists the most recent first',
        default: 'id',
      }),
    ),
  },
  { additionalProperties: false },
);
export type DeliveryListQuery = Static<typeof DeliveryListQuery>;

export const DeliveryParams = Type.Object({ id: Id, delivery_id: Id });

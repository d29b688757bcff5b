import { createHmac, timingSafeEqual } from 'node:crypto';
import { WEBHOOK_EVENT_KINDS } from './event-kinds.js';

export { WEBHOOK_EVENT_KINDS };
export type WebhookEventKind = (typeof WEBHOOK_EVENT_KINDS)[number];

/** The body of every delivery. `event` is spelled as the specification spells it (`contact:update`). */
export interface WebhookEvent<T = Record<string, unknown>> {
  id: string;
  event: WebhookEventKind;
  occurred_at: string;
  data: T;
}

export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

type Headers = Record<string, string | string[] | undefined> | { get(name: string): string | null };

function header(headers: Headers, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function') {
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  }
  const value = (headers as Record<string, string | string[] | undefined>)[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Verifies a delivery the way the service signs it (the Standard Webhooks profile): the
 * `webhook-signature` header holds one or more `v1,<base64 HMAC-SHA256>` (several during a
 * secret rotation) over `{webhook-id}.{webhook-timestamp}.{raw body}`, keyed with the bytes
 * of the secret (`whsec_` + base64). A timestamp further than `toleranceSeconds` from now is
 * refused, so a captured delivery cannot be replayed later.
 *
 * Pass the raw body exactly as received (a string or Buffer), not re-serialized JSON.
 * Returns the parsed event; throws WebhookVerificationError otherwise.
 */
export function verifyWebhook<T = Record<string, unknown>>(
  secret: string,
  headers: Headers,
  rawBody: string | Uint8Array,
  options: { toleranceSeconds?: number; now?: Date } = {},
): WebhookEvent<T> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('missing webhook-* headers');
  const seconds = Number(timestamp);
  if (!/^\d+$/.test(timestamp)) throw new WebhookVerificationError('invalid webhook-timestamp');
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(now - seconds) > (options.toleranceSeconds ?? 300))
    throw new WebhookVerificationError('webhook-timestamp is too old or too new');

  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody) : Buffer.from(rawBody);
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest();
  const matches = signatures.split(' ').some((entry) => {
    const [version, value] = entry.split(',', 2);
    if (version !== 'v1' || !value) return false;
    const given = Buffer.from(value, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) throw new WebhookVerificationError('no matching signature');
  return JSON.parse(body.toString('utf8')) as WebhookEvent<T>;
}

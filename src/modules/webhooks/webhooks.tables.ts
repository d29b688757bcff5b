import type { Generated } from 'kysely';

export interface WebhookTable {
  id: Generated<number>;
  account_id: number;
  integration_id: number;
  url: string;
  /** Space-separated event kinds as the specification spells them. */
  event_kinds: string;
  /** AES-256-GCM ciphertext of the signing secret (see webhooks.crypto.ts). */
  secret_enc: string;
  previous_secret_enc: string | null;
  previous_secret_expires_at: string | null;
  active: Generated<number>;
  disabled_at: string | null;
  disabled_reason: string | null;
  failing_since: string | null;
  created_at: Generated<string>;
  updated_at: Generated<string>;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface WebhookDeliveryTable {
  id: Generated<number>;
  account_id: number;
  webhook_id: number;
  event_id: number;
  message_id: string;
  status: Generated<DeliveryStatus>;
  attempts: Generated<number>;
  schedule_step: Generated<number>;
  next_attempt_at: string;
  lease_until: string | null;
  lease_token: string | null;
  last_attempt_at: string | null;
  response_status: number | null;
  latency_ms: number | null;
  last_error: string | null;
  delivered_at: string | null;
  created_at: Generated<string>;
}

declare module '../../db/schema.js' {
  interface Database {
    webhooks: WebhookTable;
    webhook_deliveries: WebhookDeliveryTable;
  }
}

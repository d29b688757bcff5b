// The vocabulary of the delivery queue, shared by the worker and its repository
// (webhooks.queue.repository.ts, where its SQL lives).

/** What the worker needs to make one attempt of a claimed delivery. */
export interface ClaimedDelivery {
  id: number;
  account_id: number;
  webhook_id: number;
  message_id: string;
  attempts: number;
  schedule_step: number;
  lease_token: string;
  lease_until: string;
  kind: string;
  payload: string;
  occurred_at: string;
  url: string;
  secret_enc: string;
  previous_secret_enc: string | null;
  previous_secret_expires_at: string | null;
  active: number;
  integration_revoked_at: string | null;
}

export interface AttemptOutcome {
  delivery: ClaimedDelivery;
  ok: boolean;
  responseStatus: number | null;
  latencyMs: number | null;
  error: string | null;
  /** When a failed delivery is tried next; null: it has failed for good. */
  retryAt: string | null;
}

export interface RunRecord {
  webhookId: number;
  attempted: AttemptOutcome[];
  /** Claimed but not attempted (the run stopped early): handed back untouched. */
  released: ClaimedDelivery[];
  /** Deliveries failed without an attempt, with the reason. */
  abandoned?: { deliveries: ClaimedDelivery[]; error: string };
}

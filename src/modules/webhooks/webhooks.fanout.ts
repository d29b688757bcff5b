import type { Db } from '../../db/index.js';
import { fanoutTriggerNames } from './webhooks.queue.repository.js';

/**
 * The webhook fan-out: one `webhook_deliveries` row per event and subscribed webhook (active,
 * of an integration not revoked, naming the event's kind) — written by the database itself,
 * by the trigger `events_webhook_fanout` on `events`, in the transaction that inserts the
 * event. So every path that writes an event (a service, the group-committed insert statements
 * of src/shared/events.ts, the import, plain SQL) queues its deliveries, and a rolled-back write
 * queues none; the worker (webhooks.worker.ts → webhooks.queue.ts) then sends them.
 *
 * The trigger's SQL lives in the migrations that made it (frozen once landed):
 * - src/db/migrations/2026_11_22_300_webhooks.ts — SQLite's row trigger, as it still is;
 * - src/db/migrations/2026_11_29_100_invoice_line_key_and_fanout.ts — PostgreSQL's, once per
 *   INSERT statement over its inserted rows (a transition table), in event then webhook order.
 * A change to the fan-out is a new migration that replaces the trigger; keep this note true.
 */
export const FANOUT_TRIGGER = 'events_webhook_fanout';

/** Whether the fan-out trigger is installed (health checks and tests). */
export async function fanoutInstalled(db: Db): Promise<boolean> {
  return (await fanoutTriggerNames(db)).includes(FANOUT_TRIGGER);
}

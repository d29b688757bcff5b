import type { Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import { insertReturning, insertRowsReturning, rowsPerInsert } from './owned.js';
import { nowIso } from './time.js';

/** Event kinds exactly as the specification spells them (note `contact:update`). */
export const EVENT_KINDS = [
  'task:created',
  'task:updated',
  'task:deleted',
  'comment:created',
  'comment:updated',
  'comment:deleted',
  'contact:created',
  'contact:update',
  'contact:deleted',
  'company:created',
  'company:updated',
  'company:deleted',
] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

/** Subscription scope name of each kind, from the specification's Events table. */
export const EVENT_SUBSCRIPTION: Record<EventKind, string> = {
  'task:created': 'task:create',
  'task:updated': 'task:update',
  'task:deleted': 'task:delete',
  'comment:created': 'comment:create',
  'comment:updated': 'comment:update',
  'comment:deleted': 'comment:delete',
  'contact:created': 'contact:create',
  'contact:update': 'contact:update',
  'contact:deleted': 'contact:delete',
  'company:created': 'company:create',
  'company:updated': 'company:update',
  'company:deleted': 'company:delete',
};

export interface EventInput {
  accountId: number;
  kind: EventKind;
  resourceType: string;
  resourceId: number;
  /** The resource as the API returns it. */
  data: unknown;
  integrationId?: number | null;
}

/**
 * Writes an event to the outbox. Must be called with the transaction that makes the change,
 * so an event exists exactly when its change was committed.
 */
export async function recordEvent(trx: Transaction<Database>, e: EventInput): Promise<number> {
  const row = await insertReturning(trx, 'events', eventRow(e));
  return row.id;
}

/** As `recordEvent` for several events, in one statement per `rowsPerInsert` of them. */
export async function recordEvents(trx: Transaction<Database>, es: readonly EventInput[]): Promise<void> {
  const rows = es.map(eventRow);
  const size = rowsPerInsert(rows);
  for (let i = 0; i < rows.length; i += size)
    await insertRowsReturning(trx, 'events', rows.slice(i, i + size));
}

const eventRow = (e: EventInput) => ({
  account_id: e.accountId,
  kind: e.kind,
  resource_type: e.resourceType,
  resource_id: e.resourceId,
  payload: JSON.stringify(e.data),
  integration_id: e.integrationId ?? null,
  occurred_at: nowIso(),
});

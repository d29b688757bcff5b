import { type Insertable, type RawBuilder, sql, type Transaction } from 'kysely';
import type { Db } from '../db/index.js';
import { compiledByShape } from '../db/prepared.js';
import type { Database } from '../db/schema.js';
import {
  columnList,
  insertReturning,
  insertRowsReturning,
  jsonRecordset,
  type OwnedTable,
  rowsPerInsert,
} from './owned.js';
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
  // Beyond the specification (issue 42): the reading of an uploaded document ended.
  'incoming-invoice:extracted',
  // Beyond the specification (issue 39): a dunning letter was made, or sent.
  'dunning:created',
  'dunning:sent',
  // Beyond the specification (issue 45): money objects.
  'invoice:created',
  'invoice:booked',
  'invoice:deleted',
  'payment:created',
  'client:created',
  'client:updated',
  'client:deleted',
  // Beyond the specification (issue 38): an invoice's e-mail went out, or failed for good.
  'invoice:sent',
  'invoice:send_failed',
] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

/** Subscription scope name of each kind, from the specification's Events table (and beyond it). */
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
  'incoming-invoice:extracted': 'incoming-invoice:extract',
  'dunning:created': 'dunning:create',
  'dunning:sent': 'dunning:send',
  'invoice:created': 'invoice:create',
  'invoice:booked': 'invoice:book',
  'invoice:deleted': 'invoice:delete',
  'payment:created': 'payment:create',
  'client:created': 'client:create',
  'client:updated': 'client:update',
  'client:deleted': 'client:delete',
  'invoice:sent': 'invoice:send',
  'invoice:send_failed': 'invoice:send-failed',
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

/** How an event's payload begins when its record's id is not known yet (`data.id` 0, first). */
const UNNUMBERED = '{"id":0,';

/**
 * A condition each new row must meet, checked by the INSERT itself (issue 15: a create that
 * leaves its reads to the statement). `holds` may name the row's columns as `j.<column>`; a row
 * for which it does not hold gets NULL in `column` — which must be NOT NULL — so that the whole
 * statement fails with 23502 and writes nothing. `key` names the guard in the statement cache.
 */
export interface RowGuard {
  key: string;
  column: string;
  holds: RawBuilder<unknown>;
}

/**
 * PostgreSQL: new rows of `table` and one event for each (`events[i]` for `rows[i]`) in one
 * statement — atomic without BEGIN and COMMIT, one round trip instead of four (issue 15).
 * Each event's `data` is its record as the API will return it, with id 0 as its first field:
 * the statement writes the row's id into the payload and into `resource_id`. Events get ids in
 * the order of the rows, as `recordEvents` after the INSERT gives them. Answers the new rows'
 * ids in that order (the rows are stored as sent: the caller has the rest, and parsing every
 * column back cost the service a sixth of its CPU on invoice creates). Undefined, with
 * nothing written, where the rows do not all set the same columns (`jsonRecordset`) or a
 * payload does not begin with the id: then the caller writes them as before.
 */
export async function insertWithEventsAsOne<T extends OwnedTable>(
  db: Db,
  table: T,
  rows: readonly Insertable<Database[T]>[],
  events: readonly EventInput[],
  guard?: RowGuard,
): Promise<number[] | undefined> {
  const head = jsonRecordset(rows as readonly Record<string, unknown>[]);
  const eventRows = events.map(eventRow);
  if (!head || eventRows.length !== rows.length || eventRows.some((e) => !e.payload.startsWith(UNNUMBERED)))
    return undefined;
  const written = await withEventsStatement(
    db,
    { table, columns: head.columns, guard },
    { rows: head.text, events: JSON.stringify(eventRows) },
  );
  return written.map((r) => r.id);
}

/** `insertWithEventsAsOne`'s statement for one shape (the table, the columns its rows set, the guard). */
const withEventsStatement = compiledByShape(
  ['rows', 'events'],
  (s: { table: OwnedTable; columns: string[]; guard?: RowGuard }) =>
    `${s.table}\n${s.columns.join()}\n${s.guard?.key ?? ''}`,
  (db, { table, columns, guard }, p) => {
    const cols = columnList(columns);
    const picks = sql.join(
      columns.map((c) =>
        c === guard?.column ? sql`case when ${guard.holds} then ${sql.ref(`j.${c}`)} end` : sql.ref(`j.${c}`),
      ),
    );
    return sql<{ id: number }>`
    with ins as (
      insert into ${sql.table(table)} (${cols})
      select ${picks} from json_populate_recordset(null::${sql.table(table)}, ${p.rows}::json) as j
      returning id
    ), ord as (select id, row_number() over () as n from ins),
    ev as (select e.*, row_number() over () as n from json_populate_recordset(null::events, ${p.events}::json) e),
    written as (
      insert into events (account_id, kind, resource_type, resource_id, payload, integration_id, occurred_at)
      select ev.account_id, ev.kind, ev.resource_type, ord.id,
        '{"id":' || ord.id || substr(ev.payload, ${sql.lit(UNNUMBERED.length)}), ev.integration_id, ev.occurred_at
      from ev join ord on ord.n = ev.n
      order by ev.n
      returning 1
    )
    select ins.id from ins`.compile(db);
  },
);

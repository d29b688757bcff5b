import type { Insertable, Selectable } from 'kysely';
import { isPostgres } from './index.js';
import type { Database, Db } from './schema.js';

type Table = keyof Database & string;
type Values = Record<string, unknown>;

interface Pending {
  values: Values;
  resolve(row: Values): void;
  reject(err: unknown): void;
}

interface Queue {
  db: Db;
  table: Table;
  items: Pending[];
}

/** Rows one statement takes at most; PostgreSQL also stops at 65,535 parameters. */
const MAX_ROWS = 100;
const MAX_PARAMS = 65_535;

const queues = new WeakMap<object, Map<Table, Queue>>();

/** Statements sent so far by batches of more than one row (for tests and diagnostics). */
export const batchStats = { statements: 0, rows: 0 };

/**
 * Inserts one row and returns it as stored (`returning *`) — on PostgreSQL outside a
 * transaction as one row of a multi-row INSERT shared with the inserts into the same table
 * that arrive with it (those queued before the event loop next checks for I/O, up to
 * MAX_ROWS). Each such insert would have been a statement and a commit of its own: with 20
 * rows per statement PostgreSQL inserts ~3.6× the rows per second (pgbench, this schema's
 * clients with their triggers), as a commit and a round trip cost more than a row.
 *
 * Every caller still gets what its own statement would have given. The statement is atomic
 * and committed before anyone is answered; when it fails for a row's sake (a data or
 * constraint error, class 22 or 23: nothing was written) each row is sent again alone, so the
 * row at fault fails with its own error and the others are written. Any other failure (the
 * connection lost, a timeout) fails every row of the batch, as it would have each of them.
 *
 * Inside a transaction, and on SQLite (whose group commit shares the commit already), the
 * row is inserted at once as by `insertReturning`.
 */
export function insertOne<T extends Table>(
  db: Db,
  table: T,
  values: Insertable<Database[T]>,
): Promise<Selectable<Database[T]>> {
  type Row = Selectable<Database[T]>;
  if (db.isTransaction || !isPostgres(db))
    return insertRows(db, table, [values as Values]).then((r) => r[0] as Row);
  return new Promise<Row>((resolve, reject) => {
    const key = db.getExecutor();
    let tables = queues.get(key);
    if (!tables) {
      tables = new Map();
      queues.set(key, tables);
    }
    let queue = tables.get(table);
    if (!queue) {
      queue = { db, table, items: [] };
      tables.set(table, queue);
    }
    queue.items.push({ values: values as Values, resolve: resolve as (row: Values) => void, reject });
    if (queue.items.length === 1) setImmediate(flush, queue);
  });
}

function flush(queue: Queue): void {
  const items = queue.items;
  queue.items = [];
  const columns = new Set(items.flatMap((i) => Object.keys(i.values))).size;
  const size = Math.max(1, Math.min(MAX_ROWS, Math.floor(MAX_PARAMS / Math.max(1, columns))));
  for (let i = 0; i < items.length; i += size) send(queue, items.slice(i, i + size));
}

function send(queue: Queue, chunk: Pending[]): void {
  if (chunk.length === 1) {
    alone(queue, chunk[0]!);
    return;
  }
  batchStats.statements++;
  batchStats.rows += chunk.length;
  insertRows(
    queue.db,
    queue.table,
    chunk.map((p) => p.values),
  ).then(
    (rows) => {
      // PostgreSQL returns the rows of a multi-row INSERT … RETURNING in the order of its
      // VALUES (it inserts them in that order and emits each as it goes; Django's bulk_create
      // relies on the same). A count that does not match is not answered with a guess.
      if (rows.length !== chunk.length) {
        const err = new Error(`batched insert into ${queue.table}: ${rows.length} rows for ${chunk.length}`);
        for (const p of chunk) p.reject(err);
        return;
      }
      for (const [i, p] of chunk.entries()) p.resolve(rows[i]!);
    },
    (err) => {
      if (rowsFault(err)) for (const p of chunk) alone(queue, p);
      else for (const p of chunk) p.reject(err);
    },
  );
}

function alone(queue: Queue, p: Pending): void {
  insertRows(queue.db, queue.table, [p.values]).then((rows) => p.resolve(rows[0]!), p.reject);
}

/** A data exception or an integrity violation: a row's own fault, and nothing was written. */
function rowsFault(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^2[23]/.test(code);
}

function insertRows(db: Db, table: Table, rows: Values[]): Promise<Values[]> {
  // biome-ignore lint/suspicious/noExplicitAny: the table is chosen at run time
  return (db as any).insertInto(table).values(rows).returningAll().execute();
}

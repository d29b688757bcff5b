import type { Transaction } from 'kysely';
import { connectionLost, sqlState } from './faults.js';
import { isPostgres } from './index.js';
import type { Database, Db } from './schema.js';
import { transact } from './transact.js';

/**
 * A kind of write that PostgreSQL may run for several requests at once (`batched`).
 * `together` must do for all inputs what `alone` does for one, atomically (one statement, or
 * a transaction of its own), and give the results in the order of the inputs.
 */
export interface BatchKind<I, O> {
  together(db: Db, inputs: I[]): Promise<O[]>;
  alone(db: Db, input: I): Promise<O>;
  /** How many of these inputs one run of `together` takes at most. */
  limit(inputs: readonly I[]): number;
  /**
   * Runs that commit (creates): while one is in flight the next waits for it — up to
   * `batchTiming.stallMs` — and takes everything that arrived meanwhile (`schedule`). Reads leave it out.
   */
  commits?: boolean;
}

interface Pending<I, O> {
  input: I;
  resolve(out: O): void;
  reject(err: unknown): void;
}

interface Queue<I, O> {
  db: Db;
  kind: BatchKind<I, O>;
  items: Pending<I, O>[];
  /** Runs sent and not answered yet. */
  running: number;
  /** A flush is set for the next turn of the event loop. */
  due: boolean;
  /** Set while items wait for a run in flight: lets them go without it once `batchTiming.stallMs` pass. */
  stall: NodeJS.Timeout | undefined;
}

/**
 * `stallMs`: how long creates wait for a run of their kind in flight before they go without
 * it. A run takes 1–5 ms under the benchmark's load; one held up (a lock, a slow disk) holds
 * the others up by this much at most, then they go alongside it. Tests change it.
 */
export const batchTiming = { stallMs: 20 };

// biome-ignore lint/suspicious/noExplicitAny: queues of every kind share one map
const queues = new WeakMap<object, Map<BatchKind<any, any>, Queue<any, any>>>();

/** Runs of `together` for more than one input so far, and their inputs (tests, diagnostics). */
export const batchStats = { batches: 0, items: 0 };

/** Whether `batched` would batch on this database: PostgreSQL, outside a transaction. */
export const batchable = (db: Db): boolean => !db.isTransaction && isPostgres(db);

/**
 * Group commit for PostgreSQL: the writes of one kind that arrive together (those queued
 * before the event loop next checks for I/O) run as one — one multi-row INSERT, or one
 * transaction of a few — instead of a statement and a commit each. A commit and a round trip
 * cost PostgreSQL more than a row: pgbench on this schema's clients (with their triggers)
 * inserts 8,722 rows/s one per statement, 31,000 rows/s twenty per statement.
 *
 * Every caller still gets what its own write would have given, once it is committed. When
 * PostgreSQL refuses a run (the statement or transaction then wrote nothing) each write runs
 * again `alone`, so the one at fault (a constraint, a bad value, a trigger that refuses it)
 * fails with its own error and the others are written. A run whose outcome is unknown (the
 * connection lost) or that failed for want of resources or time fails every write of it, as
 * it would have each of them (`worthAlone`). The caller checks `batchable(db)` first: inside
 * a transaction a write belongs to it.
 */
export function batched<I, O>(db: Db, kind: BatchKind<I, O>, input: I): Promise<O> {
  return new Promise<O>((resolve, reject) => {
    const key = db.getExecutor();
    let kinds = queues.get(key);
    if (!kinds) {
      kinds = new Map();
      queues.set(key, kinds);
    }
    let queue = kinds.get(kind) as Queue<I, O> | undefined;
    if (!queue) {
      queue = { db, kind, items: [], running: 0, due: false, stall: undefined };
      kinds.set(kind, queue);
    }
    queue.items.push({ input, resolve, reject });
    schedule(queue);
  });
}

/**
 * Sets the queue's next flush: on the next turn of the event loop — or, for creates
 * (`commits`) while one of their runs is in flight, when that run ends (`ended`). Then one
 * statement and one commit take all that arrived meanwhile, instead of one each as the event
 * loop turns. 50 concurrent invoice creates on PostgreSQL (bench/focus.ts, six runs each
 * alternating with the build before): PostgreSQL CPU per create 65–71 µs instead of 72–78 µs,
 * 8,116–9,129 creates a second instead of 7,821–8,939 (means 8,678 and 8,284: +5 %). A run in
 * flight longer than `batchTiming.stallMs` no longer holds them back.
 */
function schedule<I, O>(queue: Queue<I, O>, pastRunning = false): void {
  if (queue.due || queue.items.length === 0) return;
  if (!pastRunning && queue.kind.commits && queue.running > 0) {
    queue.stall ??= setTimeout(stalled, batchTiming.stallMs, queue);
    return;
  }
  queue.due = true;
  setImmediate(flush, queue);
}

function stalled<I, O>(queue: Queue<I, O>): void {
  queue.stall = undefined;
  schedule(queue, true);
}

/**
 * A run has ended: the creates that waited for it go now, in this turn (see `run`), the
 * others as `schedule` says. True when a run was started.
 */
function ended<I, O>(queue: Queue<I, O>): boolean {
  queue.running--;
  if (!queue.kind.commits || queue.running > 0 || queue.items.length === 0) {
    schedule(queue);
    return false;
  }
  flush(queue);
  return true;
}

function flush<I, O>(queue: Queue<I, O>): void {
  queue.due = false;
  clearTimeout(queue.stall);
  queue.stall = undefined;
  const items = queue.items;
  queue.items = [];
  const size = Math.max(1, queue.kind.limit(items.map((i) => i.input)));
  for (let i = 0; i < items.length; i += size) run(queue, items.slice(i, i + size));
}

function run<I, O>(queue: Queue<I, O>, chunk: Pending<I, O>[]): void {
  const { db, kind } = queue;
  queue.running++;
  if (chunk.length === 1) {
    alone(queue, chunk[0]!).then(() => ended(queue));
    return;
  }
  batchStats.batches++;
  batchStats.items += chunk.length;
  kind
    .together(
      db,
      chunk.map((p) => p.input),
    )
    .then(
      (outs) => {
        const settle = () => {
          if (outs.length !== chunk.length) {
            const err = new Error(`batched write: ${outs.length} results for ${chunk.length} inputs`);
            for (const p of chunk) p.reject(err);
            return;
          }
          for (const [i, p] of chunk.entries()) p.resolve(outs[i]!);
        };
        // The creates that waited go to the database before these are answered: answering
        // them (a response each, all in promise continuations) would otherwise hold back the
        // next statement's sending — pg-pool hands out its connection from a
        // process.nextTick, which waits for all continuations to drain — and leave PostgreSQL
        // idle meanwhile. Answered on the next turn, they are built while PostgreSQL runs the
        // next statement.
        if (ended(queue)) setImmediate(settle);
        else settle();
      },
      (err) => {
        ended(queue);
        if (worthAlone(err)) for (const p of chunk) alone(queue, p);
        else for (const p of chunk) p.reject(err);
      },
    );
}

/** Settles `p` by its write alone; fulfils once it is settled (resolve and reject do not throw). */
function alone<I, O>(queue: Queue<I, O>, p: Pending<I, O>): Promise<void> {
  return queue.kind.alone(queue.db, p.input).then(p.resolve, p.reject);
}

/**
 * Whether the writes of a failed run may each be tried alone: when PostgreSQL answered the
 * run with an error, it ended its statement or transaction with nothing written — a row's
 * own fault (a constraint, a bad value, a trigger that refuses it) then fails that row alone.
 * Not when the outcome is unknown (the connection lost, even during COMMIT: it may have been
 * written) nor when trying again would only add load or wait as long again (insufficient
 * resources 53, cancelled or shutting down 57, system errors 58 and XX).
 */
function worthAlone(err: unknown): boolean {
  if (connectionLost(err)) return false;
  const code = sqlState(err);
  return /^[0-9A-Z]{5}$/.test(code) && !/^(53|57|58|XX)/.test(code);
}

/** A kind of create that takes a transaction of its own: `write` one, `writeMany` several. */
export interface TransactionalKind<I, O> extends BatchKind<I, O> {
  write(trx: Transaction<Database>, input: I): Promise<O>;
}

export function transactionalKind<I, O>(
  write: (trx: Transaction<Database>, input: I) => Promise<O>,
  writeMany: (trx: Transaction<Database>, inputs: I[]) => Promise<O[]>,
): TransactionalKind<I, O> {
  return {
    write,
    together: (db, inputs) => transact(db, (trx) => writeMany(trx, inputs)),
    alone: (db, input) => transact(db, (trx) => write(trx, input)),
    limit: () => 100,
    commits: true,
  };
}

/**
 * `kind` with a one-statement form tried first (PostgreSQL creates, issue 15): `asOne` writes
 * the inputs in one statement, or answers undefined having written nothing (they do not fit
 * it), and then the transaction of `kind` writes them. Used for a batch and for one alone.
 */
export function oneStatementFirst<I, O>(
  kind: TransactionalKind<I, O>,
  asOne: (db: Db, inputs: readonly I[]) => Promise<O[] | undefined>,
): TransactionalKind<I, O> {
  return {
    ...kind,
    together: async (db, inputs) => (await asOne(db, inputs)) ?? kind.together(db, inputs),
    alone: async (db, input) => (await asOne(db, [input]))?.[0] ?? kind.alone(db, input),
  };
}

/**
 * A create whose checks read first (`check` answers what to write, or throws). On PostgreSQL
 * outside a transaction the checks read on the database — inside one they would lock nothing
 * either (READ COMMITTED), and foreign keys hold the references — and the write joins the
 * creates of its kind that arrive with it (`batched`). Elsewhere checks and write run in one
 * transaction, on SQLite a turn of its group commit.
 */
export function checkThenWrite<I, O>(
  db: Db,
  kind: TransactionalKind<I, O>,
  check: (db: Db) => Promise<I>,
): Promise<O> {
  if (batchable(db)) return check(db).then((input) => batched(db, kind, input));
  return transact(db, async (trx) => kind.write(trx, await check(trx)));
}

import type SQLite from 'better-sqlite3';
import type { ControlledTransaction, Kysely, Transaction } from 'kysely';
import type { Database, Db } from './schema.js';

/** A write's place in a batch: its savepoint is open in `trx` until it keeps or undoes it. */
export interface Turn {
  trx: Transaction<Database>;
  /** Keeps the work (releases the savepoint); resolves once the batch has committed it. */
  keep(): Promise<void>;
  /** Undoes the work alone (rolls back to the savepoint); the batch goes on without it. */
  undo(err: unknown): void;
}

interface Waiting {
  start(turn: Turn): void;
  fail(err: unknown): void;
}

interface Batch {
  trx: ControlledTransaction<Database>;
  startedAt: number;
  turns: number;
  kept: number;
  /** Set once SQLite has ended the transaction itself (SQLITE_FULL, SQLITE_IOERR…): all is lost. */
  lost?: { err: unknown };
  committed: Promise<void>;
  settle(err?: unknown): void;
}

export interface GroupLimits {
  /** Writes one commit takes at most; the rest wait for the next. */
  maxWrites: number;
  /** Past this age a batch takes no more writes, so that its first write is not kept waiting. */
  maxMs: number;
}

const DEFAULT_LIMITS: GroupLimits = { maxWrites: 500, maxMs: 25 };

const SAVEPOINT = 'group_commit';

/**
 * Group commit for SQLite. With `synchronous=FULL` every commit waits for the disk (an fsync
 * of the WAL), and a small write costs little else: so the writes that arrive together share
 * one transaction and one commit. Each runs in a savepoint of its own, one after another (a
 * savepoint is a stack: two writes interleaving across an await would release or undo each
 * other's work), so a write that fails is undone alone and the others go on.
 *
 * A write is answered only after the COMMIT that holds it: `keep()` resolves then, and
 * rejects if that commit fails — every write of the batch fails with it, none is answered
 * as done. A batch ends when no write is waiting once the event loop has taken in what
 * arrived meanwhile (one `setImmediate`), or at the limits above.
 *
 * The batch's transaction holds Kysely's one SQLite connection, as any transaction does: other
 * queries on the database wait for its commit, and reads never see its uncommitted rows.
 * Between processes (WORKERS=2, the worker, the CLI) SQLite's write lock and busy_timeout
 * decide as before: a batch begins IMMEDIATE like every transaction.
 */
export class GroupCommit {
  private readonly queue: Waiting[] = [];
  private draining = false;
  /** Batches begun so far (for tests and diagnostics). */
  batches = 0;
  private readonly savepoint: SQLite.Statement;
  private readonly release: SQLite.Statement;
  private readonly rollbackTo: SQLite.Statement;

  /** This group's own limits (a test may widen them). */
  readonly limits: GroupLimits;

  constructor(
    private readonly db: Db,
    private readonly sqlite: SQLite.Database,
    limits: Partial<GroupLimits> = {},
  ) {
    this.limits = { ...DEFAULT_LIMITS, ...limits };
    this.savepoint = sqlite.prepare(`savepoint ${SAVEPOINT}`);
    this.release = sqlite.prepare(`release ${SAVEPOINT}`);
    this.rollbackTo = sqlite.prepare(`rollback to ${SAVEPOINT}`);
  }

  /** Runs `fn` in a savepoint of the next batch; resolves with its result once committed. */
  async run<T>(fn: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
    const turn = await this.turn();
    let result: T;
    try {
      result = await fn(turn.trx);
    } catch (err) {
      turn.undo(err);
      throw err;
    }
    await turn.keep();
    return result;
  }

  /**
   * Waits for a place in a batch (in the caller's async context, which `fn` then runs in).
   * The caller must end it with `keep()` or `undo()`: until then no other write runs.
   */
  turn(): Promise<Turn> {
    return new Promise<Turn>((start, fail) => {
      this.queue.push({ start, fail });
      if (!this.draining) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.queue.length > 0) {
        let trx: ControlledTransaction<Database>;
        try {
          trx = await this.db.startTransaction().execute();
        } catch (err) {
          // BEGIN failed (the write lock stayed taken past busy_timeout, a read-only or full
          // database): so would every write waiting now.
          for (const w of this.queue.splice(0)) w.fail(err);
          break;
        }
        this.batches++;
        const batch = newBatch(trx);
        try {
          await this.fill(batch);
        } catch (err) {
          // Not expected; but a batch left open would hold the connection for good.
          batch.lost ??= { err };
        }
        await this.end(batch);
      }
    } finally {
      this.draining = false;
    }
  }

  /** Gives the batch's writes their turns, one after another. */
  private async fill(batch: Batch): Promise<void> {
    for (;;) {
      while (this.queue.length > 0 && !this.full(batch)) {
        const waiting = this.queue.shift()!;
        try {
          this.savepoint.run();
        } catch (err) {
          waiting.fail(err);
          if (!this.sqlite.inTransaction) batch.lost = { err };
          return;
        }
        batch.turns++;
        await new Promise<void>((done) => waiting.start(this.turnIn(batch, done)));
        if (batch.lost) return;
      }
      if (this.full(batch)) return;
      // Let the requests the event loop has taken in by now reach their write.
      await new Promise((resolve) => setImmediate(resolve));
      if (this.queue.length === 0) return;
    }
  }

  private full(batch: Batch): boolean {
    return batch.turns >= this.limits.maxWrites || Date.now() - batch.startedAt >= this.limits.maxMs;
  }

  private turnIn(batch: Batch, done: () => void): Turn {
    let ended = false;
    const end = () => {
      if (ended) throw new Error('group commit: a turn was ended twice');
      ended = true;
      done();
    };
    return {
      trx: batch.trx,
      keep: () => {
        try {
          this.release.run();
        } catch (err) {
          this.undoneBy(batch, err);
          end();
          return Promise.reject(err);
        }
        batch.kept++;
        end();
        return batch.committed;
      },
      undo: (err) => {
        this.undoneBy(batch, err);
        end();
      },
    };
  }

  /** Rolls back to the write's savepoint; if SQLite ended the whole transaction, the batch is lost. */
  private undoneBy(batch: Batch, err: unknown): void {
    if (!this.sqlite.inTransaction) {
      // The batch's other writes fail with the cause (a full disk is 507 for all of them).
      batch.lost = { err: err ?? new Error('SQLite ended the transaction of a group commit') };
      return;
    }
    try {
      this.rollbackTo.run();
      this.release.run();
    } catch (e) {
      batch.lost = { err: e };
    }
  }

  private async end(batch: Batch): Promise<void> {
    if (batch.lost || batch.kept === 0) {
      // Nothing to keep: no commit, no wait for the disk.
      await batch.trx
        .rollback()
        .execute()
        .catch(() => {});
      batch.settle(batch.lost?.err);
      return;
    }
    try {
      await batch.trx.commit().execute();
    } catch (err) {
      // Ends the transaction and frees the connection whatever the commit left behind.
      await batch.trx
        .rollback()
        .execute()
        .catch(() => {});
      batch.settle(err);
      return;
    }
    batch.settle();
  }
}

function newBatch(trx: ControlledTransaction<Database>): Batch {
  let settle!: (err?: unknown) => void;
  const committed = new Promise<void>((resolve, reject) => {
    settle = (err) => (err === undefined ? resolve() : reject(err));
  });
  // Writes that were undone never wait for the commit: its failure is theirs to ignore.
  committed.catch(() => {});
  return { trx, startedAt: Date.now(), turns: 0, kept: 0, committed, settle };
}

// biome-ignore lint/suspicious/noExplicitAny: keyed by any Kysely instance
const groups = new WeakMap<Kysely<any>, GroupCommit>();

/** Writes through `transact(db, …)` on this (SQLite) database are group-committed. */
export function registerGroupCommit(
  db: Db,
  sqlite: SQLite.Database,
  limits?: Partial<GroupLimits>,
): GroupCommit {
  const group = new GroupCommit(db, sqlite, limits);
  groups.set(db, group);
  return group;
}

/** `alias` (see db/transact.ts requestScoped) writes through the group of `of`. */
// biome-ignore lint/suspicious/noExplicitAny: any database schema
export function aliasGroupCommit(alias: Kysely<any>, of: Kysely<any>): void {
  const group = groups.get(of);
  if (group) groups.set(alias, group);
}

// biome-ignore lint/suspicious/noExplicitAny: any database schema
export const groupCommitOf = (db: Kysely<any>): GroupCommit | undefined => groups.get(db);

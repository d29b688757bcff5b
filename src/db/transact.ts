import { AsyncLocalStorage } from 'node:async_hooks';
import type { ControlledTransaction, Transaction } from 'kysely';
import { aliasGroupCommit, groupCommitOf } from './group-commit.js';
import { aliasSyncSqlite } from './prepared.js';
import type { Database, Db } from './schema.js';
export type RequestTransaction = ControlledTransaction<Database>;

/** The transaction a request runs in (idempotency.ts); `trx` is cleared once it has ended. */
export interface RequestScope {
  trx: RequestTransaction | undefined;
}

const scopes = new AsyncLocalStorage<RequestScope>();
const entered = new WeakSet<RequestScope>();
let open = 0;

/**
 * Runs `fn` (and everything it calls, however asynchronously) with `db` meaning `scope.trx`,
 * until `endScope(scope)`.
 *
 * While a scope is open Node tracks the context of every promise the process makes (async
 * hooks), which costs every request something; so the storage is switched off whenever no
 * scope is open. Contexts that outlive their scope hold an ended one, which means the database.
 */
export function runInScope<T>(scope: RequestScope, fn: () => T): T {
  if (!entered.has(scope)) {
    entered.add(scope);
    open++;
  }
  return scopes.run(scope, fn);
}

/** The scope's transaction has ended: from now on `db` in it is the database again. */
export function endScope(scope: RequestScope): void {
  scope.trx = undefined;
  if (!entered.delete(scope)) return;
  if (--open === 0) scopes.disable();
}

/** A transaction of a request's own (idempotency.ts), ended by `commit` or `rollback`, once. */
export interface OwnTransaction {
  trx: RequestTransaction;
  /** Resolves once the work is committed, on SQLite with the group it joined. */
  commit(): Promise<void>;
  /** `cause`: the error that made the request fail, if any (on SQLite it may fail a batch). */
  rollback(cause?: unknown): Promise<void>;
}

/**
 * Begins a transaction that a request holds across its hooks and handler. On SQLite it is a
 * turn in the next group commit (db/group-commit.ts): a savepoint of the batch's transaction,
 * no other write running until it ends; `commit` resolves after the batch's COMMIT.
 */
export async function beginOwnTransaction(db: Db): Promise<OwnTransaction> {
  let ended = false;
  const once = (fn: () => Promise<void>) => () => {
    if (ended) return Promise.resolve();
    ended = true;
    return fn();
  };
  const group = groupCommitOf(db);
  if (!group) {
    const trx = await db.startTransaction().execute();
    return {
      trx,
      // A failed COMMIT leaves the connection taken: the rollback that follows frees it.
      commit: async () => {
        if (ended) return;
        await trx.commit().execute();
        ended = true;
      },
      rollback: once(() => trx.rollback().execute()),
    };
  }
  const turn = await group.turn();
  return {
    // The batch's own transaction: savepoints nest in it; its COMMIT is the group's.
    trx: turn.trx as RequestTransaction,
    commit: once(() => turn.keep()),
    rollback: (cause?: unknown) => once(async () => turn.undo(cause))(),
  };
}

let savepoints = 0;

/**
 * The one way services open a transaction. On the database it begins one — on SQLite it joins
 * the next group commit (db/group-commit.ts): a savepoint in a transaction shared with the
 * writes that arrive with it, resolved once that has committed. Inside a
 * transaction already (a service called by another, or a request that runs in one, see
 * `requestScoped`) the work runs in a savepoint of it, so that a failure undoes only this
 * part, as a transaction of its own would have, and a caller that catches it can go on.
 */
export async function transact<T>(db: Db, fn: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  if (!db.isTransaction) {
    const group = groupCommitOf(db);
    return group ? group.run(fn) : db.transaction().execute(fn);
  }
  const outer = db as RequestTransaction;
  // A transaction handed out by Kysely's own `transaction().execute` has no savepoints.
  if (typeof outer.savepoint !== 'function') return fn(db as Transaction<Database>);
  savepoints = (savepoints + 1) % 1_000_000;
  const name = `sp${savepoints}`;
  const trx = await outer.savepoint(name).execute();
  let result: T;
  try {
    result = await fn(trx);
  } catch (err) {
    await trx.rollbackToSavepoint(name).execute();
    throw err;
  }
  await trx.releaseSavepoint(name).execute();
  return result;
}

/**
 * A write that is one statement (its triggers included): `transact` wherever that batches or
 * nests it — on SQLite a turn of the group commit, inside a transaction a savepoint — but on
 * PostgreSQL outside a transaction the statement alone, atomic as every statement is, without
 * a BEGIN and a COMMIT around it: one round trip instead of three. `fn` must run exactly one
 * statement; anything more belongs in `transact`.
 */
export function transactOne<T>(db: Db, fn: (trx: Db) => Promise<T>): Promise<T> {
  return db.isTransaction || groupCommitOf(db) ? transact(db, fn) : fn(db);
}

/**
 * The database handle the app hands to its routes: the database itself, except inside a
 * request that runs in a transaction of its own (an idempotent POST, see idempotency.ts),
 * where it is that transaction, so that everything the handler does — services, `prepared()`
 * reads, raw `sql` — commits or rolls back with the request's idempotency key. Nothing in
 * such a request can reach the database past its transaction, which on SQLite's one
 * connection would wait for that transaction to end, i.e. forever.
 */
export function requestScoped(root: Db): Db {
  // Kysely's methods use private fields: they must run on the real object, not the proxy.
  const bound = new Map<PropertyKey, unknown>();
  const proxy = new Proxy(root, {
    get(target, prop) {
      const trx = scopes.getStore()?.trx;
      if (trx) {
        // A `transact(db, fn)` that has not become `transact` yet: a savepoint.
        if (prop === 'transaction') return () => ({ execute: (fn: never) => transact(trx, fn) });
        const value = Reflect.get(trx, prop, trx);
        return typeof value === 'function' ? value.bind(trx) : value;
      }
      let fn = bound.get(prop);
      if (fn === undefined) {
        const value = Reflect.get(target, prop, target);
        if (typeof value !== 'function') return value;
        fn = value.bind(target);
        bound.set(prop, fn);
      }
      return fn;
    },
  });
  aliasSyncSqlite(proxy, root);
  aliasGroupCommit(proxy, root);
  return proxy;
}

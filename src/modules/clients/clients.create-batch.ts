import type { Insertable, Transaction } from 'kysely';
import type { Db } from '../../db/index.js';
import { checkThenWrite, transactionalKind } from '../../db/insert-batch.js';
import type { Database } from '../../db/schema.js';
import type { AuthContext } from '../../shared/tokens.js';
import type { ClientRow } from './clients.repository.js';
import * as repo from './clients.repository.js';
import type { ClientTable } from './clients.tables.js';

/** A create as the writes take it: who made it, for its `client:created` event. */
type NewClient = { auth: AuthContext; values: Insertable<ClientTable> };

/** Records `client:created` for a new client, in the create's transaction (the service's). */
type EmitCreated = (trx: Transaction<Database>, auth: AuthContext, row: ClientRow) => Promise<void>;

/**
 * The performance machinery of client creates, apart from the service: creates that arrive
 * together on PostgreSQL share a transaction (db/insert-batch.ts).
 */
export function clientCreates(emitCreated: EmitCreated) {
  /** New clients and their `client:created` events, in the caller's transaction. */
  async function insertCreated(trx: Transaction<Database>, made: readonly NewClient[]): Promise<ClientRow[]> {
    const rows = await repo.insertClients(
      trx,
      made.map((c) => c.values),
    );
    for (const [i, row] of rows.entries()) await emitCreated(trx, made[i]!.auth, row);
    return rows;
  }

  const CREATES = transactionalKind(
    async (trx, c: NewClient) => (await insertCreated(trx, [c]))[0]!,
    insertCreated,
  );

  return {
    /** A create with nothing to check first: batched on PostgreSQL outside a transaction. */
    unchecked: (db: Db, auth: AuthContext, values: NewClient['values']) =>
      checkThenWrite(db, CREATES, async () => ({ auth, values })),
    /** A create checked in `trx`, written in it. */
    write: (trx: Transaction<Database>, auth: AuthContext, values: NewClient['values']) =>
      CREATES.write(trx, { auth, values }),
  };
}

import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations work on the untyped schema
type AnyDb = Kysely<any>;

/**
 * A bank line that returns or reverses one of our direct debits (an R-transaction) carries the
 * bank's reason code (ISO 20022 `RtrInf/Rsn/Cd`: AC04, AM04, MD06, MS02 …), or `RVSL` for a
 * reversal without one. Null on every other line.
 */
export async function up(db: AnyDb): Promise<void> {
  await db.schema.alterTable('bank_transactions').addColumn('return_reason', 'text').execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.alterTable('bank_transactions').dropColumn('return_reason').execute();
}

import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations work on the untyped schema
type AnyDb = Kysely<any>;

/**
 * Mandate amendments (PATCH /sepa-mandates/{id}). `debtor_name` is the account holder as the
 * mandate names them (null: the client's name). The `original_*` columns hold what the debtor's
 * bank last saw, until the next direct debit file reports the amendment (`AmdmntInfDtls`) and
 * clears them: the reference before (`OrgnlMndtId`), the IBAN before (`OrgnlDbtrAcct`), and
 * `SMNDA` when the debtor moved to another bank (`OrgnlDbtrAgt`).
 */
export async function up(db: AnyDb): Promise<void> {
  for (const column of ['debtor_name', 'original_reference', 'original_iban', 'original_debtor_agent'])
    await db.schema.alterTable('sepa_mandates').addColumn(column, 'text').execute();
}

export async function down(db: AnyDb): Promise<void> {
  for (const column of ['original_debtor_agent', 'original_iban', 'original_reference', 'debtor_name'])
    await db.schema.alterTable('sepa_mandates').dropColumn(column).execute();
}

import { type Expression, type ExpressionBuilder, type SqlBool, sql } from 'kysely';

/**
 * Text as searches compare it: NFC, lower case, beyond ASCII ("Ärzte" finds "ÄRZTE").
 * The databases know it as the SQL function `fold(text)`: registered on every SQLite
 * connection (db/index.ts), created by migration 720 on PostgreSQL.
 */
export const fold = (s: string | null | undefined): string => (s ?? '').normalize('NFC').toLowerCase();

// biome-ignore lint/suspicious/noExplicitAny: usable from any table's query builder
type AnyEb = ExpressionBuilder<any, any>;

/**
 * Case-insensitive "contains" over several columns, identical on SQLite and PostgreSQL.
 * LIKE wildcards in the term are escaped, so `50%` finds "50%" and not everything.
 */
export function containsAny(eb: AnyEb, columns: string[], term: string): Expression<SqlBool> {
  const pattern = `%${fold(term).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return eb.or(columns.map((c) => sql<SqlBool>`fold(${sql.ref(c)}) like ${pattern} escape '\\'`));
}

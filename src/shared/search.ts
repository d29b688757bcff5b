import { type Expression, type ExpressionBuilder, type SqlBool, sql } from 'kysely';

/**
 * Case-insensitive "contains" over several columns, identical on SQLite and PostgreSQL.
 * LIKE wildcards in the term are escaped, so `50%` finds "50%" and not everything.
 */
// biome-ignore lint/suspicious/noExplicitAny: usable from any table's query builder
type AnyEb = ExpressionBuilder<any, any>;

export function containsAny(eb: AnyEb, columns: string[], term: string): Expression<SqlBool> {
  const pattern = `%${term.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return eb.or(columns.map((c) => sql<SqlBool>`lower(${sql.ref(c)}) like ${pattern} escape '\\'`));
}

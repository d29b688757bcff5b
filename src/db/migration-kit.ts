// Column types shared by the migrations. Migrations are frozen in time: this file imports no
// application code, and a change here must not alter what an already-applied migration meant.
import {
  type ColumnDefinitionBuilder,
  type CreateTableBuilder,
  type Kysely,
  PostgresAdapter,
  sql,
} from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations work on the untyped schema
export type AnyDb = Kysely<any>;

export function isPostgres(db: AnyDb): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/**
 * Conventions, identical on both databases as seen from the application:
 * - ids: auto-increment integers;
 * - timestamps: timestamptz on PostgreSQL, RFC 3339 UTC text on SQLite (read back as ISO strings);
 * - dates: date / 'YYYY-MM-DD' text;
 * - money: bigint minor units (cents);
 * - booleans: integer 0/1 on both (better-sqlite3 cannot bind JS booleans);
 * - JSON: text holding JSON.
 */
export function kit(db: AnyDb) {
  const pgsql = isPostgres(db);
  return {
    pg: pgsql,
    /** `id` primary key column. */
    id<T extends string>(t: CreateTableBuilder<T, never>) {
      return pgsql
        ? t.addColumn('id', 'serial', (c) => c.primaryKey())
        : t.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
    },
    ts: (pgsql ? 'timestamptz' : 'text') as 'text',
    date: (pgsql ? 'date' : 'text') as 'text',
    money: 'bigint' as const,
    /** Default for a timestamp column: now, in the format the application reads. */
    now: pgsql ? sql`now()` : sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`,
    fk(table: string, onDelete: 'cascade' | 'set null' | 'restrict' = 'restrict') {
      return (c: ColumnDefinitionBuilder) => c.references(`${table}.id`).onDelete(onDelete);
    },
  };
}

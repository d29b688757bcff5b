/**
 * Pieces shared by companies and contacts (the `contact-data:*` area): the external-identifier
 * rules and the indexed substring search.
 */
import { type Kysely, type RawBuilder, sql } from 'kysely';
import { type Static, Type } from 'typebox';
import { isPostgres } from '../../db/index.js';
import type { ErrorCode } from '../../shared/errors.js';
import { Nullable } from '../../shared/schemas.js';
import { fold } from '../../shared/search.js';

export const Text = (max = 255) => Nullable(Type.String({ maxLength: max }));

export const ExternalIdBody = Type.Object(
  {
    external_id: Nullable(Type.String({ minLength: 1, maxLength: 255 })),
    force: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          'Overwrite: replace a different value this record already has, and take the value over from another record that holds it (that record loses it).',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ExternalIdBody = Static<typeof ExternalIdBody>;

export const EXTERNAL_ID_DESCRIPTION = [
  'Sets `external_id` (`null` clears it). Setting the value the record already has changes nothing.',
  'Without `"force": true` it is refused with **409**: `external_id_set` when the record already has a different value (clearing counts as replacing),',
  '`external_id_taken` when another record of the same kind in the account holds the value.',
  'With `force` both are overwritten in one transaction: the other record loses its `external_id` (and an update event is recorded for it).',
].join(' ');

export type ExternalIdDecision =
  | { kind: 'unchanged' }
  | { kind: 'set'; clearHolder: boolean }
  | { kind: 'refused'; code: Extract<ErrorCode, 'external_id_set' | 'external_id_taken'> };

/**
 * The external-identifier rules as a pure function. `holderId` is the other record that
 * currently holds `requested` (undefined if none).
 */
export function decideExternalId(
  current: string | null,
  requested: string | null,
  holderId: number | undefined,
  force: boolean,
): ExternalIdDecision {
  if (current === requested) return { kind: 'unchanged' };
  if (current !== null && !force) return { kind: 'refused', code: 'external_id_set' };
  const clash = requested !== null && holderId !== undefined;
  if (clash && !force) return { kind: 'refused', code: 'external_id_taken' };
  return { kind: 'set', clearHolder: clash };
}

// biome-ignore lint/suspicious/noExplicitAny: works on any database type
type AnyKysely = Kysely<any>;

/**
 * Ids of the account's `table` rows whose folded `column` contains `term`, as a bare SELECT
 * (parenthesise it; bare so that it can be a UNION member on SQLite).
 * - PostgreSQL: LIKE with the wildcards escaped, answered by the pg_trgm GIN index.
 * - SQLite: an FTS5 phrase query on the trigram table. A phrase of trigrams matches exactly the
 *   rows that contain the term, and unlike LIKE/GLOB on the FTS table it needs no per-row
 *   re-check against the base table (10x faster for common terms). Terms shorter than a
 *   trigram have no index to use: they scan the account's rows (GLOB, wildcards escaped).
 */
export function idsContaining(
  db: AnyKysely,
  accountId: number,
  table: 'contacts' | 'companies',
  column: 'search_text' | 'search_name',
  term: string,
): RawBuilder<number> {
  const folded = fold(term);
  if (isPostgres(db)) {
    const pattern = `%${folded.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    return sql<number>`select id from ${sql.table(table)} where account_id = ${accountId} and ${sql.ref(column)} like ${pattern} escape '\\'`;
  }
  if ([...folded].length >= 3) {
    const phrase = `${column} : "${folded.replace(/"/g, '""')}"`;
    return sql<number>`select rowid from ${sql.table(`${table}_fts`)} where ${sql.table(`${table}_fts`)} match ${phrase}`;
  }
  const pattern = `*${folded.replace(/[*?[]/g, (c) => `[${c}]`)}*`;
  return sql<number>`select id from ${sql.table(table)} where account_id = ${accountId} and ${sql.ref(column)} glob ${pattern}`;
}

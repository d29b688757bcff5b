import { sql } from 'kysely';
import { type Db, isPostgres } from '../../db/index.js';
import type { SearchKind } from './search.domain.js';

export interface SearchRow {
  kind: SearchKind;
  id: number;
  title: string;
  snippet: string;
}

/**
 * The account's records of `kinds` holding every word as a word prefix, best first.
 * - SQLite: FTS5 over `search_docs` (bm25; the title weighs most, the spelled-out umlauts least).
 * - PostgreSQL: the GIN-indexed tsvector, ranked by ts_rank (title weight A). The words are
 *   folded by the same `search_fold` the index was built with.
 */
export async function searchDocs(
  db: Db,
  accountId: number,
  kinds: SearchKind[],
  words: string[],
  limit: number,
): Promise<SearchRow[]> {
  if (isPostgres(db)) {
    const { rows } = await sql<SearchRow>`
      with query as (
        select to_tsquery('simple', string_agg(search_fold(w) || ':*', ' & ')) as q
        from unnest(${words}::text[]) w
      )
      select d.kind, d.ref_id as id, d.title,
        ts_headline('simple', d.title || ' ' || d.body, query.q,
          'StartSel=<mark>, StopSel=</mark>, MaxWords=25, MinWords=10') as snippet
      from search_docs d, query
      where d.account_id = ${accountId} and d.kind = any(${kinds}::text[]) and d.tsv @@ query.q
      order by ts_rank(d.tsv, query.q) desc, d.id
      limit ${limit}`.execute(db);
    return rows.map((r) => ({ ...r, id: Number(r.id) }));
  }
  const match = words.map((w) => `"${w.replace(/"/g, '""')}"*`).join(' ');
  // Ranked first, snippets after: a snippet costs far more than a rank, and SQLite would
  // make one for every match before sorting (a common word matches thousands).
  const { rows } = await sql<SearchRow & { score: number }>`
    with best as (
      select search_fts.rowid as id, bm25(search_fts, 10.0, 1.0, 0.5) as score
      from search_fts join search_docs d on d.id = search_fts.rowid
      where search_fts match ${match} and d.account_id = ${accountId}
        and d.kind in (select value from json_each(${JSON.stringify(kinds)}))
      order by score, d.id
      limit ${limit}
    )
    select d.kind, d.ref_id as id, d.title, best.score,
      snippet(search_fts, -1, '<mark>', '</mark>', '…', 12) as snippet
    from best join search_fts on search_fts.rowid = best.id join search_docs d on d.id = best.id
    where search_fts match ${match}
    order by best.score, best.id`.execute(db);
  return rows.map(({ score: _, ...r }) => r);
}

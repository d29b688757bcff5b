import type { Db } from '../../db/index.js';
import { AppError } from '../../shared/errors.js';
import type { AuthContext } from '../../shared/tokens.js';
import { KIND_SCOPES, readableKinds, SEARCH_KINDS, searchWords } from './search.domain.js';
import { type SearchRow, searchDocs } from './search.repository.js';
import type { SearchQuery } from './search.schemas.js';

/**
 * One search across the kinds the token may read. Asking only for kinds it may not read is
 * refused (403) rather than answered empty, so that a missing scope is not mistaken for no hits.
 */
export async function search(db: Db, auth: AuthContext, q: SearchQuery): Promise<SearchRow[]> {
  const kinds = readableKinds(q.kinds, auth.scopes);
  if (!kinds.length) {
    const asked = q.kinds ? q.kinds.split(',') : SEARCH_KINDS;
    const required = [...new Set(asked.map((k) => KIND_SCOPES[k]).filter((s): s is string => Boolean(s)))];
    throw new AppError(
      'insufficient_scope',
      `The token may read none of the kinds searched: ${required.join(', ')}`,
      {
        extra: { required_scopes: required },
        headers: { 'www-authenticate': `Bearer error="insufficient_scope", scope="${required.join(' ')}"` },
      },
    );
  }
  const words = searchWords(q.q);
  if (!words.length) return [];
  return searchDocs(db, auth.accountId, kinds, words, q.limit ?? 20);
}

import { type Static, type TLiteral, Type } from 'typebox';
import { Id } from '../../shared/schemas.js';
import { SEARCH_KINDS, type SearchKind } from './search.domain.js';

const kindList = SEARCH_KINDS.join('|');

export const SearchQuery = Type.Object(
  {
    q: Type.String({
      minLength: 1,
      maxLength: 200,
      description:
        'Words to find, each as a prefix of a word in a name, number, e-mail, VAT id or text; case and diacritics are ignored (Müller = Muller; Mueller also finds Müller). Every word must match.',
    }),
    kinds: Type.Optional(
      Type.String({
        maxLength: 200,
        pattern: `^(${kindList})(,(${kindList}))*$`,
        description: `Comma-separated kinds to search (${SEARCH_KINDS.join(', ')}); default: every kind the token may read.`,
      }),
    ),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 50, default: 20, description: 'Most hits returned' }),
    ),
  },
  { additionalProperties: false },
);
export type SearchQuery = Static<typeof SearchQuery>;

export const SearchHit = Type.Object({
  kind: Type.Union(SEARCH_KINDS.map((k) => Type.Literal(k)) as unknown as [TLiteral<SearchKind>]),
  id: Id,
  title: Type.String(),
  snippet: Type.String({
    description: 'The matched text around the match, matches marked with <mark>…</mark>',
  }),
});
export type SearchHit = Static<typeof SearchHit>;

export const SearchResult = Type.Object({ data: Type.Array(SearchHit) });

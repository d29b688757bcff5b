/**
 * The kinds GET /search finds, each with the scope its own list needs (spec): projects are
 * listed to every token. Clients are searched over full data (e-mail, VAT id), so client:read.
 */
export const KIND_SCOPES: Record<string, string | null> = {
  client: 'client:read',
  contact: 'contact-data:read',
  company: 'contact-data:read',
  project: null,
  task: 'task-management:read',
  outgoing_invoice: 'outgoing-invoice:read',
  incoming_invoice: 'incoming-invoice:read',
  offer: 'offer:read',
};
export const SEARCH_KINDS = [
  'client',
  'contact',
  'company',
  'project',
  'task',
  'outgoing_invoice',
  'incoming_invoice',
  'offer',
] as const;
export type SearchKind = (typeof SEARCH_KINDS)[number];

/** The kinds asked for (all when none named) that a token holding `scopes` may read. */
export function readableKinds(requested: string | undefined, scopes: ReadonlySet<string>): SearchKind[] {
  const asked = requested ? new Set(requested.split(',')) : new Set<string>(SEARCH_KINDS);
  return SEARCH_KINDS.filter((k) => asked.has(k) && (KIND_SCOPES[k] === null || scopes.has(KIND_SCOPES[k]!)));
}

/**
 * The words of a search as the index holds them: split where the tokenizers split (anything
 * but letters and digits), lower case, diacritics dropped. At most 8 words.
 */
export function searchWords(q: string): string[] {
  return q
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .slice(0, 8);
}

import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SelectQueryBuilder } from 'kysely';

export interface PageParams {
  page?: number;
  per_page?: number;
}

export interface Page<T> {
  rows: T[];
  total: number;
  page: number;
  per_page: number;
}

export const DEFAULT_PER_PAGE = 50;
export const MAX_PER_PAGE = 100;

export function pageOf(q: PageParams): { page: number; per_page: number } {
  return { page: q.page ?? 1, per_page: Math.min(q.per_page ?? DEFAULT_PER_PAGE, MAX_PER_PAGE) };
}

/**
 * Runs a filtered, ordered query as one page plus the total count. The caller has already
 * applied tenant scoping, filters and ordering (ids ascending by convention).
 */
export async function paginate<DB, TB extends keyof DB, O>(
  qb: SelectQueryBuilder<DB, TB, O>,
  params: PageParams,
): Promise<Page<O>> {
  const { page, per_page } = pageOf(params);
  // biome-ignore lint/suspicious/noExplicitAny: the count query drops the typed selection
  const countQb = (qb as SelectQueryBuilder<any, any, any>)
    .clearSelect()
    .clearOrderBy()
    .select((eb) => eb.fn.countAll().as('total'));
  const [rows, count] = await Promise.all([
    qb
      .limit(per_page)
      .offset((page - 1) * per_page)
      .execute(),
    countQb.executeTakeFirst(),
  ]);
  return { rows, total: Number(count?.total ?? 0), page, per_page };
}

/** `{ data, meta }` plus an RFC 8288 Link header with first/prev/next/last. */
export function listResponse<T, R>(
  req: FastifyRequest,
  reply: FastifyReply,
  page: Page<T>,
  map: (row: T) => R,
) {
  const last = Math.max(1, Math.ceil(page.total / page.per_page));
  const url = new URL(req.url, 'http://x');
  const link = (p: number, rel: string) => {
    url.searchParams.set('page', String(p));
    url.searchParams.set('per_page', String(page.per_page));
    return `<${url.pathname}${url.search}>; rel="${rel}"`;
  };
  const links = [link(1, 'first')];
  if (page.page > 1) links.push(link(Math.min(page.page - 1, last), 'prev'));
  if (page.page < last) links.push(link(page.page + 1, 'next'));
  links.push(link(last, 'last'));
  reply.header('link', links.join(', '));
  return {
    data: page.rows.map(map),
    meta: { page: page.page, per_page: page.per_page, total: page.total },
  };
}

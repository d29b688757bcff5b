import { randomUUID } from 'node:crypto';
import createFetchClient, { type Client } from 'openapi-fetch';
import { ApiError, toApiError } from './errors.js';
import type { components, paths } from './schema.js';

export { ApiError, type FieldError, type Problem, toApiError } from './errors.js';
export type { components, operations, paths } from './schema.js';
export {
  verifyWebhook,
  WEBHOOK_EVENT_KINDS,
  type WebhookEvent,
  type WebhookEventKind,
  WebhookVerificationError,
} from './webhooks.js';

/** The schemas of the API by name: `Schemas['ClientFullData']`. */
export type Schemas = components['schemas'];

export interface ClientOptions {
  /** The service's address, e.g. `http://localhost:3000` (`/api/v1` is added unless given). */
  baseUrl: string;
  /** An access token, or a function returning a fresh one (OAuth). */
  token: string | (() => string | Promise<string>);
  /** Retries of a request that may be repeated safely (429, 503, 409 in progress, network errors). Default 2. */
  retries?: number;
  /** Another fetch (tests, proxies). */
  fetch?: (request: Request) => Promise<Response>;
}

/** One change of the change feed (`GET /changes`). */
export interface Change {
  cursor: string;
  resource: string;
  id: number;
  action: 'created' | 'updated' | 'archived' | 'restored' | 'deleted';
  changed_at: string;
  /** The resource as its GET returns it; absent for deletions. */
  data?: Record<string, unknown>;
}

type Get<P> = P extends { get: infer G } ? G : never;
type Json200<P> =
  Get<P> extends { responses: { 200: { content: { 'application/json': infer B } } } } ? B : never;
/** The paths whose GET answers a page of a list (`{ data: [...], meta }` with a Link header). */
export type ListPath = {
  [P in keyof paths]: Json200<paths[P]> extends { data: unknown[]; meta: unknown } ? P : never;
}[keyof paths];
export type ListItem<P extends ListPath> = Json200<paths[P]> extends { data: (infer I)[] } ? I : never;
type Params<P extends ListPath> = Get<paths[P]> extends { parameters: infer X } ? X : never;
export type ListParams<P extends ListPath> = {
  query?: Params<P> extends { query?: infer Q } ? Q : never;
  path?: Params<P> extends { path?: infer A } ? A : never;
};

/** A new Idempotency-Key: send the same one again to retry a POST without doing it twice. */
export const idempotencyKey = (): string => randomUUID();

const REPEATABLE = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The target of the `rel="next"` link of an RFC 8288 Link header, if any. */
export function nextLink(header: string | null): string | undefined {
  for (const part of header?.split(',') ?? []) {
    const m = /<([^>]*)>\s*;(.*)/.exec(part.trim());
    if (m && /(^|;)\s*rel="?([^";]* )?next( [^";]*)?"?\s*(;|$)/.test(m[2]!)) return m[1];
  }
  return undefined;
}

/**
 * A typed client of the API (openapi-fetch over the generated types): `api.GET('/clients/{id}',
 * { params: { path: { id } } })`. Every answer of 400 and above is thrown as an ApiError; every
 * POST carries an Idempotency-Key (a new one unless given), so that it and the safe methods can
 * be retried on 429, 503, a request still in progress and network errors, after Retry-After.
 */
export function createApiClient(options: ClientOptions) {
  const root = options.baseUrl.replace(/\/+$/, '');
  const baseUrl = root.endsWith('/api/v1') ? root : `${root}/api/v1`;
  const retries = options.retries ?? 2;
  const baseFetch = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const token = typeof options.token === 'function' ? options.token : () => options.token as string;

  async function send(request: Request): Promise<Response> {
    request.headers.set('authorization', `Bearer ${await token()}`);
    if (request.method === 'POST' && !request.headers.has('idempotency-key'))
      request.headers.set('idempotency-key', idempotencyKey());
    const repeatable = REPEATABLE.has(request.method) || request.headers.has('idempotency-key');
    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await baseFetch(request.clone());
      } catch (err) {
        if (!repeatable || attempt >= retries) throw err;
        await sleep(250 * 2 ** attempt);
        continue;
      }
      if (response.status < 400) return response;
      const error = await toApiError(response);
      if (!error.retryable || !repeatable || attempt >= retries) throw error;
      await sleep(error.retryAfter !== undefined ? error.retryAfter * 1000 : 250 * 2 ** attempt);
    }
  }

  const client: Client<paths> = createFetchClient<paths>({ baseUrl, fetch: send });

  /** GET of any address of the service (a Link target, say), with the same token, retries and errors. */
  async function getJson<T>(url: string): Promise<{ body: T; response: Response }> {
    const response = await send(
      new Request(new URL(url, `${baseUrl}/`), { headers: { accept: 'application/json' } }),
    );
    return { body: (await response.json()) as T, response };
  }

  /** Every item of a list, page by page, following the Link header's `next`. */
  async function* paginate<P extends ListPath>(
    path: P,
    params: ListParams<P> = {},
  ): AsyncGenerator<ListItem<P>> {
    // biome-ignore lint/suspicious/noExplicitAny: the path and its parameters are checked by the signature
    const first = await (client.GET as any)(path, { params });
    let page = first.data as { data: ListItem<P>[] };
    let link = nextLink(first.response.headers.get('link'));
    for (;;) {
      yield* page.data;
      if (!link) return;
      const next = await getJson<{ data: ListItem<P>[] }>(link);
      page = next.body;
      link = nextLink(next.response.headers.get('link'));
    }
  }

  /**
   * The change feed from `after` on (from the beginning without it), page by page until it is
   * caught up. Keep the `cursor` of the last change you processed and start from it next time.
   */
  async function* changes(opts: { after?: string; limit?: number } = {}): AsyncGenerator<Change> {
    let after = opts.after;
    for (;;) {
      const query = new URLSearchParams();
      if (after !== undefined) query.set('after', after);
      if (opts.limit !== undefined) query.set('limit', String(opts.limit));
      const { body } = await getJson<{ data: Change[]; meta: { next_cursor: string; has_more: boolean } }>(
        `changes${query.size ? `?${query}` : ''}`,
      );
      yield* body.data;
      if (!body.meta.has_more) return;
      after = body.meta.next_cursor;
    }
  }

  return Object.assign(client, { baseUrl, paginate, changes, getJson });
}

export type ApiClient = ReturnType<typeof createApiClient>;

/** The `data` of a successful answer (errors are thrown by the client already). */
export async function ok<T>(call: Promise<{ data?: T; response: Response }>): Promise<NonNullable<T>> {
  const { data, response } = await call;
  if (data === undefined || data === null) {
    throw new ApiError({
      type: 'about:blank',
      title: 'Empty answer',
      status: response.status,
      code: 'empty_body',
    });
  }
  return data as NonNullable<T>;
}

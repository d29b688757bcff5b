import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { dataVersion } from '../db/data-version.js';
import { addRouteHook } from './route-hooks.js';

/**
 * Lists answered again without reading them again, as long as nothing was written.
 *
 * A route opts in with `config: { pageCache: true }` (the lists of records, and the records
 * read by id, whose answer is a function of the database alone, for one token and URL). Before
 * its handler runs, the database's data version is read (db/data-version.ts: it changes with
 * every write of this process and every commit of another one), in the statement that reads
 * the auth epoch for the requests that arrived together where it can be (plugins/token-cache.ts). A page kept under that very version for the same
 * token, host and URL is sent as it was (body and `Link` header); otherwise the handler runs
 * and its answer is kept under the version read before it ran. The answer was read at that
 * version or later, and is only sent while the version is still the same, i.e. while no
 * write happened since: exactly what reading again would return. Any write, of any table,
 * lets every kept page go stale (by comparison, nothing is deleted then).
 *
 * On PostgreSQL the version is the snapshot read in the same statement as the auth epoch
 * (db/data-version.ts), i.e. after the request arrived and before its handler runs. It moves
 * with every commit on the whole server, so kept pages are only sent while the server is
 * quiet — never stale.
 *
 * Authentication, scopes, rate limits and the validation of the query run as before; only
 * 200 answers are kept. PAGE_CACHE_MB bounds the memory (least recently used pages go first);
 * 0 turns it off.
 */
interface Kept {
  version: string;
  body: string;
  link: string | undefined;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    pageCache?: boolean;
  }
}

const pending = new WeakMap<FastifyRequest, { key: string; version: string }>();

export interface PageCacheStats {
  /** Answers sent from kept pages. */
  hits: number;
  /** Answers kept. */
  stored: number;
  pages: number;
  bytes: number;
}
const statsOf = new WeakMap<FastifyInstance, () => PageCacheStats>();

/** What an app's page cache did (tests, benchmarks); undefined when it has none. */
export const pageCacheStats = (app: FastifyInstance): PageCacheStats | undefined => statsOf.get(app)?.();

export const pageCachePlugin = fp(
  async (app, opts: { maxBytes: number }) => {
    if (opts.maxBytes <= 0) return;
    const kept = new Map<string, Kept>();
    const stats = { hits: 0, stored: 0, bytes: 0 };
    statsOf.set(app, () => ({ ...stats, pages: kept.size }));

    // A page's size counted as its characters; one page takes at most a quarter of the room.
    const keep = (key: string, page: Kept) => {
      const old = kept.get(key);
      if (old) stats.bytes -= old.body.length;
      kept.delete(key);
      if (page.body.length <= opts.maxBytes / 4) {
        kept.set(key, page);
        stats.bytes += page.body.length;
        stats.stored++;
      }
      for (const [k, v] of kept) {
        if (stats.bytes <= opts.maxBytes) break;
        kept.delete(k);
        stats.bytes -= v.body.length;
      }
    };

    function lookup(req: FastifyRequest, reply: FastifyReply, done: () => void): void {
      // PostgreSQL's was read with the auth epoch, after the request arrived (plugins/auth.ts).
      const version = req.dataVersion ?? dataVersion(app.db);
      if (version === undefined || !req.auth) {
        done();
        return;
      }
      const key = `${req.auth.tokenId} ${req.headers.host ?? ''} ${req.url}`;
      const hit = kept.get(key);
      if (hit?.version === version) {
        // Most recently used: last in the map's order.
        kept.delete(key);
        kept.set(key, hit);
        stats.hits++;
        if (hit.link !== undefined) reply.header('link', hit.link);
        reply.type('application/json; charset=utf-8').send(hit.body);
        return;
      }
      pending.set(req, { key, version });
      done();
    }

    function store(req: FastifyRequest, reply: FastifyReply, payload: unknown, done: () => void): void {
      const p = pending.get(req);
      if (p && reply.statusCode === 200 && typeof payload === 'string') {
        const link = reply.getHeader('link');
        keep(p.key, { version: p.version, body: payload, link: typeof link === 'string' ? link : undefined });
      }
      done();
    }

    app.addHook('onRoute', (route: RouteOptions) => {
      if (!route.config?.pageCache || ![route.method].flat().includes('GET')) return;
      addRouteHook(route, 'preHandler', lookup, 'last');
      addRouteHook(route, 'onSend', store, 'last');
    });
  },
  { name: 'page-cache' },
);

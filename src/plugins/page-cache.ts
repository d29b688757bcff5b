import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { dataVersion, versionsOf } from '../db/data-version.js';
import { addRouteHook } from './route-hooks.js';

/**
 * Lists and records answered again without reading them again, while the tables they read
 * are unchanged.
 *
 * A route opts in with `config: { pageCache: [tables] }`, naming every table its answer reads
 * (the lists of records, and the records read by id, whose answer is a function of those
 * tables alone, for one token and URL; test/page-cache-tables.test.ts runs every such route
 * with each of its query parameters and fails on a table read but not named). Before its
 * handler runs, the versions of the watched tables are read (db/data-version.ts: counters
 * bumped by triggers inside every transaction that writes a table, so they move with every
 * commit of any process), in the statement that reads the auth epoch for the requests that
 * arrived together where it can be (plugins/token-cache.ts). A page kept under the very
 * versions of its tables for the same token, host and URL is sent as it was (body and `Link`
 * header); otherwise the handler runs and its answer is kept under the versions read before
 * it ran. The answer was read at those versions or later, and is only sent while they are
 * still the same, i.e. while nothing was committed to those tables since: exactly what reading
 * again would return. A write to tasks leaves a kept clients list as it is; a write to clients
 * lets it go stale (by comparison, nothing is deleted then). Tables kept in step by the
 * triggers of another table (`list_counts`, search indexes) change only with that table.
 *
 * Authentication, scopes, rate limits and the validation of the query run as before; only
 * 200 answers are kept; inside a transaction nothing is kept or sent. PAGE_CACHE_MB bounds
 * the memory (least recently used pages go first); 0 turns it off.
 */
interface Kept {
  version: string;
  body: string;
  link: string | undefined;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Keep this GET's answers while these tables (every table the answer reads) are unchanged. */
    pageCache?: readonly string[];
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
const routesOf = new WeakMap<FastifyInstance, RouteOptions[]>();

/** The routes that keep pages (tests). */
export const pageCacheRoutes = (app: FastifyInstance): RouteOptions[] => routesOf.get(app) ?? [];

/** What an app's page cache did (tests, benchmarks); undefined when it has none. */
export const pageCacheStats = (app: FastifyInstance): PageCacheStats | undefined => statsOf.get(app)?.();

export const pageCachePlugin = fp(
  async (app, opts: { maxBytes: number }) => {
    const routes: RouteOptions[] = [];
    routesOf.set(app, routes);
    app.addHook('onRoute', (route: RouteOptions) => {
      if (route.config?.pageCache && [route.method].flat().includes('GET')) routes.push(route);
    });
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

    const lookupFor =
      (tables: readonly string[]) => (req: FastifyRequest, reply: FastifyReply, done: () => void) => {
        // Read with the auth epoch, after the request arrived (plugins/auth.ts); on SQLite
        // alone when the epoch read carried none.
        const read = req.dataVersion ?? dataVersion(app.db);
        const version = read ? versionsOf(read, tables) : undefined;
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
      };

    function store(req: FastifyRequest, reply: FastifyReply, payload: unknown, done: () => void): void {
      const p = pending.get(req);
      if (p && reply.statusCode === 200 && typeof payload === 'string') {
        const link = reply.getHeader('link');
        keep(p.key, { version: p.version, body: payload, link: typeof link === 'string' ? link : undefined });
      }
      done();
    }

    app.addHook('onRoute', (route: RouteOptions) => {
      const tables = route.config?.pageCache;
      if (!tables || ![route.method].flat().includes('GET')) return;
      addRouteHook(route, 'preHandler', lookupFor(tables), 'last');
      addRouteHook(route, 'onSend', store, 'last');
    });
  },
  { name: 'page-cache' },
);

import type { Config } from './config.js';
import type { Db, DbKind } from './db/index.js';
import type { AuthContext } from './plugins/auth.js';

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    db: Db;
    dbKind: DbKind;
    /** Every API route (method, url) as registered: the OpenAPI coverage test reads it. */
    apiRoutes: readonly { method: string; url: string }[];
  }
  interface FastifyRequest {
    /** Set by the auth plugin on every non-public route. */
    auth: AuthContext;
    /**
     * PostgreSQL: the data version read with the auth epoch after the request arrived
     * (db/data-version.ts), when its token was checked from memory; for the page cache.
     */
    dataVersion: string | undefined;
  }
  interface FastifyContextConfig {
    /**
     * Scopes the token must hold, all of them. `[]` means "none": any valid token.
     * Every API route declares this (the app refuses to start otherwise) unless `public`.
     */
    scopes?: readonly string[];
    /** No token needed (OpenAPI document, OAuth token endpoint). */
    public?: boolean;
    /**
     * Counted against the caller's request budget though outside the API (rate-limit.ts): the
     * OAuth endpoints, where a caller has no API token yet and so counts per client address.
     */
    rateLimited?: boolean;
  }
}

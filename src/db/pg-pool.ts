import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import pg from 'pg';
import pino from 'pino';
import type { DbConfig } from '../config.js';
import { connectionLost } from './faults.js';
import { pgArrayLiteral } from './pg-array.js';

export interface DbLogger {
  warn(obj: object, msg?: string): void;
}

/**
 * Limits of a PostgreSQL connection. Defaults below; each may be set in DATABASE_URL's query
 * string under its libpq / node-postgres name (`?statement_timeout=60000&connect_timeout=5`).
 */
export interface PgTimeouts {
  /** Connecting, and waiting for a free connection of the pool (`connect_timeout`, seconds in the URL). */
  connectMs: number;
  /** Server-side limit of one statement (`statement_timeout`); 0: none. */
  statementMs: number;
  /**
   * Client-side limit of one query (`query_timeout`): when the server cannot answer at all
   * (a network partition), where the statement timeout never fires. Default: a little past
   * the statement timeout, so the server cancels a slow statement first.
   */
  queryMs: number;
  /** A session idle inside a transaction this long is ended by the server, freeing its locks. */
  idleInTransactionMs: number;
}

const DEFAULTS = { connectMs: 3000, statementMs: 30_000, idleInTransactionMs: 60_000 };

export function pgTimeouts(url: string): PgTimeouts {
  let params: URLSearchParams;
  try {
    params = new URL(url).searchParams;
  } catch {
    params = new URLSearchParams();
  }
  const read = (name: string, unit: string, dflt: number): number => {
    const v = params.get(name);
    if (v === null || v === '') return dflt;
    if (!/^\d+$/.test(v))
      throw new Error(`DATABASE_URL: ${name} must be a whole number of ${unit}, got "${v}"`);
    return Number(v);
  };
  const statementMs = read('statement_timeout', 'milliseconds', DEFAULTS.statementMs);
  return {
    connectMs: read('connect_timeout', 'seconds', DEFAULTS.connectMs / 1000) * 1000,
    statementMs,
    queryMs: read('query_timeout', 'milliseconds', statementMs > 0 ? statementMs + 5000 : 0),
    idleInTransactionMs: read(
      'idle_in_transaction_session_timeout',
      'milliseconds',
      DEFAULTS.idleInTransactionMs,
    ),
  };
}

/**
 * Connections per process (`pool_max` in DATABASE_URL's query string). Each request holds one
 * for a round trip at a time; writes hold theirs through COMMIT, whose flush to disk
 * PostgreSQL shares among the commits waiting for it — so more connections in flight mean
 * more commits per flush. Mind `max_connections` on the server: processes × pool_max.
 */
export function pgPoolSize(url: string): number {
  let v: string | null = null;
  try {
    v = new URL(url).searchParams.get('pool_max');
  } catch {}
  if (v === null || v === '') return DEFAULT_POOL_MAX;
  if (!/^\d+$/.test(v) || Number(v) < 1)
    throw new Error(`DATABASE_URL: pool_max must be a whole number of connections, got "${v}"`);
  return Number(v);
}

const DEFAULT_POOL_MAX = 10;

type PgConfig = Extract<DbConfig, { kind: 'postgres' }>;

/**
 * The pg pool as Kysely sees it, made to outlive the database: a connection that is lost
 * (server restarted, backend terminated, network reset) is logged and replaced instead of
 * crashing the process with an unhandled 'error' event; every wait has a limit (connecting,
 * statements, a partitioned network), so a request fails fast with a connection error —
 * which plugins/errors.ts answers as 503 — and the next one gets a fresh connection.
 */
export class ResilientPool implements PostgresPool {
  private readonly pool: pg.Pool;
  private readonly guarded = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  private logger: DbLogger | undefined;

  constructor(config: PgConfig, log?: DbLogger) {
    this.logger = log;
    const t = pgTimeouts(config.url);
    this.pool = new pg.Pool({
      connectionString: config.url,
      max: pgPoolSize(config.url),
      ...(config.schema ? { options: `-c search_path=${config.schema}` } : {}),
      connectionTimeoutMillis: t.connectMs,
      // A dead peer is noticed on an idle connection too, not only when a query waits on it.
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      ...(t.statementMs ? { statement_timeout: t.statementMs } : {}),
      ...(t.queryMs ? { query_timeout: t.queryMs } : {}),
      ...(t.idleInTransactionMs ? { idle_in_transaction_session_timeout: t.idleInTransactionMs } : {}),
    });
    // pg emits 'error' on a client whose connection breaks, checked out or idle; without a
    // listener that ends the process. The pool drops idle ones itself, and passes the error
    // on to its own 'error' event, logged here already.
    this.pool.on('connect', (client) => {
      client.on('error', (err) => this.log().warn({ err }, 'database connection lost'));
    });
    this.pool.on('error', () => {});
  }

  private log(): DbLogger {
    this.logger ??= pino({ name: 'db', level: 'warn' });
    return this.logger;
  }

  async connect(): Promise<PostgresPoolClient> {
    const client = await this.pool.connect();
    let wrapped = this.guarded.get(client);
    if (!wrapped) {
      wrapped = guard(client);
      this.guarded.set(client, wrapped);
    }
    return wrapped;
  }

  end(): Promise<void> {
    return this.pool.end();
  }
}

/**
 * A client that, once its connection is lost or a query timed out on it (its state is then
 * unknown: the server may still answer that query), answers every further query — Kysely's
 * rollback — with the error that broke it, so the real cause is what surfaces, and goes back
 * to the pool as broken, which closes it.
 */
function guard(client: pg.PoolClient): PostgresPoolClient {
  let broken: Error | undefined;
  return {
    async query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>> {
      if (broken) throw broken;
      try {
        // Without parameters (begin, commit, savepoints) a simple query: one message, and
        // nothing kept on the server for texts that differ by a savepoint's name.
        const name = parameters.length ? statementName(sql) : undefined;
        const values = encoded(parameters);
        const result = name
          ? await client.query({ name, text: sql, values })
          : await client.query(sql, values);
        return result as unknown as PostgresQueryResult<R>;
      } catch (err) {
        if (connectionLost(err)) broken = err as Error;
        throw err;
      }
    },
    release() {
      client.release(broken);
    },
  } as PostgresPoolClient;
}

/**
 * The parameters as `pg` is to send them, each array as its literal (db/pg-array.ts) — the
 * one-statement creates' columns, the batched reads' keys — unless it holds values only `pg`
 * can encode.
 */
function encoded(parameters: ReadonlyArray<unknown>): unknown[] {
  if (!parameters.some(Array.isArray)) return parameters as unknown[];
  return parameters.map((p) => (Array.isArray(p) ? (pgArrayLiteral(p) ?? p) : p));
}

/**
 * Statements the service runs again and again (a read by id, an insert of a given shape, the
 * auth epoch) become named prepared statements: each connection parses and plans one once,
 * and afterwards sends only its parameters — less work for the server and fewer bytes per
 * round trip. A statement is named from its second run on, and only the first `MAX_NAMED`
 * texts are: Kysely spells a query anew for each length of an `in (…)` list, and each named
 * statement stays prepared on every connection for the connection's life.
 */
const MAX_NAMED = 500;
const MAX_SEEN = 5000;
const named = new Map<string, string>();
const seen = new Set<string>();

function statementName(sql: string): string | undefined {
  const name = named.get(sql);
  if (name !== undefined || named.size >= MAX_NAMED) return name;
  if (!seen.has(sql)) {
    if (seen.size >= MAX_SEEN) seen.clear();
    seen.add(sql);
    return undefined;
  }
  seen.delete(sql);
  const fresh = `s${named.size + 1}`;
  named.set(sql, fresh);
  return fresh;
}
